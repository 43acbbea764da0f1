"""Pegas Memory: text, vectors, a graph and provenance for each project, on SQLite or PostgreSQL.

`open_memory(location, project=...)` gives a `MemoryStore` bound to one project: records with bi-temporal
validity and trust/classification labels, write gating (near-duplicates merged, contradictions recorded, only
operators write instructions), hybrid search (vectors + full text, reciprocal-rank fusion) with graph expansion,
and a graph of entities walked with recursive SQL. `memory_context` hands a context builder labelled fragments;
`mcp_server` serves it all over MCP; `cli` is `alicorn memory ...` and `alicorn mcp serve`.

Modules: `models` (values), `errors`, `gate` (write gating), `store` (the project handle), `writes`, `search`,
`graph`, `rows`, `engine` (the backend interface) with `sqlite` + `vectors` and `postgres`, `embedders`,
`evalset` (the multilingual retrieval set), `journaling`, `context`, `chunking`, `open`.

This package's `__init__` imports nothing, so `alicorn --help` does not pay for numpy or pydantic models: import
from the modules (`from alicorn.memory.open import open_memory`).
"""
