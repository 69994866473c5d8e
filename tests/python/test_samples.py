"""Reads the sample shards with Python Polars, as users do: boards become an
(N, 19, 19) uint8 array in one line, and known moves of a known game are where
they must be (no flip, no transposition, no shifted two-digit rows)."""
import json

import numpy as np
import polars as pl
import pyarrow.parquet as pq


def boards(df):
    # The documented one-liner: `board` is 361 bytes per row, row-major from the top-left.
    return np.frombuffer(b"".join(df["board"].to_list()), dtype=np.uint8).reshape(-1, 19, 19)


def game(sample_out, name):
    lf = pl.scan_parquet(f"{sample_out}/samples/*.parquet")
    return lf.filter(pl.col("source").cast(pl.Utf8).str.ends_with(name)).sort("move_number").collect()


def test_known_game_moves_and_boards(sample_all):
    # Gosei-Gos23-T01 (SGF q = column 16 = GTP R, no I): ;B[qd];W[dc];B[dq];W[qp];B[ce];W[dn];B[cl];W[ed];B[oq];W[ep] ...
    df = game(sample_all, "Gosei-Gos23-T01.sgf")
    assert df.height == 163
    b = boards(df)
    assert b.shape == (163, 19, 19) and b.dtype == np.uint8
    assert df["move_gtp"].to_list()[:10] == ["R16", "D17", "D3", "R4", "C15", "D6", "C8", "E16", "P3", "E4"]
    assert df["move_sgf"].to_list()[:3] == ["qd", "dc", "dq"]
    assert df["to_play"].to_list()[:4] == [1, 2, 1, 2]
    assert not b[0].any(), "the board before move 1 is empty"
    # Before move 2, black's R16 (qd: row 3 from the top, column R = 16) is on the board.
    assert b[1][3, 16] == 1 and b[1].sum() == 1
    # Before move 6: black R16, D3, C15; white D17, R4. Two-digit rows: C15 is row 4 from the top.
    expect = np.zeros((19, 19), np.uint8)
    for gtp, v in [("R16", 1), ("D17", 2), ("D3", 1), ("R4", 2), ("C15", 1)]:
        col = "ABCDEFGHJKLMNOPQRST".index(gtp[0])
        row = 19 - int(gtp[1:])
        expect[row, col] = v
    assert (b[5] == expect).all()
    # The answer's row/col agree with its GTP text on every row.
    for r in df.select("move_row", "move_col", "move_gtp").iter_rows():
        row, col, gtp = r
        assert gtp == f"{'ABCDEFGHJKLMNOPQRST'[col]}{19 - row}"
    # Each board differs from the previous one by the move played (plus captures).
    moves = df["move"].to_list()
    for i in range(1, len(moves)):
        r, c = divmod(moves[i - 1], 19)
        assert b[i][r, c] == df["to_play"][i - 1]


def test_columns_schema_and_counts(sample_out):
    lf = pl.scan_parquet(f"{sample_out}/samples/*.parquet")
    df = lf.collect()
    report = json.load(open(f"{sample_out}/report.json"))
    assert df.height == report["split"]["samples"]
    games = pl.read_parquet(f"{sample_out}/games/*.parquet")
    # Exact dedup: one row per distinct (board, side to move, ko point) ...
    assert df.height == report["split"]["dedup"]["unique_positions"]
    assert df["position_hash"].n_unique() == df.height
    # ... and the duplicates are counted on the kept rows: they add up to every move.
    assert df["dup_count"].sum() == games["num_moves"].sum() == report["split"]["samples_before_dedup"]
    assert (df["move_dist_counts"].list.sum() == df["dup_count"]).all()
    # The empty board (move 1 of every even game) is kept once, with every first move.
    empty = df.filter(pl.col("move_number") == 1, pl.col("board") == bytes(361))
    assert empty.height == 1 and empty["dup_count"][0] >= 35
    assert df["position_hash"].dtype == pl.Binary and df["position_hash"].bin.size().unique().to_list() == [16]
    assert set(df["split"].cast(pl.Utf8).unique()) <= {"train", "val", "test"}
    # Every game's samples sit on one side of the split.
    assert df.group_by("game_id").agg(pl.col("split").n_unique()).get_column("split").max() == 1
    md = pq.read_metadata(next((sample_out / "samples").glob("*.parquet"))).metadata
    assert md[b"kibo.schema_version"] == b"6"
    # Joins: every sample's game is in games.
    assert df.join(games, on="game_id", how="anti").height == 0
    # History: most recent first, at most 8.
    h = df.filter(pl.col("move_number") == 10).row(0, named=True)["history"]
    assert len(h) == 8


def test_hash_recipe_matches_docs(sample_out):
    """The position_hash recipe of docs/schema.md, in Python."""
    from blake3 import blake3

    df = pl.read_parquet(f"{sample_out}/samples/*.parquet").head(500)
    for row in df.select("board", "to_play", "ko_point", "position_hash").iter_rows():
        board, to_play, ko, h = row
        ko = 0xFFFF if ko is None else ko
        data = board + bytes([to_play]) + ko.to_bytes(2, "little")
        assert blake3(data).digest()[:16] == h
