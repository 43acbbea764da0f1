"""Benchmark of intent classification: the bundled SmolLM2 model alone against the combined method.

Measured on bench/data/utterances.jsonl (English, Polish, Russian; all five kinds; with and without forbidden
effects; the seed's five example commands in each language). The labelled examples the classifier uses for its
nearest-neighbour signal (src/alicorn/models/intent/examples.py) are a different set. Nothing here asserts: it prints.

Methods:
  model, constrained    SmolLM2-135M-Instruct via in-process llama.cpp, decoding constrained by the JSON Schema
  model, unconstrained  the same model and prompt, free decoding, validated and repaired the same way
  deterministic         language identifier + forbidden-action lexicon + cues + nearest examples, no model
  combined              the deterministic signals with the constrained model's answer (see classifier.py)

The model's answer schema: `--schema flags` (default; the forbidden effects as five booleans, which a decoding
grammar enforces completely) or `--schema list` (a list with maxItems 3 and uniqueItems, as first designed;
llama.cpp's grammar does not enforce uniqueItems, so repeated items fail validation).

    .venv-local/bin/python bench/classify_bench.py            # with the local model (the 'local' extra installed)
    .venv/bin/python bench/classify_bench.py                  # deterministic only: says the model is not installed
    python bench/classify_bench.py --limit 20 --show-errors   # fewer utterances, list every miss

Requests (`--split heldout|tuning`): bench/data/requests_heldout.jsonl was written before the classifier was tuned
for prohibitions, urgency and recurrence and is never used to tune it; bench/data/requests_tuning.jsonl is the set
that tuning looks at. Each row has text, language, kind, forbidden, template (a workflow id or null) and recurring
(plus, for some, the cron expression the recurrence means). Printed per language and overall: kind accuracy,
forbidden-class recall, false prohibitions (requests with a class reported forbidden that the label does not
forbid), recurrence accuracy (recurring or not; and the cron, where labelled), and the template the selector picks
without a model (`WorkflowSelector(bundled_workflows()).select(text, None)`) against the label: right, asked (None
where the label names a template) and wrong (a template that is not the label's).

    .venv/bin/python bench/classify_bench.py --split heldout --show-errors
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alicorn.models.defaults import default_profiles
from alicorn.models.errors import ModelError
from alicorn.models.intent.classifier import Classification, IntentClassifier, ModelOpinion
from alicorn.models.recorder import ModelClient

DATA = Path(__file__).parent / "data" / "utterances.jsonl"
#: Written after the classifier was tuned and never used to tune it: the honest figure.
HELD_OUT = Path(__file__).parent / "data" / "utterances_heldout.jsonl"
#: Requests with templates, prohibitions, urgency and recurrence: the held-out split (never tuned on) and the
#: tuning split.
SPLITS = {
    "heldout": Path(__file__).parent / "data" / "requests_heldout.jsonl",
    "tuning": Path(__file__).parent / "data" / "requests_tuning.jsonl",
}


@dataclass
class Tally:
    """Counts for one method."""

    name: str
    n: int = 0
    kind: int = 0
    language: int = 0
    forbidden: int = 0
    all_three: int = 0
    valid_first: int = 0
    valid_after_repair: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    model_answers: bool = False
    misses: list[str] = field(default_factory=list)
    decided: Counter[str] = field(default_factory=Counter)

    def add(self, row: dict[str, Any], kind: str | None, language: str | None, forbidden: list[str] | None) -> None:
        self.n += 1
        hits = (kind == row["kind"], language == row["language"], sorted(forbidden or []) == sorted(row["forbidden"]))
        hits = hits if forbidden is not None else (hits[0], hits[1], False)
        self.kind += hits[0]
        self.language += hits[1]
        self.forbidden += hits[2]
        self.all_three += all(hits)
        if not all(hits):
            self.misses.append(
                f"{row['id']}: got kind={kind} lang={language} forbidden={forbidden}; want kind={row['kind']} "
                f"lang={row['language']} forbidden={row['forbidden']}"
            )

    def add_opinion(self, opinion: ModelOpinion, seconds: float) -> None:
        self.model_answers = True
        self.valid_first += opinion.valid_first_try
        self.valid_after_repair += opinion.label is not None
        self.prompt_tokens += opinion.prompt_tokens
        self.completion_tokens += opinion.completion_tokens
        self.seconds += seconds


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "   - "


def load(limit: int | None, path: Path = DATA) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit] if limit else rows


def local_clients() -> tuple[ModelClient, ModelClient] | str:
    """Two clients of the bundled model (constrained, free), or why there are none."""
    try:
        from alicorn.models.providers.llama_local import LlamaCppProvider
    except ImportError as exc:  # pragma: no cover - the module itself imports nothing optional
        return str(exc)
    profile = default_profiles().get("smollm2-135m")
    try:
        constrained = LlamaCppProvider(profile.model, n_ctx=profile.context_length, constrain=True)
        free = LlamaCppProvider(profile.model, n_ctx=profile.context_length, constrain=False)
    except ModelError as exc:
        return str(exc)
    return ModelClient(profile, constrained), ModelClient(profile, free)


def report(tallies: list[Tally], out: Any) -> None:
    header = (
        f"{'method':<24}{'n':>4}  {'valid 1st':>9} {'valid+fix':>9}  {'kind':>6} {'lang':>6} {'forbid':>6} "
        f"{'all 3':>6}  {'tok/ans':>7} {'s/ans':>6}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for t in tallies:
        valid1 = pct(t.valid_first, t.n) if t.model_answers else "    n/a"
        valid2 = pct(t.valid_after_repair, t.n) if t.model_answers else "    n/a"
        tokens = f"{(t.prompt_tokens + t.completion_tokens) / t.n:7.1f}" if t.model_answers and t.n else "      0"
        seconds = f"{t.seconds / t.n:6.2f}" if t.n else "     -"
        print(
            f"{t.name:<24}{t.n:>4}  {valid1:>9} {valid2:>9}  {pct(t.kind, t.n)} {pct(t.language, t.n)} "
            f"{pct(t.forbidden, t.n)} {pct(t.all_three, t.n)}  {tokens} {seconds}",
            file=out,
        )


@dataclass
class SplitTally:
    """Counts of one language (or all) on a requests split."""

    n: int = 0
    kind: int = 0
    labelled_classes: int = 0
    recalled_classes: int = 0
    false_prohibitions: int = 0
    recurrence: int = 0
    cron_labelled: int = 0
    cron_right: int = 0
    template_right: int = 0
    template_asked: int = 0
    template_wrong: int = 0

    def add(self, row: dict[str, Any], result: Classification, picked: str | None) -> list[str]:
        """Count one request; the misses, described."""
        misses: list[str] = []
        self.n += 1
        self.kind += result.kind == row["kind"]
        if result.kind != row["kind"]:
            misses.append(f"kind {result.kind} (want {row['kind']}; by {result.decided_by['kind']})")
        want, got = set(row["forbidden"]), set(result.forbidden)
        self.labelled_classes += len(want)
        self.recalled_classes += len(want & got)
        if want - got:
            misses.append(f"missed forbidden {sorted(want - got)}")
        if got - want:
            self.false_prohibitions += 1
            misses.append(f"false prohibition {sorted(got - want)}")
        recurrence = getattr(result, "recurrence", None)
        self.recurrence += (recurrence is not None) == bool(row["recurring"])
        if (recurrence is not None) != bool(row["recurring"]):
            misses.append(f"recurrence {recurrence.cron if recurrence else None} (want recurring={row['recurring']})")
        if row.get("cron"):
            self.cron_labelled += 1
            cron = recurrence.cron if recurrence is not None else None
            self.cron_right += cron == row["cron"]
            if recurrence is not None and cron != row["cron"]:
                misses.append(f"cron {cron!r} (want {row['cron']!r})")
        if picked == row["template"]:
            self.template_right += 1
        elif picked is None:
            self.template_asked += 1
            misses.append(f"template asked (want {row['template']})")
        else:
            self.template_wrong += 1
            misses.append(f"template {picked} (want {row['template']})")
        return misses


def split_report(split: str, rows: list[dict[str, Any]], classifier: IntentClassifier, show_errors: bool) -> None:
    """Classify and select on a requests split; print the figures per language and overall."""
    from alicorn.core.select import WorkflowSelector
    from alicorn.packs.catalog import bundled_workflows

    selector = WorkflowSelector(bundled_workflows())
    tallies: dict[str, SplitTally] = {}
    misses: list[str] = []
    for row in rows:
        result = classifier.classify(row["text"])
        picked = selector.select(row["text"], None).workflow
        for key in (row["language"], "all"):
            found = tallies.setdefault(key, SplitTally()).add(row, result, picked)
        if found:
            misses.append(f"{row['id']}: {'; '.join(found)}: {row['text']}")
    kinds = Counter(r["kind"] for r in rows)
    print(
        f"split: {split} ({SPLITS[split].name}): {len(rows)} requests; {dict(kinds)}; "
        f"{sum(1 for r in rows if r['forbidden'])} with prohibitions, {sum(1 for r in rows if r['recurring'])} "
        f"recurring, {sum(1 for r in rows if r['template'] is None)} with no template"
    )
    header = (
        f"{'lang':<5}{'n':>4}  {'kind':>6}  {'forbid recall':>13}  {'false prohib':>12}  {'recurrence':>10}  "
        f"{'cron':>7}  {'template right/asked/wrong':>26}"
    )
    print(header)
    print("-" * len(header))
    for key in [*sorted(k for k in tallies if k != "all"), "all"]:
        t = tallies[key]
        recall = pct(t.recalled_classes, t.labelled_classes) + f" {t.recalled_classes:>2}/{t.labelled_classes:<2}"
        cron = f"{t.cron_right}/{t.cron_labelled}"
        template = f"{t.template_right}/{t.template_asked}/{t.template_wrong}"
        print(
            f"{key:<5}{t.n:>4}  {pct(t.kind, t.n)}  {recall:>13}  {pct(t.false_prohibitions, t.n):>12}  "
            f"{pct(t.recurrence, t.n):>10}  {cron:>7}  {template:>26}"
        )
    print()
    print(
        "forbid recall: labelled forbidden classes found; false prohib: requests with a class reported forbidden "
        "that the label does not forbid; recurrence: recurring or not as labelled; cron: the cron expression right "
        "where labelled; template: the selector without a model against the label (asked = it picked none where "
        "the label names one; a None label met by None is right)."
    )
    if show_errors:
        print(f"\nmisses ({len(misses)}):")
        for miss in misses:
            print("  " + miss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="only the first N utterances")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="the labelled set (default: utterances.jsonl; see also the held-out set)",
    )
    parser.add_argument("--no-model", action="store_true", help="skip the local model even when installed")
    parser.add_argument("--show-errors", action="store_true", help="list every misclassification")
    parser.add_argument("--repairs", type=int, default=2, help="repair attempts after an invalid answer")
    parser.add_argument(
        "--schema",
        choices=["flags", "list"],
        default="flags",
        help="forbidden effects as five flags (grammar-enforceable) or as a bounded unique list",
    )
    parser.add_argument(
        "--free-every",
        type=int,
        default=3,
        help="run the unconstrained model on every K-th utterance only (it is slow: repairs of free text)",
    )
    parser.add_argument(
        "--split",
        choices=sorted(SPLITS),
        default=None,
        help="the requests split (held-out: never tuned on; tuning) instead of the utterances: kind, prohibitions, "
        "recurrence and the template picked without a model",
    )
    args = parser.parse_args()
    if args.split is not None:
        split_report(args.split, load(args.limit, SPLITS[args.split]), IntentClassifier(), args.show_errors)
        return 0
    rows = load(args.limit, args.data)
    print(f"set: {args.data.name}")
    counts = Counter(r["kind"] for r in rows)
    languages = Counter(r["language"] for r in rows)
    print(
        f"utterances: {len(rows)} ({dict(counts)}; {dict(languages)}; "
        f"{sum(1 for r in rows if r['forbidden'])} with forbidden effects)"
    )

    clients = None if args.no_model else local_clients()
    if isinstance(clients, str) or clients is None:
        print(f"local model: not used ({clients or '--no-model'})")
        clients = None
    else:
        provider: Any = clients[0].provider
        print(f"local model: {provider.path.name} in-process (llama.cpp, n_threads={provider.n_threads})")
        print(
            f"unconstrained model: every {args.free_every}th utterance"
            if args.free_every <= len(rows)
            else "unconstrained model: skipped"
        )

    deterministic = IntentClassifier()
    tally_det = Tally("deterministic")
    tally_c, tally_u, tally_comb = Tally("model, constrained"), Tally("model, unconstrained"), Tally("combined")
    with_model = IntentClassifier(clients[0], max_repairs=args.repairs, schema=args.schema) if clients else None
    free_model = IntentClassifier(clients[1], max_repairs=args.repairs, schema=args.schema) if clients else None
    print(f"model schema: {args.schema}; repairs: {args.repairs}")

    for index, row in enumerate(rows, 1):
        started = time.perf_counter()
        result: Classification = deterministic.classify(row["text"])
        tally_det.seconds += time.perf_counter() - started
        tally_det.add(row, result.kind, result.language, list(result.forbidden))
        tally_det.decided[result.decided_by["kind"]] += 1
        if with_model is None or free_model is None:
            continue
        runs = [(tally_c, with_model)] + ([(tally_u, free_model)] if index % max(args.free_every, 1) == 0 else [])
        for tally, classifier in runs:
            started = time.perf_counter()
            opinion = classifier.model_opinion(row["text"])
            elapsed = time.perf_counter() - started
            assert opinion is not None
            tally.add_opinion(opinion, elapsed)
            label = opinion.label
            tally.add(
                row,
                label.kind if label else None,
                label.language if label else None,
                list(label.forbidden) if label else None,
            )
            if classifier is with_model:
                started = time.perf_counter()
                combined = with_model.combine(row["text"], opinion)
                tally_comb.add_opinion(opinion, elapsed + time.perf_counter() - started)
                tally_comb.add(row, combined.kind, combined.language, list(combined.forbidden))
                tally_comb.decided[combined.decided_by["kind"]] += 1
        print(f"  {index}/{len(rows)}", end="\r", file=sys.stderr, flush=True)

    tallies = [t for t in (tally_c, tally_u, tally_det, tally_comb) if t.n]
    print()
    report(tallies, sys.stdout)
    print()
    print(
        "valid 1st / valid+fix: share of answers that validated against the schema first time / after at most "
        f"{args.repairs} repairs (the error fed back); 'all 3' = kind, language and forbidden set all right."
    )
    print("tok/ans: prompt + completion tokens per utterance, repairs included; s/ans: wall seconds per utterance.")
    for t in (tally_det, tally_comb):
        if t.n:
            print(f"{t.name}: kind decided by {dict(t.decided.most_common())}")
    if args.show_errors:
        for t in tallies:
            print(f"\nmisses of {t.name} ({len(t.misses)}):")
            for miss in t.misses:
                print("  " + miss)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
