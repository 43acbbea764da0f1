"""No import circles in alicorn: the strongly connected components of its import graph, computed with grimp.

`lint-imports` (run by `make lint`) checks the layers; this test checks the property the layers rest on over the
whole package at module level, TYPE_CHECKING and function-level imports included, so a circle inside any part fails
here with its modules named, whether or not a contract lists that part.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import grimp
import pytest

#: Packages whose circles are known and being removed elsewhere: their circles are not reported here. Drop an entry
#: when its package is untangled (the test below then keeps it so).
KNOWN_CIRCLE_PACKAGES: tuple[str, ...] = ()


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module, each sorted, iteratively (no recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def import_graph(package: str) -> dict[str, set[str]]:
    graph = grimp.build_graph(package, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


@pytest.fixture(scope="module")
def alicorn_graph() -> dict[str, set[str]]:
    return import_graph("alicorn")


def test_alicorn_has_no_import_circles(alicorn_graph: dict[str, set[str]]) -> None:
    circles = [c for c in strongly_connected(alicorn_graph) if not _within_known(c)]
    assert circles == [], "import circles (each: modules that import each other, directly or not): " + "; ".join(
        " <-> ".join(c) for c in circles
    )


def _within_known(component: list[str], known: tuple[str, ...] = KNOWN_CIRCLE_PACKAGES) -> bool:
    return any(all(m == k or m.startswith(k + ".") for m in component) for k in known)


def test_the_known_exceptions_are_packages_of_alicorn(alicorn_graph: dict[str, set[str]]) -> None:
    # A misspelt or removed package would silently excuse nothing (or everything under a shorter name).
    assert all(k in alicorn_graph for k in KNOWN_CIRCLE_PACKAGES)


def test_the_search_finds_a_circle_and_only_the_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert strongly_connected(graph) == [["a", "b", "c"], ["d", "e"]]
    assert strongly_connected({"x": {"y"}, "y": set()}) == []


def test_a_circle_inside_a_known_package_is_excused_and_one_crossing_it_is_not() -> None:
    known = ("alicorn.service",)
    assert _within_known(["alicorn.service.app", "alicorn.service.web"], known)
    assert not _within_known(["alicorn.service.app", "alicorn.runtime.session"], known)
    assert not _within_known(["alicorn.servicex.a", "alicorn.servicex.b"], known)
