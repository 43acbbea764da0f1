"""Finding the user's data for a workflow, checking it, and staging it as the run's data root.

For each input a workflow declares (`alicorn.packs.inputs.DataInput`), candidates are looked for in this order, and
the first source that yields a fitting file wins:

    1. the request's attachments (an attached alarm log, roster, transcript *is* the input)
    2. the paths the request's words (or the answers to Core's questions) name
    3. `alicorn ask --data [NAME=]PATH` (a file or a folder)
    4. the project's data sources in alicorn.toml: [projects.<project>.data] NAME = "glob" (or a list of globs)
    5. the workflow's bundled sample data, only when Core was built with `samples=True` (the demo and the tests)

Paths from the words and from `--data` must lie under one of the project's roots (`[projects.<p>] roots`, by
default the folder Alicorn was started in); a path outside is refused, naming the roots. The words' paths are read
newest first (an answer to Core's question corrects the request), one message at a time; a path in quotes ("…",
„…”, «…», '…') may hold spaces, and so may an answer that is nothing but a path. Every candidate is read
(`inspect`); one that does not fit (a PDF where a CSV is needed, an empty file, the wrong columns, too large) is
kept as a problem, so the question Core asks names it.

A source offering several files (a folder, a glob, several attachments) is the input's source when any of them fits,
or when one could hold the input's data but cannot be read (`Problem.may_hold_data`: a `.csv` not in UTF-8, a binary
`.csv`, an alarm log whose dates are wrong) or a path given or named is not there: then the input is not found, and
the question names that file, never a later source or half of the data in silence. For an input read from every
fitting file (a CSV log, transcripts) such a file blocks even beside fitting ones; an input read from one file (a
JSON, a folder) takes its first fitting file. A path in the words that is not there (`./logs/nope.csv`) blocks
nothing, as the words may name where a result goes, but the question names it when the input is found nowhere. The
files of the source that were not read (of another kind, empty, another table) are said with why (`skipped`, in
`data.found`).

When every required input is found, the files are copied into `<home>/inputs/<conversation>/` under the names the
plan reads (several CSV files of one input are merged, header once), and the run's data root is that folder: the
user's data, never the samples, is what runs. Each staged copy keeps the label its original has under the home's
`[data]` patterns (the original's path relative to the project root it lies under), recorded beside the folder
(`alicorn.app.record_staged_labels`), so a private file stays private in the run that reads its copy.

Two kinds of file are never read, from any source but an attachment, and the question says why (nothing of them is
read or journaled, and no later source is taken in their place): a file inside the Alicorn home (its journal, keys,
configuration, other runs' workspaces and staged data; a folder holding the home is read without it; a home that is
itself the project's folder refuses what Alicorn keeps in it), and a file the home's `[data] secret` patterns label
secret, which only a plan run with `alicorn run --allow-secret-read` and a human's approval may read.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from alicorn.anvil.labels import Classification, DataLabels, highest, label_rank
from alicorn.app import record_staged_labels
from alicorn.i18n import N_
from alicorn.packs.captions import stated_date
from alicorn.packs.inputs import (
    MAX_INPUT_BYTES,
    MAX_TREE_FILES,
    DataInput,
    Finding,
    Problem,
    absent,
    inspect,
    staged_rows,
)

#: Words that look like a path: something with a slash or a file extension ("./logs/alarms.csv", "roster.csv").
_PATHLIKE = re.compile(r"""(?:(?<=\s)|^|(?<=["'(]))((?:~|\.{1,2})?/?[\w.\-/]*[\w\-]+(?:/|\.[A-Za-z0-9]{1,5})?)""")
#: A quoted stretch of words, which may be a path with spaces: "…", “…”, „…”, «…», '…', ‘…’ (opened at the start or
#: after a space, a bracket, ":" or "=", so an apostrophe inside a word opens nothing).
_QUOTED = re.compile(
    r"""(?:^|(?<=[\s(\[:=]))(?:"([^"\n]+)"|“([^”\n]+)”|„([^”“\n]+)[”“]|«([^»\n]+)»|'([^'\n]+)'(?!\w)|‘([^’\n]+)’)"""
)
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")
#: The name of an Alicorn home by default: a folder so named is never data, wherever it lies.
HOME_NAME = ".alicorn"
#: Why a path inside the Alicorn home is not read (`where`: the path as the person would write it).
IN_HOME = N_(
    "{where} is inside Alicorn's home folder, which holds its journal, keys and the files of other runs; Core never "
    "reads there, and nothing of it was read. Give a copy of the data kept outside that folder"
)
#: Why a file the home's `[data] secret` patterns label secret is not read.
SECRET = N_(
    "{where} is labelled secret by [data] secret in alicorn.toml, and Core never reads a secret file: nothing of it "
    "was read. Give a copy without the secrets, or read it with a plan of your own, run with `alicorn run PLAN "
    "--allow-secret-read {where}` and approved by a person"
)
#: What Alicorn keeps in its home (its configuration, keys, runs' workspaces, staged data, attachments, projects and
#: the service's session key; its databases below): all a home that is also a project's folder refuses as data.
HOME_ENTRIES = frozenset(
    {"alicorn.toml", "models.toml", "keys", "workspaces", "inputs", "artifacts", "projects", "service-session.key"}
)
_HOME_DATABASE = re.compile(r"^(journal|memory|run-index)\.db")
#: The most single-file patterns a staged folder's labels list; past it the folder is labelled as its most
#: sensitive file (never lower).
MAX_LABELLED_FILES = 200


@dataclass(frozen=True)
class DataSources:
    """Where Core may look for a request's data (see the module docstring)."""

    attachments: Sequence[tuple[str, Path]] = ()  # (original name, stored file)
    #: Where each stored attachment was attached from (absolute paths; none for an upload): it is labelled by them too.
    origins: Mapping[Path, Sequence[Path]] = field(default_factory=dict)
    given: Sequence[tuple[str | None, Path]] = ()  # --data [NAME=]PATH
    project: Mapping[str, Sequence[str]] = field(default_factory=dict)  # NAME -> globs
    roots: Sequence[Path] = ()
    samples: Path | None = None
    labels: DataLabels = field(default_factory=DataLabels)  # the home's [data] patterns, relative to a root
    hidden: Sequence[Path] = ()  # the Alicorn home: never read (but for the attachments it stores)


@dataclass(frozen=True)
class Located:
    """One input: the files chosen for it (where they came from) and the files of that source left out; or the
    problems of the candidates seen (where a source held a file the input cannot do without: that file's)."""

    input: DataInput
    chosen: tuple[Finding, ...] = ()
    source: str = ""
    problems: tuple[Finding, ...] = ()
    refused: tuple[str, ...] = ()  # paths named outside the project's roots
    skipped: tuple[Skipped, ...] = ()  # files the chosen source offered that were not read, and why
    labels: tuple[tuple[Path, Classification], ...] = ()  # each chosen file's label (its original's)

    @property
    def found(self) -> bool:
        return bool(self.chosen)


@dataclass(frozen=True)
class Skipped:
    """A file of the input's source left out: of another kind, or read and holding none of the input's data."""

    path: Path
    name: str
    why: str  # in English, for the journal
    problem: Problem | None = None  # what reading it found, when it was read


@dataclass(frozen=True)
class Named:
    """A path the words name: as written, the path it names (read against the first root when none exists)."""

    word: str
    path: Path
    exists: bool


def named_paths(text: str, roots: Sequence[Path]) -> list[Named]:
    """The paths one message names: a quoted path (which may hold spaces), the whole message when it is a path
    that exists, and words that look like a path (relative ones are read against each root, then as given)."""
    found: list[Named] = []
    words: list[str] = []
    whole = text.strip().strip("\"'“”„«»‘’").rstrip(".,;:!?").strip()
    # one word may be a folder's name ("app"); "?" or "..." is none (stripped, it would name the project's root)
    pathlike = "/" in whole or _EXTENSION.search(whole) or (" " not in whole and any(c.isalnum() for c in whole))
    if "\n" not in whole and pathlike and _there(whole, roots) is not None:
        words.append(whole)  # an answer that is nothing but a path (it may hold spaces, or be a bare folder name)
        text = ""
    rest = text
    for match in _QUOTED.finditer(text):
        quoted = next(g for g in match.groups() if g is not None).strip()
        if "/" in quoted or "\\" in quoted or _EXTENSION.search(quoted):
            words.append(quoted)
            rest = rest.replace(match.group(0), " " * len(match.group(0)), 1)  # its words are not read again
    for match in _PATHLIKE.finditer(rest):
        word = match.group(1).rstrip(".,;:")
        if "/" in word or "." in word.strip("."):
            words.append(word)
    for word in dict.fromkeys(words):
        options = _readings(word, roots)
        there = next((option for option in options if _exists(option)), None)
        if there is None and options:
            found.append(Named(word, options[0], False))
        elif there is not None and all(n.path != there for n in found):
            found.append(Named(word, there, True))
    return found


def _there(word: str, roots: Sequence[Path]) -> Path | None:
    """The existing path `word` names, if any (see `_readings`)."""
    return next((option for option in _readings(word, roots) if _exists(option)), None)


def _readings(word: str, roots: Sequence[Path]) -> list[Path]:
    """The paths `word` may name: a relative one against each root, then as given; an absolute one as it is."""
    try:
        candidate = Path(word).expanduser()
    except RuntimeError:  # "~name/…" of no known user
        return []
    return [candidate] if candidate.is_absolute() else [r / candidate for r in roots] + [candidate]


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a name too long for the file system is no file
        return False


def _names_a_file_for(word: str, want: DataInput) -> bool:
    """Whether a path the words name, that is not there, was meant as `want`'s data: one with a folder part and
    the input's extension (`./logs/nope.csv` for a CSV), or a folder written as one (`./hr_export`, `logs/`)."""
    if "/" not in word and "\\" not in word:
        return False  # a bare name ("out.csv") may be what the person wants written, not read
    suffix = PurePath(word).suffix.lower()
    if suffix and _EXTENSION.search(word):
        return suffix in want.suffixes()
    return word.startswith(("./", "../", "~/", "/")) or word.endswith("/")


def _shown(path: Path, roots: Sequence[Path]) -> str:
    """A path as short as the person would write it: relative to the root it lies under."""
    for root in roots:
        try:
            return str(path.relative_to(root))
        except ValueError:
            continue
    return str(path)


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == r.resolve() or resolved.is_relative_to(r.resolve()) for r in roots)


def in_home(path: Path, sources: DataSources) -> bool:
    """Whether `path`, as written or where its links lead, lies in an Alicorn home: one of `sources.hidden`, or any
    folder named `.alicorn` (no home's journal, keys or runs' files are a request's data). A home that is itself a
    project's folder (a root at or inside it) holds the project's files too: there, what Alicorn keeps in it is."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a link loop leads nowhere readable
        return False
    if HOME_NAME in path.parts or HOME_NAME in resolved.parts:
        return True
    for home in (h.resolve() for h in sources.hidden):
        if not resolved.is_relative_to(home):
            continue
        if not any(root.resolve().is_relative_to(home) for root in sources.roots):
            return True
        inner = resolved.relative_to(home).parts
        if inner and (inner[0] in HOME_ENTRIES or _HOME_DATABASE.match(inner[0])):
            return True
    return False


def label_of(path: Path, sources: DataSources) -> Classification:
    """The label the home's `[data]` patterns give `path`: relative to each project root it lies under, as written
    and where its links lead, the highest; a path under no root is read by each of its trailing parts
    (`srv/keys/api.json`, `keys/api.json`, `api.json`), so no pattern can miss it. A folder gets the highest label of
    itself and what it holds."""
    if not path.is_dir():
        return _label(path, sources)
    return highest([_label(path, sources), *(_label(p, sources) for p in _walk(path, sources) if not p.is_dir())])


def _label(path: Path, sources: DataSources) -> Classification:
    labels = sources.labels
    if not any((labels.public, labels.internal, labels.private, labels.secret)):
        return labels.default
    roots = {form for root in sources.roots for form in (root.absolute(), root.resolve())}
    readings: list[str] = []
    for form in dict.fromkeys((Path(os.path.normpath(path.absolute())), path.resolve())):
        under = [form.relative_to(root).as_posix() for root in roots if form.is_relative_to(root)]
        parts = form.parts[1:]
        readings += under or ["/".join(parts[i:]) for i in range(len(parts))]
    return highest(labels.classify(reading) for reading in readings)


def _walk(folder: Path, sources: DataSources) -> list[Path]:
    """Everything under `folder`, in order, as `Path.rglob` lists it, but never inside an Alicorn home (a link is
    listed, not followed: a folder input holding one is refused when it is read)."""
    found: list[Path] = []
    for top, folders, files in os.walk(folder):
        here = Path(top)
        folders[:] = [f for f in folders if (here / f).is_symlink() or not in_home(here / f, sources)]
        found += [here / f for f in folders]
        found += [here / f for f in files if (here / f).is_symlink() or not in_home(here / f, sources)]
    return sorted(found)


def _refusal(path: Path, message: str, sources: DataSources, where: str | None = None) -> Finding:
    """A candidate refused before anything of it was read (`IN_HOME`, `SECRET`)."""
    shown = where if where is not None else _shown(path, sources.roots)
    return Finding(path, Problem(message, {"file": path.name, "where": shown}, "unread"))


def _screened(paths: Sequence[Path], want: DataInput, sources: DataSources) -> tuple[list[Path], list[Finding]]:
    """The candidates that may be read, and a refusal for each one that may not: inside an Alicorn home (a link's
    target counts), labelled secret, or a folder input holding a file labelled secret."""
    kept: list[Path] = []
    refused: list[Finding] = []
    for path in paths:
        if in_home(path, sources):
            refused.append(_refusal(path, IN_HOME, sources))
            continue
        inner = [p for p in _walk(path, sources) if not p.is_dir()] if want.format == "tree" and path.is_dir() else []
        secret = next((p for p in (path, *inner) if _label(p, sources) == "secret"), None)
        if secret is not None:
            refused.append(_refusal(secret, SECRET, sources))
        else:
            kept.append(path)
    return kept, refused


def _read_tree(path: Path, want: DataInput, sources: DataSources) -> Finding:
    """`inspect` of a folder input, leaving out an Alicorn home it holds (the project's root given as the
    application's folder holds `.alicorn`): the same digest, checks and limits over everything else."""
    if not path.is_dir():
        return inspect(path, want)
    digest = hashlib.sha256()
    total, names = 0, []
    try:
        for item in _walk(path, sources):
            if item.is_symlink():
                link = str(item.relative_to(path))
                problem = N_("{file} holds a symbolic link ({link}); copy the real files instead")
                return Finding(path, Problem(problem, {"file": path.name, "link": link}, "unfit"))
            if not item.is_file():
                continue
            names.append(str(item.relative_to(path)))
            if len(names) > MAX_TREE_FILES:
                problem = N_("{file} holds more than {limit} files")
                return Finding(path, Problem(problem, {"file": path.name, "limit": MAX_TREE_FILES}, "unfit"))
            data = item.read_bytes()
            total += len(data)
            if total > MAX_INPUT_BYTES:
                problem = N_("{file} holds more than {limit} MB")
                return Finding(path, Problem(problem, {"file": path.name, "limit": MAX_INPUT_BYTES // 2**20}, "unfit"))
            digest.update(names[-1].encode() + b"\0" + hashlib.sha256(data).digest())
    except OSError as exc:
        problem = N_("{file} cannot be read ({error})")
        return Finding(path, Problem(problem, {"file": path.name, "error": exc.strerror or str(exc)}, "unread"))
    if not names:
        return Finding(path, Problem(N_("{file} is an empty folder"), {"file": path.name}, "empty"))
    return Finding(path, None, digest.hexdigest(), total, len(names), None, None, tuple(names))


def _candidates(path: Path, want: DataInput) -> tuple[list[Path], list[Skipped]]:
    """The files a path offers for `want`: itself, or inside a folder the input's own name, else every file of the
    right kind directly in it; and the folder's other files, not read (hidden ones are not said)."""
    if want.format == "tree":
        inner = path / want.file
        return ([inner] if inner.is_dir() and not (path / "pyproject.toml").exists() else [path]), []
    if path.is_file():
        return [path], []
    if not path.is_dir():
        return [], []
    try:
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return [], []
    own = path / want.file
    if own.is_file():
        why = f"not read: {want.file} in the same folder is the {want.name} input"
        return [own], [Skipped(p, p.name, why) for p in files if p != own]
    suffixes = want.suffixes()
    kinds = ", ".join(sorted(suffixes))
    others = [Skipped(p, p.name, f"not read: {want.name} reads {kinds} files") for p in files if p.suffix.lower()
              not in suffixes]  # fmt: skip
    return [p for p in files if p.suffix.lower() in suffixes], others


def _fitting(paths: Sequence[Path], want: DataInput, sources: DataSources) -> tuple[list[Finding], list[Finding]]:
    good: list[Finding] = []
    bad: list[Finding] = []
    for path in paths:
        finding = _read_tree(path, want, sources) if want.format == "tree" else inspect(path, want)
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
    if _reads_all(want):
        return tuple(good)
    return tuple(good[:1])


def _reads_all(want: DataInput) -> bool:
    """Whether the input is read from every fitting file of its source (a CSV log, transcripts), not from one."""
    return want.format in ("csv", "json_files")


def _name_of(finding: Finding) -> str:
    return finding.files[0] if finding.files else finding.path.name


def _may_lose(finding: Finding, want: DataInput) -> bool:
    """Whether leaving `finding` out could lose some of `want`'s data: a path that is not there, or a file of the
    input's kind (its extension; any, for a folder input) that may hold data and could not be read or is unfit."""
    problem = finding.problem
    if problem is None or not problem.may_hold_data:
        return False
    if problem.kind == "absent" or want.format == "tree":
        return True
    return PurePath(_name_of(finding)).suffix.lower() in want.suffixes()


@dataclass(frozen=True)
class _Step:
    label: str
    paths: Sequence[Path] = ()
    absent: Sequence[tuple[Path, str]] = ()  # paths given or named that are not there, as the person wrote them
    skipped: Sequence[Skipped] = ()
    absent_blocks: bool = True  # a --data path: it names data; a path in the words may name where a result goes
    refusals: Sequence[Finding] = ()  # paths that are never read (`IN_HOME`, `SECRET`): the question names them


def _offered(paths: Sequence[Path], want: DataInput) -> tuple[list[Path], list[Skipped]]:
    offered: list[Path] = []
    skipped: list[Skipped] = []
    for path in paths:
        files, others = _candidates(path, want)
        offered += files
        skipped += others
    return offered, skipped


def _steps(want: DataInput, sources: DataSources, texts: Sequence[str]) -> tuple[list[_Step], list[str]]:
    """The sources to look in for `want`, in order, and the paths given or named outside the project's roots."""
    refused: list[str] = []
    attached = [p for n, p in sources.attachments if _attached_label(n, p, sources) != "secret"]
    secret = [_refusal(p, SECRET, sources, n) for n, p in sources.attachments if p not in attached]
    steps = [_Step("attachment", attached, refusals=secret)]
    for text in reversed(texts):  # an answer to Core's question corrects the paths the request named
        named = [n for n in named_paths(text, sources.roots) if n.exists or _names_a_file_for(n.word, want)]
        homed = [_refusal(n.path, IN_HOME, sources, n.word) for n in named if in_home(n.path, sources)]
        named = [n for n in named if not in_home(n.path, sources)]
        there = [n.path for n in named if n.exists]
        meant = [n for n in named if not n.exists]
        refused += [str(p) for p in there if not _inside(p, sources.roots)]
        refused += [n.word for n in meant if not _inside(n.path, sources.roots)]
        offered, skipped = _offered([p for p in there if _inside(p, sources.roots)], want)
        offered, refusals = _screened(offered, want, sources)
        absent_here = [(n.path, n.word) for n in meant if _inside(n.path, sources.roots)]
        steps.append(_Step("named in the request", offered, absent_here, skipped, False, [*homed, *refusals]))
    given = [p for name, p in sources.given if name in (None, want.name)]
    homed = [_refusal(p, IN_HOME, sources) for p in given if in_home(p, sources)]
    given = [p for p in given if not in_home(p, sources)]
    refused += [str(p) for p in given if not _inside(p, sources.roots)]
    inside = [p for p in given if _inside(p, sources.roots)]
    offered, skipped = _offered([p for p in inside if p.exists()], want)
    offered, refusals = _screened(offered, want, sources)
    missing = [(p, _shown(p, sources.roots)) for p in inside if not p.exists()]
    steps.append(_Step("--data", offered, missing, skipped, refusals=[*homed, *refusals]))
    configured: list[Path] = []
    homed = []
    for pattern in sources.project.get(want.name, ()):
        base = Path(pattern).expanduser()
        if base.is_absolute():
            anchor, rest = Path(base.anchor), str(base.relative_to(base.anchor))
        else:
            anchor, rest = (sources.roots[0] if sources.roots else Path.cwd()), pattern
        if any(ch in rest for ch in "*?["):  # a glob's matches inside an Alicorn home are not the project's data
            configured += [p for p in sorted(anchor.glob(rest)) if not in_home(p, sources)]
        elif in_home(anchor / rest, sources):
            homed.append(_refusal(anchor / rest, IN_HOME, sources))
        else:
            configured.append(anchor / rest)
    offered, skipped = _offered(configured, want)
    offered, refusals = _screened(offered, want, sources)
    steps.append(_Step("project data source", offered, skipped=skipped, refusals=[*homed, *refusals]))
    if sources.samples is not None:
        steps.append(_Step("bundled sample", _offered([sources.samples], want)[0]))
    return steps, refused


def _attached_label(name: str, stored: Path, sources: DataSources) -> Classification:
    """An attachment's label: the highest of its name's and that of each file it was attached from (as `--data` of
    that file would be labelled), so `keys/token.txt` attached is as secret as `keys/token.txt` named."""
    origins = sources.origins.get(stored, ())
    return highest([sources.labels.classify(_safe_name(name)), *(label_of(o, sources) for o in origins)])


def locate(want: DataInput, sources: DataSources, texts: Sequence[str]) -> Located:
    """The files for `want`, from the first source that has fitting ones or that holds a file it cannot do without
    (see the module docstring)."""
    problems: list[Finding] = []
    steps, refused = _steps(want, sources, texts)
    for step in steps:
        if step.refusals:  # never a later source, nor the rest of this one, in place of a file that may not be read
            return Located(want, (), step.label, tuple(problems + list(step.refusals)), tuple(refused))
        good, bad = _fitting(step.paths, want, sources)
        if step.label == "attachment":
            good, bad = _named(good, sources), _named(bad, sources)
        missing = [absent(path, where) for path, where in step.absent]
        if step.absent_blocks:
            bad, missing = bad + missing, []
        lost = [f for f in bad if _may_lose(f, want)]
        if lost and (not good or _reads_all(want)):
            # never a later source, nor the readable part of this one, in silence: the question names the file
            return Located(want, (), step.label, tuple(problems + lost), tuple(refused))
        if good:
            chosen = _one_or_all(good, want)
            skipped = [
                *step.skipped,
                *(Skipped(f.path, _name_of(f), f"not read: {want.name} reads one file") for f in good[len(chosen) :]),
                *(Skipped(f.path, _name_of(f), f.problem.english(), f.problem) for f in bad if f.problem is not None),
            ]
            if step.label == "attachment":
                labels = tuple((f.path, _attached_label(_name_of(f), f.path, sources)) for f in chosen)
            else:
                labels = tuple((f.path, label_of(f.path, sources)) for f in chosen)
            return Located(want, chosen, step.label, tuple(problems), tuple(refused), tuple(skipped), labels)
        problems += [*missing, *bad]
    return Located(want, (), "", tuple(problems), tuple(refused))


def stage(
    located: Sequence[Located],
    into: Path,
    documents: Mapping[Path, tuple[str, str]] | None = None,
    sources: DataSources | None = None,
) -> Path:
    """Copy the chosen files under the names the plan reads; returns the data root (`into`). `documents` replaces a
    file by (name, text) written in its place: a caption transcript staged as the pack's JSON. Each staged path's
    label is its original's (`Located.labels`; several files merged into one: the highest), recorded beside `into`.
    A folder is copied without links and without an Alicorn home it holds (`in_home`, over `sources`)."""
    into.mkdir(parents=True, exist_ok=True)
    documents = documents or {}
    known = {path: level for item in located for path, level in item.labels}
    labels: dict[str, Classification] = {}

    def label(name: str, *originals: Path) -> None:
        """`name` staged from `originals`: it gets the highest of their labels (when they are known)."""
        found = [known[p] for p in originals if p in known]
        if found:
            labels[name] = highest(found)

    for item in located:
        want = item.input
        if not item.chosen:
            continue
        if want.format == "tree":
            target = into / want.file
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(item.chosen[0].path, target, symlinks=True, ignore=_left_out(sources or DataSources()))
            label(want.file, item.chosen[0].path)
            label(f"{want.file}/**", item.chosen[0].path)
        elif want.format == "json_files":
            for finding in item.chosen:
                if finding.path in documents:
                    name, text = documents[finding.path]
                    (into / name).write_text(text, encoding="utf-8")
                    label(name, finding.path)
                    continue
                name = finding.files[0] if finding.files else finding.path.name
                if finding.first is not None and not re.match(r"\d{4}-\d{2}-\d{2}", name):
                    name = f"{finding.first.isoformat()}-{name}"  # the transcript reader orders files by date
                shutil.copyfile(finding.path, into / name)
                label(name, finding.path)
        elif want.format == "csv" and (len(item.chosen) > 1 or not item.chosen[0].as_is):
            (into / want.file).write_text(_staged_csv(item.chosen, want), encoding="utf-8")
            label(want.file, *(f.path for f in item.chosen))
        else:
            shutil.copyfile(item.chosen[0].path, into / want.file)
            label(want.file, item.chosen[0].path)
    if labels:
        record_staged_labels(into, labels)
    return into


def stage_given(sources: DataSources, into: Path) -> Path:
    """A free plan's data root: a copy of what the request gave (its attachments, under their names, and the
    `--data` files and folders that lie under the project's roots), and nothing else: never the home, so a plan
    reads neither the journal nor another run's or project's files. Symlinks are not followed. Each copy keeps its
    original's label (a folder: each file its own, the folder its most sensitive file's), recorded beside `into`:
    a plan reading a copy of a secret file is refused as one reading the original is."""
    into.mkdir(parents=True, exist_ok=True)
    labels: dict[str, Classification] = {}
    for name, stored in sources.attachments:
        target = into / _safe_name(name)
        if stored.is_file() and not target.exists():
            shutil.copyfile(stored, target)
            labels[target.name] = _attached_label(name, stored, sources)
    for _name, path in sources.given:
        if not _inside(path, sources.roots) or path.is_symlink() or in_home(path, sources):
            continue
        target = into / _safe_name(path.name)
        if target.exists():
            continue
        if path.is_dir():
            shutil.copytree(path, target, symlinks=True, ignore=_left_out(sources))
            labels |= _folder_labels(path, target.name, sources)
        elif path.is_file():
            shutil.copyfile(path, target)
            labels[target.name] = label_of(path, sources)
    if labels:
        record_staged_labels(into, labels)
    return into


def _folder_labels(folder: Path, name: str, sources: DataSources) -> dict[str, Classification]:
    """The labels of a folder staged as `name`: each file that its original's label puts above what the home's
    patterns say of the copy (at most MAX_LABELLED_FILES, else everything in it at the highest), and the folder
    itself at its most sensitive file's."""
    files = {f"{name}/{p.relative_to(folder).as_posix()}": _label(p, sources) for p in _walk(folder, sources)
             if p.is_file() and not p.is_symlink()}  # fmt: skip
    top = highest([_label(folder, sources), *files.values()])
    said = sources.labels.classify
    raised = {copy: label for copy, label in files.items() if label_rank(label) > label_rank(said(copy))}
    if len(raised) > MAX_LABELLED_FILES:
        raised = {f"{name}/**": top}
    return {name: top, **raised}


def _safe_name(name: str) -> str:
    """A file name with no folder part and nothing hidden (`../x` and `/etc/x` become `x`)."""
    return Path(name).name.lstrip(".") or "attachment"


def _left_out(sources: DataSources) -> Callable[[str, list[str]], list[str]]:
    """For copytree: leave out symlinks (kept as links, they could lead anywhere) and Alicorn homes."""

    def ignored(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if (Path(folder) / n).is_symlink() or in_home(Path(folder) / n, sources)]

    return ignored


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


def skipped_files(located: Sequence[Located]) -> list[dict[str, Any]]:
    """The files the inputs' sources offered that no input read, each once, with why (what reading it found, when
    it was read: its msgid and values, for the report to say in the person's language)."""
    read = {f.path for item in located for f in item.chosen}
    said: dict[Path, dict[str, Any]] = {}
    for item in located:
        for skip in item.skipped:
            if skip.path in read or (skip.path in said and "message" in said[skip.path]):
                continue
            entry: dict[str, Any] = {"input": item.input.name, "path": str(skip.path), "name": skip.name}
            entry["why"] = skip.why
            if skip.problem is not None:
                entry.update(message=skip.problem.message, values=dict(skip.problem.values))
            said[skip.path] = entry
    return list(said.values())


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
