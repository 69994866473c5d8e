"""Every row of a `kibo export katago` against KataGo: the C++ on all rows, features.py on a sample.

Issue 41, item 5: the ladder channels (14, 15, 16, and 17) of every exported row must be
KataGo's. Two oracles, both fed from the games table (setup stones, colours, moves, rules,
komi) and the npz rows' trace (`*.rows.parquet`: game_id, move_number):

* `--cpp` (every row): KataGo's C++ `NNInputs::fillRowV7` (checks/ladder_fillrow.cpp,
  linked against the objects of a KataGo build, `--katago-cpp`), replaying each game with
  `BoardHistory::makeBoardMoveAssumeLegal` (no encore, as kibo). All 22 spatial channels
  and 19 globals are compared; the ladder channels are what KataGo's training used.
* `--features-py N` (a seeded random sample of N rows): KataGo's Python
  `Features.fill_row_features`, called as tests/python/test_planes_katago.py does (the
  C++'s handicap bonus, hidden history, ladder boards, pass flag and superko bans), with
  board.py's ladder search as written and, for rows whose channels 14-17 differ, again
  with its double-ko test negated as the C++ has it, and again with, also, the C++'s
  defender shortcuts (docs/planes.md, "Where features.py differs", items 5 and 9). The
  three counts are printed.

Deterministic: rows in npz order (train, then val, files sorted), the sample drawn with
`--seed`. Prints rows compared, rows with any ladder stone, rows differing per channel,
each oracle's rate and the first examples of each channel's differences (`--examples`).
Exit 1 when the C++ differs in a ladder channel (14-17) or when features.py differs in a
ladder channel other than by its two documented differences from the C++'s search.

    .venv/bin/python checks/ladder_compare.py OUT NPZ [--cpp] [--features-py N] [--seed S]
        [--limit-games G] [--katago-cpp DIR] [--examples K]

OUT is the `kibo run` output folder (its games table), NPZ the `kibo export katago --to`
folder. The corpus, the commands and the figures: docs/results/planes.md, "Every row against
KataGo".
"""
import argparse
import os
import pathlib
import random
import subprocess
import sys
import time

import numpy as np
import polars as pl

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
import test_planes_katago as T  # noqa: E402

# `make katago` builds KataGo's cpp/ here (its CMake objects are what the driver links).
KATAGO_HOME = pathlib.Path(os.environ.get("KATAGO_HOME", pathlib.Path.home() / ".cache" / "kibo-katago"))
KATAGO_CPP = KATAGO_HOME / "katago-6a1fc5d" / "cpp"
CPP_NAMES = {"japanese": "japanese", "korean": "korean", "chinese": "chinese", "aga": "aga",
             "nz": "new-zealand", "tt": "tromp-taylor"}
NSP, NGL, CB = 22, 19, 46
ROW_BYTES = 1 + NSP * CB + NGL * 4
LADDER = (14, 15, 16, 17)


def build_driver(katago_cpp, dest):
    """checks/ladder_fillrow.cpp linked against a built KataGo's object files."""
    objs = katago_cpp / "CMakeFiles" / "katago.dir"
    if not (objs / "neuralnet" / "nninputs.cpp.o").exists():
        raise FileNotFoundError(f"{objs}: no KataGo objects (build KataGo's cpp/ with CMake, USE_BACKEND=EIGEN, first)")
    exe = dest / "ladder_fillrow"
    src = ROOT / "checks" / "ladder_fillrow.cpp"
    if exe.exists() and exe.stat().st_mtime > src.stat().st_mtime:
        return exe
    obj = dest / "ladder_fillrow.o"
    flags = ["-O2", "-std=gnu++17", "-DNDEBUG", "-DNO_GIT_REVISION", "-DUSE_AVX2", "-DUSE_EIGEN_BACKEND",
             "-mavx2", "-mfma", f"-I{katago_cpp}", f"-I{katago_cpp / 'external'}",
             "-isystem", str(katago_cpp / "external" / "filesystem-1.5.8" / "include")]
    subprocess.run(["g++", *flags, "-c", str(src), "-o", str(obj)], check=True)
    libs = sorted(str(p) for d in ("game", "core") for p in (objs / d).glob("*.o"))
    subprocess.run(["g++", "-o", str(exe), str(obj), *libs, str(objs / "neuralnet" / "nninputs.cpp.o"),
                    "-lz", "-lpthread"], check=True)
    return exe


def game_komi(g):
    eff_ha = max(g["handicap"], len(g["setup_black"]) if not g["setup_white"] and len(g["setup_black"]) >= 2 else 0)
    return g["komi"] if g["komi"] is not None else (0.5 if eff_ha >= 2 else 6.5)


def game_line(g, move_numbers):
    rules = CPP_NAMES[T.rules_of(g["rules"])]
    toks = [rules, repr(float(game_komi(g))), "1", str(len(g["setup_black"])), *map(str, g["setup_black"]),
            str(len(g["setup_white"])), *map(str, g["setup_white"]), str(len(g["moves"]))]
    for c, p in zip(g["colors"], g["moves"]):
        toks += ["1" if c == "B" else "2", str(p)]
    toks += [str(len(move_numbers)), *map(str, move_numbers)]
    return " ".join(toks) + "\n"


class Tally:
    """Rows differing per spatial channel and per global, with examples."""

    def __init__(self, examples):
        self.rows = 0
        self.ladder_rows = 0
        self.spatial = np.zeros(NSP, np.int64)
        self.glob = np.zeros(NGL, np.int64)
        self.any = 0
        self.examples = {}
        self.k = examples

    def add(self, gid, mns, kb, ob, kg, og):
        """kb, ob: (n, 22, 46) packed; kg, og: (n, 19) float32."""
        self.rows += len(mns)
        self.ladder_rows += int(kb[:, 14].any(axis=1).sum())
        dch = (kb != ob).any(axis=2)
        dgl = kg != og
        self.spatial += dch.sum(axis=0)
        self.glob += dgl.sum(axis=0)
        self.any += int((dch.any(axis=1) | dgl.any(axis=1)).sum())
        for r, c in zip(*np.nonzero(dch)):
            ex = self.examples.setdefault(int(c), [])
            if len(ex) < self.k:
                a = T.unpack(kb[r, c])
                b = T.unpack(ob[r, c])
                pts = np.nonzero(a != b)[0].tolist()
                ex.append(f"{gid} move {mns[r]}: points {[(p, int(b[p]), int(a[p])) for p in pts]} (oracle, kibo)")
        for r, c in zip(*np.nonzero(dgl)):
            ex = self.examples.setdefault(f"g{c}", [])
            if len(ex) < self.k:
                ex.append(f"{gid} move {mns[r]}: oracle {og[r, c]} kibo {kg[r, c]}")

    def report(self, name, seconds):
        print(f"{name}: {self.rows} rows compared ({self.ladder_rows} with a ladder stone in channel 14) "
              f"in {seconds:.1f} s ({self.rows / max(seconds, 1e-9):.0f} rows/s); {self.any} rows differ")
        print(f"{name}: rows differing per spatial channel: "
              + ", ".join(f"{c}: {int(n)}" for c, n in enumerate(self.spatial)))
        print(f"{name}: rows differing per global: " + ", ".join(f"{c}: {int(n)}" for c, n in enumerate(self.glob)))
        for c, ex in sorted(self.examples.items(), key=lambda kv: str(kv[0])):
            for e in ex:
                print(f"{name}:   channel {c}: {e}")


def by_game(trace, rows=None):
    """{game_id: [(move_number, npz row), ...]} in first-seen order (sorted by move)."""
    ids, mns = trace["game_id"].to_list(), trace["move_number"].to_list()
    out = {}
    for r in (range(len(ids)) if rows is None else rows):
        out.setdefault(ids[r], []).append((mns[r], r))
    for v in out.values():
        v.sort()
    return out


def cpp_tally(exe, bins, globs, trace, games, limit_games=0, examples=5):
    """Every row (of the first `limit_games` games, 0: all) against the C++ driver `exe`:
    (the Tally, rows after a move KataGo's Board calls illegal, seconds)."""
    groups = by_game(trace)
    gids = list(groups)[:limit_games] if limit_games else list(groups)
    info = {g["game_id"]: g for g in games.filter(pl.col("game_id").is_in(gids)).iter_rows(named=True)}
    tally = Tally(examples)
    illegal = 0
    t0 = time.time()
    proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for gid in gids:
        wanted = groups[gid]
        mns = [m for m, _ in wanted]
        idx = np.array([r for _, r in wanted])
        proc.stdin.write(game_line(info[gid], mns).encode())
        proc.stdin.flush()
        buf = proc.stdout.read(ROW_BYTES * len(mns))
        raw = np.frombuffer(buf, np.uint8).reshape(len(mns), ROW_BYTES)
        illegal += int(raw[:, 0].sum())
        ob = raw[:, 1:1 + NSP * CB].reshape(len(mns), NSP, CB)
        og = raw[:, 1 + NSP * CB:].copy().view(np.float32)
        tally.add(gid, mns, bins[idx], ob, globs[idx], og)
    proc.stdin.close()
    proc.wait()
    return tally, illegal, time.time() - t0


def run_cpp(args, bins, globs, trace, games):
    dest = pathlib.Path(args.build_dir)
    dest.mkdir(parents=True, exist_ok=True)
    exe = build_driver(pathlib.Path(args.katago_cpp), dest)
    tally, illegal, secs = cpp_tally(exe, bins, globs, trace, games, args.limit_games, args.examples)
    tally.report("C++ fillRowV7", secs)
    print(f"C++ fillRowV7: {illegal} rows after a move KataGo's Board calls illegal")
    return int(tally.spatial[list(LADDER)].sum())


def run_features_py(args, bins, globs, trace, games):
    Board, feat, GameState = T.oracle()
    rng = random.Random(args.seed)
    n = bins.shape[0]
    rows = sorted(rng.sample(range(n), min(args.features_py, n)))
    groups = by_game(trace, rows)
    info = {g["game_id"]: g for g in games.filter(pl.col("game_id").is_in(list(groups))).iter_rows(named=True)}
    plain, neg, cpp = Tally(args.examples), Tally(args.examples), Tally(args.examples)
    counts = dict.fromkeys(["superko_rules", "cpp_superko_beyond_window"], 0)
    t0 = time.time()
    for gid, wanted in groups.items():
        results = []
        orig_check_row = T.check_row

        def check_row(Board_, feat_, board, all_boards, played, g, i, name, rules, komi, kbin, kglob, counts_, hist):
            results.append(oracle_row(Board_, feat_, board, all_boards, played, g, i, name, rules, komi, hist, kbin))
            return []
        T.check_row = check_row
        try:
            T.check_game(Board, feat, GameState, info[gid], wanted, bins, globs, counts)
        finally:
            T.check_row = orig_check_row
        idx = np.array([r for _, r in wanted])
        mns = [m for m, _ in wanted]
        ob = np.stack([np.packbits(o[0], axis=-1) for o in results])
        on = np.stack([np.packbits(o[1], axis=-1) for o in results])
        oc = np.stack([np.packbits(o[2], axis=-1) for o in results])
        og = np.stack([o[3] for o in results])
        plain.add(gid, mns, bins[idx], ob, globs[idx], og)
        neg.add(gid, mns, bins[idx], on, globs[idx], og)
        cpp.add(gid, mns, bins[idx], oc, globs[idx], og)
    secs = time.time() - t0
    plain.report("features.py (double-ko test as written)", secs)
    neg.report("features.py (the C++'s double-ko test where channels 14-17 differ)", secs)
    cpp.report("features.py (the C++'s double-ko test and defender shortcuts where channels 14-17 differ)", secs)
    return int(cpp.spatial[list(LADDER)].sum())


def oracle_row(Board, feat, board, all_boards, played, g, i, name, rules, komi, hist, kbin):
    """features.py's row as test_planes_katago.check_row builds it: (spatial as written;
    with the C++'s double-ko test; with that test and the C++'s defender shortcuts;
    globals), the last two recomputed only when channels 14-17 differ from kibo's `kbin`,
    the spatial planes padded to 368 points for packing."""
    row = T.OracleRow(Board, feat, board, all_boards, played, g, i, name, rules, komi, hist)
    ob, gl = row.fill()
    pad = np.zeros((3, 22, 368), np.uint8)
    pad[:, :, :361] = ob
    if not (ob[14:18] == kbin[14:18]).all():
        pad[1, :, :361] = row.fill(cpp_double_ko=True)[0]
        pad[2, :, :361] = row.fill(cpp_double_ko=True, cpp_bounds=True)[0]
    return pad[0], pad[1], pad[2], gl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("out", help="kibo run output folder (games table)")
    ap.add_argument("npz", help="kibo export katago --to folder")
    ap.add_argument("--cpp", action="store_true", help="compare every row with KataGo's C++ fillRowV7")
    ap.add_argument("--features-py", type=int, default=0, metavar="N",
                    help="compare a seeded random sample of N rows with features.py")
    ap.add_argument("--seed", type=int, default=20261205, help="the sample's seed")
    ap.add_argument("--limit-games", type=int, default=0, help="C++: only the first G games (0: all)")
    ap.add_argument("--katago-cpp", default=str(KATAGO_CPP), help="a built KataGo cpp/ folder with its CMake objects (default: $KATAGO_HOME/katago-6a1fc5d/cpp, `make katago`)")
    ap.add_argument("--build-dir", default=os.environ.get("TMPDIR", "/tmp") + "/kibo-ladder-compare",
                    help="where the C++ driver is built")
    ap.add_argument("--examples", type=int, default=5, help="examples printed per differing channel")
    args = ap.parse_args()
    bins, globs, trace = T.load_npz_rows(pathlib.Path(args.npz))
    games = pl.read_parquet(pathlib.Path(args.out) / "games" / "*.parquet").unique(
        "game_id", keep="first", maintain_order=True)
    print(f"{bins.shape[0]} npz rows, {trace['game_id'].n_unique()} games")
    bad = 0
    if args.cpp:
        bad += run_cpp(args, bins, globs, trace, games)
    if args.features_py:
        bad += run_features_py(args, bins, globs, trace, games)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
