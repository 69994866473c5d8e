"""How often KataGo's move (`kibo label`) is the move played, by source, by the mover's
rank band and by move number: a sanity figure for engine labels (docs/results/labels.md).
Each rate with its count and a 95% Wilson interval.

    python checks/label_agreement.py OUT [--source kgs2001]
"""
import argparse
import math
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def rank_band(r):
    if r is None:
        return "unknown"
    if r <= -10:
        return "10k and weaker"
    if r <= 0:
        return "9k-1k"
    if r <= 4:
        return "1d-4d"
    if r <= 9:
        return "5d-9d"
    return "pro"


def move_band(m):
    for hi in (50, 100, 150, 200):
        if m <= hi:
            return f"{hi - 49}-{hi}"
    return "201+"


#: The bands in reading order.
ORDER = {k: i for i, k in enumerate(["10k and weaker", "9k-1k", "1d-4d", "5d-9d", "pro", "unknown", "1-50", "51-100",
                                       "101-150", "151-200", "201+", "all"])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--source", help="only samples whose `source` contains this text")
    a = ap.parse_args()
    labels = {(r["game_id"], r["move_number"]): r["engine_move"]
              for r in pq.read_table(a.out / "labels", columns=["game_id", "move_number", "engine_move"]).to_pylist()}
    cols = ["game_id", "move_number", "move_gtp", "to_play", "black_rank_num", "white_rank_num", "source"]
    by = {"rank": defaultdict(lambda: [0, 0]), "move": defaultdict(lambda: [0, 0]), "all": defaultdict(lambda: [0, 0])}
    for s in pq.read_table(a.out / "samples", columns=cols).to_pylist():
        key = (s["game_id"], s["move_number"])
        if key not in labels or (a.source and a.source not in s["source"]):
            continue
        hit = labels[key] == s["move_gtp"]
        rank = s["black_rank_num"] if s["to_play"] == 1 else s["white_rank_num"]
        for table, k in (("rank", rank_band(rank)), ("move", move_band(s["move_number"])), ("all", "all")):
            by[table][k][0] += hit
            by[table][k][1] += 1
    for table, title in (("all", "all"), ("rank", "mover's rank"), ("move", "move number")):
        print(f"\n| {title} | KataGo's move = the move played | rate | 95% interval |\n|---|---|---|---|")
        for k in sorted(by[table], key=ORDER.get):
            hit, n = by[table][k]
            lo, hi = wilson(hit, n)
            print(f"| {k} | {hit} of {n} | {hit / n:.1%} | {lo:.1%}–{hi:.1%} |")


if __name__ == "__main__":
    main()
