"""How Core tells a person to do something, worded for the channel their request came through.

Core's sentences sometimes tell the person what to do next: attach a file, start a new request. On the command line
that is a command (`alicorn ask --attach FILE`); in the browser it is the upload field under the question; over the
API it is a route. The channel is the envelope's (`IntentEnvelope.channel`: `cli`, `web`, `api`, or a trigger's or
an external channel's name), fixed when the request was received, so the wording is decided where the sentence is
made, never patched afterwards by whoever shows it. A channel that is neither `web` nor `api` gets the command
line's wording: nobody on it can press a button, and the operator who reads it has the command line.
"""

from __future__ import annotations

from alicorn.i18n import tr

#: The channels whose people are shown web or API wording; every other channel is told the command line's.
WEB, API = "web", "api"


def how_to_attach(language: str, channel: str, conversation: str) -> str:
    """How the person gives Core a file it asked for, in `language`, for `channel`."""
    if channel == WEB:
        return tr(
            language,
            "Attach the file with the upload field below this question, or name its path on the machine the "
            "service runs on in your answer; an admin can also declare it for the project in alicorn.toml "
            "([projects.NAME.data]).",
        )
    if channel == API:
        return tr(
            language,
            "Attach the file (POST /api/v1/conversations/{conversation}/attachments, a multipart form with the "
            "field file), or name its path on the machine the service runs on in your answer; an admin can also "
            "declare it for the project in alicorn.toml ([projects.NAME.data]).",
            conversation=conversation,
        )
    return tr(
        language,
        "Attach the file (alicorn ask --attach FILE), name its path in your answer, pass --data PATH, or declare "
        "it for the project in alicorn.toml ([projects.NAME.data]).",
    )


def how_to_start_anew(language: str, channel: str) -> str:
    """How the person starts a new request, in `language`, for `channel` (ends a sentence, lower case)."""
    if channel == WEB:
        return tr(language, "start a new request on the Chat page")
    if channel == API:
        return tr(language, "start a new request (POST /api/v1/conversations)")
    return tr(language, "start a new request with alicorn ask")
