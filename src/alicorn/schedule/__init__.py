"""Schedules on the journal: recurring requests that fire exactly once per slot, and the scheduler that fires them.

    rules      time rules (cron via cronsim, intervals, one-off times), zones, DST, active hours: slots as UTC
    spec       ScheduleSpec: the request, the rule, the overlap and catch-up policies, the allowed effects
    state      the fold of a `schedule:<id>` stream; slot ids and the conversation a slot's firing goes to
    authority  who may add a schedule allowing which effects, in which project
    book       add / load / list / pause / resume / remove (the API the CLI, the service and Core call)
    due        what is due now under the catch-up and overlap policies (pure)
    scheduler  the Scheduler (tick, run) and run_now: firing with optimistic concurrency, recovery after a crash
    allowance  what an approved schedule lets its triggered runs do without a human (read from its stream)

The package sits below Core (Core adds a schedule when a person approves a recurring request): handing a firing to
Core is `alicorn.core.triggered.CoreSubmitter`, and the commands are `alicorn.schedule_cli`.

See docs/schedules.md.
"""
