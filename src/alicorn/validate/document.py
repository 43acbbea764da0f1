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
from alicorn.i18n import N_
from alicorn.validate.base import (
    CheckResult,
    ValidationReport,
    check,
    joined,
    parse_artifact,
    phrase,
    problems_check,
    render,
)

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
    problems: list[dict[str, Any]] = []
    if not doc.title.strip():
        problems.append(phrase(N_("the title is empty")))
    if not doc.sections:
        problems.append(phrase(N_("there are no sections")))
    empty = [s.heading or "(no heading)" for s in doc.sections if not s.text.strip() or not s.heading.strip()]
    if empty:
        problems.append(phrase(N_("empty section(s): {sections}"), sections=", ".join(empty)))
    missing = [
        r
        for r in _strings(criteria, "required_sections")
        if not any(heading_matches(s.heading, r) for s in doc.sections)
    ]
    if missing:
        problems.append(phrase(N_("missing required section(s): {sections}"), sections=", ".join(missing)))
    if problems:
        return problems_check("completeness", problems)
    required = len(_strings(criteria, "required_sections"))
    return check(
        "completeness",
        True,
        N_("{sections} non-empty section(s); all {required} required section(s) present"),
        sections=len(doc.sections),
        required=required,
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
        problems.append(phrase(N_("section(s) citing no source: {sections}"), sections=", ".join(uncited)))
    if unknown:
        problems.append(
            phrase(N_("cited source(s) not in the document's sources: {sources}"), sources=", ".join(unknown))
        )
    if problems:
        return problems_check("sources", problems)
    cited = len({c for s in doc.sections for c in s.sources})
    where = (
        phrase(N_("all in the source registry"))
        if registry is not None
        else phrase(N_("the document has no source registry to check"))
    )
    return check("sources", True, N_("every section cites a source ({cited} cited; {where})"), cited=cited, where=where)


def _same(a: Figure, b: Figure) -> bool:
    numeric = (int, float)
    if isinstance(a, numeric) and isinstance(b, numeric) and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _consistency(doc: Document) -> CheckResult:
    problems: list[dict[str, Any]] = []
    texts: dict[str, str] = {}
    for s in doc.sections:
        key = _norm(s.heading)
        if key in texts and _norm(texts[key]) != _norm(s.text):
            problems.append(phrase(N_("two sections headed {heading} say different things"), heading=repr(s.heading)))
        texts.setdefault(key, s.text)
    seen: dict[str, tuple[Figure, str]] = {}
    for s in doc.sections:
        for name, value in sorted(s.figures.items()):
            if name in seen and not _same(seen[name][0], value):
                first, where = seen[name]
                problems.append(
                    phrase(
                        N_("figure {figure} is {first} in {where} but {value} in {heading}"),
                        figure=repr(name),
                        first=repr(first),
                        where=repr(where),
                        value=repr(value),
                        heading=repr(s.heading),
                    )
                )
            seen.setdefault(name, (value, s.heading))
    if problems:
        return problems_check("consistency", problems)
    return check(
        "consistency", True, N_("headings distinct, {figures} figure(s) agree wherever repeated"), figures=len(seen)
    )


def _texts(doc: Document) -> list[tuple[dict[str, Any], str]]:
    """(where, as a phrase; text) for everything a reader sees or a source names."""
    # Places are named by position, never by heading: a heading may itself hold the value found.
    out = [(phrase(N_("the title")), doc.title)]
    for number, s in enumerate(doc.sections, start=1):
        out.append((phrase(N_("section {number}'s heading"), number=number), s.heading))
        out.append((phrase(N_("section {number}'s text"), number=number), s.text))
        figures = phrase(N_("section {number}'s figures"), number=number)
        out.extend((figures, f"{n} {v}") for n, v in sorted(s.figures.items()))
    if doc.sources is not None:
        out.append((phrase(N_("the sources")), canonical.dumps(doc.sources)))
    return out


def _kind(severity: str, category: str) -> dict[str, Any]:
    if severity == "secret":
        return phrase(N_("secret data ({category})"), category=category)
    if severity == "private":
        return phrase(N_("private data ({category})"), category=category)
    return phrase(N_("{severity} data ({category})"), severity=severity, category=category)


def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(term.strip())}(?!\w)", re.IGNORECASE)


def _no_forbidden_data(doc: Document, criteria: Mapping[str, Any]) -> CheckResult:
    allowed = {c for c in _strings(criteria, "allowed_private") if c not in SECRET_CATEGORIES}
    names = _strings(criteria, "names")
    terms = [t for t in _strings(criteria, "forbidden_terms") if t.strip()]
    # kind (English, the order) -> (the kind as a phrase, {place in English: the place as a phrase})
    found: dict[str, tuple[dict[str, Any], dict[str, dict[str, Any]]]] = {}
    for where, text in _texts(doc):
        place = render("en", where["message"], where["values"])
        for item in find(text, names=names):
            if item.category not in allowed:
                kind = _kind(item.severity, item.category)
                found.setdefault(f"{item.severity} data ({item.category})", (kind, {}))[1][place] = where
        for term in terms:
            if _term_pattern(term).search(text):
                kind = phrase(N_("forbidden term {term}"), term=repr(term))
                found.setdefault(f"forbidden term {term!r}", (kind, {}))[1][place] = where
    if found:
        # The values themselves are never repeated in the report: only what kind and where.
        problems = [
            phrase(N_("{kind} in {places}"), kind=kind, places=joined([p for _, p in sorted(places.items())], ", "))
            for _, (kind, places) in sorted(found.items())
        ]
        return problems_check("no_forbidden_data", problems)
    return check(
        "no_forbidden_data",
        True,
        N_("no secrets, no private data and none of {terms} forbidden term(s)"),
        terms=len(terms),
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
                check(
                    "min_sections",
                    enough,
                    N_("{sections} section(s); at least {minimum} wanted"),
                    sections=len(parsed.sections),
                    minimum=minimum,
                )
            )
        return ValidationReport.of("document", checks)
    except Exception as exc:  # a validator reports; it never takes the caller down with it
        return ValidationReport.unreadable_because(
            "document", N_("the document could not be checked: {error}"), error=type(exc).__name__
        )
