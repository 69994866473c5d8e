#!/usr/bin/env python3
"""A tiny GTP engine for the tests of `kibo match`'s HTML report: it plays a seeded random
point with an empty neighbour (never suicide, never a ko retake), and gives invalid answers
on a schedule: at every `--occupied-every N`-th move it first answers the point the
opponent just played (occupied), at the `--garbage-at M`-th move it first answers
`<script>alert("kibo")</script>` (unreadable); asked again, it answers a legal move.
Each invalid answer is appended to the file `--log` as `move_number kind answer` (the
move's number in the game), so a test can compare the report with what was given."""
import argparse
import random
import sys

COLS = "ABCDEFGHJKLMNOPQRST"
N = 19


def gtp_of(i):
    return f"{COLS[i % N]}{N - i // N}"


def index_of(text):
    t = text.strip().upper()
    if t == "PASS":
        return None
    return (N - int(t[1:])) * N + COLS.index(t[0])


def neighbours(i):
    r, c = divmod(i, N)
    return [(r + dr) * N + c + dc for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= r + dr < N and 0 <= c + dc < N]


def chain(board, i):
    seen, todo, libs = {i}, [i], False
    while todo:
        j = todo.pop()
        for k in neighbours(j):
            if board[k] == 0:
                libs = True
            elif board[k] == board[i] and k not in seen:
                seen.add(k)
                todo.append(k)
    return seen, libs


def play(board, colour, i):
    b = list(board)
    b[i] = colour
    for k in neighbours(i):
        if b[k] not in (0, colour):
            stones, libs = chain(b, k)
            if not libs:
                for s in stones:
                    b[s] = 0
    return b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--occupied-every", type=int, default=0)
    ap.add_argument("--garbage-at", type=int, default=0)
    ap.add_argument("--log", default=None)
    a = ap.parse_args()
    rng = random.Random(0)
    board, history, last = [0] * (N * N), [], None
    owed_legal = False
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, args, reply = words[0], words[1:], ""
        if cmd == "quit":
            print("=\n", flush=True)
            return
        if cmd == "list_commands":
            reply = "\n".join(["boardsize", "clear_board", "komi", "play", "genmove", "undo", "set_random_seed",
                               "list_commands", "quit"])
        elif cmd == "set_random_seed":
            rng = random.Random(int(args[0]))
        elif cmd == "clear_board":
            board, history, last = [0] * (N * N), [], None
        elif cmd == "play":
            colour, i = (1 if args[0].upper().startswith("B") else 2), index_of(args[1])
            history.append(board)
            if i is not None:
                board = play(board, colour, i)
            last = i
        elif cmd == "undo":
            board = history.pop() if history else board
        elif cmd == "genmove":
            colour = 1 if args[0].upper().startswith("B") else 2
            number = len(history) + 1
            bad = None
            if not owed_legal and a.garbage_at and number == a.garbage_at:
                bad, reply = "unreadable", '<script>alert("kibo")</script>'
            elif not owed_legal and a.occupied_every and number % a.occupied_every == 0 and last is not None:
                bad, reply = "occupied", gtp_of(last)
                history.append(board)  # kibo takes a move it read back with `undo`
            if bad:
                owed_legal = True
                if a.log:
                    with open(a.log, "a") as f:
                        f.write(f"{number} {bad} {reply}\n")
            else:
                owed_legal = False
                free = [i for i in range(N * N) if board[i] == 0 and any(board[k] == 0 for k in neighbours(i))]
                if free:
                    i = rng.choice(free)
                    history.append(board)
                    board, last, reply = play(board, colour, i), i, gtp_of(i)
                else:
                    history.append(board)
                    last, reply = None, "pass"
        elif cmd not in ("boardsize", "komi", "protocol_version", "name", "version"):
            print(f"? unknown command {cmd}\n", flush=True)
            continue
        print(f"= {reply}\n", flush=True)


if __name__ == "__main__":
    main()
