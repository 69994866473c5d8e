"""Writes tests/golden/<game>.txt: the final position of a real game computed by
sgfmill (an independent reader and board), used by the Rust golden tests.
Run: .venv/bin/python tests/python/make_golden.py  (outputs are committed)."""
import sys
from sgfmill import sgf, sgf_moves, boards

GAMES = ["Gosei-Gos23-T01.sgf", "Agon-Agon02-2.sgf", "under-the-stones.sgf", "1600JSTP06.sgf"]

def final(path):
    game = sgf.Sgf_game.from_bytes(open(path, "rb").read())
    board, plays = sgf_moves.get_setup_and_moves(game)
    caps = {"b": 0, "w": 0}
    for colour, mv in plays:
        if mv is None:
            continue
        row, col = mv
        before = sum(1 for (c, _) in board.list_occupied_points() if c != colour)
        board.play(row, col, colour)
        after = sum(1 for (c, _) in board.list_occupied_points() if c != colour)
        caps[colour] += before - after
    lines = []
    for r in range(19):  # our row 0 is the top; sgfmill's row 0 is the bottom
        srow = 18 - r
        lines.append("".join({None: ".", "b": "X", "w": "O"}[board.get(srow, c)] for c in range(19)))
    return len(plays), caps, lines

for name in GAMES:
    n, caps, lines = final(f"data/kombilo/{name}")
    with open(f"tests/golden/{name[:-4]}.txt", "w") as f:
        f.write(f"# final position after {n} moves, computed by sgfmill; prisoners B {caps['b']} W {caps['w']}\n")
        f.write("\n".join(lines) + "\n")
    print(name, n, caps)
