"""Passkeys in the service: the Passkeys page (register one; an admin says whether approving needs one), the JSON
steps the page's script (static/passkeys.js) calls, and the API's approval challenge.

The browser steps need the signed-in session and its CSRF token (in the `X-CSRF-Token` header); their refusals are
problem details the script shows as they are. An approval's assertion is checked where the approval is
(`proof_for_page` in the inbox's approve form, `proof_for_api` in `POST /api/v1/proposals/{run}/approve`), after
who may approve and which plan hash, before anything is journaled. The relying party is the host name the page was
served on (WebAuthn needs a secure context: https, or http://localhost), and a passkey answers only there.
"""

import json
import weakref
from functools import cache
from types import MappingProxyType
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Form, Header, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from alicorn.anvil.people import a_role
from alicorn.i18n import tr
from alicorn.runtime.state import RunState, fold
from alicorn.service.auth import Caller
from alicorn.service.pages import PageError, Pages, language_of
from alicorn.service.passkeys import PasskeyRefused, Passkeys
from alicorn.service.problems import Problem
from alicorn.service.sessions import COOKIE

API = "/api/v1"
_BY_SERVICE: weakref.WeakKeyDictionary[Any, Passkeys] = weakref.WeakKeyDictionary()
#: The most characters of a passkey answer a form may carry (an assertion is well under 4 KiB).
ASSERTION_LIMIT = 16_000


def passkeys_of(service: Any) -> Passkeys:
    """The one `Passkeys` of `service` (alicorn.service.app.Service): its pending challenges are shared by the
    page and the API."""
    found = _BY_SERVICE.get(service)
    if found is None:
        found = _BY_SERVICE[service] = Passkeys(service.app.store, service.clock)
    return found


class ApprovalChallenge(BaseModel):
    """Ask for the challenge that binds your approval of a run's current plan with this comment."""

    model_config = ConfigDict(extra="forbid")
    run: Annotated[str, Field(min_length=1, max_length=200)]
    plan_hash: Annotated[str, Field(min_length=1, max_length=200)]
    comment: Annotated[str, Field(max_length=4000)] = ""


class Registering(BaseModel):
    model_config = ConfigDict(extra="forbid")
    credential: dict[str, Any]
    name: Annotated[str, Field(max_length=80)] = ""


@cache
def passkey_words(lang: str) -> MappingProxyType[str, str]:
    """The Passkeys page's words in `lang`."""
    return MappingProxyType(
        {
            "passkeys": tr(lang, "Passkeys"),
            "intro": tr(
                lang,
                "A passkey signs the exact plan you approve: the run, its plan hash, goal hash and terms, with a "
                "one-time number from this service.",
            ),
            "yours": tr(lang, "Your passkeys"),
            "none": tr(lang, "You have no passkey yet."),
            "label": tr(lang, "Name of the new passkey"),
            "register": tr(lang, "Register a passkey"),
            "registered": tr(lang, "Registered"),
            "uses": tr(lang, "Signature count"),
            "rule": tr(lang, "Approvals in this home"),
            "required": tr(lang, "Approving needs a passkey."),
            "optional": tr(lang, "Approving does not need a passkey."),
            "require": tr(lang, "Require a passkey to approve"),
            "unrequire": tr(lang, "Stop requiring a passkey"),
            "needs_js": tr(lang, "Registering a passkey needs JavaScript and a browser with WebAuthn."),
        }
    )


def _origin(request: Request) -> tuple[str, str]:
    """The relying party id (the host name) and the origin the page was served on."""
    host = request.url.hostname or ""
    return host, f"{request.url.scheme}://{request.url.netloc}"


def _problem(exc: PasskeyRefused) -> Problem:
    return Problem(exc.status, exc.code, exc.sentence)


def _waiting(service: Any, run_id: str) -> RunState:
    state = fold(service.run_events(run_id), run_id)
    if state.status != "awaiting_approval":
        raise Problem(
            409,
            "not-awaiting-approval",
            f"run {run_id} is {state.status}, not waiting for an approval; nothing was done",
        )
    return state


def _options(service: Any, person: str, body: ApprovalChallenge) -> dict[str, Any]:
    state = _waiting(service, body.run)
    if body.plan_hash != state.plan_hash:
        raise Problem(
            409, "stale-plan-hash",
            f"plan hash {body.plan_hash[:24]} is not run {body.run}'s current plan, which is {state.plan_hash}: look "
            "at that plan and approve its hash; nothing was done",
            current_plan_hash=state.plan_hash,
        )  # fmt: skip
    passkeys = passkeys_of(service)
    options = passkeys.approval_options(person, state, body.comment)
    return {"options": options, "required": passkeys.current().required}


def proof_for_page(service: Any, person: str, state: RunState, note: str, answer: str | None) -> dict[str, Any] | None:
    """The inbox form's passkey answer (JSON text, or nothing) checked for `person`'s approval; PageError when
    refused (nothing journaled)."""
    try:
        assertion = _parse(answer) if answer and answer.strip() else None
        return passkeys_of(service).approval_proof(person, state, note, assertion)
    except PasskeyRefused as exc:
        raise PageError(exc.status, exc.sentence) from None


def proof_for_api(
    service: Any, person: str, state: RunState, note: str, assertion: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The API's passkey assertion checked for `person`'s approval; Problem when refused (nothing journaled)."""
    try:
        return passkeys_of(service).approval_proof(person, state, note, assertion)
    except PasskeyRefused as exc:
        raise _problem(exc) from None


def _parse(answer: str) -> dict[str, Any]:
    try:
        found = json.loads(answer[:ASSERTION_LIMIT])
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise PasskeyRefused(422, "malformed-passkey", "the passkey answer is not JSON; sign again; nothing was done")
    return found


def install(api: FastAPI, service: Any, pages: Pages) -> Passkeys:
    """The Passkeys page and its steps on `api`, and the API's routes (a bearer token, as every API route)."""
    passkeys = passkeys_of(service)

    def signed_in(authorization: Annotated[str | None, Header()] = None) -> Caller:
        caller: Caller = service.auth.caller(authorization)
        return caller

    def signed_json(request: Request, csrf: str | None) -> Any:
        found = pages.sessions.read(request.cookies.get(COOKIE))
        if found is None:
            raise Problem(401, "not-signed-in", "this needs a signed-in session; sign in again and reload the page")
        if not pages.sessions.csrf_ok(found[0], csrf):
            raise Problem(
                403, "csrf", "this request came without this session's security token (CSRF); reload the page"
            )
        return found[1]

    Csrf = Annotated[str | None, Header(alias="X-CSRF-Token")]

    @api.get("/passkeys", include_in_schema=False, response_class=HTMLResponse)
    def page(request: Request) -> Response:
        signed = pages.signed(request)
        found = passkeys.current()
        return pages.render(
            request, "passkeys.html", signed=signed, pw=passkey_words(language_of(request)),
            mine=found.of(signed[1].id), required=found.required, required_by=found.required_by,
        )  # fmt: skip

    @api.post("/passkeys/register/options", include_in_schema=False)
    def register_options(request: Request, csrf: Csrf = None) -> dict[str, Any]:
        person = signed_json(request, csrf)
        rp_id, origin = _origin(request)
        return passkeys.registration_options(person.id, rp_id, origin)

    @api.post("/passkeys/register", include_in_schema=False, status_code=201)
    def register(request: Request, body: Registering, csrf: Csrf = None) -> dict[str, Any]:
        person = signed_json(request, csrf)
        try:
            made = passkeys.register(person.id, body.credential, body.name)
        except PasskeyRefused as exc:
            raise _problem(exc) from None
        return {"credential_id": made.id, "sign_count": made.sign_count}

    @api.post("/passkeys/approval-options", include_in_schema=False)
    def approval_options(request: Request, body: ApprovalChallenge, csrf: Csrf = None) -> dict[str, Any]:
        person = signed_json(request, csrf)
        return _options(service, person.id, body)

    @api.post("/passkeys/required", include_in_schema=False)
    def set_required(
        request: Request, required: Annotated[str, Form(max_length=8)] = "", csrf: Annotated[str | None, Form()] = None
    ) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        if person.role != "admin":
            raise PageError(
                403, f"{person.id} is {a_role(person.role)}; only an admin sets the home's rule; nothing was done"
            )
        try:
            passkeys.set_required(required == "yes", person.id)
        except PasskeyRefused as exc:
            raise PageError(exc.status, exc.sentence) from None
        return RedirectResponse("/passkeys", status_code=303)

    routes = APIRouter(prefix=f"{API}/passkeys", tags=["passkeys"])

    @routes.get("", summary="Your passkeys, and whether approving in this home needs one")
    def mine(caller: Annotated[Caller, Depends(signed_in)]) -> dict[str, Any]:
        found = passkeys.current()
        keys = [
            {"credential_id": c.id, "name": c.name, "sign_count": c.sign_count, "rp_id": c.rp_id,
             "registered_at": c.registered_at, "transports": list(c.transports)}
            for c in found.of(caller.person)
        ]  # fmt: skip
        return {"passkeys": keys, "required": found.required}

    @routes.post(
        "/approval-challenge",
        summary="WebAuthn options whose challenge is the digest of your approval of this plan (used once, expires)",
    )
    def challenge(body: ApprovalChallenge, caller: Annotated[Caller, Depends(signed_in)]) -> dict[str, Any]:
        service.auth.allow(caller, "approver", "write", "approve runs")
        return _options(service, caller.person, body)

    api.include_router(routes)
    return passkeys
