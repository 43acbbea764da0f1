"""Alicorn: the model proposes, the runtime disposes.

A local-first runtime that executes typed plans deterministically and journals every input and output in an
append-only, hash-chained journal, so every run can be resumed, explained and replayed byte for byte.
"""

__version__ = "0.1.0"
