"""kibo's score verdicts against GNU Go's (`gnugo --score aftermath`, Debian package
`gnugo`, installed by `make debs`) on a fixed set of KGS 2001 games that ended by
counting and that kibo decides (`agrees`, `margin_differs` or `winner_differs`): the winner of kibo's count
must be GNU Go's on at least 98% of them.

The set: every decided game with a score result (≈ 470). Until 2026-12-03 it was every
k-th of them, 48 games, where 98% allowed no error at all: with kibo's 1.3% of winners
that differ from GNU Go's (6 of 476), whether the 48 held one of them depended on how
many games kibo decides, not on how well. GNU Go takes about a second per finished game
(two at a time: ~4 minutes cold); its counts are remembered by record content and GNU
Go version (`score_figures.cached_margins`), so a rerun costs seconds. A missing gnugo
is a failure (the Makefile installs it), a missing corpus follows `shared`.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

import pyarrow.parquet as pq
import pytest

# GNU Go's count, read as checks/score_figures.py reads it (one reader for both).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "checks"))
from score_figures import cached_margins  # noqa: E402

MIN_GAMES = 400
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
            if r["result_kind"] == "score" and r["score_check"] in ("agrees", "margin_differs", "winner_differs")]
    rows.sort(key=lambda r: r["member"])
    assert len(rows) >= MIN_GAMES
    chosen = rows
    names = {r["member"] for r in chosen}
    games = tmp_path / "games"
    for archive in sorted(kgs.glob("*.tar.gz")):
        with tarfile.open(archive) as t:
            t.extractall(games, members=[m for m in t.getmembers() if m.name in names], filter="data")
    theirs = cached_margins(gnugo, [games / r["member"] for r in chosen])
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
