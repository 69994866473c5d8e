"""Throughput of kibo's Python side, one process: `kibo.features` alone (the Rust encoder
through the Arrow C interface); `kibo.torch.ShardDataset` through a DataLoader with one
worker (float32 planes, and uint8) and in the calling process (read, encode, shuffle
buffer, batch, symmetry), positions per second, per feature set, timed from the first
batch on, with the CPU seconds the worker and the calling process spent meanwhile (on a
loaded host, positions / worker CPU-s is what the worker could give with a core of its
own); and the gather + symmetry pass alone (rows/s). Prints figures, asserts nothing.

    .venv/bin/python bench/loader.py OUT [--sets leela-18,katago-v7] [--positions 200000]
"""
import argparse
import glob
import os
import time

import pyarrow.parquet as pq
import torch.utils.data

import kibo
from kibo.torch import ShardDataset


def encode_rate(files, name, limit):
    """Positions/s of kibo.features over whole row groups, read time excluded."""
    tables, n = [], 0
    for f in files:
        pf = pq.ParquetFile(f)
        for rg in range(pf.num_row_groups):
            t = pf.read_row_group(rg, columns=list(kibo.COLUMNS))
            tables.append(t)
            n += t.num_rows
            if n >= limit:
                break
        if n >= limit:
            break
    start = time.perf_counter()
    for t in tables:
        kibo.features(t, name)
    return n, time.perf_counter() - start


def orient_rate(files, name, planes, batches=200, batch=256):
    """Rows/s of the gather + symmetry pass alone (`kibo._kibo.orient_into`, as
    `ShardDataset` runs it): batches of rows drawn at random from a buffer the size of the
    loader's (16,384 + 256 rows), a random symmetry each, CPU time, best of 3."""
    import numpy as np
    t = pq.ParquetFile(files[0]).read(columns=list(kibo.COLUMNS)).slice(0, 16384 + batch)
    sp, _, pol, _ = kibo.encode_targets(t, name)
    out = np.empty((batch,) + sp.shape[1:], planes)
    pol_out = np.empty((batch, 362), np.float32)
    rng = np.random.default_rng(1)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(batches):
            rows = rng.choice(len(sp), batch, replace=False)
            kibo._kibo.orient_into(int(rng.integers(8)), batch, sp, pol, out, pol_out, rows)
        best = min(best, time.process_time() - start)
    return batches * batch / best


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loader_rate(out, name, limit, workers, planes="float32"):
    """(positions, wall seconds, CPU seconds of this process, CPU seconds of the worker)
    from the first batch on (the worker's start and the buffer's filling excluded)."""
    ds = ShardDataset(out, split="train", features=name, shuffle_buffer=16384, seed=1, batch_size=256, planes=planes)
    it = iter(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers))
    next(it)
    pid = it._workers[0].pid if workers else None
    w0 = cpu_seconds(pid) if pid else 0.0
    n = 0
    start, c0 = time.perf_counter(), time.process_time()
    for b in it:
        n += len(b["value"])
        if n >= limit:
            break
    wall, cpu = time.perf_counter() - start, time.process_time() - c0
    return n, wall, cpu, (cpu_seconds(pid) - w0) if pid else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--sets", default="leela-18,katago-v7")
    ap.add_argument("--positions", type=int, default=200000)
    a = ap.parse_args()
    torch.set_num_threads(1)
    files = sorted(glob.glob(os.path.join(a.out, "samples", "part-train-*.parquet")))
    if not files:
        raise SystemExit(f"no train shards under {a.out}/samples")
    print("| set | kibo.features (pos/s) | ShardDataset in-process (pos/s) | ShardDataset, 1 DataLoader worker (pos/s) "
          "| the same, planes=\"uint8\" (pos/s) | gather + symmetry alone, float32 / uint8 (rows/s) |")
    print("|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        n1, s1 = encode_rate(files, name, a.positions)
        n2, s2, c2, _ = loader_rate(a.out, name, a.positions, 0)
        cells = [f"{n1 / s1:,.0f} ({n1} in {s1:.2f} s)", f"{n2 / s2:,.0f} ({n2} in {s2:.2f} s, {c2:.2f} CPU-s)"]
        for planes in ("float32", "uint8"):
            n, s, main_cpu, worker_cpu = loader_rate(a.out, name, a.positions, 1, planes)
            cells.append(f"{n / s:,.0f} ({n} in {s:.2f} s; CPU-s: worker {worker_cpu:.2f}, main {main_cpu:.2f})")
        cells.append(" / ".join(f"{orient_rate(files, name, p):,.0f}" for p in ("float32", "uint8")))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
