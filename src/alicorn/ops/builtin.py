"""The built-in operations, collected: read local data, shape records, render a report, write into the workspace.

Each operation is declared beside its function in the module of its area: `data` (data.read_csv, data.read_json,
data.read_text), `records` (records.filter, records.dedupe, records.sort), `tables` (records.select, records.group,
records.join), `report` (report.render_text), `workspace` (workspace.write_file, workspace.write_csv), `util`
(util.noop, util.sleep) and `http` (http.get_json, http.post_json). This module only
lists them, in a fixed order; `builtin_registry()` builds a fresh Registry holding them, except the table operations
(`table_operations()`: data.read_text and the `tables`/`workspace.write_csv` ones), which `app.standard_registry`
adds for every home. Reads are confined to
`ctx.data_root` and writes to `ctx.workspace`, and nothing reads the clock or randomness into its outputs, so a
replay that feeds the journaled outputs reproduces a run.
"""

from __future__ import annotations

from alicorn.ops.data import READ_CSV, READ_JSON, READ_TEXT
from alicorn.ops.records import DEDUPE, FILTER, SORT
from alicorn.ops.registry import Operation, Registry
from alicorn.ops.report import RENDER_TEXT
from alicorn.ops.tables import GROUP, JOIN, SELECT
from alicorn.ops.util import NOOP, SLEEP
from alicorn.ops.workspace import WRITE_CSV, WRITE_FILE


def builtin_operations() -> tuple[Operation, ...]:
    """Every built-in operation's declaration."""
    return (READ_CSV, READ_JSON, FILTER, DEDUPE, SORT, RENDER_TEXT, WRITE_FILE, NOOP, SLEEP)


def table_operations() -> tuple[Operation, ...]:
    """The table operations (read text, select, group, join, write CSV), which every home registers
    (`app.standard_registry`). They stay out of `builtin_registry`, whose fingerprint the recorded replay corpus
    (tests/corpus) pins: a registry that grows must not make the runs recorded before it unreplayable."""
    return (READ_TEXT, SELECT, GROUP, JOIN, WRITE_CSV)


def builtin_registry() -> Registry:
    """A new Registry holding every built-in operation, the HTTP operations included."""
    from alicorn.ops.http import GET_JSON, POST_JSON

    return Registry((*builtin_operations(), GET_JSON, POST_JSON))
