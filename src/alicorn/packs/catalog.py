"""The bundled workflow templates, one per example command of the seed, in a fixed order.

Each pack lives in its own folder (operations, sample data, template); this module only lists them. The app merges
their operations into its registry, and Norbi Core offers their templates to the planner.
"""

from __future__ import annotations

from alicorn.packs.workflow import Workflow


def bundled_workflows() -> tuple[Workflow, ...]:
    """Schedule, incident, notes, candidate build and camera alarms."""
    from alicorn.packs.alarms import WORKFLOW as ALARMS
    from alicorn.packs.candidate import WORKFLOW as CANDIDATE
    from alicorn.packs.incident import WORKFLOW as INCIDENT
    from alicorn.packs.notes import WORKFLOW as NOTES
    from alicorn.packs.schedule import WORKFLOW as SCHEDULE

    return (SCHEDULE, INCIDENT, NOTES, CANDIDATE, ALARMS)
