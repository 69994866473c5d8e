"""A GTP engine for the policy net examples/train_policy.py trains and saves (`--save`):

    .venv/bin/python examples/train_policy.py out/dev --minutes 3 --save policy.pt
    .venv/bin/python examples/gtp_policy.py --net policy.pt [--seed S] [--temperature T]
    kibo match --to DIR --player net=gtp:.venv/bin/python examples/gtp_policy.py --net policy.pt ...

The rules are kibo's, through the `kibo` package (kibo-py): `kibo.Game` plays and checks
every move on kibo's engine, lists the moves a player may choose and gives the planes of
the position in the net's feature set, the same planes a samples row of the game gives.
`genmove` plays the net's most probable move among the legal ones that do not fill the
mover's own one-point eye, or passes when nothing else is left or the pass is more
probable; with `--temperature T > 0` it draws from softmax(logits / T) over the same
moves and the pass, seeded (`--seed`, `set_random_seed`). It never resigns. 19×19 only.
docs/match-policy-net.md lists the commands.
"""
import argparse
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from train_policy import load_net  # noqa: E402 (the net's definition lives beside this file)

import kibo  # noqa: E402

PASS = 361
COMMANDS = ["protocol_version", "name", "version", "known_command", "list_commands", "boardsize", "clear_board",
            "komi", "set_free_handicap", "play", "genmove", "undo", "set_random_seed", "quit"]


class GtpError(Exception):
    """A command that fails: answered `? message`."""


class Engine:
    """The GTP commands of one session (see the module docs)."""

    def __init__(self, net, features, superko="positional", seed=0, temperature=0.0):
        self.net, self.features, self.temperature = net, features, temperature
        self.game = kibo.Game(komi=7.5, superko=superko)
        self.rng = np.random.default_rng(seed)
        self.quit = False

    def choose(self, color):
        """The move index `color` plays now (see the module docs)."""
        moves = self.game.candidates(color)
        if not moves:
            return PASS
        spatial, _ = self.game.planes(self.features, color)
        x = torch.from_numpy(np.frombuffer(spatial, np.uint8).astype(np.float32).reshape(1, -1, 19, 19))
        with torch.no_grad():
            logits = self.net(x)[0].double().numpy()
        index = np.array(moves + [PASS])
        if self.temperature > 0:
            z = logits[index] / self.temperature
            p = np.exp(z - z.max())
            return int(self.rng.choice(index, p=p / p.sum()))
        best = int(index[np.argmax(logits[index[:-1]])])  # ties: the first point
        return PASS if logits[PASS] > logits[best] else best

    def run(self, command, args):
        """The answer to one command (text after `=`), or GtpError."""
        if command not in COMMANDS:
            raise GtpError("unknown command")
        if command == "protocol_version":
            return "2"
        if command == "name":
            return "kibo-policy-net"
        if command == "version":
            return f"{self.features} {self.net.width}x{self.net.blocks}"
        if command == "known_command":
            return "true" if args and args[0] in COMMANDS else "false"
        if command == "list_commands":
            return "\n".join(COMMANDS)
        if command == "quit":
            self.quit = True
            return ""
        return getattr(self, command)(args)

    def boardsize(self, args):
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("boardsize not an integer")
        if int(args[0]) != 19:
            raise GtpError("unacceptable size")
        self.game.clear()
        return ""

    def clear_board(self, args):
        self.game.clear()
        return ""

    def komi(self, args):
        try:
            self.game.komi = float(args[0])
        except (IndexError, ValueError):
            raise GtpError("komi not a float")
        return ""

    def set_free_handicap(self, args):
        if len(args) < 2:
            raise GtpError("bad vertex list")
        try:
            self.game.place_handicap(args)
        except ValueError as e:
            raise GtpError("board not empty" if "not empty" in str(e) else "bad vertex list")
        return ""

    def play(self, args):
        if len(args) != 2:
            raise GtpError("invalid color or coordinate")
        try:
            self.game.play(*args)
        except ValueError as e:
            raise GtpError("illegal move" if "illegal move" in str(e) else "invalid color or coordinate")
        return ""

    def genmove(self, args):
        if len(args) != 1:
            raise GtpError("invalid color")
        try:
            move = kibo.gtp_text(self.choose(args[0]))
            self.game.play(args[0], move)
        except ValueError:
            raise GtpError("invalid color")
        return move

    def undo(self, args):
        if not self.game.undo():
            raise GtpError("cannot undo")
        return ""

    def set_random_seed(self, args):
        try:
            self.rng = np.random.default_rng(int(args[0]))
        except (IndexError, ValueError):
            raise GtpError("seed not an integer")
        return ""


def serve(engine, stdin, stdout):
    """Reads commands from `stdin` and answers on `stdout` until `quit` or the end of input."""
    for line in stdin:
        line = "".join(ch for ch in line.split("#", 1)[0] if ch in "\t\n" or ch >= " ").replace("\t", " ").strip()
        if not line:
            continue
        words = line.split()
        ident = words.pop(0) if words[0].isdigit() else ""
        if not words:
            continue
        try:
            stdout.write(f"={ident} {engine.run(words[0].lower(), words[1:])}".rstrip(" ") + "\n\n")
        except GtpError as e:
            stdout.write(f"?{ident} {e}\n\n")
        stdout.flush()
        if engine.quit:
            return


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", required=True, help="a net examples/train_policy.py --save wrote")
    ap.add_argument("--seed", type=int, default=0, help="seed of the draws with --temperature (default 0)")
    ap.add_argument("--temperature", type=float, default=0.0,
                    help="0 (default): the most probable move; T > 0: draw from softmax(logits / T)")
    ap.add_argument("--superko", default="positional", choices=["positional", "situational", "off"],
                    help="the repetition rule of play and genmove (default positional; off: simple ko only)")
    a = ap.parse_args()
    torch.set_num_threads(1)  # one engine a game; games run side by side
    net, features = load_net(a.net)
    serve(Engine(net, features, a.superko, a.seed, a.temperature), sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
