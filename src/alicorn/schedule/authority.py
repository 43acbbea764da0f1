"""Who may add a schedule, in which project, allowing which effects: checked before anything is journaled.

A schedule is a standing approval: each firing may do the effects its author allowed without asking again. So the
author must be someone who could approve those effects by hand:

* an effect class the operator forbids for every run (`[anvil] forbidden` in alicorn.toml) can never be allowed;
* the project must be one a human proposer may act in (`[anvil.human_rights] projects`);
* on a home with people, the author must be enrolled, at least a `requester` to schedule anything and an `approver`
  to allow any effect beyond none and read (a requester's schedule only looks);
* on a home without people, effects beyond what a human proposer may do alone (`[anvil.human_rights] effects`)
  need an approver: enrol people first (`alicorn people add`).
"""

from __future__ import annotations

from dataclasses import dataclass

from alicorn.anvil.labels import glob_match
from alicorn.anvil.people import Roster, a_role
from alicorn.anvil.rights import HUMAN_RIGHTS, Rights
from alicorn.schedule.errors import ScheduleError
from alicorn.schedule.spec import ALWAYS_ALLOWED, ScheduleSpec

_RANK = {"viewer": 0, "requester": 1, "approver": 2, "admin": 3}


@dataclass(frozen=True)
class Authority:
    """What the home's settings and people say about schedules (built from the App by `from_app`)."""

    forbidden: tuple[str, ...] = ()
    human_rights: Rights = HUMAN_RIGHTS
    roster: Roster | None = None

    @classmethod
    def from_app(cls, app: object) -> Authority:
        """The authority of an `alicorn.app.App`: its Anvil settings and its people (None when none enrolled)."""
        settings = app.anvil.settings  # type: ignore[attr-defined]
        roster = app.people.roster()  # type: ignore[attr-defined]
        return cls(tuple(settings.forbidden), settings.human_rights, roster if roster.people else None)

    def check(self, spec: ScheduleSpec) -> None:
        """Refuse (ScheduleError naming the field and the fix) a schedule its author may not approve."""
        banned = [c for c in spec.allow if c in self.forbidden]
        if banned:
            raise ScheduleError(
                f"--allow {', '.join(banned)}: this home forbids that effect for every run ([anvil] forbidden in "
                "alicorn.toml), so no schedule may allow it; drop it from --allow; nothing was journaled"
            )
        if not any(glob_match(pattern, spec.project) for pattern in self.human_rights.projects):
            raise ScheduleError(
                f"--project {spec.project!r}: people have no rights in that project ([anvil.human_rights] projects "
                f"is {', '.join(self.human_rights.projects) or 'empty'}); choose one of those projects, or an admin "
                "adds it there; nothing was journaled"
            )
        beyond = [c for c in spec.allow if c not in ALWAYS_ALLOWED]
        if self.roster is None:
            alone = [c for c in beyond if c not in self.human_rights.effects]
            if alone:
                raise ScheduleError(
                    f"--allow {', '.join(alone)}: only an enrolled approver may let a schedule do that, and this home "
                    "has no people yet; enrol one (`alicorn people add NAME --role approver`) or drop it from "
                    "--allow; nothing was journaled"
                )
            return
        person = self.roster.people.get(spec.author)
        if person is None:
            raise ScheduleError(
                f"{spec.author} is not one of this home's people, and only enrolled people may add schedules; an "
                f"admin runs `alicorn people add {spec.author.removeprefix('human:')} --role requester`; nothing "
                "was journaled"
            )
        if _RANK[person.role] < _RANK["requester"]:
            raise ScheduleError(
                f"{spec.author} is {a_role(person.role)}, and adding a schedule needs the role requester; nothing was "
                "journaled"
            )
        if beyond and _RANK[person.role] < _RANK["approver"]:
            raise ScheduleError(
                f"--allow {', '.join(beyond)}: {spec.author} is {a_role(person.role)} and may not approve effects, so "
                "their schedule may only look (none, read); an approver adds it, or drop it from --allow; nothing was "
                "journaled"
            )
