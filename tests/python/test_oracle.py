"""Differential test: kibo's SGF reader + rules engine against sgfmill.

sgfmill (https://github.com/mattheww/sgfmill) is an independent Python SGF
parser and Go board.  This test runs the real kibo binary over the shared dev
corpus, then re-reads every kept game's original SGF bytes with sgfmill and
replays it on an sgfmill board.  It proves, for every game sgfmill can read:

* the reader: kibo's move list, move colours and setup stones are the ones
  sgfmill finds (same main line, same points).  Because sgfmill's row 0 is the
  BOTTOM edge and kibo's row 0 is the TOP edge, any transposed or flipped
  coordinate in kibo shows up here;
* the rules engine: before every move, kibo's `board` bytes, `to_play`,
  prisoner counts and simple-ko point equal what sgfmill's board says
  (captures are counted independently, from sgfmill's stones before/after
  each play; the ko point is the one sgfmill's `Board.play` returns);
* the text columns: `move_gtp` and `move_sgf` equal a conversion written here
  from sgfmill's (row, col);
* the rejects: every move kibo's split stage rejected as `occupied_point`,
  `suicide` or `ko_violation` really is that kind of illegal move on
  sgfmill's board (a second, synthetic test makes sure this path runs even
  when the corpus has no such rejects).

Games sgfmill cannot represent (parse errors, setup stones after the root,
nodes holding several moves) are counted as "oracle could not read" and must
stay a small fraction.  Games inside nested archives (`!/`) or `.sgfs` lines
(`#L<n>`) are skipped with a count.  The board after the very last move is not
compared (kibo has no sample for it; the golden tests cover final positions).

Run from the repo root:
    KIBO=~/.cache/kibo-target/release/kibo \
        .venv/bin/python -m pytest -q tests/python/test_oracle.py -s
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import tarfile
import time
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sgfmill import boards, sgf, sgf_grammar, sgf_moves

KIBO = Path(os.path.expanduser(os.environ.get("KIBO", "~/.cache/kibo-target/release/kibo")))

N = 19
PASS = N * N  # kibo's index for a pass
GTP_COLS = "ABCDEFGHJKLMNOPQRST"  # GTP skips the letter I
CODE = {None: 0, "b": 1, "w": 2}  # sgfmill colour -> kibo board byte
OPP = {"b": "w", "w": "b"}
MAX_UNREADABLE_FRACTION = 0.05
SHOW = 8  # mismatches printed per field


# --------------------------------------------------------------------------
# coordinate conversions (all from sgfmill's (row, col), row 0 = bottom)
# --------------------------------------------------------------------------

def sgfmill_to_index(move):
    """sgfmill (row, col) or None -> kibo point index (row 0 at the top)."""
    if move is None:
        return PASS
    row, col = move
    return (N - 1 - row) * N + col


def sgfmill_to_gtp(move):
    if move is None:
        return "pass"
    row, col = move
    return f"{GTP_COLS[col]}{row + 1}"


def sgfmill_to_sgf(move):
    """SGF letters: column first, then row counted from the top."""
    if move is None:
        return ""
    row, col = move
    return chr(ord("a") + col) + chr(ord("a") + N - 1 - row)


def index_to_gtp(idx):
    """kibo point index -> GTP text, for mismatch messages only."""
    if idx is None or idx < 0:
        return "none"
    if idx == PASS:
        return "pass"
    return f"{GTP_COLS[idx % N]}{N - idx // N}"


def board_bytes(board):
    """sgfmill board -> 361 bytes, row-major from the top-left, 0/1/2.

    Reads sgfmill's internal `board.board` (list of rows, row 0 at the
    bottom): calling the public `get()` 361 times per move is ~10x slower.
    `test_board_bytes_matches_public_api` checks the two agree."""
    return bytes([CODE[v] for row in reversed(board.board) for v in row])


# --------------------------------------------------------------------------
# running kibo and loading the original SGF bytes
# --------------------------------------------------------------------------

def run_kibo(input_dir: Path, out: Path):
    assert KIBO.exists(), f"kibo binary not found at {KIBO} (set $KIBO)"
    proc = subprocess.run([str(KIBO), "run", "--input", str(input_dir), "--out", str(out), "-q",
                           "--pipeline", str(pathlib.Path(__file__).with_name("nodedup.toml"))],
                          capture_output=True, text=True)
    assert proc.returncode in (0, 1), f"kibo exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc


def read_table(out: Path, table: str, columns=None) -> pl.DataFrame:
    return pl.read_parquet(str(out / table / "*.parquet"), columns=columns)


def is_unsupported_member(member) -> bool:
    """Nested archives (`!/`) and `.sgfs` lines (`#L<n>`) are not re-read here."""
    return member is not None and ("!/" in member or "#L" in member)


def load_sources(keys):
    """{(source_file, member): bytes} for every readable key.

    Each archive is opened once and only the wanted members are read."""
    wanted = defaultdict(set)
    for src, member in keys:
        wanted[src].add(member)
    data = {}
    for src, members in wanted.items():
        if members == {None}:
            data[(src, None)] = Path(src).read_bytes()
            continue
        if zipfile.is_zipfile(src):
            with zipfile.ZipFile(src) as z:
                for m in members:
                    data[(src, m)] = z.read(m)
        else:  # tar, tar.gz, tgz, ...
            with tarfile.open(src, "r:*") as t:
                for info in t:
                    if info.name in members and info.isfile():
                        data[(src, info.name)] = t.extractfile(info).read()
    return data


# --------------------------------------------------------------------------
# the oracle: sgfmill's view of one game
# --------------------------------------------------------------------------

class Unreadable(Exception):
    """sgfmill cannot read or represent this game."""


_collections = {}  # (source_file, member) -> list of coarse game trees


def oracle_read(key, data: bytes, game_index: int):
    """Return (board, plays) from sgfmill for game tree `game_index`.

    board: sgfmill Board after the root setup; plays: [(colour, (row, col) | None)].
    Raises Unreadable with a short reason."""
    try:
        if game_index == 0:
            tree = sgf_grammar.parse_sgf_game(data)
        else:
            if key not in _collections:
                _collections[key] = sgf_grammar.parse_sgf_collection(data)
            trees = _collections[key]
            if game_index >= len(trees):
                raise Unreadable(f"sgfmill sees only {len(trees)} game trees")
            tree = trees[game_index]
    except ValueError as e:
        raise Unreadable(f"parse error: {str(e)[:60]}")
    try:
        game = sgf.Sgf_game.from_coarse_game_tree(tree)
    except ValueError as e:
        if "encoding" not in str(e):
            raise Unreadable(f"root: {str(e)[:60]}")
        # The text encoding cannot change any coordinate; read it as latin-1.
        game = sgf.Sgf_game.from_coarse_game_tree(tree, override_encoding="iso-8859-1")
    if game.get_size() != N:
        raise Unreadable(f"sgfmill size {game.get_size()}")
    # sgfmill keeps only one move per node (B wins over W); kibo plays them all.
    for node in game.get_main_sequence():
        props = node.get_raw_property_map()
        if len(props.get("B", ())) + len(props.get("W", ())) > 1:
            raise Unreadable("node with several moves")
    try:
        board, plays = sgf_moves.get_setup_and_moves(game)
    except ValueError as e:
        raise Unreadable(str(e)[:60])
    return board, plays


def play_and_count(board, colour, move, before=None):
    """Play on the sgfmill board; return (ko_point, captured, suicide, after).

    captured = opponent stones before minus after (counted here, not trusted
    from either engine); suicide = the played stone is not on the board
    afterwards; after = board_bytes() of the new position.  `before` may pass
    in the board_bytes() of the current position to save a conversion."""
    row, col = move
    if before is None:
        before = board_bytes(board)
    ko = board.play(row, col, colour)
    after = board_bytes(board)
    opp = CODE[OPP[colour]]
    captured = before.count(opp) - after.count(opp)
    suicide = board.get(row, col) is None
    return ko, captured, suicide, after


# --------------------------------------------------------------------------
# checks of kibo's split-stage rejects
# --------------------------------------------------------------------------

ILLEGAL_REASONS = ("occupied_point", "suicide", "ko_violation")


def check_reject(reason, board, plays, move_number):
    """Replay plays[:move_number-1] on sgfmill, then check that the move at
    `move_number` (1-based) is illegal the way kibo says.  Returns an error
    string, or None when sgfmill agrees."""
    if not 1 <= move_number <= len(plays):
        return f"move {move_number} out of range (sgfmill has {len(plays)} moves)"
    ko, prev = None, None
    for colour, move in plays[:move_number - 1]:
        if move is None:
            ko = None
        else:
            if board.get(*move) is not None:
                return f"earlier move {sgfmill_to_gtp(move)} already illegal (occupied)"
            ko = board.play(move[0], move[1], colour)
        prev = colour
    colour, move = plays[move_number - 1]
    if move is None:
        return "the rejected move is a pass"
    occupied = board.get(*move) is not None
    if reason == "occupied_point":
        return None if occupied else f"{sgfmill_to_gtp(move)} is empty on sgfmill's board"
    if occupied:
        return f"{sgfmill_to_gtp(move)} is occupied, not {reason}"
    if reason == "ko_violation":
        if ko == move and prev == OPP[colour]:
            return None
        return f"{sgfmill_to_gtp(move)} is not the ko point ({sgfmill_to_gtp(ko) if ko else 'none'})"
    if reason == "suicide":
        _, captured, suicide, _ = play_and_count(board, colour, move)
        if suicide and captured == 0:
            return None
        return f"{sgfmill_to_gtp(move)} is not suicide on sgfmill's board (captured {captured})"
    return f"unknown reason {reason}"


def check_split_rejects(rejects: pl.DataFrame, sources):
    """Returns (counts Counter, list of error strings)."""
    counts, errors = Counter(), []
    split = rejects.filter(pl.col("stage") == "split")
    for r in split.iter_rows(named=True):
        counts["split_rejects"] += 1
        if r["reason"] not in ILLEGAL_REASONS:
            counts[f"other:{r['reason']}"] += 1
            continue
        key = (r["source_file"], r["member"])
        if key not in sources:
            counts["not_rereadable"] += 1
            continue
        try:
            board, plays = oracle_read(key, sources[key], r["game_index"])
        except Unreadable:
            counts["oracle_unreadable"] += 1
            continue
        err = check_reject(r["reason"], board, plays, r["move_number"])
        if err is None:
            counts["confirmed"] += 1
        else:
            errors.append(f"{r['source_file']} {r['member'] or ''} game {r['game_index']} "
                          f"move {r['move_number']} ({r['reason']}): {err}")
    return counts, errors


# --------------------------------------------------------------------------
# the main differential test
# --------------------------------------------------------------------------

@dataclass
class Report:
    """Mismatches per field: all are counted, the first SHOW are kept as text."""
    bad: Counter = field(default_factory=Counter)
    examples: list = field(default_factory=list)  # (field, text)
    counts: Counter = field(default_factory=Counter)  # games compared, skipped, ...

    def add(self, fld, text, n=1):
        if self.bad[fld] < SHOW:
            self.examples.append((fld, text))
        self.bad[fld] += n

    @property
    def total(self):
        return sum(self.bad.values())


@pytest.fixture(scope="module")
def dev_dir(shared):
    return shared("dev").resolve()


def test_oracle_dev_corpus(dev_dir, tmp_path):
    t0 = time.perf_counter()
    out = tmp_path / "out"
    run_kibo(dev_dir, out)
    t_kibo = time.perf_counter() - t0

    # game_id is a content hash, so byte-identical games in different files
    # share it; a game is (game_id, location, game_index), where the samples'
    # `source` column is the location: source_file, plus "!member" if any.
    key_cols = ["game_id", "source", "game_index"]
    games = (read_table(out, "games", ["game_id", "source_file", "member", "game_index",
                                        "setup_black", "setup_white", "moves", "colors"])
             .with_columns(source=pl.when(pl.col("member").is_null()).then(pl.col("source_file"))
                           .otherwise(pl.col("source_file") + "!" + pl.col("member"))))
    samples = (read_table(out, "samples", key_cols + ["move_number", "board", "to_play", "ko_point",
                                                      "prisoners_black", "prisoners_white", "move",
                                                      "move_gtp", "move_sgf"])
               .with_columns(pl.col("game_id", "source").cast(pl.String))
               .sort(key_cols + ["move_number"], maintain_order=True))
    rejects = read_table(out, "rejects")
    # Games the split stage rejected (illegal moves, duplicate games) have no samples;
    # the illegal ones are checked against the oracle below.
    split_rej = (rejects.filter(pl.col("stage") == "split")
                 .select("game_id", "source_file", "member", "game_index").unique())
    games = games.join(split_rej, on=["game_id", "source_file", "member", "game_index"], how="anti",
                       nulls_equal=True)
    rep = Report()

    # ---- kibo's own consistency: samples rows line up with games.moves ----
    nrows = samples.height
    spans = samples.with_row_index("row").group_by(key_cols).agg(
        pl.col("row").min().alias("start"), pl.len().alias("n"))
    assert games.select(key_cols).is_unique().all(), "games table has duplicate (game_id, source, game_index)"
    orphans = spans.join(games, on=key_cols, how="anti").height
    assert orphans == 0, f"{orphans} games in samples are missing from the games table"
    games = games.join(spans, on=key_cols, how="left").with_columns(
        pl.col("start").fill_null(0), pl.col("n").fill_null(0))
    numbered = samples.select(
        (pl.col("move_number") == pl.int_range(1, pl.len() + 1).over(key_cols)).all()).item()
    assert numbered, "samples.move_number is not 1..n within each game"
    board_len = samples["board"].bin.size()
    assert (board_len == N * N).all(), "some samples.board are not 361 bytes"

    # kibo columns as numpy / python lists, indexed by sample row
    k_board = np.frombuffer(b"".join(samples["board"].to_list()), dtype=np.uint8).reshape(nrows, N * N)
    k_to_play = samples["to_play"].to_numpy().astype(np.int32)
    k_ko = samples["ko_point"].fill_null(-1).to_numpy().astype(np.int32)
    k_pb = samples["prisoners_black"].to_numpy().astype(np.int32)
    k_pw = samples["prisoners_white"].to_numpy().astype(np.int32)
    k_move = samples["move"].to_numpy().astype(np.int32)
    k_gtp = samples["move_gtp"].to_list()
    k_sgf = samples["move_sgf"].to_list()

    # oracle values, filled per sample row; `covered` marks rows sgfmill replayed
    o_board = np.zeros((nrows, N * N), dtype=np.uint8)
    o_to_play = np.zeros(nrows, dtype=np.int32)
    o_ko = np.full(nrows, -1, dtype=np.int32)
    o_pb = np.zeros(nrows, dtype=np.int32)
    o_pw = np.zeros(nrows, dtype=np.int32)
    o_move = np.zeros(nrows, dtype=np.int32)
    o_moves_sgfmill = [None] * nrows  # sgfmill (row, col) per row, for text checks
    covered = np.zeros(nrows, dtype=bool)
    row_label = [""] * nrows  # "file member game k move m", filled only for covered rows

    # ---- load the original bytes ----
    keys = set()
    for src, member in games.select("source_file", "member").iter_rows():
        if is_unsupported_member(member):
            continue
        keys.add((src, member))
    for r in rejects.filter(pl.col("stage") == "split").select("source_file", "member").iter_rows():
        if not is_unsupported_member(r[1]):
            keys.add(r)
    sources = load_sources(keys)
    t_load = time.perf_counter() - t0 - t_kibo

    unreadable_reasons = Counter()
    for g in games.iter_rows(named=True):
        src, member, gidx = g["source_file"], g["member"], g["game_index"]
        label = f"{src}{' [' + member + ']' if member else ''} game {gidx}"
        k_moves, k_colors = g["moves"], "".join(g["colors"])
        start, n = g["start"], g["n"]
        if n != len(k_moves) or len(k_colors) != len(k_moves):
            rep.add("kibo_internal", f"{label}: {len(k_moves)} moves, {len(k_colors)} colours, {n} samples")
            continue
        if not np.array_equal(k_move[start:start + n], np.asarray(k_moves, dtype=np.int32)):
            rep.add("kibo_internal", f"{label}: samples.move differs from games.moves")
        if is_unsupported_member(member):
            rep.counts["skipped_nested_or_sgfs"] += 1
            continue
        key = (src, member)
        if key not in sources:
            rep.add("load", f"{label}: member not found in archive")
            continue
        try:
            board, plays = oracle_read(key, sources[key], gidx)
        except Unreadable as e:
            unreadable_reasons[str(e)] += 1
            continue

        # ---- step 2: reader (moves, colours, setup) ----
        o_moves = [sgfmill_to_index(mv) for _, mv in plays]
        o_colors = "".join(c.upper() for c, _ in plays)
        setup_b = {sgfmill_to_index(p) for c, p in board.list_occupied_points() if c == "b"}
        setup_w = {sgfmill_to_index(p) for c, p in board.list_occupied_points() if c == "w"}
        bad = False
        if set(g["setup_black"]) != setup_b or set(g["setup_white"]) != setup_w:
            rep.add("setup", f"{label}: kibo B {sorted(map(index_to_gtp, g['setup_black']))} "
                             f"W {sorted(map(index_to_gtp, g['setup_white']))} vs sgfmill "
                             f"B {sorted(map(index_to_gtp, setup_b))} W {sorted(map(index_to_gtp, setup_w))}")
            bad = True
        if o_moves != list(k_moves) or o_colors != k_colors:
            i = next((i for i, (a, b, ca, cb) in enumerate(zip(k_moves, o_moves, k_colors, o_colors))
                      if a != b or ca != cb), min(len(k_moves), len(o_moves)))
            kd = f"{k_colors[i]} {index_to_gtp(k_moves[i])}" if i < len(k_moves) else "end"
            od = f"{o_colors[i]} {index_to_gtp(o_moves[i])}" if i < len(o_moves) else "end"
            rep.add("moves", f"{label}: {len(k_moves)} vs {len(o_moves)} moves; first difference "
                             f"at move {i + 1}: kibo {kd} vs sgfmill {od}")
            bad = True
        if bad:
            continue

        # ---- step 3: replay on sgfmill's board, recording its view of each sample ----
        rep.counts["games"] += 1
        caps = {"b": 0, "w": 0}
        cur = board_bytes(board)
        ko, prev = None, None
        for i, (colour, move) in enumerate(plays):
            r = start + i
            o_board[r] = np.frombuffer(cur, dtype=np.uint8)
            o_to_play[r] = CODE[colour]
            o_pb[r], o_pw[r] = caps["b"], caps["w"]
            # ko only binds the opponent of the player who just took it
            if ko is not None and prev == OPP[colour]:
                o_ko[r] = sgfmill_to_index(ko)
            o_move[r] = sgfmill_to_index(move)
            o_moves_sgfmill[r] = move
            covered[r] = True
            row_label[r] = f"{label} move {i + 1}"
            prev = colour
            if move is None:
                ko = None
                continue
            if board.get(*move) is not None:
                rep.add("legality", f"{label} move {i + 1}: kibo kept {colour.upper()} "
                                    f"{sgfmill_to_gtp(move)} but the point is occupied")
                break
            ko, captured, suicide, cur = play_and_count(board, colour, move, cur)
            if suicide:
                rep.add("legality", f"{label} move {i + 1}: kibo kept {colour.upper()} "
                                    f"{sgfmill_to_gtp(move)} but it is suicide on sgfmill's board")
                break
            caps[colour] += captured
    t_replay = time.perf_counter() - t0 - t_kibo - t_load

    # ---- vectorised comparison of every covered sample ----
    def report_rows(fld, bad_rows, fmt):
        """Record mismatching sample rows; only the first few are formatted."""
        for j, r in enumerate(bad_rows):
            rep.add(fld, f"{row_label[r]}: {fmt(r)}" if j < SHOW else None)

    def first_diff(r):
        p = int(np.nonzero(k_board[r] != o_board[r])[0][0])
        return (f"board differs at {index_to_gtp(p)} (kibo {k_board[r][p]} vs sgfmill {o_board[r][p]}), "
                f"{int((k_board[r] != o_board[r]).sum())} points differ")

    board_bad = np.nonzero(covered & (k_board != o_board).any(axis=1))[0]
    report_rows("board", board_bad, first_diff)
    for fld, k, o, show in (
            ("to_play", k_to_play, o_to_play, str),
            ("ko_point", k_ko, o_ko, index_to_gtp),
            ("prisoners_black", k_pb, o_pb, str),
            ("prisoners_white", k_pw, o_pw, str),
            ("move", k_move, o_move, index_to_gtp)):
        bad_rows = np.nonzero(covered & (k != o))[0]
        report_rows(fld, bad_rows, lambda r: f"kibo {show(int(k[r]))} vs sgfmill {show(int(o[r]))}")
    cov_rows = np.nonzero(covered)[0]
    gtp_bad = [r for r in cov_rows if k_gtp[r] != sgfmill_to_gtp(o_moves_sgfmill[r])]
    report_rows("move_gtp", gtp_bad, lambda r: f"kibo {k_gtp[r]!r} vs sgfmill {sgfmill_to_gtp(o_moves_sgfmill[r])!r}")
    # pass is written as "" by kibo; "tt" would also be a valid SGF pass
    sgf_bad = [r for r in cov_rows
               if k_sgf[r] != sgfmill_to_sgf(o_moves_sgfmill[r])
               and not (o_moves_sgfmill[r] is None and k_sgf[r] == "tt")]
    report_rows("move_sgf", sgf_bad, lambda r: f"kibo {k_sgf[r]!r} vs sgfmill {sgfmill_to_sgf(o_moves_sgfmill[r])!r}")

    # ---- split-stage rejects ----
    rcounts, rerrors = check_split_rejects(rejects, sources)
    for e in rerrors:
        rep.add("reject", e)

    # ---- summary ----
    moves_compared = int(covered.sum())
    ko_compared = int((covered & ((k_ko >= 0) | (o_ko >= 0))).sum())
    unreadable = sum(unreadable_reasons.values())
    n_games = games.height
    elapsed = time.perf_counter() - t0
    print()
    print(f"oracle: {rep.counts['games']} games compared, {moves_compared} moves compared, "
          f"{ko_compared} ko points compared, {unreadable} oracle-unreadable, "
          f"{rep.counts['skipped_nested_or_sgfs']} nested/.sgfs skipped, "
          f"split rejects {rcounts['split_rejects']} ({rcounts['confirmed']} confirmed illegal), "
          f"{rep.total} mismatches "
          f"[{elapsed:.1f}s: kibo {t_kibo:.1f}s, load {t_load:.1f}s, replay {t_replay:.1f}s]")
    if unreadable_reasons:
        print("  oracle could not read: " + "; ".join(f"{r} x{c}" for r, c in unreadable_reasons.most_common()))
    if rcounts:
        print("  split rejects: " + ", ".join(f"{k} {v}" for k, v in sorted(rcounts.items())))
    if rep.total:
        print("  mismatches by field: " + ", ".join(f"{k} {v}" for k, v in rep.bad.most_common()))
    for fld, text in rep.examples:
        print(f"  MISMATCH {fld}: {text}")

    assert n_games > 0, "kibo kept no games"
    assert unreadable <= MAX_UNREADABLE_FRACTION * n_games, \
        f"sgfmill could not read {unreadable} of {n_games} games"
    assert rep.counts["games"] > 0
    assert rep.total == 0, f"{rep.total} mismatches between kibo and sgfmill (see output)"


# --------------------------------------------------------------------------
# small self-contained checks (need only the kibo binary, not the corpus)
# --------------------------------------------------------------------------

def test_board_bytes_matches_public_api():
    """board_bytes() reads sgfmill internals; check it against Board.get()."""
    b = boards.Board(N)
    b.apply_setup([(0, 0), (18, 3)], [(5, 18)], [])  # A1 black, D19 black, T6 white
    raw = board_bytes(b)
    slow = bytes(CODE[b.get(N - 1 - r, c)] for r in range(N) for c in range(N))
    assert raw == slow
    assert raw[sgfmill_to_index((0, 0))] == 1 and raw[18 * N + 0] == 1      # A1 is bottom-left
    assert raw[sgfmill_to_index((18, 3))] == 1 and raw[0 * N + 3] == 1      # D19 is on the top row
    assert raw[sgfmill_to_index((5, 18))] == 2
    assert sgfmill_to_gtp((15, 15)) == "Q16" and sgfmill_to_gtp((0, 8)) == "J1"
    assert sgfmill_to_sgf((15, 15)) == "pd"


# One illegal move per game; the corpus is written to a temporary folder so
# the reject checks run even when the dev corpus has no split rejects.
#   ko.sgf: setup makes the classic ko shape (rows d-f, columns d-g):
#             . X O .
#             X O . O      B plays F15 ("fe") capturing the white E15 ("ee"),
#             . X O .      then W retakes at E15 at once: ko_violation.
SYNTHETIC = {
    "occupied.sgf": ("(;GM[1]FF[4]SZ[19];B[dp];W[pd];B[dp])", "occupied_point", 3),
    # B A19 ("aa") with W on B19 ("ba") and A18 ("ab"): no liberty, no capture
    "suicide.sgf": ("(;GM[1]FF[4]SZ[19];B[pp];W[ba];B[pq];W[ab];B[aa])", "suicide", 5),
    "ko.sgf": ("(;GM[1]FF[4]SZ[19]AB[ed][de][ef]AW[fd][ee][ge][ff];B[fe];W[ee])", "ko_violation", 2),
}


def test_oracle_synthetic_rejects(tmp_path):
    """kibo must reject each synthetic game at the right move with the right
    reason, and the reject checker must confirm each one with sgfmill."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, (text, _, _) in SYNTHETIC.items():
        (corpus / name).write_text(text)
    out = tmp_path / "out"
    run_kibo(corpus.resolve(), out)
    rejects = read_table(out, "rejects")
    got = {Path(r["source_file"]).name: (r["stage"], r["reason"], r["move_number"])
           for r in rejects.iter_rows(named=True)}
    for name, (_, reason, move) in SYNTHETIC.items():
        assert got.get(name) == ("split", reason, move), f"{name}: kibo rejects {got.get(name)}"
    keys = {(r["source_file"], r["member"]) for r in rejects.iter_rows(named=True)}
    counts, errors = check_split_rejects(rejects, load_sources(keys))
    print(f"\nsynthetic rejects: {dict(counts)}")
    assert not errors, errors
    assert counts["confirmed"] == len(SYNTHETIC)
