#!/usr/bin/env python3
"""`make bench-spark`: `kibo run` and the Spark job (local mode) on the same corpus, on
this machine, one after the other; prints wall time, samples/s, CPU seconds and CPU-s per
million samples for both, the Spark steps with their tasks and shuffle bytes, and the
dataset comparison. Asserts nothing.

  bench/spark.py KIBO [--master local[2]] [--work DIR] CORPUS...

CORPUS is `pipeline.toml` (its sources) or `DIR` (an input folder, default pipeline).
CPU of `kibo run` is its rusage; CPU of the Spark job is the JVM's process tree (its
Python workers and their kibo processes) plus the driver, read from /proc.
"""
import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "dist" / "spark"))
import compare  # noqa: E402


def timed(argv, env=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        sys.exit(f"failed: {' '.join(argv)}\n{r.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kibo")
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--work", default="/tmp/kibo-bench-spark")
    a = ap.parse_args()
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    rows = []
    for corpus in a.corpus:
        name = pathlib.Path(corpus).stem if corpus.endswith(".toml") else pathlib.Path(corpus).name
        what = ["--pipeline", corpus] if corpus.endswith(".toml") else ["--input", corpus]
        base = pathlib.Path(a.work) / name
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        one, two = base / "one", base / "spark"
        wall1, cpu1, _ = timed([a.kibo, "run", *what, "--out", str(one), "--threads", "2", "-q"])
        wall2, _, log = timed([sys.executable, str(ROOT / "dist/spark/kibo_spark.py"), "--kibo", a.kibo, *what,
                               "--out", str(two), "--master", a.master], env)
        report = json.loads((two / "report.json").read_text())
        n = report["split"]["samples"]
        spark = report["spark"]
        cpu2 = spark.get("cpu_s_local") or float("nan")
        rows.append((name, "kibo run", wall1, cpu1, n))
        rows.append((name, f"spark {spark['master']}, {spark['parts']} parts", wall2, cpu2, n))
        print(f"\n{name}: Spark steps", file=sys.stderr)
        for s, m in spark["steps"].items():
            print(f"  {s:7} {m['seconds']:7.1f} s  tasks {m.get('tasks', '?'):>3}  shuffle write "
                  f"{m.get('shuffle_write_bytes', 0) / 1e6:9.1f} MB  ({m.get('shuffle_write_records', 0)} records)",
                  file=sys.stderr)
        obs = report["split"]["dedup"]["observations"] if report["split"].get("dedup") else 0
        if obs:
            b = spark["steps"]["dedup"]["shuffle_write_bytes"]
            print(f"  dedup shuffle: {b / obs:.1f} bytes per observation ({obs} observations)", file=sys.stderr)
        print(f"{name}: comparison", file=sys.stderr)
        compare.compare(one, two, out=sys.stderr)
    print(f"\n{'corpus':12} {'path':32} {'wall s':>8} {'CPU s':>8} {'samples':>10} {'samples/s':>10} {'CPU-s/M':>8}")
    for name, path, wall, cpu, n in rows:
        print(f"{name:12} {path:32} {wall:8.1f} {cpu:8.1f} {n:10} {n / wall:10.0f} {cpu / max(n, 1) * 1e6:8.2f}")


if __name__ == "__main__":
    main()
