"""Tests of the journal: one contract suite (`contract.py`) run against every engine, plus engine specifics."""
