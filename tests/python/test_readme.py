"""Runs every Python block of README.md's "Querying with Polars" section as written,
then checks each result against counts computed independently (pyarrow, report.json)."""
import json
import pathlib
import re

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_blocks():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Querying with Polars", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 6, "the recipes are missing from README.md"
    return blocks


def test_readme_recipes(sample_filtered):
    sample_out = sample_filtered
    env = {"OUT": str(sample_out)}
    for block in readme_blocks():
        exec(compile(block, "README.md", "exec"), env)
    report = json.load(open(sample_out / "report.json"))
    table = pq.read_table(sample_out / "samples")
    # Scan: every sample row.
    assert env["n_samples"] == table.num_rows == report["split"]["samples"]
    # Dan ladder captures, counted with pyarrow.
    to_play = table["to_play"].to_numpy()
    rank = np.where(to_play == 1, table["black_rank_num"].to_numpy(zero_copy_only=False),
                    table["white_rank_num"].to_numpy(zero_copy_only=False))
    ladder = np.array([("ladder_capture" in (t or [])) for t in table["tags"].to_pylist()])
    want = int(((rank >= 1) & ladder).sum())
    assert env["dan_ladders"].height == want > 0
    # Boards.
    b = env["boards"]
    assert b.shape == (1000, 19, 19) and b.dtype == np.uint8
    assert (b.reshape(1000, -1) == np.frombuffer(b"".join(table["board"][:1000].to_pylist()), np.uint8).reshape(1000, -1)).all()
    # Move distribution of the empty board: every game starting from it, summed.
    dist = env["dist"]
    games = pq.read_table(sample_out / "games")
    even = sum(1 for sb, sw, c in zip(games["setup_black"].to_pylist(), games["setup_white"].to_pylist(),
                                      games["colors"].to_pylist()) if not sb and not sw and c[:1] == ["B"])
    assert dist["dup_count"][0] == even
    assert dist["move_dist_counts"].sum() == even
    # Joins: every sample finds its game.
    assert env["with_games"].height == table.num_rows
    assert env["with_games"]["black_name"].null_count() < table.num_rows
    # Rejects by reason agree with the report.
    reasons = {(r["stage"], r["reason"]): r["games"] for r in env["reasons"].iter_rows(named=True)}
    filt = report["filter"]["total"]["rejected_by_reason"]
    for reason, n in filt.items():
        assert reasons[("filter", reason)] == n
    for reason, n in report["split"]["rejected_by_reason"].items():
        assert reasons[("split", reason)] == n
    assert sum(reasons.values()) == pq.read_table(sample_out / "rejects").num_rows
    assert reasons[("filter", "too_short")] == 6
    # 20 rows.
    assert env["twenty"].height == 20
    assert env["twenty"]["position_hash"].n_unique() == 20
