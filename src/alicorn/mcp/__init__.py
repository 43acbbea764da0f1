"""External MCP servers as operations (DESIGN.md "Tools"): their tools join the registry as `mcp.SERVER.TOOL`.

    settings     `[mcp.servers.NAME]` in alicorn.toml (read with the configuration; nothing started)
    definitions  a tool's definition as the server listed it, and its pin (sha256 of canonical JSON)
    pins         `control:mcp`: pins journaled at first use, changes seen, changes accepted; the fold of it
    effects      the effect and idempotency class of a tool: the operator's config, raised (never lowered) by hints
    schemas      pydantic models from a tool's JSON Schemas, and validation against the pinned schemas
    pool         one event loop thread holding each server's session open until the app closes
    operations   a pinned tool as an `Operation` whose run is a `tools/call` over the pool
    importer     connect, list, compare with the pins, register what is pinned and unchanged; the rest withheld
    cli          `alicorn mcp tools` and `alicorn mcp accept` (beside `alicorn mcp serve`)

Nothing here is imported unless alicorn.toml has an `[mcp]` section (the settings module excepted: it reads it).
"""
