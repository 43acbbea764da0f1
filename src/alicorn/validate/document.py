"""`validate_document`: a report, note or triage document checked for completeness, sources, consistency and data.

The artifact is plain JSON:

    {"title": "...",
     "sections": [{"heading": "...", "text": "...", "sources": ["id", ...], "figures": {"name": 1.5}}, ...],
     "sources": {"id": {...}, ...}}          # optional registry of what the sections cite (a list of ids works too)

Checks (each an error unless said otherwise):

- `completeness`: a title and at least one section; every section has text; every heading in
  `criteria["required_sections"]` is present. A heading matches a required name when, case-insensitively, it equals
  it or starts with it followed by a non-alphanumeric character ("Hypothesis 1: renderer" matches "hypothesis 1",
  "Hypothesis 10" does not).
- `sources` (only when `criteria["require_sources"]`): every section cites at least one source, except those named in
  `criteria["unsourced_sections"]`; when the artifact has a source registry, every cited id is in it.
- `consistency`: no two sections share a heading with different text, and a figure (a named number in a section's
  `figures`) has the same value wherever it appears.
- `no_forbidden_data`: no secret (keys, tokens, passwords, payment cards) and no private data (e-mail addresses,
  PESEL, IBAN, phone numbers, names...) as found by `alicorn.context.redact.find`, except private categories listed
  in `criteria["allowed_private"]` (secrets are never allowed); and none of `criteria["forbidden_terms"]`.
  `criteria["names"]` are people the project knows, found in their inflected forms too.
- `min_sections` (only when `criteria["min_sections"]` is given): at least that many sections.

A malformed artifact is a failed report naming the problem; the validator never raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from alicorn import canonical
from alicorn.context.redact import SECRET_CATEGORIES, find
from alicorn.validate.base import CheckResult, ValidationReport, parse_artifact

Figure = float | int | str | bool | None


class Section(BaseModel):
    """One section: a heading, its text, the ids of the sources its claims rest on, and named figures."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    heading: str
    text: str
    sources: list[str] = Field(default_factory=list)
    figures: dict[str, Figure] = Field(default_factory=dict)


class Document(BaseModel):
    """A document artifact (other fields a pack adds, such as findings, are ignored here)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    title: str
    sections: list[Section]
    sources: dict[str, Any] | list[str] | None = None


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def heading_matches(heading: str, required: str) -> bool:
    """Whether `heading` is the section `required` names (equal, or it plus a non-alphanumeric continuation)."""
    have, want = _norm(heading), _norm(required)
    if have == want:
        return True
    return have.startswith(want) and not have[len(want)].isalnum()


def _strings(criteria: Mapping[str, Any], key: str) -> list[str]:
    value = criteria.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable):
        return [v for v in value if isinstance(v, str)]
    return []


def _completeness(doc: Document, criteria: Mapping[str, Any]) -> CheckResult:
    problems: list[str] = []
    if not doc.title.strip():
        problems.append("the title is empty")
    if not doc.sections:
        problems.append("there are no sections")
    empty = [s.heading or "(no heading)" for s in doc.sections if not s.text.strip() or not s.heading.strip()]
    if empty:
        problems.append(f"empty section(s): {', '.join(empty)}")
    missing = [
        r
        for r in _strings(criteria, "required_sections")
        if not any(heading_matches(s.heading, r) for s in doc.sections)
    ]
    if missing:
        problems.append(f"missing required section(s): {', '.join(missing)}")
    if problems:
        return CheckResult(name="completeness", passed=False, detail="; ".join(problems))
    required = len(_strings(criteria, "required_sections"))
    return CheckResult(
        name="completeness",
        passed=True,
        detail=f"{len(doc.sections)} non-empty section(s); all {required} required section(s) present",
    )


def _sources(doc: Document, criteria: Mapping[str, Any]) -> CheckResult:
    exempt = _strings(criteria, "unsourced_sections")
    registry: set[str] | None = None
    if isinstance(doc.sources, (dict, list)):
        registry = set(doc.sources)
    uncited = [
        s.heading
        for s in doc.sections
        if not [c for c in s.sources if c.strip()] and not any(heading_matches(s.heading, e) for e in exempt)
    ]
    unknown = sorted({c for s in doc.sections for c in s.sources if registry is not None and c not in registry})
    problems = []
    if uncited:
        problems.append(f"section(s) citing no source: {', '.join(uncited)}")
    if unknown:
        problems.append(f"cited source(s) not in the document's sources: {', '.join(unknown)}")
    if problems:
        return CheckResult(name="sources", passed=False, detail="; ".join(problems))
    cited = len({c for s in doc.sections for c in s.sources})
    where = "all in the source registry" if registry is not None else "the document has no source registry to check"
    return CheckResult(name="sources", passed=True, detail=f"every section cites a source ({cited} cited; {where})")


def _same(a: Figure, b: Figure) -> bool:
    numeric = (int, float)
    if isinstance(a, numeric) and isinstance(b, numeric) and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _consistency(doc: Document) -> CheckResult:
    problems: list[str] = []
    texts: dict[str, str] = {}
    for s in doc.sections:
        key = _norm(s.heading)
        if key in texts and _norm(texts[key]) != _norm(s.text):
            problems.append(f"two sections headed {s.heading!r} say different things")
        texts.setdefault(key, s.text)
    seen: dict[str, tuple[Figure, str]] = {}
    for s in doc.sections:
        for name, value in sorted(s.figures.items()):
            if name in seen and not _same(seen[name][0], value):
                first, where = seen[name]
                problems.append(f"figure {name!r} is {first!r} in {where!r} but {value!r} in {s.heading!r}")
            seen.setdefault(name, (value, s.heading))
    if problems:
        return CheckResult(name="consistency", passed=False, detail="; ".join(problems))
    return CheckResult(
        name="consistency", passed=True, detail=f"headings distinct, {len(seen)} figure(s) agree wherever repeated"
    )


def _texts(doc: Document) -> list[tuple[str, str]]:
    """(where, text) for everything a reader sees or a source names."""
    # Places are named by position, never by heading: a heading may itself hold the value found.
    out = [("the title", doc.title)]
    for number, s in enumerate(doc.sections, start=1):
        out.append((f"section {number}'s heading", s.heading))
        out.append((f"section {number}'s text", s.text))
        out.extend((f"section {number}'s figures", f"{n} {v}") for n, v in sorted(s.figures.items()))
    if doc.sources is not None:
        out.append(("the sources", canonical.dumps(doc.sources)))
    return out


def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(term.strip())}(?!\w)", re.IGNORECASE)


def _no_forbidden_data(doc: Document, criteria: Mapping[str, Any]) -> CheckResult:
    allowed = {c for c in _strings(criteria, "allowed_private") if c not in SECRET_CATEGORIES}
    names = _strings(criteria, "names")
    terms = [t for t in _strings(criteria, "forbidden_terms") if t.strip()]
    found: dict[str, set[str]] = {}
    for where, text in _texts(doc):
        for item in find(text, names=names):
            if item.category not in allowed:
                found.setdefault(f"{item.severity} data ({item.category})", set()).add(where)
        for term in terms:
            if _term_pattern(term).search(text):
                found.setdefault(f"forbidden term {term!r}", set()).add(where)
    if found:
        # The values themselves are never repeated in the report: only what kind and where.
        detail = "; ".join(f"{kind} in {', '.join(sorted(places))}" for kind, places in sorted(found.items()))
        return CheckResult(name="no_forbidden_data", passed=False, detail=detail)
    return CheckResult(
        name="no_forbidden_data",
        passed=True,
        detail=f"no secrets, no private data and none of {len(terms)} forbidden term(s)",
    )


def validate_document(artifact: Mapping[str, Any] | None, criteria: Mapping[str, Any]) -> ValidationReport:
    """Check a document artifact against `criteria` (see the module docstring); never raises."""
    try:
        parsed = parse_artifact(Document, artifact, "document")
        if isinstance(parsed, ValidationReport):
            return parsed
        criteria = criteria if isinstance(criteria, Mapping) else {}
        checks = [_completeness(parsed, criteria)]
        if criteria.get("require_sources"):
            checks.append(_sources(parsed, criteria))
        checks.append(_consistency(parsed))
        checks.append(_no_forbidden_data(parsed, criteria))
        minimum = criteria.get("min_sections")
        if isinstance(minimum, int) and not isinstance(minimum, bool):
            enough = len(parsed.sections) >= minimum
            checks.append(
                CheckResult(
                    name="min_sections",
                    passed=enough,
                    detail=f"{len(parsed.sections)} section(s); at least {minimum} wanted",
                )
            )
        return ValidationReport.of("document", checks)
    except Exception as exc:  # a validator reports; it never takes the caller down with it
        return ValidationReport.unreadable("document", f"the document could not be checked: {type(exc).__name__}")
