"""The render-time incident pack (seed command 2): find when render time rose, test N hypotheses, report.

"Find the cause of the increase in render time, check three hypotheses and show the test results." The plan reads
the job log (`data/render_jobs.csv`), finds the change point, proposes the factors whose mix changed as candidate
causes, tests each with seeded permutation tests (one node per hypothesis), and writes a sourced report, validated
as a document whose every hypothesis was tested, as many as asked (`checks.validate_report`). Operations:
`perf.load_jobs` (read), `perf.find_change`, `perf.propose_hypotheses`, `perf.test_hypothesis`,
`perf.summarize_tests` (no effect), then the built-in `workspace.write_file`.
"""

from __future__ import annotations

from pathlib import Path

from alicorn.i18n import N_
from alicorn.packs.incident import plan, slots
from alicorn.packs.incident.checks import validate_report
from alicorn.packs.inputs import DataInput
from alicorn.packs.workflow import Workflow

WORKFLOW = Workflow(
    id="incident",
    title=N_("Find the cause of a render time increase"),
    summary=(
        "Finds the day render time rose in the job log, tests N hypotheses about the cause (1-5, default 3) with "
        "seeded permutation tests, and reports each verdict with the jobs it rests on."
    ),
    artifact="document",
    parameters=slots.IncidentParameters,
    operations=plan.OPERATIONS,
    vocabulary=tuple(
        (
            "render-time rendering-time render-farm render-job renders-slow czas-render "
            "renderowanie-zwoln farm-render время-рендер рендер-ферм рендеринг-замедл timing-log timings-log "
            "log-czas log-z-czas лог-времен лог-с-тайминг лог-тайминг ~render "
            "~renderowan ~renderuj ~рендер ~takes-longer ~trwa-dłużej ~dłużej ~дольше ~slowdown ~slower "
            "~regression ~spowolni ~wolniej ~zwolni ~замедлен ~медленнее ~тормоз ~hypothes ~hipotez "
            "~гипотез"
        ).split()
    ),
    product_stems=tuple("~render ~renderowan ~renderuj ~рендер".split()),
    examples=slots.EXAMPLES,
    data_dir=Path(__file__).parent / "data",
    extract=slots.extract,
    questions=slots.QUESTIONS,
    build=plan.build,
    artifact_of=plan.artifact_of,
    criteria=plan.criteria,
    validator=validate_report,
    summarize=plan.summarize,
    inputs=(
        DataInput(
            name="render_jobs",
            what={
                "en": "a render job log (CSV: job_id, date, duration_s…)",
                "pl": "dziennik zadań renderowania (CSV: job_id, date, duration_s…)",
                "ru": "журнал задач рендеринга (CSV: job_id, date, duration_s…)",
            },
            file=plan.DATA_FILE,
            format="csv",
            fields=("job_id", "date", "duration_s"),
            span_field="date",
            day_fields=("date",),
            number_fields=("duration_s",),
            aliases={
                "job_id": ("job", "job_name", "render_id", "id", "zadanie", "задача", "задание"),
                "date": ("day", "started", "start", "started_at", "timestamp", "data", "dzień", "дата", "день"),
                "duration_s": ("duration", "seconds", "render_s", "render_time_s", "time_s", "czas_s", "секунды"),
            },
        ),
    ),
)

__all__ = ["WORKFLOW"]
