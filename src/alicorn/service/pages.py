"""What every page of the web UI shares: the templates, the person's language, who is signed in, CSRF, refusals.

`Pages` is made once per app by `alicorn.service.web.install`. A page route asks it for the signed-in person
(`signed`: no session redirects to the sign-in page), checks a form's CSRF token (`check_form`: 403 and nothing
done without it) and renders a template with the words of the person's language (`?lang=`, remembered in a cookie,
else the browser's Accept-Language, else English). A refusal is a page with one sentence (`PageError`), never a
traceback or a JSON body.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from alicorn.anvil.people import Person
from alicorn.anvil.words import effect_said
from alicorn.service.auth import Caller
from alicorn.service.sessions import COOKIE, Session, Sessions
from alicorn.service.words import LANGUAGE_NAMES, LANGUAGES, state_words, words

HERE = Path(__file__).parent
LANG_COOKIE = "alicorn_lang"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


class PageError(Exception):
    """A refusal shown as a page: `status` and one sentence saying what was wrong and what to do."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status, self.sentence = status, sentence


class NeedsSignIn(Exception):
    """No session: the page sends the browser to the sign-in page, and back here after."""

    def __init__(self, back: str) -> None:
        super().__init__(back)
        self.back = back


def _pretty(value: Any) -> str:
    """JSON as a person reads it: indented, and in its own letters (not \\u escapes); autoescaped like any text."""
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)


def language_of(request: Request) -> str:
    asked = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE)
    if asked in LANGUAGES:
        return str(asked)
    for part in request.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"


def words_for(request: Request) -> Any:
    """The page words in the language `request` asks for."""
    return words(language_of(request))


def states_for(request: Request) -> Any:
    """The states of runs and nodes as the pages say them, in the language `request` asks for."""
    return state_words(language_of(request))


def _state(state: object, lang: str) -> str:
    """A run's or node's state as the pages say it in `lang` (an unknown one as it is)."""
    return state_words(lang).get(str(state), str(state))


def secure(request: Request) -> bool:
    """Cookies are `Secure` unless the service is reached on loopback (plain http there is the local default)."""
    return (request.url.hostname or "") not in LOOPBACK


class Pages:
    """Templates and the signed-in person for the pages of one app (see the module docstring)."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True), trim_blocks=True
        )
        self.env.filters["pretty"] = _pretty
        self.env.filters["state"] = _state  # `{{ run.status | state(lang) }}`: the state in the page's language
        self.env.filters["effect"] = effect_said  # `{{ e.effect | effect(lang) }}`: an effect class in words

    def signed(self, request: Request) -> tuple[Session, Person]:
        found = self.sessions.read(request.cookies.get(COOKIE))
        if found is None:
            raise NeedsSignIn(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
        return found

    @staticmethod
    def caller(session: Session, person: Person) -> Caller:
        """The same `Caller` a token gives, for the service's role checks (a session may write: it has CSRF)."""
        return Caller(person.id, person.role, "write", f"session:{session.sid[:8]}")

    def check_form(self, session: Session, csrf: str | None) -> None:
        if not self.sessions.csrf_ok(session, csrf):
            raise PageError(
                403,
                "this form came without this session's security token (CSRF), so nothing was done; reload the page "
                "and send the form again",
            )

    def render(
        self, request: Request, template: str, code: int = 200, signed: tuple[Session, Person] | None = None,
        **values: Any,
    ) -> HTMLResponse:  # fmt: skip
        lang = language_of(request)
        context: dict[str, Any] = {
            "lang": lang,
            "w": words(lang),
            "languages": LANGUAGE_NAMES,
            "path": request.url.path,
            "person": signed[1] if signed else None,
            "csrf": self.sessions.csrf(signed[0]) if signed else "",
            **values,
        }
        html = self.env.get_template(template).render(context)
        response = HTMLResponse(html, status_code=code, headers={"Cache-Control": "no-store"})
        if request.query_params.get("lang") in LANGUAGES:
            response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax", secure=secure(request))
        return response

    def error_page(self, request: Request, exc: PageError) -> Response:
        signed = self.sessions.read(request.cookies.get(COOKIE))
        w = words(language_of(request))
        title = w["not_found"] if exc.status == 404 else w["refused"]
        return self.render(request, "error.html", exc.status, signed, title=title, sentence=exc.sentence)

    @staticmethod
    def to_sign_in(exc: NeedsSignIn) -> Response:
        return RedirectResponse(f"/signin?next={quote(exc.back, safe='')}", status_code=303)
