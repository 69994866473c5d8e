"""Does KataGo's one shared board copy in `iterLadders` change any ladder answer?

KataGo's `iterLadders` (features.py, and the C++ `nninputs.cpp`) runs the ladder search
of every chain with 1 or 2 liberties, in row order from the top, on ONE copy of the
board, so whatever a search leaves in that copy reaches the next chain's search. This
harness generates positions and compares, on channels 14 (laddered stones) and 17 (the
side to move's working moves):

* features.py on the shared copy against a fresh copy per chain, with board.py's
  double-ko test as written (`plain`) and negated as the C++ has it (`neg`,
  docs/planes.md "Where features.py differs from the C++", item 5), and the copy's
  state after every search against the board's (stones, each chain's liberties and
  stones, the ko point, the bookkeeping at index 0 that an emptied point reads);
* kibo (`kibo.features(rows, "katago-v7")`, the venv's kibo-py; a row with the last move
  in its history, so that the board has its ko state) against features.py `neg`;
* with `--cpp`: KataGo's C++ (`checks/ladder_iterladders.cpp`, built with g++ from
  ../shared/oracles/katago-cpp) on the shared copy against fresh copies, and against kibo.

The positions: `corner` is the shape of issue 41 item 5 (White A3 B2 A1 in atari on A2,
Black B1 capturable at C1 as a ko) with random stones around it; `random` is random
stones in a 6x6 corner; each may end with a ko capture (a simple-ko point on the board)
and is turned by one of the 8 symmetries (the search order changes with it).

    .venv/bin/python checks/ladder_shared_copy.py [N] [SEED] [--cpp]

Findings (2026-12-05): no difference between the shared and the fresh copies, in
features.py or in the C++, and kibo equals the C++ and features.py `neg` everywhere;
features.py `plain` differs on most `corner` positions (the double-ko test's sense).
The one leak of the shared copy is the C++'s after a node-budget give-up (`--cpp` also
runs `budget_case`: KataGo's "Failing polynomial ladder" board with a ko below it; see
docs/planes.md, "The ladder channels and KataGo's shared copy").
"""
import os
import pathlib
import random
import re
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
ORACLES = ROOT.parent / "shared" / "oracles"
if os.environ.get("SHARED"):
    ORACLES = pathlib.Path(os.environ["SHARED"]).parent / "oracles"
sys.path.insert(0, str(ORACLES / "katago-python"))
from katago.game.board import Board, IllegalMoveError  # noqa: E402

COLS = "ABCDEFGHJKLMNOPQRST"


def name(b, loc):
    """GTP name of `loc` (row 1 at the bottom)."""
    return COLS[b.loc_x(loc)] + str(b.y_size - b.loc_y(loc))


def gtp(b, g):
    return b.loc(COLS.index(g[0]), b.y_size - int(g[1:]))


def show(b, rows=8):
    """The lower-left corner of `b` (`*`: the simple-ko point)."""
    out = []
    for y in range(b.y_size - rows, b.y_size):
        r = str(b.y_size - y).rjust(2) + " "
        for x in range(rows):
            loc = b.loc(x, y)
            c = b.board[loc]
            r += ("X" if c == 1 else "O" if c == 2 else "*" if loc == b.simple_ko_point else ".") + " "
        out.append(r)
    out.append("   " + " ".join(COLS[:rows]))
    return "\n".join(out)


def with_double_ko_test(neg):
    """A context manager: board.py's double-ko test as written, or negated (the C++)."""
    class Ctx:
        def __enter__(self):
            self.orig = Board.hasLibertyGainingCaptures
            if neg:
                orig = self.orig
                Board.hasLibertyGainingCaptures = lambda board, loc: not orig(board, loc)

        def __exit__(self, *exc):
            Board.hasLibertyGainingCaptures = self.orig
    return Ctx()


def state_diff(a, b):
    """What differs between the states of boards `a` and `b`, as far as a search reads."""
    d = []
    if a.simple_ko_point != b.simple_ko_point:
        d.append(("ko", a.simple_ko_point, b.simple_ko_point))
    if (a.board != b.board).any():
        d.append("stones")
    for arr in ("group_liberty_count", "group_stone_count"):
        if getattr(a, arr)[0] != getattr(b, arr)[0]:
            d.append((arr, 0))
    for y in range(a.y_size):
        for x in range(a.x_size):
            loc = a.loc(x, y)
            if a.board[loc] in (1, 2):
                for arr in ("group_liberty_count", "group_stone_count"):
                    va = getattr(a, arr)[a.group_head[loc]]
                    vb = getattr(b, arr)[b.group_head[loc]]
                    if va != vb:
                        d.append((arr, name(a, loc), int(va), int(vb)))
    return d


def planes(b, pla, neg, shared=True, leaks=None):
    """Channels 14 and 17 of features.py's `iterLadders` on `b` with `pla` to move, as
    sets of point names; `shared`: one copy for every search (KataGo), else a fresh copy
    per chain. `leaks` (a list) gets what each search left different in the copy."""
    with with_double_ko_test(neg):
        ch14, ch17 = set(), set()
        copy = b.copy()
        solved = {}
        for y in range(b.y_size):
            for x in range(b.x_size):
                loc = b.loc(x, y)
                if b.board[loc] not in (1, 2):
                    continue
                libs = b.num_liberties(loc)
                if libs not in (1, 2):
                    continue
                head = b.group_head[loc]
                if head not in solved:
                    c = copy if shared else b.copy()
                    if libs == 1:
                        wm, laddered = [], c.searchIsLadderCaptured(loc, True)
                    else:
                        wm = c.searchIsLadderCapturedAttackerFirst2Libs(loc)
                        laddered = len(wm) > 0
                    solved[head] = laddered
                    if laddered and b.board[loc] != pla:
                        ch17 |= {name(b, m) for m in wm}
                    if leaks is not None:
                        d = state_diff(b, c)
                        if d:
                            leaks.append((name(b, loc), d))
                if solved[head]:
                    ch14.add(name(b, loc))
        return ch14, ch17


# ---------------------------------------------------------------- positions

def corner_position(rng, size=19):
    """Issue 41 item 5's shape: White A3 B2 A1 in atari on A2, Black B1 capturable at C1
    (as a ko when Black has D1), then random stones in the 7x7 corner; None when a random
    stone broke the shape."""
    b = Board(size)
    fixed = {"A4": 1, "B3": 1, "C2": 1, "B1": 1, "A3": 2, "B2": 2, "A1": 2}
    if rng.random() < 0.7:
        fixed["D1"] = 1
    for g, c in fixed.items():
        b.play(c, gtp(b, g))
    keep = set(fixed) | {"A2", "C1"}
    pts = [(x, size - 1 - y) for x in range(7) for y in range(7)]
    for _ in range(rng.randint(0, 18)):
        loc = b.loc(*rng.choice(pts))
        if name(b, loc) in keep:
            continue
        try:
            b.play(rng.choice((1, 2)), loc)
        except IllegalMoveError:
            pass
    return b if all(b.board[gtp(b, g)] == c for g, c in fixed.items()) else None


def random_position(rng, size=19, span=6):
    """Random legal plays in the lower-left span x span corner."""
    b = Board(size)
    pts = [(x, size - 1 - y) for x in range(span) for y in range(span)]
    for _ in range(rng.randint(4, span * span * 2 // 3)):
        try:
            b.play(rng.choice((1, 2)), b.loc(*rng.choice(pts)))
        except IllegalMoveError:
            pass
    return b


def with_ko(gen):
    """`gen`, then a random ko capture when there is one (the board keeps its simple-ko
    point; `b.last` = (colour, point, board before) for the row's history)."""
    def g(rng):
        b = gen(rng)
        if b is None:
            return None
        kos = [(pla, b.loc(x, y)) for y in range(b.y_size) for x in range(b.x_size) for pla in (1, 2)
               if b.board[b.loc(x, y)] == 0 and b.would_be_legal(pla, b.loc(x, y))
               and b.wouldBeKoCapture(b.loc(x, y), pla)]
        if kos:
            pla, loc = rng.choice(kos)
            before = b.copy()
            b.play(pla, loc)
            b.last = (pla, loc, before)
        return b
    return g


def transformed(gen):
    """`gen`'s position under a random one of the 8 symmetries."""
    def g(rng):
        b = gen(rng)
        if b is None:
            return None
        s, n = rng.randrange(8), b.x_size

        def t(x, y):
            if s & 4:
                x, y = y, x
            if s & 2:
                x = n - 1 - x
            if s & 1:
                y = n - 1 - y
            return x, y

        def remap(src):
            out = Board(n)
            for y in range(n):
                for x in range(n):
                    if src.board[src.loc(x, y)]:
                        out.set_stone(int(src.board[src.loc(x, y)]), out.loc(*t(x, y)))
            return out
        last = getattr(b, "last", None)
        if last is None:
            return remap(b)
        pla, loc, before = last
        nb = remap(before)
        mloc = nb.loc(*t(before.loc_x(loc), before.loc_y(loc)))
        after = nb.copy()
        after.play(pla, mloc)
        after.last = (pla, mloc, nb)
        return after
    return g


def positions(n, seed, kind="corner"):
    gen = {"corner": corner_position, "random": random_position}[kind]
    gen = transformed(with_ko(gen))
    rng = random.Random(seed)
    return [b for b in (gen(rng) for _ in range(n)) if b is not None]


def to_play_of(b):
    """The sides to move a row of `b` can have: the last mover's opponent, else both."""
    last = getattr(b, "last", None)
    return (3 - last[0],) if last else (1, 2)


# ---------------------------------------------------------------- kibo

def kibo_rows(boards, to_play):
    """A samples table of KataGo boards (the last move, when known, as the history)."""
    import pyarrow as pa
    cells, kos, hist, caps = [], [], [], []
    for b in boards:
        c = bytearray(361)
        for y in range(19):
            for x in range(19):
                c[y * 19 + x] = int(b.board[b.loc(x, y)])
        cells.append(bytes(c))
        k = b.simple_ko_point
        kos.append(None if k is None else b.loc_y(k) * 19 + b.loc_x(k))
        last = getattr(b, "last", None)
        if last is None:
            hist.append([])
            caps.append([])
        else:
            _, mloc, before = last
            hist.append([b.loc_y(mloc) * 19 + b.loc_x(mloc)])
            caps.append(sorted((int(before.board[before.loc(x, y)]) << 9) | (y * 19 + x)
                               for y in range(19) for x in range(19)
                               if before.board[before.loc(x, y)] != b.board[b.loc(x, y)]
                               and before.loc(x, y) != mloc))
    n = len(boards)
    return pa.table({
        "game_id": [f"g{i}" for i in range(n)], "move_number": [1] * n, "board": cells,
        "to_play": to_play, "ko_point": kos, "history": hist, "history_captures": caps,
        "prisoners_black": [0] * n, "prisoners_white": [0] * n, "move": [361] * n, "komi": [7.5] * n,
        "handicap": [0] * n, "rules": ["Japanese"] * n, "winner": ["B"] * n, "black_rank_num": [0] * n,
        "white_rank_num": [0] * n, "date": [None] * n, "split": ["train"] * n,
        "move_dist_moves": [[] for _ in range(n)], "move_dist_counts": [[] for _ in range(n)],
    })


def kibo_planes(boards, to_play):
    """kibo's channels 14 and 17 of each board, `to_play[i]` to move, as name sets."""
    import kibo
    spatial, _ = kibo.features(kibo_rows(boards, to_play), "katago-v7")
    out = []
    for i, b in enumerate(boards):
        def pts(ch):
            ys, xs = np.nonzero(spatial[i, ch])
            return {name(b, b.loc(x, y)) for y, x in zip(ys, xs)}
        out.append((pts(14), pts(17)))
    return out


# ---------------------------------------------------------------- KataGo's C++

def build_cpp(work=pathlib.Path("/tmp/kibo-ladder-cpp")):
    """checks/ladder_iterladders.cpp built against the KataGo tarball (~10 s)."""
    exe = work / "iterladders"
    src = ROOT / "checks" / "ladder_iterladders.cpp"
    if exe.exists() and exe.stat().st_mtime > src.stat().st_mtime:
        return exe
    tar = next((ORACLES / "katago-cpp").glob("katago-*-cpp.tar.gz"))
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "xzf", str(tar), "-C", str(work)], check=True)
    cpp = next(work.glob("katago-*/cpp"))
    units = ["game/board.cpp"] + [f"core/{u}.cpp" for u in ("global", "hash", "rand", "test", "md5", "sha2",
                                                             "timer", "bsearch")]
    subprocess.run(["g++", "-O2", "-std=c++17", "-DNDEBUG", f"-I{cpp}", "-o", str(exe), str(src)]
                   + [str(cpp / u) for u in units], check=True)
    return exe


def cpp_planes(exe, boards, to_play):
    """The C++'s (shared, fresh) channels 14 and 17 of each board, and its leak notes."""
    lines = []
    for b in boards:
        last = getattr(b, "last", None)
        base = last[2] if last else b
        toks = [str(b.x_size)] + [f"s {int(base.board[base.loc(x, y)])} {x} {y}"
                                  for y in range(19) for x in range(19) if base.board[base.loc(x, y)]]
        if last:
            toks.append(f"p {last[0]} {base.loc_x(last[1])} {base.loc_y(last[1])}")
        lines.append(" ".join(toks))
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()

    def parse(b, s, pla):
        ch14, ch17 = set(), set()
        for m in re.finditer(r"(\d+),(\d+)\[(\d)([^\]]*)\]", s):
            x, y, c = int(m.group(1)), int(m.group(2)), int(m.group(3))
            loc, cur = b.loc(x, y), b.loc(x, y)
            while True:  # every stone of the chain
                ch14.add(name(b, cur))
                cur = b.group_next[cur]
                if cur == loc:
                    break
            if c != pla:
                ch17 |= {COLS[int(w.split(",")[0])] + str(b.y_size - int(w.split(",")[1])) for w in m.group(4).split()}
        return ch14, ch17
    return [(parse(b, out[3 * i], p), parse(b, out[3 * i + 1], p), "LEAK" in out[3 * i])
            for i, (b, p) in enumerate(zip(boards, to_play))]


BUDGET_BOARD = """
X.OOOOX.OOOOX.OOOOO
OXXXXOOXXXXOOXXXXXO
OX..XXOX..XXOX...XO
O....XOX...XOX...XO
......OX....OX...XO
.................XO
...............XXOO
...............OOOX
................XX.
.................XO
.................XO
.................XO
...............XXOO
...............OOOX
................XX.
.................XO
.................XO
.X...X..........X.O
...............OOO.
""".split()


def budget_case(budget=True):
    """KataGo's "Failing polynomial ladder due to max node budget" board, Black B16 (the
    white A18 chain in atari: its search runs out of budget), and a ko taken by Black at
    B5 lower down (White to move); as features::tests::ladder_budget_give_up_drops_the_ko_
    ban_for_later_chains."""
    b = Board(19)
    for y, line in enumerate(BUDGET_BOARD):
        for x, ch in enumerate(line):
            if ch in "XO":
                b.set_stone(1 if ch == "X" else 2, b.loc(x, y))
    for g, c in [("A5", 2), ("A6", 1), ("A4", 1), ("B6", 2), ("C5", 2), ("B4", 2), ("A8", 2), ("B7", 2)]:
        b.set_stone(c, gtp(b, g))
    if budget:
        b.play(1, gtp(b, "B16"))
    before = b.copy()
    b.play(1, gtp(b, "B5"))
    b.last = (1, gtp(b, "B5"), before)
    return b


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 1000
    seed = int(args[1]) if len(args) > 1 else 1
    for kind in ("corner", "random"):
        boards = positions(n, seed, kind)
        rows = [(b, p) for b in boards for p in to_play_of(b)]
        counts = dict.fromkeys(["rows", "shared!=fresh plain", "shared!=fresh neg", "state leaks", "plain!=neg",
                                "kibo!=neg"], 0)
        counts["rows"] = len(rows)
        shown = 0
        ks = kibo_planes([b for b, _ in rows], [p for _, p in rows])
        for (b, pla), k in zip(rows, ks):
            leaks = []
            plain, neg = planes(b, pla, False, True, leaks), planes(b, pla, True)
            counts["state leaks"] += bool(leaks)
            counts["shared!=fresh plain"] += plain != planes(b, pla, False, False)
            counts["shared!=fresh neg"] += neg != planes(b, pla, True, False)
            counts["plain!=neg"] += plain != neg
            counts["kibo!=neg"] += k != neg
            if k != neg and shown < 3:
                shown += 1
                print(show(b), "\n kibo", k, "\n neg ", neg, "\n plain", plain)
        if "--cpp" in sys.argv:
            exe = build_cpp()
            cs = cpp_planes(exe, [b for b, _ in rows], [p for _, p in rows])
            counts["cpp shared!=fresh"] = sum(s != f for s, f, _ in cs)
            counts["cpp ko leaks"] = sum(leak for _, _, leak in cs)
            counts["cpp!=kibo"] = sum(s != k for (s, _, _), k in zip(cs, ks))
        print(kind, counts)
    if "--cpp" in sys.argv:
        for budget in (True, False):
            b = budget_case(budget)
            (shared, fresh, leak), = cpp_planes(build_cpp(), [b], [2])
            print("budget case" if budget else "without B16", "C++ shared", shared, "fresh", fresh,
                  "ko leaked" if leak else "", "kibo", kibo_planes([b], [2])[0])


if __name__ == "__main__":
    main()
