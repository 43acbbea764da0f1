"""The pages say the states of runs and nodes in the page's language, like every other word on them; the state's
own name stays in the machine-readable parts (the badge's CSS class, the drawing's node class)."""

from __future__ import annotations

import re

import pytest

from alicorn.service.words import LANGUAGES, state_words
from tests.service.test_web_signin import browser, sign_in
from tests.service.webhome import WAITING, WebHome

SUCCEEDED = "corpus-stop"  # a finished run of the corpus: one drawn, its nodes with states


@pytest.mark.parametrize(("language", "waiting", "done"), [("pl", "czeka na zatwierdzenie", "udany")])
def test_the_run_pages_say_states_in_the_page_s_language(web: WebHome, language: str, waiting: str, done: str) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        runs = client.get("/runs", params={"lang": language}).text
        run = client.get(f"/runs/{WAITING}", params={"lang": language}).text
    badges = dict(re.findall(r'<span class="badge s-([a-z_]+)">([^<]*)</span>', runs))
    assert badges["awaiting_approval"] == waiting, badges  # the class in English, the word in Polish
    assert f'<option value="awaiting_approval">{waiting}</option>' in runs
    assert f'id="run-status">{waiting}</span>' in run
    assert ">awaiting_approval<" not in runs + run and ">waiting_approval<" not in runs + run
    states = re.findall(r'<g class="node state-([a-z_]+)">.*?font-style="italic" fill="#222">([^<]*)</text></g>', run)
    assert states and all(shown == state_words(language)[state] for state, shown in states), states


def test_english_pages_keep_the_state_names(web: WebHome) -> None:
    with browser(web) as client:
        sign_in(client, "vic")
        runs = client.get("/runs", params={"lang": "en"}).text
    assert '<span class="badge s-awaiting_approval">awaiting_approval</span>' in runs


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_state_has_its_own_word(language: str) -> None:
    from alicorn.render import RUN_STATUSES
    from alicorn.service.dag import STYLE

    words = state_words(language)
    assert set(RUN_STATUSES) | set(STYLE) <= set(words)
    assert all(words[state] != state for state in words), words
