#!/usr/bin/env python3
"""`kibo export vlm` beside `kibo split` on the dev corpus, one thread each, alternating
(bench/benchlib.py): CPU seconds, pictures per CPU-second end to end, bytes a picture,
peak RSS against the memory budget, rows per task. Prints figures, asserts nothing.

    bench/vlm.py KIBO [--out out/bench-vlm] [--limit 100000] [--rounds 3] [--memory-mb 1024]

Builds the dev output (`kibo run --pipeline pipelines/dev.toml`) under --out when absent.
The split runs on a copy of the games table (it rewrites the samples); the exports read
the dev samples: next-move only at 32 and 28 px, and the three tasks mixed at 32 px.
"""
import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import alternate, best  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kibo")
    ap.add_argument("--out", default="out/bench-vlm")
    ap.add_argument("--limit", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--memory-mb", type=int, default=1024)
    a = ap.parse_args()
    root = Path(a.out)
    dev, split_copy = root / "dev", root / "split"
    if not (dev / "samples").is_dir():
        subprocess.run([a.kibo, "run", "--pipeline", "pipelines/dev.toml", "--out", str(dev), "-q"], check=True)
    if split_copy.exists():
        shutil.rmtree(split_copy)
    split_copy.mkdir(parents=True)
    shutil.copytree(dev / "games", split_copy / "games")
    mem = ["--memory-mb", str(a.memory_mb)]

    def export(name, *extra):
        return lambda: [a.kibo, "export", "vlm", "--out", str(dev), "--to", str(root / name), "--threads", "1",
                        "--limit", str(a.limit), "-q", *mem, *extra]

    variants = [
        ("split", lambda: [a.kibo, "split", "--out", str(split_copy), "--pipeline", "pipelines/dev.toml",
                           "--threads", "1", "-q", *mem]),
        ("vlm-32", export("vlm-32", "--cell-px", "32")),
        ("vlm-28", export("vlm-28", "--cell-px", "28")),
        ("vlm-32-mix", export("vlm-32-mix", "--mix", "next-move=0.8,transcribe=0.1,tactics=0.1", "--symmetries", "8")),
    ]
    runs = alternate(variants, a.rounds)
    split = best(runs["split"])
    samples = json.loads((split_copy / "report.json").read_text())["split"]["samples"] \
        if (split_copy / "report.json").exists() else None
    print(f"\ndev corpus, 1 thread, best of {a.rounds} alternating rounds, --memory-mb {a.memory_mb}")
    print(f"{'run':<12} {'CPU s':>7} {'wall s':>7} {'rows':>8} {'rows/CPU-s':>11} {'KB/picture':>10} "
          f"{'/ split CPU':>11} {'peak RSS MiB':>12}")
    print(f"{'split':<12} {split['cpu']:>7.2f} {split['wall']:>7.2f} {samples or '':>8} "
          f"{(samples or 0) / split['cpu']:>11.0f} {'':>10} {1:>11.3f} {split['rss_mib']:>12.0f}")
    for name, _ in variants[1:]:
        m = best(runs[name])
        meta = json.loads((root / name / "vlm.json").read_text())
        rows = meta["rows"]["train"] + meta["rows"]["val"]
        print(f"{name:<12} {m['cpu']:>7.2f} {m['wall']:>7.2f} {rows:>8} {rows / m['cpu']:>11.0f} "
              f"{meta['picture_bytes_mean'] / 1000:>10.1f} {m['cpu'] / split['cpu']:>11.3f} {m['rss_mib']:>12.0f}")
        print(f"{'':<12} tasks {meta['tasks']}, questions {meta['questions']}, {meta['picture_px']} px "
              f"({(meta['picture_px'] // meta['cell_px']) ** 2} tokens of {meta['cell_px']} px)")


if __name__ == "__main__":
    main()
