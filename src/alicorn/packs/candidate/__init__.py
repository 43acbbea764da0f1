"""The candidate pack (seed command 4): build a demo version of an application in an isolated candidate.

"Build a demo version of the application in an isolated candidate and stop before installation." The plan copies
the application (`data/app/`, a small inventory tool with its own unittest suite) into the run's workspace, makes it
a demo build, runs its tests in a child process, diffs it against the source and packages it reproducibly;
installation (effect `installation`) is planned only when the request asks for it and does not forbid it. The
result is validated as code: tests, diff, package, installation.

`data/app/` is package data: its Python files are the candidate's sources, run only in a child process inside a
run's workspace, and never imported as part of alicorn.
"""

from __future__ import annotations

from pathlib import Path

from alicorn.i18n import N_
from alicorn.packs.candidate import plan, slots
from alicorn.packs.inputs import DataInput
from alicorn.packs.workflow import Workflow
from alicorn.validate.code import validate_code

#: The sandbox, and a test environment as the sandbox by another name ("w środowisku testowym", "в тестовой среде"):
#: words of the template and of what it makes.
_SANDBOX = "~sandbox ~piaskownic ~песочниц ~test-environment ~środowisk-testow ~srodowisk-testow ~тестов-сред"

WORKFLOW = Workflow(
    id="candidate",
    title=N_("Build an application variant in an isolated candidate"),
    summary=(
        "Copies an application into an isolated candidate, makes a demo build, runs its tests in a child process, "
        "shows the diff and packages it; installs only when asked and allowed."
    ),
    artifact="code",
    parameters=slots.CandidateParameters,
    operations=plan.OPERATIONS,
    vocabulary=tuple(
        (
            "isolated-candidate release-candidate izolowan-kandydat изолированн-кандидат demo-build "
            "demo-version wersj-demo демо-верс релиз-кандидат релизн-кандидат кандидат-в-релиз "
            "kandydat-do-wydan kandydat-wydan ~=rc ~candidate ~kandydat ~кандидат ~application ~aplikac "
            "~приложен ~=build ~demo ~=app ~=apps ~release ~package ~zbuduj ~zbudow ~wydan ~paczk "
            "~spakuj ~собер ~сборк ~демо ~релиз ~пакет ~wersj ~версию ~version " + _SANDBOX + " "
            # the notes of a release, and a demo video, are no build of the application
            "!release-notes !patch-notes !заметки-к-релизу !notatki-do-wydania !demo-video !wideo-demo !демо-видео"
        ).split()
    ),
    product_stems=tuple(f"~=rc {_SANDBOX} ~zbuduj ~zbudow ~собер ~сборк".split()),
    examples=slots.EXAMPLES,
    data_dir=Path(__file__).parent / "data",
    extract=slots.extract,
    questions=slots.QUESTIONS,
    build=plan.build,
    artifact_of=plan.artifact_of,
    criteria=plan.criteria,
    validator=validate_code,
    summarize=plan.summarize,
    inputs=(
        DataInput(
            name="app",
            what={
                "en": "the application's source folder",
                "pl": "folder ze źródłami aplikacji",
                "ru": "папка с исходным кодом приложения",
            },
            file="app",
            format="tree",
        ),
    ),
)

__all__ = ["WORKFLOW"]
