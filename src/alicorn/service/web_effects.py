"""The run page's "resolve" form: a person says whether an effect whose outcome is unknown happened.

A run blocks when an effect may or may not have happened (its process died between doing it and journaling the
result, and the operation cannot be asked). Only a person who checked the target system can say. The form posts
applied or not applied, the output when applied (JSON, as the operation returns it) and a note saying how they
know; it needs the session's CSRF token and the approver role, and it calls `control.resolve_effect`, the same
function as `POST /api/v1/runs/{run}/effects/{node}/resolve`, so both check and journal the same way and a refusal
changes nothing. The run then goes on in a worker, never in the request.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import FastAPI, Form, Request
from fastapi.responses import RedirectResponse, Response

from alicorn.service.auth import Authenticator
from alicorn.service.pages import PageError, Pages
from alicorn.service.problems import Problem

#: The most characters of an output the form takes (an operation's output is a small JSON object).
OUTPUT_LIMIT = 8000
OUTCOMES = ("applied", "not-applied")


def add_effect_routes(api: FastAPI, pages: Pages, actions: Any) -> None:
    """The resolve form's route on `api`, over `actions` (alicorn.service.actions.Actions)."""
    from alicorn.service.control import resolve_effect

    @api.post("/runs/{run_id}/effects/{node}/resolve", include_in_schema=False)
    def resolve(
        request: Request,
        run_id: str,
        node: str,
        outcome: Annotated[str, Form(max_length=20)] = "",
        output: Annotated[str, Form(max_length=OUTPUT_LIMIT)] = "",
        note: Annotated[str, Form(max_length=500)] = "",
        csrf: Annotated[str | None, Form()] = None,
    ) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        try:
            Authenticator.allow(pages.caller(session, person), "approver", "write", "resolve an effect")
            if outcome not in OUTCOMES:
                raise PageError(422, "say whether the effect happened (applied or not applied); nothing was done")
            applied = outcome == "applied"
            given = _output(output) if applied else None
            resolve_effect(actions, run_id, node, applied=applied, by=person.id, output=given, note=note)
        except Problem as exc:
            raise PageError(exc.status, exc.detail) from None
        return RedirectResponse(f"/runs/{run_id}", status_code=303)


def _output(text: str) -> dict[str, Any] | None:
    """The output field as a JSON object (empty: none given); a page saying what is wrong otherwise."""
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PageError(422, f"the output is not JSON ({exc.msg} at character {exc.pos}); nothing was done") from None
    if not isinstance(value, dict):
        raise PageError(422, "the output must be a JSON object, as the operation returns it; nothing was done")
    return value
