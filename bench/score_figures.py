"""The score-check figures of docs/scoring.md: runs `kibo filter` on the KGS 2001
archive and on the GNU Go and Fuego regression games, reads `score_check` from the
games table (pyarrow) and prints, per source, the games that ended by counting with a
recorded score (`result_kind == score`), how many kibo decides (agrees + disagrees),
and how many of those agree with the record.

Usage:
    python bench/score_figures.py [--kibo PATH] [--shared DIR] [--list] [--json FILE]

`--kibo` defaults to $KIBO, then ~/.cache/kibo-target/release/kibo; `--shared` to
$SHARED, then ../shared/data. `--list` prints every disagreement (source, member,
rules, komi, RE, counted margin, and the breakdown columns when the table has them).
`--json FILE` writes the figures and the disagreements as JSON. Asserts nothing.
"""
import argparse
import json
import re
import os
import pathlib
import subprocess
import sys
import tempfile

import pyarrow.parquet as pq

SOURCES = [
    ("kgs2001", "dev/kgs-2001-archive"),
    ("gnugo", "dev/gnugo-regression-games"),
    ("fuego", "dev/fuego-regression-sgf"),
]
ROOT = pathlib.Path(__file__).resolve().parents[1]


def games_table(kibo, path, out):
    """`kibo filter` of `path` into `out`; the games table as a list of dicts."""
    pipeline = out.parent / "score-figures.toml"
    pipeline.write_text("[filter]\nmin_moves = 1\n")
    subprocess.run([kibo, "filter", "--input", str(path), "--out", str(out), "--pipeline", str(pipeline), "-q"],
                   check=True, stderr=subprocess.DEVNULL)
    return pq.read_table(out / "games").to_pylist()


def figures(rows):
    counted = [r for r in rows if r.get("score_check") is not None]
    scored = [r for r in counted if r["result_kind"] == "score"]
    by = {k: sum(1 for r in scored if r["score_check"] == k) for k in ("agrees", "disagrees", "undecided")}
    decided = by["agrees"] + by["disagrees"]
    reasons = {}
    for r in scored:
        if r["score_check"] == "undecided":
            why = r.get("score_reason") or "?"
            kinds = sorted(set(re.findall(r"stones?, ([a-z ]+) \d+%\)", why)))
            why = " + ".join(kinds) if kinds else ("no winner" if "no winner" in why else "undecided points")
            reasons[why] = reasons.get(why, 0) + 1
    return {
        "counted": len(counted),
        "scored": len(scored),
        **by,
        "decided": decided,
        "decided_share": decided / len(scored) if scored else None,
        "agreement": by["agrees"] / decided if decided else None,
        "undecided_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
    }


def disagreements(name, rows):
    keys = ["member", "source_file", "game_index", "rules", "komi", "handicap", "result_raw", "counted_margin",
            "score_rules", "score_territory_black", "score_territory_white", "score_prisoners_black",
            "score_prisoners_white", "score_dead_black", "score_dead_white", "score_komi", "score_korean_margin"]
    return [{"source": name, **{k: r.get(k) for k in keys if k in r}}
            for r in rows if r["result_kind"] == "score" and r.get("score_check") == "disagrees"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kibo", default=os.environ.get("KIBO", os.path.expanduser("~/.cache/kibo-target/release/kibo")))
    ap.add_argument("--shared", default=os.environ.get("SHARED", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    result = {"kibo": a.kibo, "sources": {}, "disagreements": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, sub in SOURCES:
            path = pathlib.Path(a.shared) / sub
            if not path.exists():
                print(f"{name}: {path} absent, skipped", file=sys.stderr)
                continue
            rows = games_table(a.kibo, path, pathlib.Path(tmp) / name)
            result["sources"][name] = figures(rows)
            result["disagreements"] += disagreements(name, rows)
    print(f"{'source':<9} {'counted':>7} {'scored':>6} {'agrees':>6} {'disagr':>6} {'undec':>6} "
          f"{'decided':>8} {'agreement':>9}")
    for name, f in result["sources"].items():
        share = f"{f['decided_share']:.1%}" if f["decided_share"] is not None else "-"
        agr = f"{f['agreement']:.1%}" if f["agreement"] is not None else "-"
        print(f"{name:<9} {f['counted']:>7} {f['scored']:>6} {f['agrees']:>6} {f['disagrees']:>6} "
              f"{f['undecided']:>6} {share:>8} {agr:>9}")
        if f["undecided_reasons"] and f["undecided_reasons"] != {"?": f["undecided"]}:
            print(f"          undecided: {json.dumps(f['undecided_reasons'])}")
    if a.list:
        for d in result["disagreements"]:
            print("  " + " ".join(f"{k}={v}" for k, v in d.items() if v is not None))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(result, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
