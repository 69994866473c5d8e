#!/usr/bin/env python3
"""How often each judge is right when it says `winner_differs` (issue 47): a measuring
corpus with known wrong results, and KataGo's many-visit reading as the truth.

    checks/flip_corpus.py build --kibo BIN DIR [--every 6] [--keep 1] [--sources kgs2001,gnugo]
                                [--pipeline pipelines/dev.toml]
    checks/flip_corpus.py measure --kibo BIN DIR [--judges full,katago] [--recheck 8]
                                  [--visits 1] [--confirm-visits 48] [--confirm 10] [--list]

`build` takes every counted game of the pipeline's sources (a score result with a winner,
one game to a file, no setup after the first move; with --sources, those sources only;
with --keep M, the games whose sha256 is 0 modulo M) and writes it to DIR/sgf/<source>/,
with the winner of `RE` inverted (`B+3.5` -> `W+3.5`) in the games whose
sha256(file, member) is 0 modulo --every (0: none): a deterministic set of wrong records
on top of the ones the archives already hold. DIR/corpus.json lists them, and
DIR/pipeline.toml reads DIR/sgf.

`measure` runs `kibo filter` on it with each judge asked: kibo's own (`full`), and KataGo
(`katago`) without its second reading (recheck 0) and with it (--recheck visits). The
truth is KataGo's reading (the record's moves, rules and komi: checks/katago_check.py's
query) at --visits of the final position of every game a judge calls `winner_differs`;
every flip that reading does not confirm, and --confirm of those it does, are read again
at --confirm-visits, and that reading decides them (the agreement of the two readings is
printed). Answers are cached in ~/.cache/kibo-flips/. Per judge and source it prints
the counted games, the decided share, the flips, how many of them KataGo's reading
confirms (KataGo names the judge's winner, not the record's), the false flips per 1,000
counted games, and how many of the inverted records the judge caught. Prints figures,
asserts nothing.
"""
import argparse
import collections
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from katago_check import HOME, query  # noqa: E402

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kibo-flips"
RE_PROP = re.compile(rb"RE\[([BW])\+")


def games_table(out):
    files = sorted(glob.glob(f"{out}/games/*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def counted(g):
    return (g["result_kind"] == "score" and g["winner"] in ("B", "W") and not g["mid_setup"]
            and g["score_check"] is not None and g["counted_margin"] is not None)


def build(a):
    tmp = Path(a.dir) / "scan"
    subprocess.run([a.kibo, "filter", "--pipeline", a.pipeline, "--out", str(tmp), "-q"], check=True)
    rows = games_table(tmp)
    per_doc = collections.Counter((g["source_file"], g["member"]) for g in rows)
    tars = {}
    corpus, n_inv = [], 0
    for g in sorted(rows, key=lambda g: (g["source"], g["source_file"], g["member"] or "")):
        key = (g["source_file"], g["member"])
        if not counted(g) or per_doc[key] != 1 or g["game_index"] != 0:
            continue
        if g["member"]:
            tf = tars.setdefault(g["source_file"], tarfile.open(g["source_file"]))
            data = tf.extractfile(g["member"]).read()
        else:
            data = Path(g["source_file"]).read_bytes()
        digest = hashlib.sha256(f"{g['source_file']}\0{g['member'] or ''}".encode()).digest()
        h = int.from_bytes(digest[:8], "big")
        if (a.sources and g["source"] not in a.sources.split(",")) or (h // 1000) % a.keep:
            continue
        invert = a.every > 0 and h % a.every == 0
        if invert:
            m = RE_PROP.search(data)
            if not m:
                continue
            other = b"W" if m.group(1) == b"B" else b"B"
            data = data[:m.start(1)] + other + data[m.end(1):]
            n_inv += 1
        name = (g["member"] or g["source_file"]).replace("/", "_").replace("..", "")
        path = Path(a.dir) / "sgf" / g["source"] / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        corpus.append({"file": str(path), "source": g["source"], "record": g["result_raw"], "inverted": invert})
    sources = sorted({c["source"] for c in corpus})
    root = (Path(a.dir) / "sgf").resolve()
    toml = "".join(f'[[sources]]\nname = "{s}"\npath = "{root / s}"\nlicence = "unknown"\n\n' for s in sources)
    (Path(a.dir) / "pipeline.toml").write_text(
        f'# checks/flip_corpus.py build --every {a.every} (from {a.pipeline})\n[pipeline]\nname = "flips"\n'
        f'out = "out"\nseed = 1\n\n{toml}[filter]\nmin_moves = 1\n')
    (Path(a.dir) / "corpus.json").write_text(json.dumps(corpus, indent=0))
    print(f"{len(corpus)} counted games, {n_inv} with the winner inverted, in {a.dir}/sgf")


def truth(rows, visits):
    """KataGo's score lead (Black's side) of each row's final position, cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"leads-{visits}.json"
    cache = json.loads(path.read_text()) if path.exists() else {}
    qs = {}
    for g in rows:
        q = query(g, visits)
        q.pop("id")
        key = hashlib.sha256(json.dumps(q, sort_keys=True).encode()).hexdigest()
        g["_key"] = key
        if key not in cache:
            qs[key] = q
    if qs:
        bin_ = HOME / "katago-6a1fc5d" / "cpp" / "katago"
        model = HOME / "katrain" / "katrain" / "models" / "b10c384h6nbttflrs.bin.gz"
        cfg = HOME / "katrain" / "katrain" / "KataGo" / "analysis_config.cfg"
        t0 = time.time()
        proc = subprocess.Popen([str(bin_), "analysis", "-config", str(cfg), "-model", str(model),
                                 "-override-config", "nnRandomize=false,numAnalysisThreads=2,numSearchThreads=1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for key, q in qs.items():
            proc.stdin.write(json.dumps({"id": key, **q}) + "\n")
        proc.stdin.close()
        for line in proc.stdout:
            r = json.loads(line)
            if "error" in r:
                print(f"katago: {r}", file=sys.stderr)
                continue
            cache[r["id"]] = r["rootInfo"]["scoreLead"]
        proc.wait()
        print(f"KataGo read {len(qs)} positions at {visits} visits in {time.time() - t0:.0f} s", file=sys.stderr)
        path.write_text(json.dumps(cache))
    return {g["game_id"]: cache.get(g["_key"]) for g in rows}


def run_filter(a, out, *flags):
    t0 = time.time()
    p = subprocess.run([a.kibo, "filter", "--pipeline", str(Path(a.dir) / "pipeline.toml"), "--out", out, *flags],
                       check=True, capture_output=True, text=True)
    engine = [l for l in p.stderr.splitlines() if "katago" in l.lower() and " s" in l]
    return time.time() - t0, engine


def measure(a):
    d = Path(a.dir)
    inverted = {Path(c["file"]).name: c["inverted"] for c in json.loads((d / "corpus.json").read_text())}
    judges = [("kibo (full)", "full", []),
              ("KataGo, 1 visit", "katago1", ["--score-check", "katago", "--katago-recheck-visits", "0"]),
              (f"KataGo, re-asked at {a.recheck}", "katago", ["--score-check", "katago",
                                                              "--katago-recheck-visits", str(a.recheck)])]
    judges = [j for j in judges if j[1].rstrip("1") in a.judges.split(",")]
    tables = {}
    for name, sub, flags in judges:
        secs, engine = run_filter(a, str(d / sub), *flags)
        rows = [g for g in games_table(d / sub) if counted(g)]
        for g in rows:
            g["inverted"] = inverted.get(Path(g["source_file"]).name, False)
        tables[name] = rows
        print(f"{name}: kibo filter {secs:.0f} s; {' '.join(engine)}", file=sys.stderr)
    ask = {}
    for rows in tables.values():
        for g in rows:
            if g["score_check"] == "winner_differs":
                ask[g["game_id"]] = g
    lead = truth(list(ask.values()), a.visits)
    # The flips the first reading does not confirm, and a sample of those it does, are
    # read again at --confirm-visits; that reading decides them.
    flips = [(name, g) for name, rows in tables.items() for g in rows if g["score_check"] == "winner_differs"]
    unconfirmed = {g["game_id"] for _, g in flips if (lead[g["game_id"]] > 0) != (g["counted_margin"] > 0)}
    confirmed = sorted({g["game_id"] for _, g in flips} - unconfirmed,
                       key=lambda k: hashlib.sha256(k.encode()).hexdigest())[:a.confirm]
    again = [ask[k] for k in sorted(unconfirmed) + confirmed]
    deep = truth(again, a.confirm_visits) if again else {}
    same = sum((deep[k] > 0) == (lead[k] > 0) for k in deep)
    print(f"KataGo at {a.visits} visit(s) read {len(ask)} flipped final positions; {len(deep)} read again at "
          f"{a.confirm_visits} visits ({len(unconfirmed)} the first reading did not confirm, {len(confirmed)} it did): "
          f"the same winner in {same} of {len(deep)}; corpus {d}")
    lead.update(deep)
    print(f"{'judge':<22} {'source':<8} {'counted':>7} {'decided':>15} {'flips':>5} {'confirmed':>15} "
          f"{'false':>5} {'false/1000':>10} {'inverted caught':>17}")
    for name, rows in tables.items():
        by = collections.defaultdict(list)
        for g in rows:
            by[g["source"]].append(g)
            by["all"].append(g)
        for src in sorted(by, key=lambda s: (s == "all", s)):
            gs = by[src]
            n = len(gs)
            dec = sum(g["score_check"] != "undecided" for g in gs)
            flips = [g for g in gs if g["score_check"] == "winner_differs"]
            known = [g for g in flips if lead.get(g["game_id"]) is not None]
            ok = sum((lead[g["game_id"]] > 0) == (g["counted_margin"] > 0) for g in known)
            false = len(known) - ok
            inv = [g for g in gs if g["inverted"]]
            caught = sum(g["score_check"] == "winner_differs" for g in inv)
            pct = lambda k, m: f"{k} of {m}" + (f" ({100 * k / m:.0f}%)" if m else "")
            print(f"{name:<22} {src:<8} {n:>7} {pct(dec, n):>15} {len(flips):>5} {pct(ok, len(known)):>15} "
                  f"{false:>5} {1000 * false / max(n, 1):>10.1f} {pct(caught, len(inv)):>17}")
    if a.list:
        for name, rows in tables.items():
            for g in rows:
                if g["score_check"] == "winner_differs" and lead.get(g["game_id"]) is not None:
                    kg = lead[g["game_id"]]
                    if (kg > 0) != (g["counted_margin"] > 0):
                        print(f"false flip, {name}: {Path(g['source_file']).name} RE[{g['result_raw']}] "
                              f"counted B{g['counted_margin']:+.1f} KataGo B{kg:+.1f}; {g['score_reason'] or ''}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("dir")
    b.add_argument("--kibo", required=True)
    b.add_argument("--every", type=int, default=6)
    b.add_argument("--keep", type=int, default=1)
    b.add_argument("--sources", default="")
    b.add_argument("--pipeline", default="pipelines/dev.toml")
    m = sub.add_parser("measure")
    m.add_argument("dir")
    m.add_argument("--kibo", required=True)
    m.add_argument("--judges", default="full,katago")
    m.add_argument("--visits", type=int, default=1)
    m.add_argument("--confirm-visits", type=int, default=48)
    m.add_argument("--confirm", type=int, default=10)
    m.add_argument("--recheck", type=int, default=8)
    m.add_argument("--list", action="store_true")
    a = ap.parse_args()
    build(a) if a.cmd == "build" else measure(a)


if __name__ == "__main__":
    main()
