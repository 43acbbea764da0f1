"""Running code the operator did not write: under bubblewrap, with nothing beyond what the operation's terms grant.

`bwrap` builds and runs the sandbox (binds, environment, limits, timeout); `network` lets a sandboxed command reach
the hosts a plan's approved terms grant, and only those, through a filtering proxy outside the sandbox.
"""

from alicorn.sandbox.bwrap import Finished, Limits, Spec, available, run

__all__ = ["Finished", "Limits", "Spec", "available", "run"]
