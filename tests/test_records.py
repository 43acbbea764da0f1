"""`quick_init`: the same record as the dataclass would build, faster, still frozen; what it cannot build, refused."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from alicorn.journal.events import Draft, Event
from alicorn.records import quick_init
from alicorn.runtime.dispatch import Call, Outcome


@dataclasses.dataclass(frozen=True, slots=True)
class _Plain:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()


@quick_init
@dataclasses.dataclass(frozen=True, slots=True)
class _Quick:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()


@pytest.mark.parametrize("args", [((1,), {}), ((1, "y"), {}), ((), {"a": 1, "c": (2,)}), ((1,), {"b": "z", "c": (3,)})])
def test_the_record_is_the_one_the_dataclass_builds(args: tuple[tuple[object, ...], dict[str, object]]) -> None:
    positional, named = args
    plain, quick = _Plain(*positional, **named), _Quick(*positional, **named)
    assert dataclasses.astuple(plain) == dataclasses.astuple(quick)  # type: ignore[arg-type]
    assert [p.name for p in inspect.signature(_Quick).parameters.values()] == ["a", "b", "c"]


def test_it_stays_frozen_and_refuses_what_the_dataclass_refuses() -> None:
    quick = _Quick(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.a = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Quick(1, d=3)  # type: ignore[call-arg]


def test_the_hot_records_keep_their_dataclass_behaviour() -> None:
    event = Event("s", 1, "k", "a", {"x": 1}, "p", "h", "l")
    assert event == Event(stream="s", seq=1, kind="k", at="a", data={"x": 1}, prev="p", hash="h", line="l")
    assert Draft("k", "a", {}) == Draft(kind="k", at="a", data={})
    call = Call("n", 1, "op", {}, "key", 5.0)
    assert (call.not_before, call.purpose, call.slot) == (None, "run", ("run", "n", 1))
    assert Outcome("n", 1, True, output={}).to_event() == {"node": "n", "attempt": 1, "ok": True, "output": {}}
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seq = 2  # type: ignore[misc]


def test_what_it_cannot_build_is_refused_when_the_class_is_defined() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        items: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class After:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (Factory, NoSlots, After):
        with pytest.raises(TypeError):
            quick_init(cls)
