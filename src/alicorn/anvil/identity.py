"""Identities: humans (`human:alice`) and agents (`agent:planner`), their canonical form, and who may approve what.

A principal is canonical before any comparison: Unicode NFKC, then case-folded (and NFKC again, since folding can
undo it), so `human:Carol`, `human:CAROL` and `human:ｃａｒｏｌ` are one person and one id everywhere (the proposer
check, the people stream, key files). Names that mix scripts (a Cyrillic `а` inside a Latin name) or carry
invisible characters are refused outright: they are the cheap confusable tricks, and no honest name needs them.

Two rules are not policy but invariants, so no policy file can change them: an agent never approves anything, and
whoever proposed a plan never approves it. Who a human is on the command line is not claimed but authenticated:
the OS user running the process (`os_user`), checked against the home's people (alicorn.anvil.people).
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from alicorn.anvil.errors import AgentApprovalError, IdentityError, ProposerApprovalError

#: The roles the seed names; an agent named after one registers itself on first use.
ROLES: tuple[str, ...] = ("planner", "executor", "researcher", "decision")

# Letters and digits of any one script, and _ . @ -; at most 63 characters, starting with a letter or digit.
_ID = re.compile(r"^(human|agent):([^\W_][\w.@-]{0,62})$")
_FORM = "write human:NAME or agent:NAME (NAME: letters, digits and _ . @ -, at most 63 characters)"

#: Scripts that one writing system uses together (Japanese mixes these), so they count as one script.
_SCRIPT_GROUPS = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK"}

Kind = Literal["human", "agent"]


def canonical_text(text: str) -> str:
    """NFKC, case-folded, NFKC again, outer whitespace removed: the form in which names are compared."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()).strip()


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0] if name else "UNKNOWN"
    return _SCRIPT_GROUPS.get(first, first)


def _invisible(text: str) -> str | None:
    """Why `text` hides characters (zero-width, bidirectional controls, other controls), or None."""
    for char in text:
        if unicodedata.category(char) in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") or (char.isspace() and char != " "):
            return f"it contains the invisible or control character U+{ord(char):04X}"
    return None


def _confusable(name: str) -> str | None:
    """Why `name` (canonical) looks like a trick, or None."""
    scripts = sorted({_script(c) for c in name if c.isalpha()})
    if len(scripts) > 1:
        return (
            f"it mixes scripts ({', '.join(s.title() for s in scripts)}), which is how look-alike names are made "
            "(a Cyrillic а inside a Latin name); write the name in one script"
        )
    return None


@dataclass(frozen=True)
class Principal:
    """Someone who proposes, approves or acts: a human or an agent, always in canonical form."""

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
    """`human:NAME` or `agent:NAME` as a canonical Principal; IdentityError naming the expected form otherwise."""
    if not isinstance(text, str):
        raise IdentityError(f"{text!r} is not an identity: {_FORM}")
    hidden = _invisible(text.strip())
    if hidden is not None:
        raise IdentityError(f"{text!r} is refused as an identity: {hidden}")
    match = _ID.fullmatch(canonical_text(text))
    if match is None:
        raise IdentityError(f"{text!r} is not an identity: {_FORM}")
    trick = _confusable(match.group(2))
    if trick is not None:
        raise IdentityError(f"{text!r} is refused as an identity: {trick}")
    kind: Kind = "human" if match.group(1) == "human" else "agent"
    return Principal(kind, match.group(2))


def canonical_id(text: str) -> str:
    """The canonical id of `text` (see parse_principal): what every comparison of principals uses."""
    return parse_principal(text).id


def claimed(name: str) -> Principal:
    """A name as written (`bob`, `human:bob`, `agent:decision`): `human:NAME` unless it says human: or agent:."""
    folded = canonical_text(name)
    return parse_principal(name if folded.startswith(("human:", "agent:")) else f"human:{name}")


def os_user() -> str:
    """The login of the OS user running this process (its effective uid), which a process cannot choose freely.

    Not getpass.getuser() or $USER: those read environment variables, which anyone can set. Tests monkeypatch
    this one function."""
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


def acting_human(asserted: str | None = None) -> Principal:
    """The authenticated human of this process: the OS user, canonical. `asserted` (`--as NAME`) must be the same
    person, else IdentityError: a name on the command line is an assertion, never a way to act as someone else."""
    me = claimed(os_user())
    if asserted is not None and asserted.strip():
        said = claimed(asserted)
        if said != me:
            raise IdentityError(
                f"--as {asserted} says you are {said}, but this process runs as the OS user {os_user()!r} "
                f"({me}): a person acts only as themselves. Leave --as out, or run the command as that user; "
                "nothing was done"
            )
    return me


def check_approver(approver: str, proposer: str, run_id: str, *, action: str = "approve") -> Principal:
    """Refuse an approval by an agent, or by the proposer (compared in canonical form); return the approver."""
    who = parse_principal(approver)
    if not who.is_human:
        raise AgentApprovalError(
            f"{who} is an agent and agents never {action} plans; a human must {action} run {run_id} "
            f"(`alicorn {action} {run_id}`, run by that person)",
            run_id=run_id,
        )
    if action == "approve" and who.id == canonical_id(proposer):
        raise ProposerApprovalError(
            f"{who} proposed run {run_id}, and whoever proposes a plan can never approve it; another person must "
            f"(`alicorn approve {run_id}`, run by them). If an agent wrote the plan, say so when you start it: "
            "`alicorn run PLAN --proposed-by agent:NAME`. Nothing was done",
            run_id=run_id,
        )
    return who
