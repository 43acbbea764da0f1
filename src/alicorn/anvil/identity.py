"""Identities: humans (`human:alice`) and agents (`agent:planner`), and who may approve what.

Two rules are not policy but invariants, so no policy file can change them: an agent never approves anything, and
whoever proposed a plan never approves it. Identities on the command line are claimed, not authenticated (a local
tool trusts its user); the journal records the claim with every decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from alicorn.anvil.errors import AgentApprovalError, IdentityError, ProposerApprovalError

#: The roles the seed names; an agent named after one registers itself on first use.
ROLES: tuple[str, ...] = ("planner", "executor", "researcher", "decision")

_ID = re.compile(r"^(human|agent):([A-Za-z0-9][A-Za-z0-9_.@-]{0,62})$")

Kind = Literal["human", "agent"]


@dataclass(frozen=True)
class Principal:
    """Someone who proposes, approves or acts: a human or an agent."""

    kind: Kind
    name: str

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def is_builtin_role(self) -> bool:
        return self.kind == "agent" and self.name in ROLES

    def cedar_uid(self) -> dict[str, str]:
        """The principal as a Cedar entity uid: `Agent::"agent:planner"` or `Human::"human:alice"`."""
        return {"type": "Agent" if self.kind == "agent" else "Human", "id": self.id}

    def __str__(self) -> str:
        return self.id


def parse_principal(text: str) -> Principal:
    """`human:NAME` or `agent:NAME` as a Principal; IdentityError naming the expected form otherwise."""
    match = _ID.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise IdentityError(
            f"{text!r} is not an identity: write human:NAME or agent:NAME (NAME: letters, digits and _ . @ -, "
            "at most 63 characters)"
        )
    kind: Kind = "human" if match.group(1) == "human" else "agent"
    return Principal(kind, match.group(2))


def claimed(name: str) -> Principal:
    """The identity someone claims with `--as NAME`: `human:NAME`, unless NAME already says human: or agent:."""
    return parse_principal(name if name.startswith(("human:", "agent:")) else f"human:{name}")


def check_approver(approver: str, proposer: str, run_id: str, *, action: str = "approve") -> Principal:
    """Refuse an approval by an agent, or by the proposer; return the approver otherwise."""
    who = parse_principal(approver)
    if not who.is_human:
        raise AgentApprovalError(
            f"{who} is an agent and agents never {action} plans; a human must {action} run {run_id} "
            f"(`alicorn {action} {run_id} --as NAME`)",
            run_id=run_id,
        )
    if action == "approve" and who.id == proposer:
        raise ProposerApprovalError(
            f"{who} proposed run {run_id}, and whoever proposes a plan can never approve it; another person must "
            f"(`alicorn approve {run_id} --as THEIR_NAME`). If an agent wrote the plan, say so when you start it: "
            "`alicorn run PLAN --proposed-by agent:NAME`. Nothing was done",
            run_id=run_id,
        )
    return who
