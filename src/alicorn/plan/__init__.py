"""The typed plan DSL (`dsl`), criteria (`criteria`), validation (`validate`) and effect aggregation (`effects`)."""

from alicorn.plan.dsl import DSL_VERSION, Node, Plan, goal_digest

__all__ = ["DSL_VERSION", "Node", "Plan", "goal_digest"]
