"""Timing helpers shared by bench/spill_ratio.py and bench/threads.py (standard library).

`measure(cmd)` runs one process and returns its wall time, CPU time (user + sys of the
process and its children, from `os.wait4`) and peak RSS. `alternate(variants, runs)` runs
several commands in turn, round after round, the order reversed every other round
(A B, B A, A B, ...) so that neither side always runs first on a shared, noisy machine;
`best(ms)` takes the lowest wall and the lowest CPU of a variant's rounds.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence


def measure(cmd: Sequence[str], log: Path | None = None) -> dict:
    """Runs `cmd` (stdout and stderr to `log`, or discarded) and times it."""
    out = open(log, "w") if log else subprocess.DEVNULL
    try:
        t0 = time.perf_counter()
        p = subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    finally:
        if log:
            out.close()
    rc = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024, "rc": rc}


def alternate(variants: Sequence[tuple[str, Callable[[], list[str]]]], runs: int,
              check: Callable[[str, dict], None] | None = None, log_dir: Path | None = None) -> dict:
    """Runs each variant `runs` times, alternating; returns label -> list of measurements.

    `variants` are (label, function giving the command); `check(label, m)` may add fields
    to a measurement (from the run's outputs) or raise. A run exiting with a status other
    than 0 or 1 stops the benchmark.
    """
    results: dict[str, list[dict]] = {label: [] for label, _ in variants}
    for r in range(runs):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for label, cmd_of in order:
            cmd = cmd_of()
            log = log_dir / f"{label}.{r}.log".replace(" ", "_") if log_dir else None
            m = measure(cmd, log)
            if m["rc"] not in (0, 1):
                sys.exit(f"{label}: exit {m['rc']}: {' '.join(cmd)}" + (f" (log: {log})" if log else ""))
            if check:
                check(label, m)
            results[label].append(m)
            print(f"  round {r + 1} {label:<24} wall {m['wall']:7.2f} s  CPU {m['cpu']:7.2f} s  "
                  f"RSS {m['rss_mib']:6.0f} MiB", flush=True)
    return results


def best(ms: list[dict]) -> dict:
    """The lowest wall and the lowest CPU of a variant's rounds (each its own minimum)."""
    return {"wall": min(m["wall"] for m in ms), "cpu": min(m["cpu"] for m in ms),
            "rss_mib": max(m["rss_mib"] for m in ms)}


def tree_digest(folder: Path) -> str:
    """sha256 over the names and bytes of every file under `folder`, in name order."""
    h = hashlib.sha256()
    for p in sorted(x for x in folder.rglob("*") if x.is_file()):
        h.update(str(p.relative_to(folder)).encode() + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()[:16]
