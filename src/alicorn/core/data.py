"""Finding the user's data for a workflow, checking it, and staging it as the run's data root.

For each input a workflow declares (`alicorn.packs.inputs.DataInput`), candidates are looked for in this order, and
the first source that yields a fitting file wins:

    1. the request's attachments (an attached alarm log, roster, transcript *is* the input)
    2. the paths the request's words (or the answers to Core's questions) name
    3. `alicorn ask --data [NAME=]PATH` (a file or a folder)
    4. the project's data sources in alicorn.toml: [projects.<project>.data] NAME = "glob" (or a list of globs)
    5. the workflow's bundled sample data, only when Core was built with `samples=True` (the demo and the tests)

Paths from the words and from `--data` must lie under one of the project's roots (`[projects.<p>] roots`, by
default the folder Alicorn was started in); a path outside is refused, naming the roots. Every candidate is read
(`inspect`); one that does not fit (a PDF where a CSV is needed, an empty file, the wrong columns, too large) is
kept as a problem, so the question Core asks names it. When every required input is found, the files are copied
into `<home>/inputs/<conversation>/` under the names the plan reads (several CSV files of one input are merged,
header once), and the run's data root is that folder: the user's data, never the samples, is what runs.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from alicorn.packs.captions import stated_date
from alicorn.packs.inputs import DataInput, Finding, inspect, staged_rows

#: Words that look like a path: something with a slash or a file extension ("./logs/alarms.csv", "roster.csv").
_PATHLIKE = re.compile(r"""(?:(?<=\s)|^|(?<=["'(]))((?:~|\.{1,2})?/?[\w.\-/]*[\w\-]+(?:/|\.[A-Za-z0-9]{1,5})?)""")


@dataclass(frozen=True)
class DataSources:
    """Where Core may look for a request's data (see the module docstring)."""

    attachments: Sequence[tuple[str, Path]] = ()  # (original name, stored file)
    given: Sequence[tuple[str | None, Path]] = ()  # --data [NAME=]PATH
    project: Mapping[str, Sequence[str]] = field(default_factory=dict)  # NAME -> globs
    roots: Sequence[Path] = ()
    samples: Path | None = None


@dataclass(frozen=True)
class Located:
    """One input: the files chosen for it (where they came from), or the problems of every candidate seen."""

    input: DataInput
    chosen: tuple[Finding, ...] = ()
    source: str = ""
    problems: tuple[Finding, ...] = ()
    refused: tuple[str, ...] = ()  # paths named outside the project's roots

    @property
    def found(self) -> bool:
        return bool(self.chosen)


def named_paths(texts: Sequence[str], roots: Sequence[Path]) -> list[Path]:
    """Paths the words name that exist (relative ones are read against each root, then as given)."""
    found: list[Path] = []
    for text in texts:
        for match in _PATHLIKE.finditer(text):
            word = match.group(1).rstrip(".,;:")
            if "/" not in word and "." not in word.strip("."):
                continue
            candidate = Path(word).expanduser()
            options = [candidate] if candidate.is_absolute() else [r / candidate for r in roots] + [candidate]
            for option in options:
                if option.exists() and option not in found:
                    found.append(option)
                    break
    return found


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == r.resolve() or resolved.is_relative_to(r.resolve()) for r in roots)


def _candidates(path: Path, want: DataInput) -> list[Path]:
    """The files a path offers for `want`: itself, or inside a folder the input's own name, else every file of the
    right kind directly in it."""
    if want.format == "tree":
        inner = path / want.file
        return [inner] if inner.is_dir() and not (path / "pyproject.toml").exists() else [path]
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    own = path / want.file
    if own.is_file():
        return [own]
    suffixes = {".csv"} if want.format == "csv" else {".json", *((".vtt", ".srt", ".txt") if want.captions else ())}
    try:
        return sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
    except OSError:
        return []


def _fitting(paths: Sequence[Path], want: DataInput) -> tuple[list[Finding], list[Finding]]:
    good: list[Finding] = []
    bad: list[Finding] = []
    for path in paths:
        finding = inspect(path, want)
        (good if finding.fits else bad).append(finding)
    return good, bad


def _named(findings: list[Finding], sources: DataSources) -> list[Finding]:
    """Attachments are stored by digest: show (and stage) them under the name they were attached with."""
    names = {str(p): n for n, p in sources.attachments}
    out = []
    for f in findings:
        name = names.get(str(f.path), f.path.name)
        problem = f.problem
        if problem is not None and problem.values.get("file") == f.path.name:
            problem = replace(problem, values={**problem.values, "file": name})
        named = replace(f, problem=problem, files=(name,))
        if f.transcript is not None and (day := stated_date(name, "")) is not None:
            # a caption transcript is dated by its name first ("2026-11-30-call.vtt"), and it was read stored by digest
            named = replace(named, transcript=replace(f.transcript, stated_date=day), first=day, last=day)
        out.append(named)
    return out


def _one_or_all(good: list[Finding], want: DataInput) -> tuple[Finding, ...]:
    """Several fitting files: CSV logs and transcripts are read together; a single JSON or a folder is the first."""
    if want.format in ("csv", "json_files"):
        return tuple(good)
    return tuple(good[:1])


def locate(want: DataInput, sources: DataSources, texts: Sequence[str]) -> Located:
    """The files for `want`, from the first source that has fitting ones (see the module docstring)."""
    problems: list[Finding] = []
    refused: list[str] = []
    attached = [p for _, p in sources.attachments]
    steps: list[tuple[str, list[Path]]] = [("attachment", attached)]
    named = named_paths(texts, sources.roots)
    given = [p for name, p in sources.given if name in (None, want.name)]
    for label, paths in (("named in the request", named), ("--data", given)):
        inside = [p for p in paths if _inside(p, sources.roots)]
        refused += [str(p) for p in paths if p not in inside]
        steps.append((label, [c for p in inside for c in _candidates(p, want)]))
    patterns = sources.project.get(want.name, ())
    configured: list[Path] = []
    for pattern in patterns:
        base = Path(pattern).expanduser()
        if base.is_absolute():
            anchor, rest = Path(base.anchor), str(base.relative_to(base.anchor))
        else:
            anchor, rest = (sources.roots[0] if sources.roots else Path.cwd()), pattern
        matched = sorted(anchor.glob(rest)) if any(ch in rest for ch in "*?[") else [anchor / rest]
        configured += [c for m in matched for c in _candidates(m, want)]
    steps.append(("project data source", configured))
    if sources.samples is not None:
        steps.append(("bundled sample", _candidates(sources.samples, want)))
    for label, paths in steps:
        good, bad = _fitting(paths, want)
        if label == "attachment":
            good, bad = _named(good, sources), _named(bad, sources)
        if good:
            return Located(want, _one_or_all(good, want), label, tuple(problems), tuple(refused))
        problems += bad
    return Located(want, (), "", tuple(problems), tuple(refused))


def stage(located: Sequence[Located], into: Path, documents: Mapping[Path, tuple[str, str]] | None = None) -> Path:
    """Copy the chosen files under the names the plan reads; returns the data root (`into`). `documents` replaces a
    file by (name, text) written in its place: a caption transcript staged as the pack's JSON."""
    into.mkdir(parents=True, exist_ok=True)
    documents = documents or {}
    for item in located:
        want = item.input
        if not item.chosen:
            continue
        if want.format == "tree":
            target = into / want.file
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(item.chosen[0].path, target, symlinks=False)
        elif want.format == "json_files":
            for finding in item.chosen:
                if finding.path in documents:
                    name, text = documents[finding.path]
                    (into / name).write_text(text, encoding="utf-8")
                    continue
                name = finding.files[0] if finding.files else finding.path.name
                if finding.first is not None and not re.match(r"\d{4}-\d{2}-\d{2}", name):
                    name = f"{finding.first.isoformat()}-{name}"  # the transcript reader orders files by date
                shutil.copyfile(finding.path, into / name)
        elif want.format == "csv" and (len(item.chosen) > 1 or not item.chosen[0].as_is):
            (into / want.file).write_text(_staged_csv(item.chosen, want), encoding="utf-8")
        else:
            shutil.copyfile(item.chosen[0].path, into / want.file)
    return into


def stage_given(sources: DataSources, into: Path) -> Path:
    """A free plan's data root: a copy of what the request gave (its attachments, under their names, and the
    `--data` files and folders that lie under the project's roots), and nothing else: never the home, so a plan
    reads neither the journal nor another run's or project's files. Symlinks are not followed."""
    into.mkdir(parents=True, exist_ok=True)
    for name, stored in sources.attachments:
        target = into / _safe_name(name)
        if stored.is_file() and not target.exists():
            shutil.copyfile(stored, target)
    for _name, path in sources.given:
        if not _inside(path, sources.roots) or path.is_symlink():
            continue
        target = into / _safe_name(path.name)
        if target.exists():
            continue
        if path.is_dir():
            shutil.copytree(path, target, symlinks=True, ignore=_links)
        elif path.is_file():
            shutil.copyfile(path, target)
    return into


def _safe_name(name: str) -> str:
    """A file name with no folder part and nothing hidden (`../x` and `/etc/x` become `x`)."""
    return Path(name).name.lstrip(".") or "attachment"


def _links(folder: str, names: list[str]) -> list[str]:
    """For copytree: leave out symlinks (kept as links, they could lead anywhere) and Alicorn homes."""
    return [n for n in names if (Path(folder) / n).is_symlink() or n == ".alicorn"]


def _staged_csv(findings: Sequence[Finding], want: DataInput) -> str:
    """Rows of one input's CSV files as the plan reads them (`staged_rows`: fields under their own names, dates in
    ISO form, values and numbers in the plan's form), under the first file's header (columns the others lack are
    empty). Files that lack the numbered field get numbers after the highest one the other files hold, so no two
    rows share one."""
    staged = [(finding.numbered, *staged_rows(finding.path, want)) for finding in findings]
    field = want.numbered
    held = [
        int(row[field])
        for numbered, _header, rows in staged
        if field is not None and not numbered
        for row in rows
        if str(row.get(field, "")).strip().isdigit()
    ]
    number = max(held, default=0) + 1
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=staged[0][1], extrasaction="ignore")
    writer.writeheader()
    for numbered, _header, rows in staged:
        if field is not None and numbered:
            for row in rows:
                row[field] = str(number)
                number += 1
        writer.writerows(rows)
    return out.getvalue()


def evidence(located: Sequence[Located]) -> list[dict[str, Any]]:
    """What was read, for the journal and the report: each file's path, digest, size, rows and span."""
    return [
        {
            "input": item.input.name,
            "format": item.input.format,
            "source": item.source,
            "files": [
                {
                    "path": str(f.path),
                    "name": f.files[0] if f.files else f.path.name,
                    "sha256": f.sha256,
                    "bytes": f.bytes,
                    "rows": f.rows,
                    "first": f.first.isoformat() if f.first else None,
                    "last": f.last.isoformat() if f.last else None,
                    **({"renamed": dict(f.renamed)} if f.renamed else {}),
                    **({"redated": f.redated} if f.redated else {}),
                    **({"numbered": item.input.numbered} if f.numbered else {}),
                    **({"revalued": [list(v) for v in f.revalued]} if f.revalued else {}),
                    **({"unknown": [list(u) for u in f.unknown]} if f.unknown else {}),
                    **({"delimiter": f.delimiter} if f.delimiter != "," else {}),
                    **({"renumbered": f.renumbered} if f.renumbered else {}),
                    **(
                        {"captions": f.transcript.kind, "speakers": list(f.transcript.speakers)} if f.transcript else {}
                    ),
                }
                for f in item.chosen
            ],
        }
        for item in located
        if item.chosen
    ]
