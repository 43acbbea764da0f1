"""After the comparison: the person picks a variant, and a *separate* publication plan is made for it.

`follow_up(text, language)` reads "I pick variant 2, publish it" / "wybieram wariant 2" / "беру второй вариант" as
the slots of a publication (publish variant 2); a message that also forbids publishing changes nothing. The plan
Core builds from it holds only the publish node, over the finished run's variants (nothing is solved again), and
`describe_publication` names the changes and the recipients for the approval prompt and `alicorn proposals`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alicorn.i18n import tr
from alicorn.packs.schedule.extract import _clean, _picked, _publish
from alicorn.packs.schedule.workflow import variant_label


def follow_up(text: str, language: str) -> dict[str, Any] | None:
    """The publication a message asks for (publish the picked variant), or None."""
    clean = _clean(text)
    picked = _picked(clean)
    publish = _publish(clean)
    if publish is False or picked is None:
        return None
    return {"publish": True, "publish_variant": picked}


def item_of(parameters: Mapping[str, Any]) -> str | None:
    """The variant a publication acts on, named as the constraint checks name it."""
    return f"variant {parameters['publish_variant']}" if parameters.get("publish") else None


def describe_publication(node: str, inputs: Mapping[str, Any], language: str) -> str | None:
    """ "Publish variant 2 of 2026-12: 312 assignments (changes) to 12 people: Anna Kowalska, …"."""
    if node != "publish":
        return None
    chosen = next((v for v in inputs.get("variants", []) if v.get("id") == inputs.get("variant")), None)
    if chosen is None:
        return None
    names = {e.get("id"): e.get("name") for e in inputs.get("employees", [])}
    people = sorted({a["employee"] for a in chosen.get("assignments", [])})
    shown = ", ".join(str(names.get(p) or p) for p in people[:12]) + (", …" if len(people) > 12 else "")
    return tr(
        language,
        "Publish variant {variant} of {month} ({objective}): {changes} assignments (the changes) to {n} people "
        "(the recipients): {people}",
        variant=chosen["id"],
        month=inputs.get("month", "?"),
        objective=variant_label(chosen, language),
        changes=len(chosen.get("assignments", [])),
        n=len(people),
        people=shown,
    )
