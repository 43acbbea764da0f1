"""`alicorn runs` draws its table itself (render.drawn_table) where rich's Table would lay it out plainly: the same
characters as rich's, for any one-line printable cells in any script, and rich's Table wherever it would not be
plain (a cell of several lines, a table wider than the terminal). The goal, the user's own words, is never read
as markup on either path."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text

from alicorn.render import drawn_table

from ._support import ALARMS, invoke

HEADER = ("run", "status", "nodes ok", "events", "size", "created", "goal")

# Latin, Polish, Cyrillic, CJK (two cells wide), digits and punctuation, spaces and brackets (markup to rich).
cell = st.text(
    alphabet=st.sampled_from([*list("abcXYZ019 -_:/.,[]()łśżŁЖжюЯ日本語ü#%"), "é", "ß"]), min_size=0, max_size=24
)
row = st.lists(cell, min_size=len(HEADER), max_size=len(HEADER))


def _rendered(thing: object, width: int = 400) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(thing, soft_wrap=isinstance(thing, Text))
    return console.export_text()


def _rich(rows: list[list[str]]) -> str:
    table = Table(*HEADER)
    for cells in rows:
        table.add_row(*(Text(c) for c in cells))
    return _rendered(table)


@settings(max_examples=300, deadline=None)
@given(st.lists(row, min_size=1, max_size=8))
def test_the_drawn_table_is_rich_tables_character_for_character(rows: list[list[str]]) -> None:
    drawn = drawn_table(HEADER, [[(c, "") for c in cells] for cells in rows], 400)
    assert drawn is not None
    assert _rendered(drawn) == _rich(rows)


def test_rich_lays_out_what_is_not_one_plain_line_or_does_not_fit() -> None:
    plain = [[("a", "")] * len(HEADER)]
    assert drawn_table(HEADER, plain, 400) is not None
    assert drawn_table(HEADER, [[("two\nlines", ""), *plain[0][1:]]], 400) is None
    assert drawn_table(HEADER, [[("tab\there", ""), *plain[0][1:]]], 400) is None
    wide = [[("x" * 60, "")] * len(HEADER)]
    assert drawn_table(HEADER, wide, 120) is None  # rich wraps the widest columns to fit


def test_runs_lists_a_goal_with_brackets_and_lines_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = json.loads(ALARMS.read_text())
    for goal in ("[bold]check[/] the [red]alarms[/red] [link=x]", "line one\nline two"):
        plan["goal"] = goal
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(plan))
        ran = invoke(home, "run", str(path), "-q")  # it stops (no alarm data beside this plan): still a run
        assert "run-" in ran.output, ran.output
    listed = invoke(home, "runs")
    assert listed.exit_code == 0, listed.output
    assert "[bold]check[/] the [red]alarms[/red] [link=x]" in listed.output
    assert "line one" in listed.output and "line two" in listed.output


@settings(max_examples=100, deadline=None)
@given(st.lists(row, min_size=1, max_size=5), st.sampled_from([None, "effects", "ефекты"]))
def test_a_printed_table_with_a_title_is_rich_tables_too(rows: list[list[str]], title: str | None) -> None:
    import alicorn.render as render

    recorded = Console(width=400, record=True, color_system=None, file=io.StringIO())
    kept, render.console = render.console, recorded
    try:
        render.print_table(HEADER, [[(c, "") for c in cells] for cells in rows], title=title)
    finally:
        render.console = kept
    table = Table(*HEADER, title=title)
    for cells in rows:
        table.add_row(*(Text(c) for c in cells))
    assert recorded.export_text() == _rendered(table)
