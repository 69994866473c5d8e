"""How much a filtered Polars scan of the samples shards reads, against a full scan.
Usage: python bench/pruning.py OUT. Prints a table; asserts nothing."""
import glob
import sys
import time

import polars as pl
import pyarrow.parquet as pq

out = sys.argv[1]
files = sorted(glob.glob(f"{out}/samples/*.parquet"))


def matching_bytes(pred):
    """Compressed bytes of the row groups whose statistics allow a match (what a
    pruning reader must read), over all row groups."""
    total = need = 0
    for f in files:
        md = pq.ParquetFile(f).metadata
        names = [md.schema.column(i).path for i in range(md.num_columns)]
        for rg in range(md.num_row_groups):
            r = md.row_group(rg)
            size = sum(r.column(i).total_compressed_size for i in range(r.num_columns))
            stats = {names[i]: r.column(i).statistics for i in range(r.num_columns)}
            total += size
            if pred(stats):
                need += size
    return need, total


def timed(q):
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        df = q.collect()
        best = min(best, time.perf_counter() - t)
    return best, df.height


lf = pl.scan_parquet(f"{out}/samples/*.parquet")
full_t, full_n = timed(lf.select("board", "move", "split"))
cases = [
    ("split == 'test'", pl.col("split") == "test",
     lambda s: s["split"].min <= "test" <= s["split"].max),
    ("split == 'val'", pl.col("split") == "val",
     lambda s: s["split"].min <= "val" <= s["split"].max),
    ("black_rank_num >= 8", pl.col("black_rank_num") >= 8,
     lambda s: s["black_rank_num"].has_min_max and s["black_rank_num"].max >= 8),
]
print(f"full scan (board, move, split): {full_n} rows in {full_t * 1000:.0f} ms")
print("| filter | rows | bytes a pruning reader needs | time | vs full scan |")
print("|---|---|---|---|---|")
for name, expr, pred in cases:
    need, total = matching_bytes(pred)
    t, n = timed(lf.filter(expr).select("board", "move", "split"))
    print(f"| `{name}` | {n} | {need / total:.1%} of {total / 1e6:.1f} MB | {t * 1000:.0f} ms | {t / full_t:.0%} |")
