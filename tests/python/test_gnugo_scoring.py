"""kibo's score verdicts against GNU Go's (`gnugo --seed 1 --score aftermath`, Debian package
`gnugo`, installed by `make debs`) on a fixed set of KGS 2001 games that ended by
counting and that kibo decides (`agrees`, `margin_differs` or `winner_differs`): the winner of kibo's count
must be GNU Go's on at least 98% of them.

The set: every decided game with a score result (≈ 480). Until 2026-12-03 it was every
k-th of them, 48 games, where 98% allowed no error at all: with kibo's 1.3% of winners
that differ from GNU Go's (6 of 476), whether the 48 held one of them depended on how
many games kibo decides, not on how well. GNU Go takes about 1.7 CPU-seconds per finished
game (the set: ~14 CPU-minutes); its counts are remembered by record content and
GNU Go version (`score_figures.cached_margins`): this machine's own, then the committed
answers in checks/answers/gnugo-kgs-2001.json, one in 16 of which is counted again on a
machine that has not counted it, and must be the same. A missing gnugo
is a failure (the Makefile installs it), a missing corpus follows `shared`.
"""
import json
import os
import pathlib
import subprocess
import sys
import tarfile

import pyarrow.parquet as pq
import pytest

# GNU Go's count, read as checks/score_figures.py reads it (one reader for both).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "checks"))
import score_figures  # noqa: E402
from score_figures import AnswersDiffer, cached_margins, record_digest, spot_checked  # noqa: E402
from tar_members import extract_members  # noqa: E402
from conftest import gnugo_binary  # noqa: E402

MIN_GAMES = 400
MIN_AGREEMENT = 0.98


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
        extract_members(archive, games, names)
    stats = {}
    theirs = cached_margins(gnugo, [games / r["member"] for r in chosen], stats)
    print(f"\nGNU Go's counts: {stats['asked']} counted now ({stats['spot_checked']} of them to check the committed "
          f"answers), {stats['committed']} committed, {stats['remembered']} counted before on this machine")
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


def test_a_committed_answer_that_is_not_gnu_gos_fails(shared, tmp_path, monkeypatch):
    """The spot check has teeth: a committed margin that GNU Go does not give, on a
    record that is spot-checked, raises `AnswersDiffer`; on one that is not, it is
    taken as it is."""
    gnugo = gnugo_binary()
    kgs = sorted(shared("dev/kgs-2001-archive").glob("*.tar.gz"))[0]
    with tarfile.open(kgs) as t:
        members = sorted((m for m in t.getmembers() if m.isfile() and m.name.endswith(".sgf")), key=lambda m: m.name)
    extract_members(kgs, tmp_path / "games", {m.name for m in members})
    # Records played to the end (those the committed file holds): GNU Go counts them in a
    # second or two; a resigned game it would play out first.
    finished = score_figures.committed_answers(score_figures.gnugo_version(gnugo))
    paths = [p for p in (tmp_path / "games" / m.name for m in members) if record_digest(p) in finished]
    checked = next(p for p in paths if spot_checked(record_digest(p)))
    unchecked = next(p for p in paths if not spot_checked(record_digest(p)))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"gnugo": score_figures.gnugo_version(gnugo), "command": score_figures.gnugo_command(),
                                   "margins": {record_digest(checked): 1234.5, record_digest(unchecked): -999.5}}))
    monkeypatch.setattr(score_figures, "ANSWERS", answers)
    monkeypatch.setenv("KIBO_GNUGO_CACHE", str(tmp_path / "cache.json"))
    stats = {}
    assert cached_margins(gnugo, [unchecked], stats) == [-999.5]
    assert stats == {"asked": 0, "spot_checked": 0, "committed": 1, "remembered": 0}
    with pytest.raises(AnswersDiffer, match="1234.5"):
        cached_margins(gnugo, [checked, unchecked])
