"""Questions answered from memory: retrieval recall@5 of the record that holds the answer, and Core's whole loop.

The set is bench/data/memory_questions.jsonl: 30 records of one organisation (12 English, 9 Polish, 9 Russian),
60 questions with a known answer record (20 per language, some across languages) and 12 that memory cannot
answer (4 per language). Baselines measured in the same run: hybrid search (what the Knowledge MCP server's
`search` does) against the vector search Core's questions use; and the evidence threshold against no threshold.
It prints; it asserts nothing.

    .venv/bin/python bench/question_bench.py            # about 30 s: the e5 embedder in process, no model

Figures: recall@1 and recall@5 per language and mode; per similarity threshold, the share of answerable questions
whose answer record is still evidence and the share of unanswerable ones answered "I don't know"; then every
question through Norbi Core without a model (a journaled `memory.search` run each): answers that cite the right
record, "I don't know" where nothing answers. The share of answers citing only retrieved records *with the small
model* needs a model; none is installed here, so it is not measured (the scripted-model tests pin the rule).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from alicorn.app import App, standard_registry
from alicorn.clock import PinnedClock
from alicorn.core import understand
from alicorn.core.intake import IntentEnvelope
from alicorn.core.norbi import Norbi
from alicorn.journal.sqlite import SQLiteStore
from alicorn.memory.models import NewRecord, Provenance
from alicorn.memory.open import open_memory
from alicorn.memory.store import MemoryStore

DATA = Path(__file__).resolve().parent / "data" / "memory_questions.jsonl"
THRESHOLDS = (0.0, 0.76, 0.77, 0.78, 0.79, 0.80, 0.82)


def load() -> tuple[dict[str, str], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = {r["record"]: r["text"] for r in rows if "record" in r}
    questions = [r for r in rows if "question" in r]
    return records, questions


def fill(store: MemoryStore, records: dict[str, str]) -> dict[str, str]:
    """Add the records; record id -> the set's key."""
    source = Provenance(origin="operator", ref="bench:memory_questions")
    return {store.add(NewRecord(text=t, key=k, provenance=source)).record.id: k for k, t in records.items()}


def retrieval(store: MemoryStore, keys: dict[str, str], questions: list[dict[str, Any]]) -> None:
    answerable = [q for q in questions if q["answer"]]
    print(f"retrieval over {len(keys)} records, {len(answerable)} answerable questions (k={understand.RECALL_K})")
    print(f"{'mode':<8} {'lang':<5} {'recall@1':>9} {'recall@5':>9}")
    for mode in ("hybrid", "vector"):
        at1: dict[str, list[bool]] = defaultdict(list)
        at5: dict[str, list[bool]] = defaultdict(list)
        for q in answerable:
            found = [keys[h.record.id] for h in store.search(q["question"], k=understand.RECALL_K, mode=mode).hits]
            for lang in (q["language"], "all"):
                at1[lang].append(found[:1] == [q["answer"]])
                at5[lang].append(q["answer"] in found)
        for lang in ("en", "pl", "ru", "all"):
            r1, r5 = sum(at1[lang]) / len(at1[lang]), sum(at5[lang]) / len(at5[lang])
            print(f"{mode:<8} {lang:<5} {r1:>9.3f} {r5:>9.3f}  ({sum(at5[lang])}/{len(at5[lang])})")
    print()
    hits = {q["question"]: store.search(q["question"], k=understand.RECALL_K, mode="vector").hits for q in questions}
    print("evidence threshold (e5 cosine): answerable questions whose answer record is evidence; unanswerable")
    print('questions with no evidence (answered "I don\'t know")')
    for t in THRESHOLDS:
        kept = sum(
            any(keys[h.record.id] == q["answer"] and (h.similarity or 0) >= t for h in hits[q["question"]])
            for q in answerable
        )
        refused = [q for q in questions if not q["answer"]]
        empty = sum(all((h.similarity or 0) < t for h in hits[q["question"]]) for q in refused)
        mark = "  <- understand.MIN_SIMILARITY" if t == understand.MIN_SIMILARITY else ""
        print(f"  {t:.2f}: {kept}/{len(answerable)} kept, {empty}/{len(refused)} I don't know{mark}")
    print()


def core_loop(records: dict[str, str], questions: list[dict[str, Any]]) -> None:
    """Every question as a request to Norbi Core in a home whose memory holds the records (no model)."""
    from datetime import UTC, datetime

    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        with open_memory(home / "memory.db", project="default") as store:
            keys = fill(store, records)
        app = App(home, SQLiteStore(home / "journal.db"), standard_registry())
        norbi = Norbi(app, [], clock=PinnedClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC)))
        right = dontknow = wrong_kind = runs = 0
        calls = 0
        started = time.perf_counter()
        for q in questions:
            intent = IntentEnvelope(utterance=q["question"], author="human:bench", language=q["language"])
            turn = norbi.receive(intent)
            given = next((e.data for e in app.store.read(turn.conversation) if e.kind == "answer.given"), None)
            if given is None or "run" not in given:
                wrong_kind += 1
                continue
            runs += 1
            calls += sum(e.kind == "tool.call" for e in app.store.read(given["run"]))
            cited = [keys.get(c) for c in given["citations"]]
            if q["answer"] is None:
                dontknow += not cited
            else:
                right += q["answer"] in cited
        elapsed = time.perf_counter() - started
        answerable = sum(1 for q in questions if q["answer"])
        print(f"Norbi Core, no model, {len(questions)} questions in {elapsed:.1f} s:")
        print(f"  answered from memory through a run: {runs} ({calls} memory.search calls journaled)")
        print(f"  not taken as a question by the classifier: {wrong_kind}")
        print(f"  answers citing the record that holds the answer: {right}/{answerable}")
        print(f'  unanswerable questions answered "I don\'t know": {dontknow}/{len(questions) - answerable}')
        app.close()


def main() -> int:
    records, questions = load()
    with tempfile.TemporaryDirectory() as folder, open_memory(Path(folder) / "m.db", project="default") as store:
        keys = fill(store, records)
        retrieval(store, keys, questions)
    core_loop(records, questions)
    print("with the small model: not measured (no model is installed here; see the module docstring)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
