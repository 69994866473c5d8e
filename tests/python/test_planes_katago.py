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
  it says the C++'s), and the C++'s two shortcuts at a defender node (the bounds on the
  liberties after its last listed move), which board.py lacks (`cpp_ladder`). A row whose
  ladder planes differ is recomputed with that test negated (`Board.hasLibertyGainingCaptures`
  is called nowhere else) and the shortcuts added, and must then agree;
* the superko bans of channel 6 under positional and situational ko (AGA, NZ,
  Tromp-Taylor), which features.py lacks: recomputed here on KataGo's Python board by the
  C++'s definition (`superko_bans`), against the positions up to 8 moves back as kibo
  does; rows where the whole game's history would ban more are counted and printed.
Each of these cases is counted, and the counts are asserted.
`test_superko_cycles_follow_the_cpp` checks the bans on constructed superko cycles
(the dev corpus has few or none), through the npz export and `kibo.features`.
"""
import json
import subprocess
import pathlib
import random
import sys

import numpy as np
import polars as pl
import pytest

from conftest import SHARED
from oracle_cache import OracleCache

ORACLE = SHARED.parent / "oracles" / "katago-python"
N_RANDOM = 4000
N_PER_CASE = 150
# kibo's superko window: a samples row rebuilds the boards up to 8 moves back.
SUPERKO_WINDOW = 8
SUPERKO = {"aga": "situational", "nz": "situational", "tt": "positional"}


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


class KoHistory:
    """KataGo's `koHashHistory` (`BoardHistory::clear`, `makeBoardMoveAssumeLegal` in
    cpp/game/boardhistory.cpp): the start position with the first player to move, then
    the position after every move (passes included) with the mover's opponent to move;
    the side to move counts under situational ko only. Positions are keyed by their
    cells, not board.py's zobrist (its `remove_unsafe` xors the captured stone's opposite
    colour's key, so a position reached through a capture hashes differently). Also the
    C++'s `wasEverOccupiedOrPlayed`."""

    def __init__(self, Board, board, kind, first_pla):
        self.Board, self.kind = Board, kind
        self.keys = [self.key(board, first_pla)]
        self.ever = {loc for loc in range(len(board.board)) if board.board[loc] in (Board.BLACK, Board.WHITE)}

    def key(self, board, to_move):
        return board.board.tobytes(), (to_move if self.kind == "situational" else 0)

    def push(self, board, mover, loc):
        self.keys.append(self.key(board, self.Board.get_opp(mover)))
        if loc != self.Board.PASS_LOC:
            self.ever.add(loc)


def superko_bans(Board, board, pla, hist, suicide_legal, window=None):
    """The C++'s `superKoBanned` points for `pla` on `board` (kibo points): every empty
    point that is not the simple-ko point nor an illegal suicide, was ever occupied or
    played (or the play is a suicide), and whose play gives a position in `hist` (its
    last `window` + 1 entries, the current one included, when given)."""
    keys = set(hist.keys if window is None else hist.keys[-(window + 1):])
    opp = Board.get_opp(pla)
    bans = set()
    for p in range(361):
        loc = board.loc(p % 19, p // 19)
        if board.board[loc] != Board.EMPTY or loc == board.simple_ko_point:
            continue
        suicide = board.would_be_suicide(pla, loc)
        if suicide and (not suicide_legal or board.would_be_single_stone_suicide(pla, loc)):
            continue
        if loc not in hist.ever and not suicide:
            continue
        after = board.copy()
        after.playUnsafe(pla, loc)
        if hist.key(after, opp) in keys:
            bans.add(p)
    return bans


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
        "superko_rules": np.array([i for i in range(n) if rules_of(ru[i]) in SUPERKO]),
    }
    # Two or more points in channel 6 under superko rules: a superko ban (a simple ko is
    # one point); every such row is checked.
    two = np.flatnonzero(np.unpackbits(bins[:, 6], axis=-1)[:, :361].sum(axis=1) >= 2)
    picked.update(i for i in two.tolist() if rules_of(ru[i]) in SUPERKO)
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
                            "cpp_pass_would_end_phase", "cpp_ladder_search", "superko_rules",
                            "cpp_superko", "cpp_superko_beyond_window"], 0)
    bad = []
    cache = OracleCache("planes-features-py", oracle_code(__file__))
    for gid, wanted in by_game.items():
        g = ginfo[gid]
        bad += check_game(Board, feat, GameState, g, sorted(wanted), bins, globs, counts, cache)
    cache.save()
    print(f"features.py answers: {cache.hits} games remembered, {cache.committed} committed, {cache.misses} asked "
          f"({cache.spot_checked} of them against the committed answers)")
    counts["rows"] = len(rows)
    print("katago-v7 coverage:", json.dumps({k: v for k, v in counts.items() if k != "superko_beyond"}))
    # The C++ sees the whole game; kibo the positions up to 8 moves back.
    print("superko bans beyond kibo's window (game, move, extra points):", counts.get("superko_beyond", []))
    assert not bad, f"{len(bad)} rows differ, first: {bad[:5]}"
    assert counts["rows"] >= 5000
    assert counts["superko_rules"] >= 100, counts
    for k in ["japanese", "chinese", "missing_rules", "handicap", "ko", "pass", "ladder_now", "ladder_prev",
              "ladder_prev2", "working", "area", "cpp_handicap_bonus", "cpp_hidden_history",
              "cpp_ladder_board_fallback", "cpp_pass_would_end_phase"]:
        assert counts[k] >= 10, (k, counts)


def ladder_only(ob, kbin):
    """The oracle's planes differ from kibo's only in the ladder planes 14-17."""
    return not np.array_equal(ob, kbin) and (ob[:14] == kbin[:14]).all() and (ob[18:] == kbin[18:]).all()


def check_game(Board, feat, GameState, g, wanted, bins, globs, counts, cache):
    """Checks the wanted rows `(move_number, npz row)` of `g` against features.py's
    answers (`oracle_game`), remembered in `cache` under the game and the move numbers.
    A remembered answer lacks the C++-ladder planes of a row where it did not need them;
    a row that needs them now asks the oracle again."""
    kbins = {mn: unpack(bins[r]) for mn, r in wanted}
    key = cache.key([g[k] for k in GAME_FIELDS], [mn for mn, _ in wanted])
    answers = cache.get(key)
    if answers is None or any(answers[mn]["cpp"] is None and ladder_only(planes(answers[mn]["ob"]), kbins[mn])
                              for mn, _ in wanted):
        answers = oracle_game(Board, feat, GameState, g, [mn for mn, _ in wanted],
                              lambda mn, ob: ladder_only(ob, kbins[mn]))
        cache.put(key, answers, same=same_answers)
    bad = []
    for mn, r in wanted:
        bad += check_row(g, mn - 1, answers[mn], kbins[mn], globs[r], counts)
    return bad


def same_answers(a, b):
    """Two `oracle_game` answers agree: every field of every row, the C++-ladder planes
    (`cpp`) where both have them."""
    def same(x, y):
        return np.array_equal(x, y) if isinstance(x, np.ndarray) or isinstance(y, np.ndarray) else x == y
    return a.keys() == b.keys() and all(
        a[mn].keys() == b[mn].keys()
        and all(same(a[mn][f], b[mn][f]) for f in a[mn] if f != "cpp" or (a[mn][f] is not None and b[mn][f] is not None))
        for mn in a)


# What `oracle_game` reads of a games-table row (the cache key).
GAME_FIELDS = ("game_id", "rules", "handicap", "komi", "setup_black", "setup_white", "colors", "moves")


def oracle_code(test_file):
    """The files whose code makes the oracle's answers: KataGo's Python and this test."""
    game = ORACLE / "katago" / "game"
    return [test_file, game / "features.py", game / "board.py", game / "gamestate.py",
            ORACLE / "katago" / "train" / "modelconfigs.py"]


def planes(packed):
    return np.unpackbits(packed, axis=-1)[:, :361]


def oracle_game(Board, feat, GameState, g, wanted, needs_cpp):
    """features.py's answer for each wanted move number of `g`, replayed on KataGo's
    board (copied only where a wanted row needs the boards one and two moves back): the
    planes (packed) and globals of `OracleRow.fill()`; with the C++'s ladder search too
    (`cpp`) where `needs_cpp(move_number, planes)`; and what the call was made of."""
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
    kind = SUPERKO.get(name)
    hist = KoHistory(Board, board, kind, Board.BLACK if colors[0] == "B" else Board.WHITE) if kind and moves else None
    need = {m - 1 - k for m in wanted for k in (1, 2)}
    kept = {}
    played = []
    answers = {}
    w = 0
    for i in range(len(moves)):
        while w < len(wanted) and wanted[w] == i + 1:
            boards = [None] * (i + 1)
            boards[i] = board
            for k in (1, 2):
                if i - k >= 0:
                    boards[i - k] = kept[i - k]
            answers[wanted[w]] = oracle_answer(Board, feat, board, boards, played, g, i, name, dict(rules), komi, hist,
                                               lambda ob: needs_cpp(wanted[w], ob))
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
        if hist:
            hist.push(board, pla, loc)
    return answers


DEFENDER_MOVES = """                if isDefender:
                    moveLists[stackIdx] = []
                    self.findLibertyGainingCaptures(loc,moveLists[stackIdx])
                    self.findLiberties(loc,moveLists[stackIdx])
"""
# The C++'s two shortcuts at a defender node (Board::searchIsLadderCaptured), which board.py
# lacks. They take the move list's last move for the defender's lone liberty; when that
# liberty is also a capture, findLiberties drops it as a duplicate and the last move is
# another capture (docs/planes.md, "Where features.py differs from the C++", item 9).
CPP_BOUNDS = """                    lo, up = cpp_bound_libs_after_play(self, moveLists[stackIdx][-1], pla)
                    if lo >= 3:
                        returnValue = False
                        returnedFromDeeper = True
                        stackIdx -= 1
                        continue
                    if len(moveLists[stackIdx]) == 1 and up <= 1:
                        returnValue = True
                        returnedFromDeeper = True
                        stackIdx -= 1
                        continue
"""


def cpp_bound_libs_after_play(board, loc, pla):
    """The C++'s `Board::getBoundNumLibertiesAfterPlay`: (lower, upper) bounds on the
    liberties of `pla`'s stone at `loc` (captures counted per direction)."""
    opp = board.get_opp(pla)
    immediate = caps = cap_stones = conn = max_conn = 0
    for d in board.adj:
        adj = loc + d
        c = board.board[adj]
        if c == board.EMPTY:
            immediate += 1
        elif c == opp and board.group_liberty_count[board.group_head[adj]] == 1:
            caps += 1
            cap_stones += board.group_stone_count[board.group_head[adj]]
        elif c == pla:
            libs = board.group_liberty_count[board.group_head[adj]] - 1
            conn += libs
            max_conn = max(max_conn, libs)
    return caps + max(max_conn, immediate), immediate + cap_stones + conn


def search_with_cpp_bounds(Board):
    """board.py's `searchIsLadderCaptured` with the C++'s defender shortcuts added."""
    import inspect
    import textwrap
    src = inspect.getsource(Board.searchIsLadderCaptured)
    assert src.count(DEFENDER_MOVES) == 1, "board.py's ladder search changed"
    src = textwrap.dedent(src.replace(DEFENDER_MOVES, DEFENDER_MOVES + CPP_BOUNDS))
    space = dict(sys.modules[Board.__module__].__dict__, cpp_bound_libs_after_play=cpp_bound_libs_after_play)
    exec(src, space)
    return space["searchIsLadderCaptured"]


class cpp_ladder:
    """Within it, board.py's ladder search behaves as the C++'s where asked: `double_ko`, its
    double-ko test negated (item 5); `bounds`, the C++'s defender shortcuts (item 9)."""
    patched = {}

    def __init__(self, Board, double_ko, bounds):
        self.Board, self.double_ko, self.bounds = Board, double_ko, bounds

    def __enter__(self):
        B = self.Board
        self.orig = (B.hasLibertyGainingCaptures, B.searchIsLadderCaptured)
        if self.double_ko:
            orig = self.orig[0]
            B.hasLibertyGainingCaptures = lambda board, loc: not orig(board, loc)
        if self.bounds:
            if B not in cpp_ladder.patched:
                cpp_ladder.patched[B] = search_with_cpp_bounds(B)
            B.searchIsLadderCaptured = cpp_ladder.patched[B]

    def __exit__(self, *exc):
        self.Board.hasLibertyGainingCaptures, self.Board.searchIsLadderCaptured = self.orig


class OracleRow:
    """features.py's row for position `i` of game `g` (on `board`, the boards before it in
    `all_boards`), called the way the C++ defines the row (the module docs): `fill()` gives
    the spatial planes (22 x 361, uint8, with the superko bans) and the globals, `fill(True)`
    the same with the C++'s double-ko test. Also keeps what the call was made of: `bans`,
    `bonus`, `hide`, `chain`."""

    def __init__(self, Board, feat, board, all_boards, played, g, i, name, rules, komi, hist):
        colors, moves = g["colors"], g["moves"]
        self.Board, self.feat, self.board, self.rules = Board, feat, board, rules
        self.pla = Board.BLACK if colors[i] == "B" else Board.WHITE
        self.opp = Board.get_opp(self.pla)
        # Superko bans: the C++ adds them to channel 6, features.py does not.
        suicide = bool(rules["multiStoneSuicideLegal"])
        self.bans = superko_bans(Board, board, self.pla, hist, suicide, SUPERKO_WINDOW) if hist else set()
        before = list(zip(colors[:i], moves[:i]))
        bonus = handicap_stones(g["setup_black"], g["setup_white"], before)
        self.bonus = bonus if name == "chinese" else max(bonus - 1, 0) if name == "aga" else 0
        rules["whiteKomi"] = komi + self.bonus
        friendly = name in ("chinese", "aga", "nz")
        self.hide = friendly and i >= 1 and moves[i - 1] == 361 and not (i >= 2 and moves[i - 2] == 361)
        self.chain = 0
        for k in range(1, min(5, i) + 1):
            expect = self.opp if k % 2 == 1 else self.pla
            if played[i - k][0] != expect:
                break
            self.chain = k
        if self.hide:
            self.boards, self.mvs, self.idx = [board], [], 0
        else:
            self.boards, self.mvs, self.idx = list(all_boards), list(played), i
            if i >= 1 and self.chain < 1:
                self.boards[i - 1] = board
            if i >= 2 and self.chain < 2:
                self.boards[i - 2] = self.boards[i - 1]
        rules["passWouldEndPhase"] = (not self.hide) and i >= 1 and moves[i - 1] == 361

    def fill(self, cpp_double_ko=False, cpp_bounds=False):
        b = np.zeros((1, 361, 22), np.float32)
        gl = np.zeros((1, 19), np.float32)
        with cpp_ladder(self.Board, cpp_double_ko, cpp_bounds):
            self.feat.fill_row_features(self.board, self.pla, self.opp, self.boards, self.mvs, self.idx, self.rules,
                                        b, gl, 0)
        ob = b[0].T.astype(np.uint8)
        if self.bans:
            ob[6, sorted(self.bans)] = 1
        return ob, gl[0]


def oracle_answer(Board, feat, board, all_boards, played, g, i, name, rules, komi, hist, needs_cpp):
    """features.py's row `i` of `g` (`OracleRow`), as `oracle_game` keeps it."""
    row = OracleRow(Board, feat, board, all_boards, played, g, i, name, rules, komi, hist)
    ob, gl = row.fill()
    beyond = None
    if hist:
        full = superko_bans(Board, board, row.pla, hist, bool(rules["multiStoneSuicideLegal"]))
        beyond = sorted(full - row.bans)
    cpp = np.packbits(row.fill(cpp_double_ko=True, cpp_bounds=True)[0], axis=-1) if needs_cpp(ob) else None
    return {"ob": np.packbits(ob, axis=-1), "gl": gl, "cpp": cpp, "bans": bool(row.bans), "bonus": row.bonus,
            "hide": row.hide, "chain": row.chain, "pass_ends": rules["passWouldEndPhase"], "superko_beyond": beyond}


def check_row(g, i, a, kbin, kglob, counts):
    """Row `i` of `g`: features.py's answer `a` against kibo's planes and globals; counts
    the cases it covers."""
    name = rules_of(g["rules"])
    if a["superko_beyond"] is not None:
        counts["superko_rules"] += 1
        counts["cpp_superko_beyond_window"] += bool(a["superko_beyond"])
        if a["superko_beyond"]:
            counts.setdefault("superko_beyond", []).append((g["game_id"], i + 1, a["superko_beyond"]))
    ob, gl = planes(a["ob"]), a["gl"][None]
    if ladder_only(ob, kbin):
        # The C++'s ladder search (its double-ko test and its defender shortcuts, see the
        # module docs), then compare again.
        ob = planes(a["cpp"])
        counts["cpp_ladder_search"] += bool(np.array_equal(ob, kbin))
    hide, chain = a["hide"], a["chain"]
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
    counts["cpp_handicap_bonus"] += a["bonus"] > 0
    counts["cpp_hidden_history"] += hide
    counts["cpp_ladder_board_fallback"] += (not hide) and i >= 1 and chain < min(i, 2)
    counts["cpp_pass_would_end_phase"] += a["pass_ends"]
    counts["cpp_superko"] += a["bans"]
    diffs = []
    if not np.array_equal(ob, kbin):
        chans = sorted(set(np.nonzero(ob != kbin)[0].tolist()))
        pts = {c: [(p, int(ob[c][p]), int(kbin[c][p])) for p in np.nonzero(ob[c] != kbin[c])[0].tolist()] for c in chans}
        diffs.append(f"{g['game_id']} move {i + 1}: spatial channels (points) {pts}")
    if not np.array_equal(gl[0], kglob):
        which = np.nonzero(gl[0] != kglob)[0].tolist()
        diffs.append(f"{g['game_id']} move {i + 1}: globals {which}: oracle {gl[0][which]} kibo {kglob[which]}")
    return diffs


# Three kos on the top edge (as src/features/tests.rs): walls, then the ko stones.
KO_WALLS = "AB[ba][ab][bc][ha][gb][hc][na][mb][nc]AW[ca][db][cc][ia][jb][ic][oa][pb][oc]"
SUPERKO_GAMES = {
    # The triple-ko cycle: W's capture at nb on move 6 would repeat the start (B to move).
    "triple_ko": KO_WALLS + "AW[bb]AB[ib]AW[nb];B[cb];W[hb];B[ob];W[bb];B[ib];W[kk];B[jj]",
    # B's capture at ib on move 6 repeats the board after move 1, B to move there: positional only.
    "positional_only": KO_WALLS + "AB[cb]AB[ib]AW[nb];W[bb];B[ob];W[hb];B[];W[nb];B[kk];W[jj]",
    # B ba on move 3 is a multi-stone suicide that repeats the start: positional only.
    "suicide": "AW[ab][bb][ca];B[aa];W[];B[jj];W[dd]",
}


def test_superko_cycles_follow_the_cpp(kibo, tmp_path):
    """Constructed superko cycles under each rule set, through `kibo run`, the npz export
    and `kibo.features`: channel 6 of every row is the simple-ko point plus the C++'s
    superko bans (`superko_bans` on KataGo's Python board), and the bans are there."""
    import importlib
    kibo_py = importlib.import_module("kibo")
    Board, _, GameState = oracle()
    sgfs = tmp_path / "sgf"
    sgfs.mkdir()
    for shape, moves in SUPERKO_GAMES.items():
        for k, ru in enumerate(("Tromp-Taylor", "AGA", "NZ", "Japanese", "Chinese")):
            # A last move of its own per rule set: the same moves would be a duplicate_game.
            name, colour = f"{shape}-{ru}.sgf", "W" if moves.rfind(";B[") > moves.rfind(";W[") else "B"
            sgf = f"(;GM[1]FF[4]SZ[19]KM[7.5]RU[{ru}]PB[{name}]RE[B+R]{moves};{colour}[{'abcde'[k]}s])"
            (sgfs / name).write_text(sgf)
    pipe = tmp_path / "p.toml"
    pipe.write_text('[filter]\nmin_moves = 1\n[split]\ndedup = "off"\nsplit_ratios = [0.5, 0.5, 0.0]\n')
    out, data = tmp_path / "out", tmp_path / "data"
    subprocess.run([kibo, "run", "--input", str(sgfs), "--pipeline", str(pipe), "--out", str(out), "-q", "--licence", "MIT"], check=True)
    subprocess.run([kibo, "export", "katago", "--out", str(out), "--to", str(data), "--seed", "7"], check=True)
    bins, _, trace = load_npz_rows(data)
    npz = {(g, m): i for i, (g, m) in enumerate(zip(trace["game_id"], trace["move_number"]))}
    table = pl.read_parquet(out / "samples" / "*.parquet")
    spatial, _ = kibo_py.features(table, "katago-v7")
    rows = {(g, m): i for i, (g, m) in enumerate(zip(table["game_id"], table["move_number"]))}
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games.height == 3 * 5
    banned = {}
    for g in games.iter_rows(named=True):
        name = rules_of(g["rules"])
        kind = SUPERKO.get(name)
        suicide = name in ("nz", "tt")
        board = Board(19)
        for p in g["setup_black"]:
            board.set_stone(Board.BLACK, board.loc(p % 19, p // 19))
        for p in g["setup_white"]:
            board.set_stone(Board.WHITE, board.loc(p % 19, p // 19))
        hist = KoHistory(Board, board, kind, Board.BLACK if g["colors"][0] == "B" else Board.WHITE)
        for i, (c, p) in enumerate(zip(g["colors"], g["moves"])):
            pla = Board.BLACK if c == "B" else Board.WHITE
            want = np.zeros(361, np.uint8)
            if board.simple_ko_point is not None:
                loc = board.simple_ko_point
                want[board.loc_y(loc) * 19 + board.loc_x(loc)] = 1
            bans = superko_bans(Board, board, pla, hist, suicide) if kind else set()
            assert bans == (superko_bans(Board, board, pla, hist, suicide, SUPERKO_WINDOW) if kind else set())
            want[sorted(bans)] = 1
            key = (g["game_id"], i + 1)
            got_npz = unpack(bins[npz[key]])[6]
            got_rows = spatial[rows[key], 6].reshape(361)
            assert (got_npz == want).all() and (got_rows == want).all(), (g["black_name"], i + 1, sorted(bans))
            if bans:
                banned[(g["black_name"], i + 1)] = sorted(bans)
            loc = Board.PASS_LOC if p == 361 else board.loc(p % 19, p // 19)
            board.play(pla, loc)
            hist.push(board, pla, loc)
    nb, ib, ba = 1 * 19 + 13, 1 * 19 + 8, 1
    assert banned == {
        **{(f"triple_ko-{ru}.sgf", 6): [nb] for ru in ("Tromp-Taylor", "AGA", "NZ")},
        ("positional_only-Tromp-Taylor.sgf", 6): [ib],
        ("suicide-Tromp-Taylor.sgf", 3): [ba],
    }, banned


def test_cpp_defender_bounds_on_the_edge_shape():
    """The shape of `features::tests::ladder_defender_bounds_read_the_last_capture_as_the_cpp`
    (docs/planes.md, "Where features.py differs", item 9): White S13 S12 on the right edge,
    White to move. board.py finds it laddered (as written and with the C++'s double-ko
    test); with the C++'s defender shortcuts (`cpp_ladder`) it is not, as in the C++ and
    kibo. The other chains are the same either way."""
    Board, feat, _ = oracle()
    b = Board(19)
    black = ["rf", "sf", "qg", "qh", "ri", "oj", "rj", "ok", "pl", "rl", "qm"]
    white = ["rg", "rh", "qi", "pj", "qj", "sj", "pk", "qk", "rk", "ql"]
    for colour, pts in ((Board.BLACK, black), (Board.WHITE, white)):
        for p in pts:
            b.set_stone(colour, b.loc(ord(p[0]) - 97, ord(p[1]) - 97))
    sgf = {b.loc(x, y): chr(97 + x) + chr(97 + y) for y in range(19) for x in range(19)}

    def ladders(double_ko, bounds):
        got = set()
        with cpp_ladder(Board, double_ko, bounds):
            feat.iterLadders(b, lambda loc, pos, working: got.add(sgf[loc]))
        return sorted(got)
    assert ladders(False, False) == ladders(True, False) == ["rg", "rh", "ri", "rj", "rl"]
    assert ladders(True, True) == ladders(False, True) == ["ri", "rj", "rl"]


def test_a_committed_answer_that_is_not_the_oracles_fails(tmp_path, monkeypatch):
    """The committed answers' spot check has teeth: a committed answer whose key is
    spot-checked is asked of the oracle again, and one that differs raises
    `AnswersDiffer`; one that is not spot-checked is taken as it is."""
    import oracle_cache
    code = tmp_path / "oracle.py"
    code.write_text("# the oracle\n")
    keys = [OracleCache.key(k) for k in range(64)]
    checked = next(k for k in keys if oracle_cache.spot_checked(k))
    unchecked = next(k for k in keys if not oracle_cache.spot_checked(k))
    monkeypatch.setattr(oracle_cache, "ANSWERS", tmp_path / "answers")
    monkeypatch.setenv("KIBO_ORACLE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KIBO_WRITE_ORACLE_ANSWERS", "1")
    writer = OracleCache("toy", [code])
    writer.put(checked, {1: {"ob": np.arange(3)}})
    writer.put(unchecked, {1: {"ob": np.arange(4)}})
    writer.save()
    monkeypatch.delenv("KIBO_WRITE_ORACLE_ANSWERS")
    monkeypatch.setenv("KIBO_ORACLE_CACHE", str(tmp_path / "empty"))
    reader = OracleCache("toy", [code])
    assert np.array_equal(reader.get(unchecked)[1]["ob"], np.arange(4)) and reader.committed == 1
    assert reader.get(checked) is None
    reader.put(checked, {1: {"ob": np.arange(3)}}, same=same_answers)
    with pytest.raises(oracle_cache.AnswersDiffer):
        reader.put(checked, {1: {"ob": np.arange(3) + 1}}, same=same_answers)
    code.write_text("# the oracle, changed\n")
    assert OracleCache("toy", [code]).get(unchecked) is None, "answers of other code are not taken"
