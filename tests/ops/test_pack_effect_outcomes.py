"""The packs' effect operations report what they know when a write fails: not applied only when nothing landed.

`notes.send_reply`, `schedule.publish` and `build.install` write their message (or installation) atomically; a
failure before the rename left nothing (a certain, retryable OperationError), a failure after it (the fsync of the
folder) left the effect in place: `EffectUnknown`, so the runtime never reads it as "not applied".
"""

from __future__ import annotations

import errno
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import alicorn.durable
from alicorn.errors import EffectUnknown, OperationError
from alicorn.ops.registry import OperationContext
from alicorn.packs.candidate.release import InstallInputs, install
from alicorn.packs.notes.send import SendReplyInputs, send_reply
from alicorn.packs.schedule.publish import PublishInputs, publish


def _ctx(tmp_path: Path) -> OperationContext:
    return OperationContext("run", "node", 1, "key-1", tmp_path / "ws", tmp_path)


def _broken_fsync(*_: Any) -> None:
    raise OSError(errno.EIO, "Input/output error")


def _broken_temp(*_: Any, **__: Any) -> Any:
    raise OSError(errno.ENOSPC, "No space left on device")


def _send(tmp_path: Path) -> Any:
    return send_reply(SendReplyInputs(to=["ala@example.com"], subject="Re: x", body="ok"), _ctx(tmp_path))


def _publish(tmp_path: Path) -> Any:
    variant = {
        "id": 1,
        "objective": "cost",
        "label": "cheapest",
        "solver_status": "OPTIMAL",
        "shortfall": 0,
        "assignments": [{"employee": "P1", "date": "2026-12-01", "shift": "morning", "competence": "picker"}],
    }
    employee = {"id": "P1", "name": "Ala", "competences": ["picker"], "contract_hours": 40, "hourly_cost": 10}
    inputs = PublishInputs.model_validate(
        {"month": "2026-12", "variant": 1, "variants": [variant], "employees": [employee], "violations": [0]}
        | {"shortfalls": [0]}
    )
    return publish(inputs, _ctx(tmp_path))


def _install(tmp_path: Path) -> Any:
    data = b"a package"
    (tmp_path / "ws" / "dist").mkdir(parents=True, exist_ok=True)
    (tmp_path / "ws" / "dist" / "app.tar.gz").write_bytes(data)
    inputs = InstallInputs(package="dist/app.tar.gz", sha256=hashlib.sha256(data).hexdigest())
    return install(inputs, _ctx(tmp_path))


OPERATIONS: dict[str, Callable[[Path], Any]] = {"send": _send, "publish": _publish, "install": _install}


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_a_failure_after_the_write_landed_is_an_unknown_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(alicorn.durable, "fsync_dir", _broken_fsync)
    with pytest.raises(EffectUnknown, match="may") as caught:
        OPERATIONS[name](tmp_path)
    assert not caught.value.certain and caught.value.retryable


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_a_failure_before_anything_landed_is_certain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(alicorn.durable.tempfile, "mkstemp", _broken_temp)
    with pytest.raises(OperationError) as caught:
        OPERATIONS[name](tmp_path)
    assert caught.value.certain and caught.value.retryable and not isinstance(caught.value, EffectUnknown)
    monkeypatch.undo()
    assert OPERATIONS[name](tmp_path)  # and it works once the disk does
