"""The deterministic runtime: run state as a fold (`state`), the executor (`executor`), dispatchers (`dispatch`),
injected clock and ids (`world`) and verified replay (`replay`)."""
