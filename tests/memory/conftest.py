"""Pegas Memory's PostgreSQL tests use the session's server from tests/pgserver.py (registered in tests/conftest.py)."""

from __future__ import annotations

from tests.pgserver import next_schema

__all__ = ["next_schema"]
