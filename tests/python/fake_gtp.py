"""A GTP engine for kibo match's tests: deterministic, fast, and misbehaving on request.

    python fake_gtp.py [--sleep S] [--die-at N] [--hang-at N] [--pass-only]
                       [--trick-every N] [--garbage-at N] [--always-garbage-at N] [--log FILE]

It plays the points in a fixed order (shuffled by `set_random_seed`), skipping those it
has seen played; it knows nothing of captures, so kibo may refuse a move (then `undo`
comes and it tries the next point). Turns count the moves it is asked for, not the
requests asked again after a refused answer.
- `--trick-every N`: every Nth turn it first answers an occupied point: the row flip of
  the move it means when that point is occupied, else the first occupied point; then, asked
  again, the move it meant. Each trick is logged to `--log` as a JSON line.
- `--garbage-at N`: at turn N it first answers text that is no move, then the move.
- `--always-garbage-at N`: at turn N every answer is garbage.
- `--die-at N` / `--hang-at N`: exits / sleeps forever at this process's Nth genmove.
- `--pass-only`: always passes.
"""
import argparse
import json
import random
import sys
import time

COLUMNS = "ABCDEFGHJKLMNOPQRST"
POINTS = [f"{c}{r}" for r in range(1, 20) for c in COLUMNS]


def row_flip(v):
    return f"{v[0]}{20 - int(v[1:])}"


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--die-at", "--hang-at", "--trick-every", "--garbage-at", "--always-garbage-at"):
        ap.add_argument(flag, type=int, default=0)
    ap.add_argument("--sleep", type=float, default=0.0)
    ap.add_argument("--pass-only", action="store_true")
    ap.add_argument("--log")
    a = ap.parse_args()
    order = list(POINTS)
    seen, stack = set(), []
    genmoves = turn = 0
    retry = False  # the next genmove asks again for the same turn
    intended = None

    def reply(text=""):
        sys.stdout.write(f"= {text}\n\n")
        sys.stdout.flush()

    def log(**kw):
        if a.log:
            with open(a.log, "a") as f:
                f.write(json.dumps(kw) + "\n")

    def next_free():
        return next((p for p in order if p not in seen), "pass")

    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        cmd, args = parts[0], parts[1:]
        if cmd == "quit":
            reply()
            return
        if cmd == "list_commands":
            reply("\n".join(["boardsize", "clear_board", "komi", "play", "genmove", "undo",
                             "set_random_seed", "list_commands", "quit"]))
        elif cmd == "set_random_seed":
            order = list(POINTS)
            random.Random(int(args[0])).shuffle(order)
            reply()
        elif cmd == "clear_board":
            seen, stack = set(), []
            reply()
        elif cmd == "play":
            retry = False  # a move was played: the next genmove is a new turn
            if args[1].lower() != "pass":
                seen.add(args[1].upper())
            stack.append(args[1].upper())
            reply()
        elif cmd == "undo":
            bad = stack.pop()
            retry = True
            if bad != intended:
                # kibo refused a move it meant: never try that point again in this game.
                seen.add(bad)
            reply()
        elif cmd == "genmove":
            genmoves += 1
            if genmoves == a.die_at:
                sys.exit(3)
            if genmoves == a.hang_at:
                time.sleep(3600)
            time.sleep(a.sleep)
            first = not retry
            retry = False
            if first:
                turn += 1
                intended = None
            if a.pass_only:
                move = "pass"
            elif a.always_garbage_at and turn == a.always_garbage_at:
                retry = True
                reply("I would rather not say")
                continue
            elif first and a.garbage_at and turn == a.garbage_at:
                retry = True
                log(turn=turn, kind="unreadable")
                reply("my move is the best one")
                continue
            elif first and a.trick_every and turn % a.trick_every == 0 and seen:
                intended = next_free()
                flipped = row_flip(intended) if intended != "pass" else None
                move = flipped if flipped in seen else sorted(seen)[0]
                log(turn=turn, kind="occupied", answer=move, meant=intended,
                    row_flip=(move == flipped))
            else:
                move = next_free()
            if move != "pass":
                seen.add(move)
            stack.append(move)
            reply(move)
        elif cmd in ("boardsize", "komi", "name", "version", "protocol_version"):
            reply("2" if cmd == "protocol_version" else "")
        else:
            sys.stdout.write("? unknown command\n\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
