"""`filter.score_check` / `--score-check`: full (playouts), rules (none), off (no count),
on the GNU Go regression games (counted games with and without markup)."""
import subprocess

import pyarrow.parquet as pq
import pytest


def games(kibo, shared, tmp_path, mode):
    out = tmp_path / mode
    pipeline = tmp_path / "p.toml"
    pipeline.write_text("[filter]\nmin_moves = 1\n")
    subprocess.run([kibo, "filter", "--input", str(shared("dev/gnugo-regression-games")), "--out", str(out),
                    "--pipeline", str(pipeline), "--score-check", mode, "-q"], check=True, stderr=subprocess.DEVNULL)
    return pq.read_table(out / "games").to_pylist()


@pytest.fixture(scope="module")
def modes(kibo, shared, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("modes")
    return {m: games(kibo, shared, tmp, m) for m in ("full", "rules", "off")}


def test_off_counts_nothing(modes):
    assert len(modes["off"]) == len(modes["full"]) > 0
    assert all(r["score_check"] is None for r in modes["off"])
    assert sum(r["score_check"] is not None for r in modes["full"]) > 300


def test_rules_counts_the_same_games_without_playouts(modes):
    full, rules = modes["full"], modes["rules"]
    assert [r["score_check"] is None for r in full] == [r["score_check"] is None for r in rules]
    reasons = [r["score_reason"] or "" for r in rules]
    assert not any("playouts" in x for x in reasons), [x for x in reasons if "playouts" in x][:3]
    assert any("left open by the rules" in x for x in reasons)
    decided = lambda rows: sum(r["score_check"] in ("agrees", "margin_differs", "winner_differs") for r in rows)
    assert decided(rules) < decided(full), "the playouts settle what the rules leave open"


def test_a_bad_mode_is_a_usage_error(kibo, tmp_path):
    r = subprocess.run([kibo, "filter", "--input", str(tmp_path), "--out", str(tmp_path / "o"), "--score-check",
                        "fast"], capture_output=True, text=True)
    assert r.returncode == 2 and "full" in r.stderr and "rules" in r.stderr, r.stderr
