"""The web UI's memory and agents pages: what the memory, agents and models routes answer, as pages.

    /memory?q=…&project=…&mode=…        search with scores, similarity and provenance
    /memory/records/ID?project=…        a record: labels, bi-temporal validity, sources, contradictions, its history,
                                        the entity graph around it (server-rendered SVG), and for an admin the
                                        forget form (CSRF; POST /memory/records/ID/forget)
    /memory/graph?node=…&project=…      the entity graph around any node
    /agents                             every agent with its reputation, tier and rights
    /agents/AGENT?at=TIME               its rights then (and where each came from), its reputation over time as a
                                        chart, and every change with its reason

Every page is folded by what the API uses (alicorn.service.memory_api.MemoryDesk, alicorn.service.agents_api.
AgentBook); a refusal is a page with one sentence (alicorn.service.pages.PageError), never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import FastAPI, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from alicorn.service.agents_api import AgentBook
from alicorn.service.auth import Authenticator
from alicorn.service.drawings import draw_graph, draw_reputation
from alicorn.service.memory_api import MAX_QUERY, PROJECT, MemoryDesk
from alicorn.service.pages import PageError, Pages, language_of
from alicorn.service.problems import Problem
from alicorn.service.words_knowledge import knowledge_words

_PROJECT = re.compile(PROJECT)


@contextmanager
def as_page() -> Iterator[None]:
    """A route's problem detail as a refusal page (the same status and sentence)."""
    try:
        yield
    except Problem as exc:
        raise PageError(exc.status, exc.detail.replace("POST /api/v1/memory/records", "the API")) from None


def _project(text: str) -> str:
    if not _PROJECT.fullmatch(text):
        raise PageError(422, f"{text!r} is not a project name: use 1-64 letters, digits, _ . -; nothing was done")
    return text


def add_knowledge_pages(api: FastAPI, pages: Pages, desk: MemoryDesk, agents: AgentBook) -> None:
    """The memory and agents pages on `api` (see the module docstring)."""

    def render(request: Request, template: str, signed: Any, code: int = 200, **values: Any) -> HTMLResponse:
        return pages.render(request, template, code, signed, k=knowledge_words(language_of(request)), **values)

    @api.get("/memory", include_in_schema=False, response_class=HTMLResponse)
    def memory_page(
        request: Request,
        q: Annotated[str, Query(max_length=MAX_QUERY)] = "",
        project: Annotated[str, Query(max_length=64)] = "default",
        mode: Annotated[str, Query(pattern="^(hybrid|vector|text)$")] = "hybrid",
    ) -> Response:
        signed = pages.signed(request)
        found = None
        if q.strip():
            with as_page():
                found = desk.search(_project(project), q.strip(), 20, mode)
        return render(
            request, "memory.html", signed, q=q, project=project, mode=mode, found=found,
            has_memory=desk.memory.exists(),
        )  # fmt: skip

    @api.get("/memory/records/{record_id}", include_in_schema=False, response_class=HTMLResponse)
    def record_page(
        request: Request, record_id: str, project: Annotated[str, Query(max_length=64)] = "default"
    ) -> Response:
        signed = pages.signed(request)
        with as_page():
            shown = desk.show(_project(project), record_id)
            graph = desk.graph(project, record_id, 2)
        label = knowledge_words(language_of(request))["graph_drawing"]
        svg = draw_graph(graph, project, label) if graph["edges"] else ""
        return render(request, "memory_record.html", signed, s=shown, r=shown["record"], svg=svg, project=project)

    @api.post("/memory/records/{record_id}/forget", include_in_schema=False)
    def forget(
        request: Request,
        record_id: str,
        reason: Annotated[str, Form(max_length=500)] = "",
        project: Annotated[str, Form(max_length=64)] = "default",
        csrf: Annotated[str | None, Form()] = None,
    ) -> Response:
        session, person = pages.signed(request)
        pages.check_form(session, csrf)
        with as_page():
            Authenticator.allow(pages.caller(session, person), "admin", "write", "forget a memory record")
            if not reason.strip():
                raise PageError(
                    422, "say why the record is no longer true (it is kept in its history); nothing was done"
                )
            desk.forget(_project(project), record_id, reason.strip(), None, person.id)
        return RedirectResponse(f"/memory/records/{quote(record_id)}?project={quote(project)}", status_code=303)

    @api.get("/memory/graph", include_in_schema=False, response_class=HTMLResponse)
    def graph_page(
        request: Request,
        node: Annotated[str, Query(min_length=1, max_length=200)],
        project: Annotated[str, Query(max_length=64)] = "default",
        depth: Annotated[int, Query(ge=1, le=4)] = 2,
    ) -> Response:
        signed = pages.signed(request)
        with as_page():
            graph = desk.graph(_project(project), node, depth)
        label = knowledge_words(language_of(request))["graph_drawing"]
        return render(
            request, "memory_graph.html", signed, g=graph, svg=draw_graph(graph, project, label), node=node,
            project=project, depth=depth,
        )  # fmt: skip

    @api.get("/agents", include_in_schema=False, response_class=HTMLResponse)
    def agents_page(request: Request) -> Response:
        signed = pages.signed(request)
        return render(request, "agents.html", signed, agents=agents.summary())

    @api.get("/agents/{agent}", include_in_schema=False, response_class=HTMLResponse)
    def agent_page(request: Request, agent: str, at: Annotated[str, Query(max_length=64)] = "") -> Response:
        signed = pages.signed(request)
        with as_page():
            rights = agents.rights(agent, at.strip() or None)
            history = agents.reputation(agent)
        label = knowledge_words(language_of(request))["chart_drawing"]
        chart = draw_reputation(history["points"], label)
        return render(request, "agent.html", signed, a=rights, h=history, chart=chart, at=at)
