"""katago-v7 planes of `kibo export katago` against KataGo's own Python featurizer.

The oracle is `../shared/oracles/katago-python/katago/game/features.py`
(`Features.fill_row_features`), driven from the games table: each selected row's game is
replayed on KataGo's Python board from its setup stones and moves, and the oracle's 22
spatial planes and 19 globals must equal the npz row bit for bit.

Where features.py differs from the C++ `fillRowV7` (docs/planes.md, "features.py and
the C++"), kibo follows the C++, and the oracle is called the way the C++ defines the row:
* the white handicap bonus (Chinese N, AGA N - 1 stones) is added to the komi passed in;
* `passWouldEndPhase` (global 14) is the C++'s: the last move was a pass;
* after one pass under friendly-pass area rules (Chinese, AGA, NZ) the C++ hides the
  history: the oracle gets no moves and no earlier boards (so the ladder planes 15/16
  repeat the current board's and global 14 is 0);
* the ladder planes 15/16 use the boards one and two moves back only as far as the
  alternating history reaches, else the newer board;
* the ladder search's "double-ko death" shortcut: the C++ (`Board::searchIsLadderCaptured`)
  declares the defender captured when it has **no** liberty-gaining capture, board.py's
  port when it **has** one (`if self.hasLibertyGainingCaptures(loc)`, the comment above
  it says the C++'s). A row whose ladder planes differ is recomputed with that one test
  negated (`Board.hasLibertyGainingCaptures` is called nowhere else) and must then agree.
Each of these cases is counted, and the counts are asserted.
"""
import json
import pathlib
import random
import sys

import numpy as np
import polars as pl
import pytest

from conftest import SHARED

ORACLE = SHARED.parent / "oracles" / "katago-python"
N_RANDOM = 4000
N_PER_CASE = 150


def oracle():
    if not (ORACLE / "katago" / "game" / "features.py").exists():
        pytest.skip(f"{ORACLE} is absent")
    sys.path.insert(0, str(ORACLE))
    from katago.game.board import Board
    from katago.game.features import Features
    from katago.game.gamestate import GameState
    from katago.train import modelconfigs
    return Board, Features(modelconfigs.config_of_name["b6c96"], 19), GameState


def rules_of(ru):
    """KataGo rule set of a game's RU (docs/planes.md, the rules table)."""
    r = (ru or "").strip().lower()
    if "japan" in r:
        return "japanese"
    if "korea" in r:
        return "korean"
    if "chin" in r or r == "cn":
        return "chinese"
    if any(k in r for k in ("aga", "bga", "french")):
        return "aga"
    if any(k in r for k in ("new zealand", "new-zealand", "newzealand")) or r == "nz":
        return "nz"
    if "tromp" in r or r == "tt":
        return "tt"
    return "japanese"


def rules_dict(GameState, name):
    base = {"japanese": GameState.RULES_JAPANESE, "korean": GameState.RULES_JAPANESE,
            "chinese": GameState.RULES_CHINESE, "tt": GameState.RULES_TT}.get(name, GameState.RULES_CHINESE)
    d = dict(base)
    if name == "aga":
        d["koRule"] = "KO_SITUATIONAL"
    if name == "nz":
        d.update(koRule="KO_SITUATIONAL", multiStoneSuicideLegal=True)
    return d


def handicap_stones(setup_black, setup_white, moves_before):
    """KataGo computeNumHandicapStones (assumeMultipleStartingBlackMovesAreHandicap)."""
    if setup_white:
        return 0
    lead = 0
    for k, (c, m) in enumerate(moves_before):
        if c != "B":
            if k + 1 < len(moves_before) and moves_before[k + 1][0] != "B":
                lead = 0
            break
        if m != 361:
            lead += 1
    n = len(setup_black) + lead
    return 0 if n <= 1 else n


def unpack(packed):
    """KataGo's read_npz_training_data: MSB-first bits, 46 bytes per channel."""
    return np.unpackbits(packed, axis=-1)[..., :361]


def load_npz_rows(data):
    """Every npz row of train/ and val/ (inputs still packed) with its trace (game_id, move_number)."""
    bins, globs, trace = [], [], []
    for split in ("train", "val"):
        for npz in sorted((data / split).glob("*.npz")):
            z = np.load(npz)
            n = z["binaryInputNCHWPacked"].shape[0]
            bins.append(z["binaryInputNCHWPacked"])
            globs.append(z["globalInputNC"])
            rows = pl.read_parquet(npz.with_name(npz.name[:-4] + ".rows.parquet"))
            assert rows.height == n
            trace.append(rows)
    return np.concatenate(bins), np.concatenate(globs), pl.concat(trace)


def select_rows(bins, globs, trace, games):
    """Random rows plus rows of every case the planes must cover."""
    rng = random.Random(20261202)
    n = bins.shape[0]
    picked = set(rng.sample(range(n), N_RANDOM))
    meta = trace.join(games.select("game_id", "rules", "handicap", "moves", "colors"), on="game_id", how="left", maintain_order="left")
    ru = meta["rules"].to_list()
    ha = meta["handicap"].to_numpy()
    prev_pass, colour_break = [], []
    for r, (mn, mv, co) in enumerate(zip(meta["move_number"], meta["moves"], meta["colors"])):
        i = mn - 1
        if i >= 1 and mv[i - 1] == 361:
            prev_pass.append(r)
        if (i >= 1 and co[i - 1] == co[i]) or (i >= 2 and co[i - 2] != co[i]):
            colour_break.append(r)
    cases = {
        "ko": np.flatnonzero(bins[:, 6].any(axis=1)),
        "pass": np.flatnonzero(globs[:, 0:5].any(axis=1)),
        "ladder_now": np.flatnonzero(bins[:, 14].any(axis=1)),
        "ladder_prev": np.flatnonzero(bins[:, 15].any(axis=1) & (bins[:, 15] != bins[:, 14]).any(axis=1)),
        "ladder_prev2": np.flatnonzero(bins[:, 16].any(axis=1) & (bins[:, 16] != bins[:, 15]).any(axis=1)),
        "working": np.flatnonzero(bins[:, 17].any(axis=1)),
        "chinese": np.array([i for i in range(n) if rules_of(ru[i]) == "chinese"]),
        "missing_rules": np.array([i for i in range(n) if ru[i] is None]),
        "aga_nz": np.array([i for i in range(n) if rules_of(ru[i]) in ("aga", "nz")]),
        "handicap": np.flatnonzero(ha >= 2),
        "prev_pass": np.array(prev_pass),
        "colour_break": np.array(colour_break),
        "chinese_handicap": np.array([i for i in range(n) if rules_of(ru[i]) == "chinese" and ha[i] >= 2]),
    }
    for idx in cases.values():
        idx = list(idx)
        picked.update(rng.sample(idx, min(N_PER_CASE, len(idx))))
    return sorted(picked)


def test_katago_v7_planes_equal_features_py(katago_data, dev_out):
    Board, feat, GameState = oracle()
    bins, globs, trace = load_npz_rows(katago_data)
    games = pl.read_parquet(dev_out / "games" / "*.parquet").unique("game_id", keep="first", maintain_order=True)
    rows = select_rows(bins, globs, trace, games)
    by_game = {}
    ids, mns = trace["game_id"].to_list(), trace["move_number"].to_list()
    for r in rows:
        by_game.setdefault(ids[r], []).append((mns[r], r))
    ginfo = {g["game_id"]: g for g in games.filter(pl.col("game_id").is_in(list(by_game))).iter_rows(named=True)}
    counts = dict.fromkeys(["rows", "japanese", "chinese", "missing_rules", "aga_nz", "handicap", "ko", "pass",
                            "ladder_now", "ladder_prev", "ladder_prev2", "working", "area",
                            "cpp_handicap_bonus", "cpp_hidden_history", "cpp_ladder_board_fallback",
                            "cpp_pass_would_end_phase", "cpp_double_ko_ladder"], 0)
    bad = []
    for gid, wanted in by_game.items():
        g = ginfo[gid]
        bad += check_game(Board, feat, GameState, g, sorted(wanted), bins, globs, counts)
    counts["rows"] = len(rows)
    print("katago-v7 coverage:", json.dumps(counts))
    assert not bad, f"{len(bad)} rows differ, first: {bad[:5]}"
    assert counts["rows"] >= 5000
    for k in ["japanese", "chinese", "missing_rules", "handicap", "ko", "pass", "ladder_now", "ladder_prev",
              "ladder_prev2", "working", "area", "cpp_handicap_bonus", "cpp_hidden_history",
              "cpp_ladder_board_fallback", "cpp_pass_would_end_phase"]:
        assert counts[k] >= 10, (k, counts)


def check_game(Board, feat, GameState, g, wanted, bins, globs, counts):
    """Replays `g` on KataGo's board, copying a board only where a wanted row needs it
    (the rows' boards one and two moves back), and checks each wanted row."""
    name = rules_of(g["rules"])
    rules = rules_dict(GameState, name)
    eff_ha = max(g["handicap"], len(g["setup_black"]) if not g["setup_white"] and len(g["setup_black"]) >= 2 else 0)
    komi = g["komi"] if g["komi"] is not None else (0.5 if eff_ha >= 2 else 6.5)
    board = Board(19)
    for p in g["setup_black"]:
        board.set_stone(Board.BLACK, board.loc(p % 19, p // 19))
    for p in g["setup_white"]:
        board.set_stone(Board.WHITE, board.loc(p % 19, p // 19))
    colors, moves = g["colors"], g["moves"]
    need = {m - 1 - k for m, _ in wanted for k in (1, 2)}
    kept = {}
    played = []
    bad = []
    w = 0
    for i in range(len(moves)):
        while w < len(wanted) and wanted[w][0] == i + 1:
            boards = [None] * (i + 1)
            boards[i] = board
            for k in (1, 2):
                if i - k >= 0:
                    boards[i - k] = kept[i - k]
            kbin = unpack(bins[wanted[w][1]])
            bad += check_row(Board, feat, board, boards, played, g, i, name, dict(rules), komi, kbin,
                             globs[wanted[w][1]], counts)
            w += 1
        if w == len(wanted):
            break
        if i in need:
            kept[i] = board.copy()
        pla = Board.BLACK if colors[i] == "B" else Board.WHITE
        p = moves[i]
        loc = Board.PASS_LOC if p == 361 else board.loc(p % 19, p // 19)
        board.play(pla, loc)
        played.append((pla, loc))
    return bad


def check_row(Board, feat, board, all_boards, played, g, i, name, rules, komi, kbin, kglob, counts):
    colors, moves = g["colors"], g["moves"]
    pla = Board.BLACK if colors[i] == "B" else Board.WHITE
    opp = Board.get_opp(pla)
    before = list(zip(colors[:i], moves[:i]))
    bonus = handicap_stones(g["setup_black"], g["setup_white"], before)
    bonus = bonus if name == "chinese" else max(bonus - 1, 0) if name == "aga" else 0
    rules["whiteKomi"] = komi + bonus
    friendly = name in ("chinese", "aga", "nz")
    hide = friendly and i >= 1 and moves[i - 1] == 361 and not (i >= 2 and moves[i - 2] == 361)
    chain = 0
    for k in range(1, min(5, i) + 1):
        expect = opp if k % 2 == 1 else pla
        if played[i - k][0] != expect:
            break
        chain = k
    if hide:
        boards, mvs, idx = [board], [], 0
    else:
        boards, mvs, idx = list(all_boards), list(played), i
        if i >= 1 and chain < 1:
            boards[i - 1] = board
        if i >= 2 and chain < 2:
            boards[i - 2] = boards[i - 1]
    rules["passWouldEndPhase"] = (not hide) and i >= 1 and moves[i - 1] == 361
    b = np.zeros((1, 361, 22), np.float32)
    gl = np.zeros((1, 19), np.float32)
    feat.fill_row_features(board, pla, opp, boards, mvs, idx, rules, b, gl, 0)
    ob = b[0].T.astype(np.uint8)
    if not np.array_equal(ob, kbin) and (ob[:14] == kbin[:14]).all() and (ob[18:] == kbin[18:]).all():
        # The C++ double-ko test (see the module docs), then compare again.
        orig = Board.hasLibertyGainingCaptures
        Board.hasLibertyGainingCaptures = lambda self, loc: not orig(self, loc)
        try:
            b[:] = 0
            gl[:] = 0
            feat.fill_row_features(board, pla, opp, boards, mvs, idx, rules, b, gl, 0)
        finally:
            Board.hasLibertyGainingCaptures = orig
        ob = b[0].T.astype(np.uint8)
        counts["cpp_double_ko_ladder"] += bool(np.array_equal(ob, kbin))
    counts["japanese"] += name == "japanese" and g["rules"] is not None
    counts["chinese"] += name == "chinese"
    counts["missing_rules"] += g["rules"] is None
    counts["aga_nz"] += name in ("aga", "nz")
    counts["handicap"] += g["handicap"] >= 2 or bool(g["setup_black"] and not g["setup_white"])
    counts["ko"] += bool(ob[6].any())
    counts["pass"] += bool(gl[0, :5].any())
    counts["ladder_now"] += bool(ob[14].any())
    counts["ladder_prev"] += bool((ob[15] != ob[14]).any())
    counts["ladder_prev2"] += bool((ob[16] != ob[15]).any())
    counts["working"] += bool(ob[17].any())
    counts["area"] += bool(ob[18].any())
    counts["cpp_handicap_bonus"] += bonus > 0
    counts["cpp_hidden_history"] += hide
    counts["cpp_ladder_board_fallback"] += (not hide) and i >= 1 and chain < min(i, 2)
    counts["cpp_pass_would_end_phase"] += rules["passWouldEndPhase"]
    diffs = []
    if not np.array_equal(ob, kbin):
        chans = sorted(set(np.nonzero(ob != kbin)[0].tolist()))
        pts = {c: [(p, int(ob[c][p]), int(kbin[c][p])) for p in np.nonzero(ob[c] != kbin[c])[0].tolist()] for c in chans}
        diffs.append(f"{g['game_id']} move {i + 1}: spatial channels (points) {pts}")
    if not np.array_equal(gl[0], kglob):
        which = np.nonzero(gl[0] != kglob)[0].tolist()
        diffs.append(f"{g['game_id']} move {i + 1}: globals {which}: oracle {gl[0][which]} kibo {kglob[which]}")
    return diffs
