"""kibo's score verdicts against GNU Go's (`gnugo --score aftermath`, Debian package
`gnugo`, installed by `make debs`) on a fixed set of KGS 2001 games that ended by
counting and that kibo decides (`agrees` or `disagrees`): the winner of kibo's count
must be GNU Go's on at least 98% of them.

The set: the decided games with a score result, sorted by member name, every k-th so
that GNU Go_GAMES (48) remain; deterministic for a given kibo. GNU Go takes about a
second per finished game; the games are scored two at a time. A missing gnugo is a
failure (the Makefile installs it), a missing corpus follows `shared`.
"""
import concurrent.futures
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

import pyarrow.parquet as pq
import pytest

# GNU Go's count, read as bench/score_figures.py reads it (one reader for both).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from score_figures import gnugo_margin  # noqa: E402

GNUGO_GAMES = 48
MIN_AGREEMENT = 0.98


def gnugo_binary():
    for p in (shutil.which("gnugo"), "/usr/games/gnugo"):
        if p and os.access(p, os.X_OK):
            return p
    pytest.fail("gnugo not found (PATH, /usr/games): install the Debian package gnugo (`make debs`)", pytrace=False)


def test_gnugo_agrees_with_kibo_on_the_winner(kibo, shared, tmp_path):
    gnugo = gnugo_binary()
    kgs = shared("dev/kgs-2001-archive")
    out = tmp_path / "out"
    subprocess.run([kibo, "filter", "--input", str(kgs), "--out", str(out), "-q"], check=True)
    rows = [r for r in pq.read_table(out / "games").to_pylist()
            if r["result_kind"] == "score" and r["score_check"] in ("agrees", "disagrees")]
    rows.sort(key=lambda r: r["member"])
    assert len(rows) >= GNUGO_GAMES
    step = len(rows) // GNUGO_GAMES
    chosen = rows[::step][:GNUGO_GAMES]
    names = {r["member"] for r in chosen}
    games = tmp_path / "games"
    for archive in sorted(kgs.glob("*.tar.gz")):
        with tarfile.open(archive) as t:
            t.extractall(games, members=[m for m in t.getmembers() if m.name in names], filter="data")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        theirs = list(pool.map(lambda r: gnugo_margin(gnugo, games / r["member"]), chosen))
    same, differ = 0, []
    for r, g in zip(chosen, theirs):
        k = r["counted_margin"]
        if g is not None and (g > 0) == (k > 0) and g != 0:
            same += 1
        else:
            differ.append(f"{r['member']}: RE[{r['result_raw']}] kibo B{k:+.1f} ({r['score_check']}), GNU Go {g}")
    share = same / len(chosen)
    print(f"\nGNU Go vs kibo on {len(chosen)} decided KGS games: same winner {same} ({share:.1%})")
    for d in differ:
        print("  " + d)
    assert share >= MIN_AGREEMENT, differ
