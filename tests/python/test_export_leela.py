"""`kibo export leela`: Leela Zero v1 chunks, parsed back by the rules of Leela Zero's
`training/tf/chunkparser.py` (19 lines a record, 16 hex planes of 361 bits, the side to
move, 362 probabilities, the winner +-1), and every record checked against an
independent replay of its game with sgfmill (whose rows count from the bottom, as
Leela Zero's vertices do: A1 is bit 0)."""
import gzip
import json
import pathlib
import subprocess

import numpy as np
import polars as pl
import pytest
from sgfmill import sgf, sgf_moves

ROOT = pathlib.Path(__file__).resolve().parents[2]


def parse_chunk(path):
    """The records of one chunk, as chunkparser reads them; asserts its rules."""
    lines = gzip.open(path, "rt").read().split("\n")
    assert lines[-1] == "", "a chunk ends with a newline"
    lines = lines[:-1]
    assert len(lines) % 19 == 0, f"{path}: {len(lines)} lines is not a whole number of 19-line records"
    records = []
    for r in range(len(lines) // 19):
        item = lines[r * 19:(r + 1) * 19]
        planes = []
        for line in item[:16]:
            assert len(line) == 91 and all(c in "0123456789abcdef" for c in line[:90]) and line[90] in "01", line
            bits = np.unpackbits(np.frombuffer(bytes.fromhex(line[:90]), np.uint8))[:360]
            planes.append(np.append(bits, np.uint8(line[90] == "1")))
        assert item[16] in ("0", "1")
        probs = np.array(item[17].split(), dtype=np.float32)
        assert len(probs) == 362 and not np.isnan(probs).any() and (probs >= 0).all()
        assert abs(probs.sum() - 1) < 1e-4
        assert item[18] in ("1", "-1")
        records.append((np.array(planes), int(item[16]), probs, int(item[18])))
    return records


def replay(path):
    """Leela-numbered boards (0 empty, 1 black, 2 white) before every move, and the moves
    as vertices (361 = pass), by sgfmill; None when sgfmill cannot read the game."""
    try:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        board, moves = sgf_moves.get_setup_and_moves(game)
    except ValueError:
        return None
    boards, verts = [], []
    for colour, point in moves:
        cells = np.zeros(361, np.uint8)
        for c, (row, col) in board.list_occupied_points():
            cells[row * 19 + col] = 1 if c == "b" else 2
        boards.append(cells)
        verts.append(361 if point is None else point[0] * 19 + point[1])
        if point is not None:
            board.play(point[0], point[1], colour)
    return boards, verts


def export(kibo, out, to, *args):
    subprocess.run([kibo, "export", "leela", "--out", str(out), "--to", str(to), "--chunk-positions", "500", *args, "-q"],
                   cwd=ROOT, check=True)


@pytest.fixture(scope="module")
def games(sample_out):
    return pl.read_parquet(f"{sample_out}/games/*.parquet")


@pytest.mark.parametrize("policy", ["played", "dist"])
def test_chunks_parse_and_match_an_independent_replay(kibo, sample_out, games, tmp_path, policy):
    export(kibo, sample_out, tmp_path, "--policy", policy)
    info = {r["game_id"]: r for r in games.iter_rows(named=True)}
    replays, checked, history_checked = {}, 0, 0
    summary = json.loads((tmp_path / "leela.json").read_text())
    samples = pl.read_parquet(f"{sample_out}/samples/*.parquet")
    for split in ("train", "val"):
        chunks = sorted((tmp_path / split).glob("*.gz"))
        n = 0
        for chunk in chunks:
            records = parse_chunk(chunk)
            rows = pl.read_csv(str(chunk).replace(".gz", ".rows.tsv"), separator="\t")
            assert rows["record"].to_list() == list(range(len(records)))
            for (planes, stm, probs, winner), gid, number in zip(records, rows["game_id"], rows["move_number"]):
                g = info[gid]
                if g["game_index"] != 0:
                    continue
                if gid not in replays:
                    replays[gid] = replay(ROOT / g["source_file"])
                if replays[gid] is None:
                    continue
                boards, verts = replays[gid]
                own = 1 + stm
                assert winner == (1 if g["winner"] == "BW"[stm] else -1)
                for k in range(8):
                    i = number - 1 - k
                    want_own = boards[i] == own if i >= 0 else np.zeros(361, bool)
                    want_opp = boards[i] == 3 - own if i >= 0 else np.zeros(361, bool)
                    assert (planes[k] == want_own).all() and (planes[8 + k] == want_opp).all(), (gid, number, k)
                    history_checked += i >= 1
                played = verts[number - 1]
                if policy == "played":
                    assert probs[played] == 1 and probs.sum() == 1
                else:
                    assert probs[played] > 0
                checked += 1
            n += len(records)
        assert n == summary["splits"][split]["positions"]
        with_winner = samples.filter(pl.col("split") == split, pl.col("winner").is_not_null()).height
        assert n == with_winner
    assert checked > 3000 and history_checked > 7 * 3000, (checked, history_checked)


def test_a_rerun_writes_identical_files(kibo, sample_out, tmp_path):
    export(kibo, sample_out, tmp_path / "a")
    export(kibo, sample_out, tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
