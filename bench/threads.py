#!/usr/bin/env python3
"""Thread scaling of the filter and split stages (docs/performance.md, "Threads").

    bench/threads.py [--kibo BIN] [--threads "1 2"] [--runs 3] [--work DIR]
                     [--stages "filter split"] (--pipeline FILE | --input PATH)

For each stage and each thread count, `kibo filter` (into WORK/filter-T) and `kibo split`
(on one games table, WORK/split, filtered once beforehand) run with `--threads T`,
alternately over the thread counts (the order reversed every other round), RUNS times
each. Prints each round, then one table per stage: threads, best wall, best CPU (user +
sys), speedup (best wall at the first thread count / best wall at T, scaled by that
count: with "1 2 4" the first is 1) and parallel efficiency (speedup / T). Also checks
that every thread count wrote the same bytes: the games and rejects tables of the filter
runs, the samples shards of the split runs (sha256 of every file).

On a machine with more cores: `bench/threads.py --threads "1 2 4 8 16" --pipeline ...`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import alternate, best, measure, tree_digest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def stage_runs(a, stage: str, corpus: list[str], work: Path) -> dict:
    """Runs one stage at every thread count; returns threads -> best figures."""
    split_out = work / "split"
    digests: dict[int, str] = {}

    def out_of(t: int) -> Path:
        return work / f"filter-{t}" if stage == "filter" else split_out

    def cmd(t: int):
        args = corpus if stage == "filter" else (corpus if corpus[0] == "--pipeline" else [])
        return lambda: [a.kibo, stage, *args, "--out", str(out_of(t)), "--threads", str(t), "-q"]

    def check(label: str, m: dict) -> None:
        t = int(label.split()[1])
        out = out_of(t)
        tables = ["games", "rejects"] if stage == "filter" else ["samples"]
        d = "/".join(tree_digest(out / x) for x in tables)
        if digests.setdefault(t, d) != d or len(set(digests.values())) > 1:
            sys.exit(f"{stage}: the output of --threads {t} differs ({digests} vs {d})")

    if stage == "split" and not (split_out / "games").is_dir():
        print(f"filtering once into {split_out} ...", flush=True)
        m = measure([a.kibo, "filter", *corpus, "--out", str(split_out), "--threads", str(max(a.threads)), "-q"])
        if m["rc"] not in (0, 1):
            sys.exit(f"kibo filter failed (exit {m['rc']})")
    print(f"kibo {stage}: threads {a.threads}, {a.runs} rounds", flush=True)
    res = alternate([(f"{stage} {t}", cmd(t)) for t in a.threads], a.runs, check, work)
    return {int(k.split()[1]): best(v) for k, v in res.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    ap.add_argument("--kibo", default=f"{target}/release/kibo")
    ap.add_argument("--threads", default="1 2", help="thread counts, e.g. \"1 2 4 8 16\"")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stages", default="filter split")
    ap.add_argument("--work", type=Path, help="scratch folder (default: a new one under /tmp)")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--pipeline", help="pipeline file (relative paths: from the repository root)")
    src.add_argument("--input", help="input path, with the built-in default pipeline")
    a = ap.parse_args()
    a.threads = [int(t) for t in a.threads.split()]
    os.chdir(ROOT)
    work = a.work or Path(os.popen("mktemp -d /tmp/kibo-threads.XXXXXX").read().strip())
    work.mkdir(parents=True, exist_ok=True)
    corpus = ["--pipeline", a.pipeline] if a.pipeline else ["--input", a.input]
    print(f"{os.cpu_count()} cores; {' '.join(corpus)}; best of {a.runs}")
    tables = {s: stage_runs(a, s, corpus, work) for s in a.stages.split()}
    t0 = a.threads[0]
    for stage, b in tables.items():
        print(f"\n{stage}:\n\n| threads | best wall s | best CPU s | speedup | efficiency |\n|---|---|---|---|---|")
        for t, f in b.items():
            speedup = t0 * b[t0]["wall"] / f["wall"]
            print(f"| {t} | {f['wall']:.2f} | {f['cpu']:.2f} | {speedup:.2f}× | {speedup / t:.0%} |")
    print("\noutputs byte-identical across thread counts (games + rejects for filter, samples for split)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
