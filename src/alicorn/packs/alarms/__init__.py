"""The camera-alarms pack (seed command 5): its template (`workflow`), the hand-written plan.json and the alarm log."""

from alicorn.packs.alarms.workflow import WORKFLOW

__all__ = ["WORKFLOW"]
