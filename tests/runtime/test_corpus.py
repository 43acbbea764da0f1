"""Every recorded journal in tests/corpus replays byte for byte under today's runtime and built-in operations."""

from __future__ import annotations

from pathlib import Path

import pytest

from alicorn.journal.memory import InMemoryStore
from alicorn.journal.transfer import import_lines
from alicorn.journal.verify import verify_journal
from alicorn.ops.builtin import builtin_registry
from alicorn.runtime.replay import replay_run

CORPUS = sorted((Path(__file__).parents[1] / "corpus").glob("*.jsonl"))


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 5


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_recorded_journal_replays(path: Path) -> None:
    store = InMemoryStore()
    run_id, count = import_lines(store, path.read_text(encoding="utf-8").splitlines())
    assert verify_journal(store).ok
    report = replay_run(store, run_id, builtin_registry())
    assert report.events == count
