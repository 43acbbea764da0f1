"""Norbi Core: a request in words turned into a checked plan, a run and a report (see docs/core.md)."""
