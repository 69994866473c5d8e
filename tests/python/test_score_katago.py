"""`filter.score_check = "katago"` (docs/scoring.md, "KataGo as the judge"): KataGo's
ownership as the evidence for the games kibo's own judge leaves `undecided` or calls
`winner_differs`, kibo counting. With the real engine (`make katago`, which `make test`
runs) on KGS 2001 games whose verdicts are known, and with a fake engine that crashes or
hangs."""
import json
import subprocess
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import fake_katago

# KGS 2001 games and what kibo's own judge makes of them (docs/scoring.md).
MISREAD = {  # kibo's judge misreads them (winner_differs, undecided); KataGo reads them right
    "2001-05-04-4.sgf": "W+3.50",
    "2001-06-24-2.sgf": "W+7.50",
}
FIXED = "2001-09-10-2.sgf"  # RE[B+33.50]: kibo's judge counted W+49.5 until issue 41 item 3; agrees now
INVERTED = "2000-10-31-1.sgf"  # RE[B+29.50]; kibo and KataGo both count W+29.5
UNDECIDED = ["2001-01-20-1.sgf", "2001-01-31-1.sgf", "2001-02-03-7.sgf"]
AGREES = ["2001-01-11-2.sgf", "2001-01-12-2.sgf"]


@pytest.fixture(scope="module")
def games_dir(shared, tmp_path_factory):
    """The games above, taken from the KGS 2001 archive."""
    archive = next(shared("dev/kgs-2001-archive").glob("*.tar.gz"))
    want = set(MISREAD) | {FIXED, INVERTED} | set(UNDECIDED) | set(AGREES)
    out = tmp_path_factory.mktemp("kgs")
    with tarfile.open(archive) as tf:
        for m in tf.getmembers():
            if Path(m.name).name in want:
                (out / Path(m.name).name).write_bytes(tf.extractfile(m).read())
    assert len(list(out.iterdir())) == len(want)
    return out


@pytest.fixture(scope="module")
def engine(katago_flags):
    """The KataGo that `make katago` builds (conftest's `katago_flags`)."""
    return katago_flags


def run_filter(kibo, games_dir, out, *flags, pipeline=None):
    cmd = [kibo, "filter", "--input", str(games_dir), "--out", str(out), "-q", *flags]
    if pipeline:
        cmd += ["--pipeline", str(pipeline)]
    return subprocess.run(cmd, capture_output=True, text=True)


def by_file(out):
    return {Path(g["source_file"]).name: g for g in pq.read_table(out / "games").to_pylist()}


@pytest.fixture(scope="module")
def both(kibo, games_dir, engine, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("judges")
    r = run_filter(kibo, games_dir, tmp / "full")
    assert r.returncode == 0, r.stderr
    r = run_filter(kibo, games_dir, tmp / "katago", "--score-check", "katago", "--katago-visits", "1", *engine)
    assert r.returncode == 0, r.stderr
    assert "KataGo (1 visits) read" in r.stderr, r.stderr
    # The one-visit reading alone, dropping the games it calls `winner_differs`
    # (`test_drops_follow_katagos_verdicts`).
    pipeline = tmp / "drop.toml"
    pipeline.write_text('[filter]\ndrop_score_disagreements = ["winner_differs"]\n')
    r = run_filter(kibo, games_dir, tmp / "once", "--score-check", "katago", "--katago-visits", "1",
                   "--katago-recheck-visits", "0", *engine, pipeline=pipeline)
    assert r.returncode == 0, r.stderr
    return by_file(tmp / "full"), by_file(tmp / "katago"), tmp / "katago", tmp / "once"


SCORE = ["score_check", "counted_margin", "score_rules", "score_komi", "score_territory_black",
         "score_territory_white", "score_dead_black", "score_dead_white", "score_reason"]


def test_katago_judges_only_the_games_kibo_leaves_undecided_or_calls_winner_differs(both):
    full, katago, out, _ = both
    assert set(full) == set(katago)
    sent = [f for f, g in full.items() if g["score_check"] in ("undecided", "winner_differs")]
    assert sorted(sent) == sorted(set(MISREAD) | {INVERTED} | set(UNDECIDED))
    for f, g in katago.items():
        if f in sent:
            assert g["score_judge"] == "katago", f
        else:
            assert g["score_judge"] == "kibo" and full[f]["score_judge"] == "kibo", f
            assert [g[k] for k in SCORE] == [full[f][k] for k in SCORE], f
    report = json.loads((out / "report.json").read_text())["filter"]
    assert {k: report["katago"][k] for k in ("visits", "games", "recheck_visits")} == {
        "visits": 1, "games": len(sent), "recheck_visits": 8}
    moved = report["by_source"][games_dir_name(out)]["katago_verdicts"]
    assert sum(moved.values()) == len(sent)
    assert sum(v for k, v in moved.items() if k.startswith("winner_differs ->")) == sum(
        full[f]["score_check"] == "winner_differs" for f in sent)
    # The final verdicts are what the games table says.
    checks = report["total"]["score_checks"]
    assert sum(checks.values()) == len(katago)
    for c, n in checks.items():
        assert n == sum(g["score_check"] == c for g in katago.values())


def games_dir_name(out):
    report = json.loads((out / "report.json").read_text())["filter"]
    (name,) = report["by_source"]
    return name


def test_the_flips_and_near_flips_of_the_first_reading_are_read_again(both):
    """The second reading (`recheck_visits`, default 8) takes exactly the games the
    one-visit reading leaves `winner_differs` or decided within a point of zero; the
    others keep the one-visit verdict."""
    full, katago, out, once_out = both
    once = by_file(once_out)
    # The one-visit reading's flips were dropped (`drop_score_disagreements`): its rejects.
    flips = [Path(x["source_file"]).name for x in pq.read_table(once_out / "rejects").to_pylist()
             if x["reason"] == "score_winner_differs"]
    again = flips + [f for f, g in once.items() if g["score_judge"] == "katago" and (
        g["score_check"] != "undecided" and abs(g["counted_margin"]) <= 1)]
    assert INVERTED in again
    report = json.loads((out / "report.json").read_text())["filter"]
    assert report["katago"]["rechecked"] == len(again)
    for f, g in katago.items():
        if f not in again:
            assert [g[k] for k in SCORE] == [once[f][k] for k in SCORE], f
    # The inverted record stays a flip at 8 visits: White's by 29.5 points.
    assert katago[INVERTED]["score_check"] == "winner_differs"


def test_katago_reads_kibos_misread_games_right_and_keeps_the_inverted_record(both):
    full, katago, *_ = both
    for f, re_ in MISREAD.items():
        g = katago[f]
        recorded = float(re_[2:]) * (1 if re_[0] == "B" else -1)
        assert full[f]["score_check"] in ("winner_differs", "undecided"), f
        assert g["score_check"] == "agrees", (f, g["counted_margin"], g["score_reason"])
        assert abs(g["counted_margin"] - recorded) <= 1, (f, g["counted_margin"], re_)
    # Read right by kibo's own judge: not sent.
    assert full[FIXED]["score_check"] == "agrees" and katago[FIXED]["score_judge"] == "kibo"
    assert katago[FIXED]["counted_margin"] == 33.5
    # RE[B+29.50], the position White's by 29.5 points: the record's winner is wrong.
    g = katago[INVERTED]
    assert g["score_check"] == "winner_differs" and abs(g["counted_margin"] + 29.5) <= 1, g["counted_margin"]
    # Every game KataGo read is decided: the evidence settles every chain here.
    assert all(katago[f]["score_check"] != "undecided" for f in UNDECIDED)


def test_a_rerun_gives_the_same_games_table_whatever_the_threads(kibo, games_dir, engine, both, tmp_path):
    first = both[2]
    r = run_filter(kibo, games_dir, tmp_path / "o", "--score-check", "katago", "--katago-visits", "1", "--threads", "1",
                   "--katago-threads", "2", *engine)
    assert r.returncode == 0, r.stderr
    read = lambda out: sorted((p.name, p.read_bytes()) for p in (out / "games").iterdir())
    assert read(tmp_path / "o") == read(first)


def test_drops_follow_katagos_verdicts(both):
    """`drop_score_disagreements = ["winner_differs"]` drops what KataGo calls a flip (the
    fixture's one-visit run), not what kibo's own judge called one."""
    once_out = both[3]
    rejects = pq.read_table(once_out / "rejects").to_pylist()
    assert [Path(x["source_file"]).name for x in rejects] == [INVERTED]
    assert rejects[0]["reason"] == "score_winner_differs" and "RE[B+29.50]" in rejects[0]["detail"]
    kept = by_file(once_out)
    assert set(MISREAD) <= set(kept)


def test_a_missing_engine_is_a_setup_error_before_anything_is_written(kibo, games_dir, tmp_path):
    out = tmp_path / "o"
    r = run_filter(kibo, games_dir, out, "--score-check", "katago", "--katago-binary", str(tmp_path / "no-katago"))
    assert r.returncode == 2, r.stderr
    assert f"the KataGo binary {tmp_path / 'no-katago'} is missing" in r.stderr and "make katago" in r.stderr
    assert not out.exists()


FAKE = """#!/usr/bin/env python3
# A stand-in for `katago analysis`: answers the first query (kibo's probe) with an
# all-zero ownership, then crashes or hangs on the next.
import json, sys, time
mode = sys.argv[sys.argv.index("-model") + 1].rsplit("-", 1)[-1]
for n, line in enumerate(sys.stdin):
    q = json.loads(line)
    if n >= 2:
        if mode == "crash":
            sys.stderr.write("fake katago: segmentation fault\\n")
            sys.exit(139)
        time.sleep(3600)
    cells = q["boardXSize"] * q["boardYSize"]
    print(json.dumps({"id": q["id"], "ownership": [0.0] * cells}), flush=True)
"""


@pytest.mark.parametrize("mode", ["crash", "hang"])
def test_a_crashed_or_hung_engine_is_an_error_that_names_the_game_and_keeps_the_output(
        kibo, games_dir, tmp_path, mode):
    flags = fake_katago(tmp_path, FAKE, mode)
    out = tmp_path / "o"
    assert run_filter(kibo, games_dir, out).returncode == 0
    before = {p.name: p.read_bytes() for p in (out / "games").iterdir()}
    pipeline = tmp_path / "p.toml"
    pipeline.write_text("[filter.katago]\ntimeout_s = 2\n")
    r = run_filter(kibo, games_dir, out, "--score-check", "katago", *flags, pipeline=pipeline)
    assert r.returncode == 3, r.stderr
    assert "KataGo" in r.stderr and ".sgf" in r.stderr, r.stderr
    if mode == "crash":
        assert "fake katago: segmentation fault" in r.stderr, r.stderr
    else:
        assert "no answer in 2 s" in r.stderr, r.stderr
    assert {p.name: p.read_bytes() for p in (out / "games").iterdir()} == before
    assert not list(out.glob(".tmp-*"))


def test_kibo_score_shows_katagos_judgement_of_one_game(kibo, games_dir, engine):
    run = lambda *flags: json.loads(subprocess.run(
        [kibo, "score", str(games_dir / "2001-05-04-4.sgf"), "--json", *flags],
        capture_output=True, text=True, check=True).stdout)
    own, katago = run(), run("--score-check", "katago", "--katago-visits", "1", *engine)
    # kibo's own judge counts B+40.5 on a seki reading: no decisive flip (docs/scoring.md, "Flips").
    assert (own["judge"], own["check"], own["counted_margin"]) == ("kibo", "undecided", 40.5)
    assert own["reason"].startswith("the flip to B+40.5 rests on") and "seki by seki" in own["reason"], own["reason"]
    assert any(c["why"] == "seki" and not c["proven"] for c in own["chains"])
    assert all(c["proven"] for c in own["chains"] if c["why"] == "benson")
    assert (katago["judge"], katago["check"], katago["counted_margin"]) == ("katago", "agrees", -3.5)
    assert {c["why"] for c in katago["chains"]} <= {"katago", "katago: seki", "katago: split", "benson"}
