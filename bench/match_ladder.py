"""The figures of docs/results/match.md: a ladder of players with `kibo match`, the MariaGO
setting (the example net against GNU Go with 80/150/200-move caps, counted by the KataGo
judge and as they stand), games an hour with 1 and 2 games at once, and kibo's own time a
move. A benchmark: it prints and writes a JSON summary, it asserts nothing.

    python bench/match_ladder.py --kibo KIBO --net policy.pt [--work DIR] [--only NAME,...]

--net: a net `examples/train_policy.py --save` wrote (the `kibo` Python package must be
importable by the venv's python: `make venv`). Each step is a match into WORK/NAME (a
rerun finishes or reuses it); the summary goes to WORK/summary.json.
"""
import argparse
import json
import pathlib
import resource
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def gnugo():
    return shutil.which("gnugo") or "/usr/games/gnugo"


def steps(net_cmd):
    g1 = f"gnugo-1=gtp:{gnugo()} --mode gtp --level 1"
    g10 = f"gnugo-10=gtp:{gnugo()} --mode gtp --level 10"
    net = f"net=gtp:{net_cmd}"
    s = [
        ("speed-c1", [g1, "random=random"], ["--games", "4", "--concurrency", "1"]),
        ("speed-c2", [g1, "random=random"], ["--games", "4", "--concurrency", "2"]),
        ("overhead", ["a=random", "b=random"], ["--games", "20"]),
        ("net-random", [net, "random=random"], ["--games", "4", "--concurrency", "2"]),
        ("net-gnugo1", [net, g1], ["--games", "6", "--concurrency", "2"]),
        ("gnugo1-gnugo10", [g1, g10], ["--games", "12", "--concurrency", "2"]),
        ("gnugo10-katago1", [g10, "katago-1=katago:1"], ["--games", "4", "--concurrency", "2"]),
    ]
    for cap in (80, 150, 200):
        for by in ("katago", "reference"):
            s.append((f"mariago-{cap}-{by}", [net, g1],
                      ["--games", "6", "--concurrency", "2", "--max-moves", str(cap), "--count-stopped", by]))
    return s


def run(kibo, work, name, players, flags):
    to = work / name
    cmd = [kibo, "match", "--to", str(to), "--seed", "1"]
    for p in players:
        cmd += ["--player", p]
    cmd += flags
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"== {name} ({wall:.0f} s wall, {cpu:.0f} s CPU, exit {r.returncode})\n{r.stdout}{r.stderr[-2000:]}", flush=True)
    rep = json.loads((to / "match.json").read_text()) if (to / "match.json").exists() else None
    moves = sum(json.loads(p.read_text())["moves"] for p in (to / "records").glob("*.json"))
    return {"wall_s": wall, "cpu_s": cpu, "exit": r.returncode, "moves": moves, "report": rep}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kibo", required=True)
    ap.add_argument("--net", required=True)
    ap.add_argument("--python", default=sys.executable, help="the python that runs examples/gtp_policy.py")
    ap.add_argument("--work", default="/tmp/kibo-ladder")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    net_cmd = f"{a.python} {ROOT / 'examples' / 'gtp_policy.py'} --net {a.net}"
    only = set(filter(None, a.only.split(",")))
    summary_path = work / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    for name, players, flags in steps(net_cmd):
        if only and name not in only:
            continue
        shutil.rmtree(work / name, ignore_errors=True)
        summary[name] = run(a.kibo, work, name, players, flags)
        summary_path.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
