"""Frozen records built fast: a frozen, slotted dataclass whose `__init__` sets each slot through its descriptor.

A frozen dataclass's generated `__init__` sets every field with `object.__setattr__(self, name, value)`, which looks
the slot up by name each time; on the journal's and the executor's hot path (several events, drafts, calls and
outcomes per node) that lookup is a measurable share of a node's cost. `quick_init` replaces that `__init__` with
one of the same signature that calls each slot's own setter, found once. The record stays frozen: assigning to a
field afterwards still raises `FrozenInstanceError`, and equality, hashing and `repr` are the dataclass's.

Only for records whose fields are all set by `__init__`, with at most plain defaults (no `default_factory`, no
`__post_init__`, no `InitVar`): anything else is refused when the class is defined, not silently built wrong.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """`cls` (a frozen, slotted dataclass) with a faster `__init__` of the same signature (see the module
    docstring)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_init is for frozen dataclasses with slots")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init cannot run a __post_init__")
    namespace: dict[str, Any] = {}
    signature: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: quick_init takes fields set by __init__, plain defaults only")
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, {', '.join(signature)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # the same technique dataclasses uses to write __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
