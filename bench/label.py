"""`kibo label` against KataGo's own throughput for the same work (docs/labels.md, "Cost").

For each visit count: `kibo label --limit N` on a copy of OUT (positions a second, from
its report), then the same positions sent straight to KataGo by this script — the
queries kibo sends (one per game, `analyzeTurns`), all written at once to one
`katago analysis` with `numAnalysisThreads` = the engine count (KataGo's own batching,
the fastest way to feed it), timed from the first query to the last answer. The two run
alternately, kibo first, `--rounds` times; the best of each is printed. Prints figures,
asserts nothing.

    python bench/label.py OUT --kibo KIBO [--limit 200] [--visits 1,16] [--engines 2] [--rounds 1]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

HOME = Path(os.environ.get("KATAGO_HOME") or Path.home() / ".cache" / "kibo-katago")
BINARY = HOME / "katago-6a1fc5d" / "cpp" / "katago"
MODEL = HOME / "katrain" / "katrain" / "models" / "b10c384h6nbttflrs.bin.gz"
CONFIG = HOME / "katrain" / "katrain" / "KataGo" / "analysis_config.cfg"
COLS = "ABCDEFGHJKLMNOPQRST"


def gtp(i):
    return "pass" if i == 361 else f"{COLS[i % 19]}{19 - i // 19}"


def rules_of(ru):
    r = (ru or "").lower()
    return "chinese" if "chin" in r else "korean" if "korea" in r else "japanese"


def queries_of(out, visits):
    """The queries of OUT's labels (one per game, its labelled positions as analyzeTurns)."""
    games = {g["game_id"]: g for g in pq.read_table(out / "games").to_pylist()}
    turns = {}
    for r in pq.read_table(out / "labels", columns=["game_id", "move_number", "sent"]).to_pylist():
        turns.setdefault(r["game_id"], []).append(r["move_number"] - 1)
    qs = []
    for gid, ts in turns.items():
        g = games[gid]
        ts = sorted(set(ts))
        qs.append({
            "id": gid,
            "initialStones": [["B", gtp(i)] for i in g["setup_black"]] + [["W", gtp(i)] for i in g["setup_white"]],
            "initialPlayer": (g["colors"] or ["B"])[0],
            "moves": [[c, gtp(m)] for c, m in zip(g["colors"], g["moves"])][: max(ts)],
            "rules": rules_of(g["rules"]), "komi": g["komi"] if g["komi"] is not None else 6.5,
            "boardXSize": 19, "boardYSize": 19, "analyzeTurns": ts, "maxVisits": visits, "includePolicy": True,
            "overrideSettings": {"reportAnalysisWinratesAs": "BLACK"},
        })
    return qs


def katago_rate(qs, engines):
    """Positions a second of one KataGo fed every query at once (numAnalysisThreads = engines)."""
    p = subprocess.Popen(
        [str(BINARY), "analysis", "-config", str(CONFIG), "-model", str(MODEL), "-override-config",
         f"nnRandomize=false,numAnalysisThreads={engines},numSearchThreads=1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    # The net loaded and warm before the clock starts.
    p.stdin.write(json.dumps({"id": "warm", "moves": [], "rules": "japanese", "komi": 6.5, "boardXSize": 19,
                              "boardYSize": 19, "maxVisits": 1}) + "\n")
    p.stdin.flush()
    p.stdout.readline()
    n = sum(len(q["analyzeTurns"]) for q in qs)
    t0 = time.time()
    p.stdin.write("".join(json.dumps(q) + "\n" for q in qs))
    p.stdin.flush()
    for _ in range(n):
        v = json.loads(p.stdout.readline())
        assert "error" not in v, v
    secs = time.time() - t0
    p.stdin.close()
    p.wait()
    return n, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--kibo", required=True)
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--visits", default="1,16")
    ap.add_argument("--engines", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    print(f"kibo label vs KataGo alone: {a.limit} positions, {a.engines} engine(s), {os.cpu_count()} cores, "
          f"net {MODEL.name}")
    print("| visits | positions | kibo label positions/s | KataGo alone positions/s | kibo / KataGo |")
    print("|---|---|---|---|---|")
    for visits in [int(v) for v in a.visits.split(",")]:
        best_k, best_g = 0.0, 0.0
        for _ in range(a.rounds):
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "out"
                shutil.copytree(a.out, out, ignore=shutil.ignore_patterns("labels", ".tmp-*"))
                r = subprocess.run([a.kibo, "label", "--out", str(out), "--limit", str(a.limit), "-q",
                                    "--katago-visits", str(visits), "--katago-threads", str(a.engines)],
                                   capture_output=True, text=True)
                assert r.returncode == 0, r.stderr
                rep = json.loads((out / "report.json").read_text())["label"]
                # kibo's rate: positions over the time the engines were at work (their start
                # and the net's load excluded, as for KataGo alone).
                best_k = max(best_k, rep["read"] / rep["engine_seconds"])
                n, secs = katago_rate(queries_of(out, visits), a.engines)
                best_g = max(best_g, n / secs)
        print(f"| {visits} | {n} | {best_k:.2f} | {best_g:.2f} | {best_k / best_g:.2f} |")


if __name__ == "__main__":
    main()
