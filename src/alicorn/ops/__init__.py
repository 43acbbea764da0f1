"""Operations: the registry and the built-in operations, one module per area.

- `registry`: Operation, OperationContext and Registry, the only source of capabilities and effects.
- `builtin`: `builtin_operations()` and `builtin_registry()`, which collect the declarations below.
- `data`: data.read_csv and data.read_json, reading files under the data root.
- `records`: records.filter, records.dedupe and records.sort.
- `report`: report.render_text.
- `workspace`: workspace.write_file, atomic writes into the run's workspace.
- `util`: util.noop and util.sleep.
- `http`: http.get_json, and http.post_json with an Idempotency-Key.
- `paths`: path confinement shared by the file operations; `_common`: the shared base model and field types.
"""
