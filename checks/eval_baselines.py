"""Baselines for `kibo eval` (docs/eval.md, "Baselines"): predictions for an evaluation
set from simple players, each scored by `kibo eval`, printed as one Markdown table.

    make eval-baselines OUT=out/dev SET=out/dev-eval [ND=out/dev-nodedup] [MINUTES=3]

* `random-legal`: a uniformly random legal move (seeded) on the pictured board;
* `lookup`: the move most played from the same position (board and side to move) in the
  train split of ND, a run of the same corpus with dedup off (the same games in train:
  the split is by game), where the position occurs there; unanswered elsewhere;
* `katago-policy`: KataGo's first move at one visit, from OUT/labels (`kibo label`);
* `policy-net`: examples/train_policy.py trained for MINUTES on OUT's train split, its
  top move for each row (needs the kibo Python package, `make venv`);
* `constant`: the answers that need no picture: an empty board, `no`, `none`.

Each writes WORK/<name>.jsonl ({"id", "answer"}) and WORK/<name>.json (the report).
The legality and the symmetries here are written independently of kibo's code.
"""
import argparse
import collections
import json
import os
import pathlib
import random
import subprocess
import sys

import polars as pl

N = 19
COLS = "ABCDEFGHJKLMNOPQRST"
ROOT = pathlib.Path(__file__).resolve().parents[1]


def sym_point(r, c, s):
    """coord::symmetry: bit 0 flips rows, bit 1 columns, bit 2 transposes (flips first)."""
    if s & 1:
        r = N - 1 - r
    if s & 2:
        c = N - 1 - c
    return (c, r) if s & 4 else (r, c)


def gtp(index, s):
    if index >= N * N:
        return "pass"
    r, c = sym_point(index // N, index % N, s)
    return f"{COLS[c]}{N - r}"


def legal_moves(board, to_play, ko):
    """Empty points that are not the ko point and not suicide."""
    def group(p, b):
        colour, seen, libs, stack = b[p], {p}, set(), [p]
        while stack:
            q = stack.pop()
            r, c = divmod(q, N)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= rr < N and 0 <= cc < N:
                    n = rr * N + cc
                    if b[n] == 0:
                        libs.add(n)
                    elif b[n] == colour and n not in seen:
                        seen.add(n)
                        stack.append(n)
        return seen, libs
    out = []
    for p in range(N * N):
        if board[p] != 0 or p == ko:
            continue
        b = list(board)
        b[p] = to_play
        r, c = divmod(p, N)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < N and 0 <= cc < N and b[rr * N + cc] == 3 - to_play:
                stones, libs = group(rr * N + cc, b)
                if not libs:
                    for q in stones:
                        b[q] = 0
        if group(p, b)[1]:
            out.append(p)
    return out


def set_rows(dest):
    if (dest / "test").is_dir():
        return pl.read_parquet(dest / "test", columns=["id", "task", "question", "game_id", "move_number", "symmetry"])
    return pl.read_ndjson(dest / "test.jsonl").select(["id", "task", "question", "game_id", "move_number", "symmetry"])


def with_samples(out, rows):
    s = (pl.scan_parquet(str(out / "samples" / "part-test-*.parquet"))
         .select(["game_id", "move_number", "board", "to_play", "ko_point", "position_hash", "move"]).collect())
    return rows.join(s, on=["game_id", "move_number"], how="left")


def write(path, preds):
    with open(path, "w") as f:
        for p in preds:
            f.write(json.dumps(p) + "\n")


def random_legal(rows, seed=0):
    rng = random.Random(seed)
    preds = []
    for r in rows.filter(pl.col("task") == "next-move").iter_rows(named=True):
        ko = r["ko_point"] if r["ko_point"] is not None else -1
        moves = legal_moves(list(r["board"]), r["to_play"], ko)
        preds.append({"id": r["id"], "answer": gtp(rng.choice(moves), r["symmetry"]) if moves else "pass"})
    return preds


def lookup(rows, nodedup):
    train = (pl.scan_parquet(str(nodedup / "samples" / "part-train-*.parquet")).select(["position_hash", "move"])
             .group_by(["position_hash", "move"]).len()
             .sort(["position_hash", "len", "move"], descending=[False, True, False])
             .group_by("position_hash", maintain_order=True).first().collect())
    j = rows.filter(pl.col("task") == "next-move").join(train.rename({"move": "best"}), on="position_hash", how="inner")
    return [{"id": r["id"], "answer": gtp(r["best"], r["symmetry"])} for r in j.iter_rows(named=True)]


def katago_policy(rows, out):
    labels = pl.read_parquet(out / "labels", columns=["game_id", "move_number", "engine_move_index"])
    j = rows.filter(pl.col("task") == "next-move").join(labels, on=["game_id", "move_number"], how="inner")
    return [{"id": r["id"], "answer": gtp(r["engine_move_index"], r["symmetry"])} for r in j.iter_rows(named=True)]


def constant(rows):
    empty = "   " + COLS + "".join(f"\n{N - r:>2} " + "." * N for r in range(N))
    preds = []
    for r in rows.iter_rows(named=True):
        if r["task"] == "transcribe":
            preds.append({"id": r["id"], "answer": empty})
        elif r["task"] == "tactics":
            preds.append({"id": r["id"], "answer": "none" if r["question"] == "atari" else "no"})
    return preds


def pct(v):
    if v is None or v.get("rate") is None:
        return "–"
    return f"{100 * v['rate']:.1f}% [{100 * v['low']:.1f}, {100 * v['high']:.1f}] ({v['count']}/{v['n']})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kibo", required=True)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--set", required=True, type=pathlib.Path)
    ap.add_argument("--nodedup", type=pathlib.Path)
    ap.add_argument("--work", required=True, type=pathlib.Path)
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--skip", default="", help="comma-separated baselines to leave out")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    rows = with_samples(a.out, set_rows(a.set))
    skip = set(filter(None, a.skip.split(",")))
    made = {"random-legal": lambda: random_legal(rows), "constant": lambda: constant(rows)}
    if a.nodedup:
        made["lookup"] = lambda: lookup(rows, a.nodedup)
    if (a.out / "labels").is_dir():
        made["katago-policy"] = lambda: katago_policy(rows, a.out)
    results = {}
    for name, make in made.items():
        if name in skip:
            continue
        write(a.work / f"{name}.jsonl", make())
    if "policy-net" not in skip:
        subprocess.run([sys.executable, str(ROOT / "examples/train_policy.py"), str(a.out), "--minutes", str(a.minutes),
                        "--predict-set", str(a.set), "--predictions", str(a.work / "policy-net.jsonl")], check=True)
        made["policy-net"] = None
    for name in made:
        if name in skip:
            continue
        report = a.work / f"{name}.json"
        subprocess.run([a.kibo, "eval", "--set", str(a.set), "--predictions", str(a.work / f"{name}.jsonl"),
                        "--report", str(report)], check=True, stdout=subprocess.DEVNULL)
        results[name] = json.loads(report.read_text())
    print("| baseline | next-move answered | legal | top-1 (human move) | KataGo top-1 | KataGo top-5 |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        nm = r["next-move"]
        print(f"| {name} | {pct(nm['answered'])} | {pct(nm['legal'])} | {pct(nm['top1'])} | "
              f"{pct(nm['engine_top1']) if nm['labelled'] else '–'} | {pct(nm['engine_top5']) if nm['labelled'] else '–'} |")
    c = results.get("constant")
    if c:
        tr, ta = c["transcribe"], c["tactics"]
        print(f"\nconstant (empty board, no, none): transcribe exact {pct(tr['exact'])}, point accuracy "
              f"{pct(tr['point_accuracy'])}; tactics accuracy {pct(ta['accuracy'])} (atari "
              f"{pct(ta['by_question']['atari']['accuracy'])}, capture {pct(ta['by_question']['capture']['accuracy'])}, "
              f"ladder {pct(ta['by_question']['ladder']['accuracy'])})")


if __name__ == "__main__":
    main()
