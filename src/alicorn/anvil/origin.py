"""A run's origin as `run.created` journals it: where its request came from (provenance, channel) and the schedule
firing that sent it (trigger). A module of names only, so the runtime's fold reads them without loading the terms'
models (`alicorn runs` and `show` start light)."""

from __future__ import annotations

#: The fields of `run.created` that say a run's origin (absent for a person's run at the command line).
ORIGIN_FIELDS = ("provenance", "channel", "trigger")

#: The mark in `run.created` that every session of the run, resumed ones too, is judged with that origin. Runs
#: recorded before it were judged as a person's after a resume; their replay regenerates exactly that.
ORIGIN_KEPT = "origin_kept"
