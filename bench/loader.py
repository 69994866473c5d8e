"""Throughput of kibo's Python side, one process: `kibo.features` alone (the Rust encoder
through the Arrow C interface) and `kibo.torch.ShardDataset` through a DataLoader with one
worker (float32 planes, and uint8) and in the calling process (read, encode, shuffle buffer, batch, symmetry), positions per second, per feature
set. Prints figures, asserts nothing.

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


def loader_rate(out, name, limit, workers, planes="float32"):
    ds = ShardDataset(out, split="train", features=name, shuffle_buffer=16384, seed=1, batch_size=256, planes=planes)
    dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers)
    n = 0
    start = time.perf_counter()
    for b in dl:
        n += len(b["value"])
        if n >= limit:
            break
    return n, time.perf_counter() - start


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
          "| the same, planes=\"uint8\" (pos/s) |")
    print("|---|---|---|---|---|")
    for name in a.sets.split(","):
        n1, s1 = encode_rate(files, name, a.positions)
        n2, s2 = loader_rate(a.out, name, a.positions, 0)
        n3, s3 = loader_rate(a.out, name, a.positions, 1)
        n4, s4 = loader_rate(a.out, name, a.positions, 1, "uint8")
        print(f"| {name} | {n1 / s1:,.0f} ({n1} in {s1:.2f} s) | {n2 / s2:,.0f} ({n2} in {s2:.2f} s) "
              f"| {n3 / s3:,.0f} ({n3} in {s3:.2f} s) | {n4 / s4:,.0f} ({n4} in {s4:.2f} s) |", flush=True)


if __name__ == "__main__":
    main()
