"""Counting finished KGS games: reports the share of games with a score result whose
counted final position agrees with the record, and lists every disagreement with its
cause, classified from the numbers (kibo's count vs RE).

Causes:
* `winner_inverted`: the counted margin is the recorded one with the other sign
  (within 1 point) — the record names the wrong winner (or swapped colours);
* `margin_differs`: same winner, different margin — dead stones or dame settled by
  agreement that the record does not mark (no TB/TW), or counted differently;
* `winner_differs`: the count gives the other winner by a different margin — a group
  dead by agreement that the conservative analysis must leave alive (no markup).
"""
import json
import subprocess

import polars as pl


def classify(recorded, counted):
    if recorded * counted < 0:
        return "winner_inverted" if abs(abs(recorded) - abs(counted)) <= 1.0 else "winner_differs"
    return "margin_differs"


def test_kgs_score_checks(kibo, shared, tmp_path):
    kgs = shared("dev/kgs-2001-archive")
    out = tmp_path / "out"
    subprocess.run([kibo, "filter", "--input", str(kgs), "--out", str(out), "-q"], check=True)
    g = pl.read_parquet(f"{out}/games/*.parquet")
    scored = g.filter(pl.col("result_kind") == "score", pl.col("score_check").is_not_null())
    counts = dict(scored.group_by("score_check").len().iter_rows())
    n = scored.height
    agree = counts.get("agrees", 0)
    differs = counts.get("margin_differs", 0) + counts.get("winner_differs", 0)
    print(f"\nKGS games with a score result: {n}; agrees {agree} ({agree / n:.1%}), "
          f"margin_differs {counts.get('margin_differs', 0)}, winner_differs {counts.get('winner_differs', 0)}, "
          f"undecided {counts.get('undecided', 0)}")
    assert set(counts) <= {"agrees", "margin_differs", "winner_differs", "undecided"}, counts
    dis = (scored.filter(pl.col("score_check").is_in(["margin_differs", "winner_differs"]))
           .with_columns(recorded=pl.when(pl.col("winner") == "B").then(pl.col("margin")).otherwise(-pl.col("margin")))
           .select("member", "rules", "komi", "result_raw", "recorded", "counted_margin", "score_check"))
    causes = {}
    for member, rules, komi, raw, rec, counted, check in dis.iter_rows():
        cause = classify(rec, counted)
        # The verdict names what differs: the winner (a counted draw included) or the margin.
        same_winner = rec * counted > 0
        assert check == ("margin_differs" if same_winner else "winner_differs"), (member, raw, counted, check)
        causes[cause] = causes.get(cause, 0) + 1
        print(f"  {member}: RE[{raw}] {rules} komi {komi}: counted B{counted:+.1f} -> {cause}")
    print(f"causes: {json.dumps(causes, sort_keys=True)}")
    # Sanity: most checks are decided one way or the other, agreement dominates the
    # decided ones, and every disagreement has a cause.
    assert n > 400
    assert agree > 4 * differs
    assert sum(causes.values()) == differs
