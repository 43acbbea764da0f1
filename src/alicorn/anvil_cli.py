"""Anvil's commands: proposals, approve, reject, rights, why, and the `agent`, `people` and `policy` groups.

They sit in the command-line layer, beside `alicorn.cli`, not inside `alicorn.anvil`: `approve` and `reject` drive
runs on through the executor and every command opens the app, and policy must not drive runs (the layers contract
in pyproject.toml keeps `alicorn.anvil` below the runtime and the app).

`register(app, ...)` adds them to the main CLI. Like the rest of the CLI, this module imports only typer at its top;
each command imports what it needs, so `alicorn --help` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

HomeOption = Annotated[
    Path, typer.Option("--home", envvar="ALICORN_HOME", help="Alicorn's home: journal.db and workspaces/.")
]
AsOption = Annotated[
    str | None, typer.Option("--as", help="Optional: your name, which must be the OS user running this.")
]


def _me(who: str | None) -> str:
    """The authenticated human: the OS user running the command (`--as` may only repeat it)."""
    from alicorn.anvil.identity import acting_human

    return acting_human(who).id


def _person(application: Any, who: str | None, role: str, doing: str) -> str:
    """The OS user, enrolled in the home with at least `role` (bootstrapped as the first admin on a new home)."""
    from alicorn.anvil.people import authenticate

    me, enrolled = authenticate(application.people, who, role=role, doing=doing)
    if enrolled:
        typer.echo(f"{me} is this home's first person: enrolled as admin (`alicorn people list`)", err=True)
    return str(me.id)


def register(app: typer.Typer, *, open_app: Callable[..., Any], guard: Callable[..., Any], exit_for: Any) -> None:
    """Add Anvil's commands to `app` (the helpers come from alicorn.cli)."""
    agent_app = typer.Typer(no_args_is_help=True, help="Register agents and grant or revoke their rights.")
    policy_app = typer.Typer(no_args_is_help=True, help="Check and show the policy rules (Cedar) in force.")
    people_app = typer.Typer(
        no_args_is_help=True,
        help="The home's people and their roles: viewer, requester, approver, admin (signing keys).",
    )
    app.add_typer(people_app, name="people")
    app.add_typer(agent_app, name="agent")
    app.add_typer(policy_app, name="policy")

    def policy_home(home: Path) -> Any:
        """An app for reading the policy in force that creates and changes nothing in `home`: the journal read-only
        when there is one, else a scratch journal outside the home (removed when the command ends)."""
        if (home / "journal.db").exists():
            return open_app(home, read_only=True)
        import atexit
        import shutil
        import tempfile

        from alicorn.app import open_app as open_with_journal

        scratch = Path(tempfile.mkdtemp(prefix="alicorn-policy-"))
        atexit.register(shutil.rmtree, scratch, True)
        return open_with_journal(home, journal=scratch / "journal.db")

    def waiting(application: Any, run_id: str, action: str) -> Any:
        """The state of `run_id`, which must be waiting for a decision (else a clear refusal, nothing changed)."""
        from alicorn.anvil.errors import NotAwaitingApprovalError
        from alicorn.runtime.state import fold

        state = fold(application.store.read(run_id), run_id)
        if not state.plan:
            raise typer.BadParameter(f"no run {run_id!r}; `alicorn runs` lists the runs")
        if state.status != "awaiting_approval":
            more = f"; it was replaced by run {state.replaced_by}: {action} that one" if state.replaced_by else ""
            raise NotAwaitingApprovalError(
                f"run {run_id} is {state.status}, not waiting for an approval{more}", run_id=run_id
            )
        return state

    def drive(home: Path, run_id: str, quiet: bool, **kwargs: Any) -> None:
        from alicorn.render import Progress, print_run
        from alicorn.runtime.state import fold

        application = open_app(home)
        before = fold(application.store.read(run_id), run_id)
        if not before.plan:
            raise typer.BadParameter(f"no run {run_id!r}; `alicorn runs` lists the runs")
        with Progress(len(before.nodes), enabled=not quiet) as progress:
            executor = application.executor(Path(before.data_root), on_events=progress.update)
            state = executor.resume(run_id, **kwargs)
        print_run(state, application.store)
        exit_for(state)

    @app.command()
    @guard
    def proposals(
        home: HomeOption = Path(".alicorn"), as_json: Annotated[bool, typer.Option("--json")] = False
    ) -> None:
        """Runs waiting for a human approval: plan hash, effects, destinations and the reasons."""
        from alicorn.anvil.proposals import list_proposals
        from alicorn.render import print_proposals

        found = list_proposals(open_app(home).store)
        if as_json:
            typer.echo(json.dumps([p.model_dump(mode="json") for p in found], ensure_ascii=False, indent=2))
        else:
            print_proposals(found)

    @app.command()
    @guard
    def approve(
        run_id: Annotated[str, typer.Argument(help="The run waiting for approval (`alicorn proposals`).")],
        home: HomeOption = Path(".alicorn"),
        plan_hash: Annotated[
            str | None, typer.Option(help="The plan hash you reviewed; refused if the run's plan differs.")
        ] = None,
        who: AsOption = None,
        comment: Annotated[str, typer.Option(help="A comment journaled with the approval.")] = "",
        quiet: Annotated[bool, typer.Option("--quiet", "-q")] = False,
    ) -> None:
        """Approve a waiting run as yourself (the OS user, an enrolled approver, never its proposer): the approval
        is signed with your key, bound to the plan hash, and the run proceeds."""
        from alicorn.anvil.identity import acting_human
        from alicorn.runtime.executor import Approval
        from alicorn.runtime.humans import check_approvals

        application = open_app(home)
        application.store.require(run_id)
        state = waiting(application, run_id, "approve")
        # Every refusal that needs no person comes first, so a refused approval changes nothing (not even people).
        mine = Approval(acting_human(who).id, comment, plan_hash)
        check_approvals([mine], state.proposed_by, run_id, state.plan_hash)
        me = _person(application, who, "approver", f"approve run {run_id}")
        drive(home, run_id, quiet, approvals=[Approval(me, comment, plan_hash)])

    @app.command()
    @guard
    def reject(
        run_id: Annotated[str, typer.Argument(help="The run waiting for approval.")],
        reason: Annotated[str, typer.Option(help="Why; journaled for the proposer.")],
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Refuse a waiting run as yourself (an enrolled approver; signed): it finishes `rejected`, with no effect."""
        from alicorn.anvil.identity import acting_human
        from alicorn.runtime.executor import Rejection
        from alicorn.runtime.humans import check_rejection

        application = open_app(home)
        state = waiting(application, run_id, "reject")
        check_rejection(Rejection(acting_human(who).id, reason), state.proposed_by, run_id)
        me = _person(application, who, "approver", f"reject run {run_id}")
        drive(home, run_id, True, rejection=Rejection(me, reason))

    @app.command()
    @guard
    def rights(
        agent: Annotated[str, typer.Argument(help="agent:NAME (or human:NAME for the configured human rights).")],
        home: HomeOption = Path(".alicorn"),
        at: Annotated[str | None, typer.Option(help="A moment (ISO 8601, UTC): the rights then, and why.")] = None,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """What an agent may do (now or at a moment), its reputation, and the events that made it so."""
        from alicorn.anvil.explain import rights_report
        from alicorn.anvil.identity import parse_principal
        from alicorn.render import print_explanation

        application = open_app(home)
        principal = parse_principal(agent)
        when = _moment(at) if at else None
        if principal.is_human:
            typer.echo(f"{principal}: a human; rights from the operator's config: ")
            typer.echo(f"  {application.anvil.settings.human_rights.describe()}")
            return
        record = application.anvil.agents.record(principal.id, when)
        if as_json:
            data = {
                "agent": record.id,
                "registered": record.registered,
                "reputation": record.reputation,
                "tier": record.tier,
                "rights": record.rights.model_dump(mode="json"),
                "origins": {c: o.__dict__ for c, o in sorted(record.origins.items())},
                "eligible": list(record.eligible),
                "history": [e.__dict__ for e in record.history],
            }
            typer.echo(json.dumps(data, indent=2))
            return
        print_explanation(rights_report(record, when))

    @app.command()
    @guard
    def why(
        decision: Annotated[
            str, typer.Argument(help="RUN#SEQ of a decision, or a run id (all its decisions, or give NODE).")
        ],
        node: Annotated[str | None, typer.Argument(help="A node of the run: the decisions that covered it.")] = None,
        home: HomeOption = Path(".alicorn"),
    ) -> None:
        """Explain a decision: the rules that made it, its inputs, where the proposer's rights came from, and a
        sentence a person understands."""
        from alicorn.anvil.errors import AnvilError
        from alicorn.anvil.explain import explain_node, explain_run
        from alicorn.render import print_explanation

        store = open_app(home, read_only=True).store  # reads the journal only: no registry, no Anvil
        if node is None and "#" not in decision and store.head(decision) is None:
            # not RUN#SEQ, so a run id: one the journal does not have is said as every command says it
            raise AnvilError(f"no run {decision!r}; `alicorn runs` lists the runs (or name a decision as RUN#SEQ)")
        found = explain_run(store, decision) if node is None else explain_node(store, decision, node)
        for item in found:
            print_explanation(item)

    @agent_app.command("register")
    @guard
    def agent_register(
        agent: Annotated[str, typer.Argument(help="agent:NAME")],
        role: Annotated[list[str] | None, typer.Option(help="planner | executor | researcher | decision")] = None,
        cause: Annotated[str, typer.Option(help="Why; journaled.")] = "registered by the operator",
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Register an agent with minimal rights (none, read, local_write in its workspace)."""
        from alicorn.anvil.explain import rights_report
        from alicorn.anvil.identity import parse_principal
        from alicorn.render import print_explanation

        principal = parse_principal(agent)
        record = open_app(home, create=True).anvil.agents.register(
            principal.id, tuple(role or ()), cause=cause, by=_me(who)
        )
        print_explanation(rights_report(record, None))

    def change(grant: bool) -> Callable[..., None]:
        def command(
            agent: Annotated[str, typer.Argument(help="agent:NAME")],
            cause: Annotated[str, typer.Option(help="Why; journaled with the change.")],
            effect: Annotated[list[str] | None, typer.Option(help="An effect class.")] = None,
            operation: Annotated[list[str] | None, typer.Option(help="An operation name or pattern.")] = None,
            project: Annotated[list[str] | None, typer.Option(help="A project ('*' for all).")] = None,
            host: Annotated[list[str] | None, typer.Option(help="A host pattern ('*.example.com').")] = None,
            path: Annotated[list[str] | None, typer.Option(help="A workspace path pattern ('reports/**').")] = None,
            max_amount: Annotated[float | None, typer.Option(help="Money a plan may move (revoke: any value).")] = None,
            home: HomeOption = Path(".alicorn"),
            who: AsOption = None,
        ) -> None:
            from pydantic import ValidationError

            from alicorn.anvil.errors import AnvilError
            from alicorn.anvil.explain import rights_report
            from alicorn.anvil.reputation import needs_grant
            from alicorn.anvil.rights import RightsChange
            from alicorn.render import print_explanation

            try:
                delta = RightsChange.model_validate(
                    {
                        "effects": effect or [],
                        "operations": operation or [],
                        "projects": project or [],
                        "hosts": host or [],
                        "paths": path or [],
                        "max_amount": max_amount,
                    }
                )
            except ValidationError as exc:
                raise AnvilError(_rights_refusal(exc.errors()[0])) from None
            application = open_app(home)
            _require_used(application.anvil.agents, agent)
            application.anvil.agents.check_change(agent, delta, cause)  # before anyone is signed in (or enrolled)
            wide = [c for c in delta.effects if needs_grant(c)]
            # Reputation never gives a class above local_write: a person with the approver role does, signed in.
            doing = f"grant {', '.join(wide)} to {agent}"
            by = _person(application, who, "approver", doing) if grant and wide else _me(who)
            record = application.anvil.agents.change(agent, delta, grant=grant, cause=cause, by=by)
            print_explanation(rights_report(record, None))

        command.__doc__ = (
            "Grant rights to an agent, with a cause (a class above local_write: an approver only)."
            if grant
            else "Revoke rights, with a cause."
        )
        return command

    agent_app.command("grant")(guard(change(True)))
    agent_app.command("revoke")(guard(change(False)))

    @agent_app.command("list")
    @guard
    def agent_list(home: HomeOption = Path(".alicorn")) -> None:
        """Every registered agent with its reputation and rights."""
        registry = open_app(home).anvil.agents
        for name in registry.agents():
            record = registry.record(name)
            typer.echo(f"{name}: reputation {record.reputation} ({record.tier}); {record.rights.describe()}")

    @people_app.command("add")
    @guard
    def people_add(
        name: Annotated[str, typer.Argument(help="The person's login name (their OS user), e.g. alice.")],
        role: Annotated[str, typer.Option(help="viewer | requester | approver | admin")] = "approver",
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Enrol a person with a role and a new signing key (an admin only; again: a new role and key)."""
        from alicorn.anvil.identity import parse_principal
        from alicorn.anvil.people import check_enrolment

        check_enrolment(name, role)  # refused before a new home enrols its first admin
        application = open_app(home, create=True)
        me = _person(application, who, "admin", "manage people")

        person = application.people.add(name, role, by=parse_principal(me))
        key = application.people.key_file(person.id)
        typer.echo(f"{person.id}: {person.role}; key {person.fingerprint[:23]}…, private key in {key} (mode 0600)")

    @people_app.command("remove")
    @guard
    def people_remove(
        name: Annotated[str, typer.Argument(help="The person to remove.")],
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Remove a person (an admin only): their key stops being valid and its file is deleted."""
        from alicorn.anvil.identity import parse_principal

        application = open_app(home)
        me = _person(application, who, "admin", "manage people")
        person = application.people.remove(name, by=parse_principal(me))
        typer.echo(f"removed {person.id} (was {person.role}); their decisions so far stay verifiable")

    @people_app.command("password")
    @guard
    def people_password(
        name: Annotated[str, typer.Argument(help="Whose password: yours, or anyone's if you are an admin.")],
        stdin: Annotated[bool, typer.Option("--stdin", help="Read the password from the first line of stdin.")] = False,
        home: HomeOption = Path(".alicorn"),
        who: AsOption = None,
    ) -> None:
        """Set the password a person signs in to `alicorn serve` with (only its argon2id hash is journaled)."""
        from alicorn.anvil.identity import parse_principal
        from alicorn.anvil.passwords import PasswordError, Passwords, check_strength

        if stdin:
            import sys

            password = sys.stdin.readline().rstrip("\r\n")
        else:
            password = typer.prompt("new password", hide_input=True)
            if typer.prompt("the same again", hide_input=True) != password:
                raise PasswordError("the two passwords differ; nothing was changed")
        check_strength(password)  # refused before anyone is enrolled or anything journaled
        application = open_app(home, create=True)
        me = _person(application, who, "viewer", "set a password")
        person = Passwords(application.people).set(name, password, by=parse_principal(me))
        typer.echo(f"{person}: password set (argon2id; only the hash is in the journal)")

    @people_app.command("list")
    @guard
    def people_list(
        home: HomeOption = Path(".alicorn"), as_json: Annotated[bool, typer.Option("--json")] = False
    ) -> None:
        """The home's people, their roles and key fingerprints (read-only)."""
        from alicorn.anvil.people import People

        if not (home / "journal.db").exists():
            roster_people: list[Any] = []
        else:
            application = open_app(home, read_only=True)
            roster = People(application.store, home / "keys").roster()
            roster_people = sorted(roster.people.values(), key=lambda p: p.id)
        if as_json:
            rows = [
                {"person": p.id, "role": p.role, "fingerprint": p.fingerprint, "added_by": p.added_by}
                for p in roster_people
            ]
            typer.echo(json.dumps(rows, indent=2))
            return
        if not roster_people:
            typer.echo("no people yet: the first person to approve, reject or add people becomes the admin")
        for p in roster_people:
            first = " (first admin)" if p.bootstrap else ""
            typer.echo(f"{p.id}: {p.role}{first}; key {p.fingerprint[:23]}…; added by {p.added_by} at #{p.added_seq}")

    @policy_app.command("check")
    @guard
    def policy_check(
        file: Annotated[Path | None, typer.Argument(help="A policy file (default: the one in force).")] = None,
        home: HomeOption = Path(".alicorn"),
    ) -> None:
        """Parse and validate policy rules against this Alicorn's operations and context."""
        from alicorn.anvil.errors import PolicyError
        from alicorn.anvil.policy import load_policies

        application = policy_home(home)
        try:
            policies = (
                load_policies(file, application.registry.names()) if file is not None else application.anvil.policies
            )
        except UnicodeDecodeError as exc:
            named = file if file is not None else "in force ([anvil] policy in alicorn.toml)"
            raise PolicyError(f"the policy file {named} is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
        typer.echo(f"ok: {policies.source}: {len(policies.rules)} rules ({', '.join(policies.rules)})")
        typer.echo(f"sha256 {policies.digest}")

    @policy_app.command("show")
    @guard
    def policy_show(home: HomeOption = Path(".alicorn")) -> None:
        """Print the policy set in force, with its source and digest."""
        policies = policy_home(home).anvil.policies
        typer.echo(f"// {policies.source}  sha256 {policies.digest}")
        typer.echo(policies.text, nl=False)


#: The option of `agent grant|revoke` that gives each field of a RightsChange.
_RIGHTS_OPTIONS = {
    "effects": "--effect",
    "operations": "--operation",
    "projects": "--project",
    "hosts": "--host",
    "paths": "--path",
    "max_amount": "--max-amount",
}


def _rights_refusal(error: Any) -> str:
    """A rights option pydantic refused, as a sentence naming the option, the value and what it accepts."""
    from typing import get_args

    from alicorn.plan.dsl import EffectClass

    field = str(error["loc"][0]) if error["loc"] else ""
    option = _RIGHTS_OPTIONS.get(field, "the rights")
    value = error.get("input")
    if field == "effects":
        choices = ", ".join(get_args(EffectClass))
        return f"{option} {value!r} is not an effect class; choose one of {choices}; nothing was changed"
    if field == "max_amount":
        return f"{option} {value!r}: give an amount of 0 or more; nothing was changed"
    return f"{option} {value!r}: {error['msg']}; nothing was changed"


def _require_used(agents: Any, agent: str) -> None:
    """Refuse a change of rights of a built-in role (agent:planner…) that has not registered itself yet (it does
    on its first run), saying how to register it now; other unknown agents are refused by `check_change`."""
    from alicorn.anvil.errors import AnvilError
    from alicorn.anvil.identity import parse_principal

    principal = parse_principal(agent)
    if principal.is_builtin_role and not agents.record(principal.id).registered:
        raise AnvilError(
            f"{principal} has not been used yet, so it is not registered and has no rights to change; register it "
            f"with `alicorn agent register {principal} --role {principal.name}`, then run this again; nothing was "
            "changed"
        )


def _moment(text: str) -> str:
    """An ISO 8601 moment as an `at` string (UTC, microseconds, Z)."""
    from datetime import UTC, datetime

    from alicorn.anvil.errors import AnvilError

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise AnvilError(f"--at {text!r}: write a moment as ISO 8601, e.g. 2026-11-30T12:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
