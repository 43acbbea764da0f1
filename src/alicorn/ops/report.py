"""`report.render_text`: render records as a titled, fixed-width plain-text table with summary lines.

The text depends only on the inputs (no clock, no locale), so the same inputs always give the same bytes. Cells are
flattened to one line and cut at `MAX_CELL_CHARS`; numeric columns are right-aligned. Summary lines come from
`summary` and from the `stat_N`/`stat_N_label` pairs, whose values a plan can bind to other nodes' outputs.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, JsonValue, model_validator

from alicorn import canonical
from alicorn.ops._common import FieldKey, Model, Records
from alicorn.ops.registry import Operation, OperationContext

MAX_CELL_CHARS = 48


class RenderTextInputs(Model):
    """`stat_N` with `stat_N_label` adds a summary line whose value can be bound to another node's output."""

    title: str = Field(min_length=1, max_length=200)
    records: Records
    columns: list[FieldKey] = Field(min_length=1, max_length=32, description="record fields, one column each")
    summary: dict[str, JsonValue] = Field(default_factory=dict, max_length=32, description="label -> value lines")
    empty_message: str = Field("No records.", max_length=500, description="shown instead of an empty table")
    stat_1_label: str | None = Field(None, min_length=1, max_length=100)
    stat_1: JsonValue = None
    stat_2_label: str | None = Field(None, min_length=1, max_length=100)
    stat_2: JsonValue = None
    stat_3_label: str | None = Field(None, min_length=1, max_length=100)
    stat_3: JsonValue = None
    stat_4_label: str | None = Field(None, min_length=1, max_length=100)
    stat_4: JsonValue = None

    def _stats(self) -> list[tuple[str | None, JsonValue]]:
        return [
            (self.stat_1_label, self.stat_1),
            (self.stat_2_label, self.stat_2),
            (self.stat_3_label, self.stat_3),
            (self.stat_4_label, self.stat_4),
        ]

    def summary_lines(self) -> list[tuple[str, JsonValue]]:
        """The summary's label/value lines in order: `summary` first, then the labelled stats."""
        stats = [(label, value) for label, value in self._stats() if label is not None]
        return [*self.summary.items(), *stats]

    @model_validator(mode="after")
    def _labelled(self) -> RenderTextInputs:
        for n, (label, value) in enumerate(self._stats(), start=1):
            if label is None and value is not None:
                raise ValueError(f"stat_{n} has a value but no stat_{n}_label; give it a label")
        return self


class RenderTextOutputs(Model):
    text: str
    lines: int = Field(ge=1, description="number of lines in text")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    try:
        text = value if isinstance(value, str) else canonical.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def render_text(inputs: RenderTextInputs, ctx: OperationContext) -> RenderTextOutputs:
    """Render a titled, fixed-width plain-text table with summary lines; the same inputs give the same text."""
    title = " ".join(inputs.title.split())  # one line, whatever the input holds
    lines = [title, "=" * len(title)]
    summary = [(" ".join(label.split()), value) for label, value in inputs.summary_lines()]
    if summary:
        width = max(len(label) for label, _ in summary) + 1
        lines += [""] + [f"{(label + ':').ljust(width)}  {_cell(value)}" for label, value in summary]
    lines.append("")
    if not inputs.records:
        lines.append(" ".join(inputs.empty_message.split()))
    else:
        grid = [[_cell(record.get(c)) for c in inputs.columns] for record in inputs.records]
        widths = [max(len(c), *(len(row[i]) for row in grid)) for i, c in enumerate(inputs.columns)]
        numeric = [
            all(
                isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool)
                for r in inputs.records
                if r.get(c) is not None
            )
            for c in inputs.columns
        ]

        def line(cells: list[str]) -> str:
            parts = [t.rjust(w) if num else t.ljust(w) for t, w, num in zip(cells, widths, numeric, strict=True)]
            return "  ".join(parts).rstrip()

        lines.append(line(list(inputs.columns)))
        lines.append("  ".join("-" * w for w in widths))
        lines += [line(row) for row in grid]
    lines = [text.rstrip() for text in lines]
    return RenderTextOutputs(text="\n".join(lines) + "\n", lines=len(lines))


RENDER_TEXT = Operation(
    "report.render_text",
    "Render records as a titled plain-text table with summary lines.",
    RenderTextInputs,
    RenderTextOutputs,
    "none",
    "repeatable",
    render_text,
)
