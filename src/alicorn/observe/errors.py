"""Errors of the observability part.

AlicornError
└── ObserveError              traces cannot be made or sent as asked (a bad endpoint URL, a missing extra)
    └── ClickHouseSchemaError a ClickHouse table is not the collector exporter's `otel_traces` schema Alicorn knows
"""

from __future__ import annotations

from alicorn.errors import AlicornError


class ObserveError(AlicornError):
    """Traces cannot be made or sent as asked; the message says what to change. Nothing was changed."""


class ClickHouseSchemaError(ObserveError):
    """A table named like the exporter's has other columns (another version of the schema, or another table)."""
