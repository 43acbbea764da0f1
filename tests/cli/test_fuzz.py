"""A seeded fuzz of the command line, in-process: argument lists, alicorn.toml contents and journal files.

Every case runs one command against a fresh copy of a home that holds one finished run, and asserts what the error
boundary promises: no traceback in any output (and no exception escaping), an exit code in {0, 1, 2, 3, 4, 5}, and
for every failing command the journal file's bytes unchanged: every exit 1 or 2 (bad input, usage), and every exit 5
of a command that only reads. (A command that writes and is stopped by the environment part-way, say a run on a
damaged journal that reaches the damage at its fifth step, keeps the whole steps it journaled before, as after a
crash: that is what `resume` continues from. Exits 3 and 4 are runs that were journaled and did not succeed.) A
read-only command changes no file at all, whatever its exit code.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from ._support import ALARMS, fast_invocations, invoke, listing, problems

READ_ONLY = {"runs", "show", "verify", "replay", "proposals", "why", "rights", "schema"}
READ_ONLY_JOURNAL = {"events", "head", "export"}
WRITERS = {"run", "resume", "cancel", "approve", "reject", "ask", "agent"}

WEIRD = [
    "",
    " ",
    "-",
    "--",
    "-x",
    "--nope",
    "run-nope",
    "a" * 300,
    "../../etc/passwd",
    "zażółć gęślą",
    "Съешь",
    "🦄",
    "\t\n",
    "run-1\n",
    "%s%n",
    "$(echo hi)",
    "'; DROP TABLE events; --",
    "NaN",
    "inf",
    "-1",
    "0",
    "1e309",
    "99999999999999999999",
    "=",
    "a=b",
    "[anvil]",
    "[/bold red]",
]
SPECS = [
    "money=inf",
    "money=nan",
    "money=-1",
    "steps=1e400",
    "steps=1.5",
    "steps=",
    "=5",
    "wall_s=0",
    "tokens=99999999999999999999999",
    "effects=-0",
    "money=0x10",
    "steps=5",
]
TIMES = ["2026-11-30T12:00:00Z", "2026-13-45", "yesterday", "", "2026-11-30T25:61:00", "1e9", "0000-00-00"]
EFFECTS = ["publication", "local_write", "none", "read", "nonsense", "", "external_transmission"]


def _home_template(base: Path) -> tuple[Path, str]:
    home = base / "template"
    result = invoke(home, "run", str(ALARMS), "-q")
    assert result.exit_code == 0, result.output
    [listed] = json.loads(invoke(home, "runs", "--json").stdout)
    return home, str(listed["run"])


class Files:
    """The paths the arguments may name: real files of several kinds, and paths that cannot be used."""

    def __init__(self, base: Path, journal: bytes) -> None:
        base.mkdir()
        self.base = base
        (base / "plan.json").write_bytes(ALARMS.read_bytes())
        (base / "latin1.json").write_bytes('{"goal": "Zażółć"}'.encode("iso-8859-2"))
        (base / "binary.bin").write_bytes(random.Random(1).randbytes(2000))
        (base / "empty").write_bytes(b"")
        (base / "folder").mkdir()
        (base / "journal-copy.db").write_bytes(journal)
        (base / "bad.jsonl").write_text('{"stream": "run-x", "seq": 1}\n')
        (base / "not-json.json").write_text("{ nope")
        (base / "head.json").write_text(json.dumps({"format": "alicorn-head", "streams": {}, "digest": "x"}))
        self.paths = [
            *(str(p) for p in sorted(base.iterdir())),
            str(base / "missing.json"),
            str(base / "no" / "such" / "dir" / "h.json"),
            str(base / ("long" * 100)),
            str(base / "folder" / "new-head.json"),
        ]


def _args(rng: random.Random, run_id: str, files: Files) -> list[str]:
    """One command line: a command with a random choice of its arguments and options, and of values for them."""

    def pick(values: list[str]) -> str:
        return rng.choice(values)

    def value(*pools: list[str]) -> str:
        return pick(rng.choice(pools))

    run = [run_id, run_id, "run-nope", *WEIRD[:8]]
    path = files.paths
    commands: list[Callable[[], list[str]]] = [
        lambda: ["runs", *(["--json"] if rng.random() < 0.5 else [])],
        lambda: ["show", value(run, WEIRD)],
        lambda: (
            ["journal", value(run), *(["--kind", value(["tool.", "run.", "", "zz"])] * rng.randint(0, 1))]
            + (["--node", value(["load", "nope", *WEIRD[:4]])] if rng.random() < 0.3 else [])
            + (["--json"] if rng.random() < 0.5 else [])
        ),
        lambda: ["journal", "head", *(["-o", pick(path)] if rng.random() < 0.6 else [])],
        lambda: ["journal", "export", value(run, WEIRD)],
        lambda: ["journal", "import", *[pick(path) for _ in range(rng.randint(0, 2))]],
        lambda: ["journal", "archive", *[value(run) for _ in range(rng.randint(0, 2))]],
        lambda: (
            ["verify", *[value(run) for _ in range(rng.randint(0, 2))]]
            + (["--head", pick(path)] if rng.random() < 0.4 else [])
        ),
        lambda: ["replay", value(run), *(["--no-verify"] if rng.random() < 0.2 else [])],
        lambda: (
            ["resume", value(run)]
            + (
                ["--resolve", value(["load=applied", "x=maybe", "=", "save=not-applied", *WEIRD[:5]])]
                * rng.randint(0, 1)
            )
            + (["--output", value(["save={}", "save={nope", "=", "load=[1]"])] * rng.randint(0, 1))
            + (["--approve", "--as", value(["bob", "", *WEIRD[:5]])] if rng.random() < 0.2 else [])
        ),
        lambda: ["cancel", value(run), *(["--reason", value(WEIRD)] if rng.random() < 0.5 else [])],
        lambda: (
            ["run", pick(path), "-q"]
            + [arg for _ in range(rng.randint(0, 2)) for arg in ("--budget", value(SPECS, WEIRD))]
            + (["--forbid", value(EFFECTS, WEIRD)] if rng.random() < 0.3 else [])
            + (["--parallel", value(["0", "1", "65", "-3", "x"])] if rng.random() < 0.2 else [])
            + (["--data", pick(path)] if rng.random() < 0.2 else [])
            + (["--proposed-by", value(["agent:planner", "agent:nope", "human:", "x", *WEIRD[:4]])] * rng.randint(0, 1))
            + (["--project", value(["default", "", *WEIRD[:6]])] if rng.random() < 0.2 else [])
        ),
        lambda: ["schema", value(["plan", "operations", "events", *WEIRD[:6]])],
        lambda: ["proposals", *(["--json"] if rng.random() < 0.5 else [])],
        lambda: ["approve", value(run)] + (["--plan-hash", value(WEIRD)] if rng.random() < 0.3 else []),
        lambda: ["reject", value(run), "--reason", value(WEIRD)],
        lambda: [
            "why",
            value(run, [f"{run_id}#1", f"{run_id}#x", f"{run_id}#999"]),
            value(["load", "nope", *WEIRD[:3]]),
        ],
        lambda: (
            ["rights", value(["agent:planner", "agent:nope", "human:alice", *WEIRD])]
            + (["--at", pick(TIMES)] if rng.random() < 0.5 else [])
        ),
        lambda: ["agent", "list"],
        lambda: ["policy", value(["check", "show"]), *([pick(path)] if rng.random() < 0.3 else [])],
        lambda: (
            ["ask", "--no-input", "--model", value(["none", "nope", "recorded"]), value(WEIRD)]
            + (["--deadline", pick(TIMES)] if rng.random() < 0.3 else [])
            + (["--conversation", value(["conv-nope", *WEIRD[:4]])] if rng.random() < 0.3 else [])
            + (["--forbid", value(EFFECTS)] if rng.random() < 0.2 else [])
            + (["--attach", pick(path)] if rng.random() < 0.2 else [])
        ),
        lambda: [value(WEIRD, ["nope", "--version", "help", "--help"])],
    ]
    args = rng.choice(commands)()
    if rng.random() < 0.1:  # an option the command does not have, or junk at the end
        args.append(value(["--nope", "--home", "-q", "--json"], WEIRD))
    return args


VALID_TOML = [
    "[operations]\nmodules = []\n",
    '[anvil]\nforbidden = ["publication"]\nreplan_threshold = 0.5\n[anvil.budget]\nsteps = 50\nmoney = 2.5\n',
    '[data]\nprivate = ["hr/**"]\n',
    '[projects.ops]\nroots = ["/srv/ops"]\n[projects.ops.data]\nalarms = "/srv/ops/alarms/*.csv"\n',
    '[anvil]\npolicy = "policy.cedar"\n',
    "[anvil.projects.default]\nsteps = 3\n",
]
TOKENS = [
    "[",
    "]",
    "[[",
    "]]",
    "=",
    '"',
    "'",
    "{",
    "}",
    ",",
    ".",
    "\n",
    "inf",
    "nan",
    "-inf",
    "1e999",
    "true",
    "\\u0000",
    "\\",
    "0x",
    "1979-05-27",
    "\xff",
    "[anvil]",
    "[projects]",
    "modules",
    "x.y.z",
    "[" * 300,
]


def _toml(rng: random.Random) -> bytes:
    """alicorn.toml contents: valid ones mutated by bytes and TOML tokens, deep nesting, or random bytes."""
    roll = rng.random()
    if roll < 0.05:
        return rng.randbytes(rng.randint(0, 300))
    if roll < 0.1:
        depth = rng.choice([40, 400, 5000])
        return rng.choice(
            [
                ("x = " + "[" * depth + "]" * depth).encode(),
                ("[anvil." + ".".join(["x"] * depth) + "]").encode(),
                ("x = " + "{a = " * depth + "1" + "}" * depth).encode(),
            ]
        )
    text = "".join(rng.sample(VALID_TOML, rng.randint(1, 3)))
    data = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(0, 4)):
        at = rng.randrange(len(data) + 1)
        mutation = rng.random()
        if mutation < 0.4:
            data[at:at] = rng.choice(TOKENS).encode("utf-8", "surrogatepass")
        elif mutation < 0.7 and data:
            del data[at : at + rng.randint(1, 8)]
        elif data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
    return bytes(data)


def _journal(rng: random.Random, sound: bytes) -> bytes:
    """A journal file: the sound one with bytes overwritten, pages zeroed or repeated, truncated, or not one."""
    roll = rng.random()
    if roll < 0.04:
        return b""
    if roll < 0.08:
        return rng.randbytes(rng.randint(1, 9000))
    if roll < 0.15:
        return sound[: rng.randrange(len(sound))]
    buf = bytearray(sound)
    page = 4096
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        start = rng.randrange(len(buf))
        if kind < 0.6:
            size = rng.randint(1, 600)
            buf[start : start + size] = rng.randbytes(size)[: len(buf) - start]
        elif kind < 0.8:
            first = start - start % page
            buf[first : first + page] = bytes(min(page, len(buf) - first))
        else:
            source = rng.randrange(len(buf) // page) * page
            target = start - start % page
            chunk = buf[source : source + page]
            buf[target : target + len(chunk)] = chunk[: len(buf) - target]
    return bytes(buf)


def _journal_args(rng: random.Random, run_id: str, plan: str) -> list[str]:
    return rng.choice(
        [
            ["runs"],
            ["runs", "--json"],
            ["verify"],
            ["verify", run_id],
            ["show", run_id],
            ["journal", run_id],
            ["journal", "head"],
            ["journal", "export", run_id],
            ["replay", run_id],
            ["proposals"],
            ["why", run_id, "load"],
            ["resume", run_id],
            ["cancel", run_id],
            ["journal", "archive"],
            ["run", plan, "-q", "--forbid", "local_write"],
            ["run", plan, "-q"],
        ]
    )


def _writes(args: list[str]) -> bool:
    return bool(args) and (args[0] in WRITERS or args[:2] in (["journal", "archive"], ["journal", "import"]))


def _read_only(args: list[str]) -> bool:
    if not args:
        return False
    if args[0] == "journal":
        return len(args) > 1 and (args[1] in READ_ONLY_JOURNAL or args[1] not in ("import", "archive"))
    return args[0] in READ_ONLY


def test_fuzz_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """1,200 cases (seeded): 600 argument lists over every command but memory/mcp/models/demo, 300 alicorn.toml
    contents under six commands, 300 journal files (damaged, truncated, empty, random) under 16 commands."""
    fast_invocations(monkeypatch)
    rng = random.Random(20261130)
    template, run_id = _home_template(tmp_path)
    sound = (template / "journal.db").read_bytes()
    files = Files(tmp_path / "files", sound)
    monkeypatch.chdir(files.base)
    failures: list[str] = []
    exits: Counter[tuple[str, int]] = Counter()
    cases = 0

    def case(kind: str, args: list[str], journal: bytes | None, toml: bytes | None) -> None:
        nonlocal cases
        cases += 1
        home = tmp_path / "h" / str(cases)
        home.mkdir(parents=True)
        if journal is not None:
            (home / "journal.db").write_bytes(journal)
        if toml is not None:
            (home / "alicorn.toml").write_bytes(toml)
        before_journal = _digest(home / "journal.db")
        before = listing(home)
        result = invoke(home, *args)
        found = problems(result)
        failing = result.exit_code in (1, 2) or (result.exit_code == 5 and not _writes(args))
        if failing and _digest(home / "journal.db") != before_journal:
            found.append(f"exit {result.exit_code} but the journal changed")
        exits[(kind, result.exit_code)] += 1
        after = listing(home)
        if args[:1] == ["verify"] and result.exit_code in (1, 5):
            # the one file a failed verification leaves: the mark that stops writers (test_damage_mark.py)
            after.pop("journal.db.damaged", None)
        if _read_only(args) and after != before:
            found.append("a read-only command changed files")
        if found:
            failures.append(f"{kind} {args!r}: {found}: {result.output[-600:]}")
        shutil.rmtree(home, ignore_errors=True)

    for _ in range(600):
        case("args", _args(rng, run_id, files), sound, None)
    toml_commands = [["runs"], ["verify"], ["show", run_id], ["run", str(ALARMS), "-q"], ["proposals"], ["why", run_id]]
    for _ in range(300):
        case("toml", rng.choice(toml_commands), sound, _toml(rng))
    for _ in range(300):
        case("journal", _journal_args(rng, run_id, str(ALARMS)), _journal(rng, sound), None)
    assert cases == 1200
    assert not failures, f"{len(failures)} of {cases} cases failed {dict(exits)}:\n" + "\n".join(failures[:8])


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
