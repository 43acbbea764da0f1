"""A run's trace in a real browser (Debian's headless Chromium through Playwright): reached from the run page by
its link, the waterfall shows the run's spans in the projector's order, each under its parent and one level
deeper, the bars placed left to right as the spans ran, each with a text label, and the failing node and its
failed attempts marked (in words as well as colour). A screenshot is kept under /tmp/ui-shots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service.browser import one_page, shot, sign_in, sync_api
from tests.service.webhome import WebHome

RETRY = "corpus-retry-alternative"  # nodes slow (fails: two timeouts), quick (the alternative), after


@pytest.fixture
def page() -> Iterator[Any]:
    with one_page() as found:
        yield found


_ROWS = """rows => rows.map(r => {
  const bar = r.querySelector('svg.wf-bar rect:last-child').getBoundingClientRect();
  const name = r.querySelector('.wf-name');
  return {span: r.dataset.span, parent: r.dataset.parent, depth: Number(r.dataset.depth),
          name: r.querySelector('summary').textContent, marked: r.classList.contains('wf-marked'),
          indent: name.getBoundingClientRect().left + parseFloat(getComputedStyle(name).paddingLeft),
          left: bar.left, right: bar.right, width: bar.width,
          label: r.querySelector('svg.wf-bar').getAttribute('aria-label'),
          badge: r.querySelector('.badge').textContent};
})"""


def test_the_trace_shows_the_runs_spans_nested_in_order_with_the_failing_node_marked(
    web: WebHome, page: Any, tmp_path: Path
) -> None:
    sign_in(page, web.url, "vic")
    page.goto(f"{web.url}/runs/{RETRY}")
    page.get_by_role("link", name="Open the trace (a waterfall of its spans)").click()
    page.wait_for_url(f"{web.url}/runs/{RETRY}/trace")
    sync_api.expect(page.get_by_role("heading", level=1)).to_contain_text(RETRY)
    rows = page.eval_on_selector_all("table.waterfall tbody tr", _ROWS)
    shot(page, tmp_path, "40-trace-waterfall")

    names = [(r["depth"], r["name"]) for r in rows]
    assert names == [
        (0, "invoke_workflow alicorn.plan"),
        (1, "policy util.noop"),
        (1, "policy util.sleep"),
        (1, "node slow"),
        (2, "execute_tool util.sleep"),
        (2, "execute_tool util.sleep"),
        (1, "node quick"),
        (2, "execute_tool util.sleep"),
        (1, "node after"),
        (2, "execute_tool util.noop"),
    ]
    index = {r["span"]: r for r in rows}
    for r in rows[1:]:  # each row under its parent: drawn after it and indented further
        parent = index[r["parent"]]
        assert rows.index(parent) < rows.index(r) and r["indent"] > parent["indent"]
    root, slow, quick, after = rows[0], rows[3], rows[6], rows[8]
    assert root["width"] >= slow["width"] > quick["width"] > 0  # the run spans all; slow took longest
    assert root["left"] <= slow["left"] < quick["left"] < after["left"]  # left to right as they ran
    assert slow["right"] <= quick["left"] + 1  # the alternative starts once slow has failed
    first, second = rows[4], rows[5]
    assert first["right"] <= second["left"] + 1  # the retry after the first timeout
    assert [r["name"] for r in rows if r["marked"]] == [
        "node slow",
        "execute_tool util.sleep",
        "execute_tool util.sleep",
    ]
    assert slow["badge"] == "error" and quick["badge"] == "ok"
    assert slow["label"].startswith("node slow; 115.9 ms; status error; node failed")
    assert "attempt 2" in second["label"] and "error timeout" in second["label"]
    page.get_by_text("node slow", exact=True).click()  # a row's every attribute, on demand
    sync_api.expect(page.locator("tr.wf-marked dl.wf-attrs").first).to_contain_text("alicorn.status")
    shot(page, tmp_path, "41-trace-attributes")
