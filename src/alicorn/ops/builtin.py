"""The built-in operations, collected: read local data, shape records, render a report, write into the workspace.

Each operation is declared beside its function in the module of its area: `data` (data.read_csv, data.read_json,
data.read_text), `records` (records.filter, records.dedupe, records.sort), `tables` (records.select, records.group,
records.join), `report` (report.render_text), `workspace` (workspace.write_file, workspace.write_csv), `util`
(util.noop, util.sleep) and `http` (http.get_json, http.post_json). This module only
lists them, in a fixed order; `builtin_registry()` builds a fresh Registry holding all of them. Reads are confined to
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
    return (
        READ_CSV,
        READ_JSON,
        READ_TEXT,
        FILTER,
        DEDUPE,
        SORT,
        SELECT,
        GROUP,
        JOIN,
        RENDER_TEXT,
        WRITE_FILE,
        WRITE_CSV,
        NOOP,
        SLEEP,
    )


def builtin_registry() -> Registry:
    """A new Registry holding every built-in operation, the HTTP operations included."""
    from alicorn.ops.http import GET_JSON, POST_JSON

    return Registry((*builtin_operations(), GET_JSON, POST_JSON))
