"""examples/gtp_policy.py, the GTP engine of the net examples/train_policy.py saves, and
the `kibo.Game` it plays through (kibo-py: kibo's rules engine and feature sets): the
planes a game being played gives equal the shards' for the same positions; a session's
moves are legal under kibo's replay, follow the net and its rules (own eyes, ko, superko,
the pass), and are reproducible under a seed; GNU Go and the engine play a game."""
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
import torch

import kibo as kibo_py  # the package (`kibo` is the binary's fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = ROOT / "examples" / "gtp_policy.py"
sys.path.insert(0, str(ROOT / "examples"))
from train_policy import PolicyNet, load_net, save_net  # noqa: E402

# kibo's replay of a session's moves: every move legal under positional superko, a row each.
PIPELINE = '[filter]\nmin_moves = 1\n\n[split]\nsuperko = "positional"\ndedup = "off"\n'


def same_planes(game, color, row, at):
    """Asserts that `game`'s planes with `color` to move equal those of the samples row
    `row` (a one-row frame), in every registered feature set."""
    for name, (channels, _) in kibo_py.feature_sets().items():
        want_s, want_g = kibo_py.features(row, name)
        spatial, glob = game.planes(name, color)
        got = np.frombuffer(spatial, np.uint8).reshape(channels, 19, 19)
        assert (got == want_s[0]).all(), f"{at}, {name}: channels {sorted(set(np.nonzero(got != want_s[0])[0]))} differ"
        assert np.array_equal(np.array(glob, np.float32), want_g[0]), f"{at}, {name}: global values differ"


def test_game_planes_equal_the_shards_planes(sample_out):
    samples = pl.read_parquet(f"{sample_out}/samples/*.parquet").sort("game_id", "move_number")
    games = pl.read_parquet(f"{sample_out}/games/*.parquet")
    plain = games.filter((pl.col("setup_black").list.len() == 0) & (pl.col("setup_white").list.len() == 0)
                         & (pl.col("mid_setup").list.len() == 0) & pl.col("komi").is_not_null())
    rows = samples.join(plain.select("game_id"), on="game_id")
    # A ko to respect, captures to undo in the history, and late positions with 8 boards of it.
    chosen = pl.concat([rows.filter(pl.col("ko_point").is_not_null()).head(7),
                        rows.filter(pl.col("history_captures").list.len() > 0).head(7),
                        rows.filter(pl.col("move_number") > 150).gather_every(50).head(6)])
    assert chosen.height == 20
    by_id = {g["game_id"]: g for g in plain.iter_rows(named=True)}
    for i in range(chosen.height):
        one = chosen.slice(i, 1)
        row = one.row(0, named=True)
        g = by_id[row["game_id"]]
        game = kibo_py.Game(komi=g["komi"], rules=g["rules"], superko="off")
        for c, m in zip(g["colors"][:row["move_number"] - 1], g["moves"]):
            game.play(c, kibo_py.gtp_text(m))
        same_planes(game, "B" if row["to_play"] == 1 else "W", one, f"{row['game_id']} move {row['move_number']}")


def write_net(path, zero=False, pass_bias=0.0):
    """A small net of the example's shape (random weights, seeded; or all zero: every
    point's logit equal, so the engine's choice is the first point it may play)."""
    torch.manual_seed(0)
    net = PolicyNet(18, width=8, blocks=1)
    if zero:
        with torch.no_grad():
            for p in net.parameters():
                p.zero_()
            net.pass_logit.bias.fill_(pass_bias)
    save_net(net, path, "leela-18")
    return path


class Gtp:
    """A GTP engine as a child process: `ask` sends a command and returns (ok, text)."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)

    def ask(self, command):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        lines = [self.p.stdout.readline()]
        assert lines[0][:1] in ("=", "?"), f"{command}: {lines[0]!r}"
        while lines[-1].strip():
            lines.append(self.p.stdout.readline())
        text = "".join(lines).strip()
        return text[0] == "=", text[1:].strip()

    def ok(self, command):
        ok, text = self.ask(command)
        assert ok, f"{command}: ? {text}"
        return text

    def close(self):
        self.ask("quit")
        assert self.p.wait(timeout=30) == 0


def engine(net, *flags):
    return Gtp([sys.executable, str(ENGINE), "--net", str(net), *flags])


def sgf(gtp):
    return kibo_py.sgf_text(kibo_py.gtp_index(gtp))


def replays_under_kibo(kibo, moves, tmp_path, root="KM[7.5]"):
    """Asserts that kibo's replay (`kibo run`, positional superko) keeps the game of
    `moves` ((colour, GTP text)) after the root properties `root`, move by move;
    returns the output folder."""
    sgf_dir = tmp_path / "sgf"
    sgf_dir.mkdir(exist_ok=True)
    body = "".join(f";{c}[{sgf(m)}]" for c, m in moves)
    (sgf_dir / "session.sgf").write_text(f"(;GM[1]FF[4]SZ[19]{root}{body})")
    (tmp_path / "p.toml").write_text(PIPELINE)
    out = tmp_path / "out"
    subprocess.run([kibo, "run", "--input", str(sgf_dir), "--pipeline", str(tmp_path / "p.toml"), "--out", str(out),
                    "-q"], cwd=ROOT, check=True)
    rejects = pl.read_parquet(f"{out}/rejects/*.parquet") if list((out / "rejects").glob("*.parquet")) else None
    games = pl.read_parquet(f"{out}/games/*.parquet")
    assert rejects is None or rejects.height == 0, rejects.select("reason", "detail", "move_number").to_dicts()
    assert games["num_moves"].to_list() == [len(moves)]
    return out


def test_a_session_is_legal_under_kibo_and_its_commands_work(kibo, tmp_path):
    e = engine(write_net(tmp_path / "net.pt"))
    assert e.ok("protocol_version") == "2" and e.ok("name") == "kibo-policy-net"
    assert e.ok("known_command genmove") == "true" and e.ok("known_command showboard") == "false"
    assert {"genmove", "play", "undo", "set_random_seed"} <= set(e.ok("list_commands").split())
    assert e.ask("showboard") == (False, "unknown command")
    assert e.ask("boardsize 9") == (False, "unacceptable size")
    assert e.ask("7 boardsize 19") == (True, "7")  # the id comes back
    e.ok("komi 6.5")
    e.ok("play b D4")
    assert e.ask("play w D4") == (False, "illegal move")
    assert e.ask("play w Z4")[0] is False and e.ask("play x D5")[0] is False
    moves = [("B", "D4")]
    for i in range(60):
        c = "W" if i % 2 == 0 else "B"
        moves.append((c, e.ok(f"genmove {c}")))
    # undo takes the last move back: the same move comes again (temperature 0).
    last = moves[-1]
    e.ok("undo")
    assert e.ok(f"genmove {last[0]}") == last[1]
    replays_under_kibo(kibo, moves, tmp_path)
    # clear_board empties the board and its history: after D4, White's first answer again.
    e.ok("clear_board")
    assert e.ask("undo") == (False, "cannot undo")
    e.ok("play b D4")
    assert e.ok("genmove w") == moves[1][1]
    e.close()


def test_a_handicap_game_gives_the_planes_of_its_rows(kibo, tmp_path):
    # Handicap stones are a setup (AB, HA), as in a record: the rows `kibo run` makes of
    # the session's record have the planes the Game gives before each move.
    e = engine(write_net(tmp_path / "net.pt"))
    e.ok("komi 0.5")
    assert e.ask("set_free_handicap D4") == (False, "bad vertex list")
    assert e.ask("set_free_handicap D4 D4") == (False, "bad vertex list")
    stones = ["D4", "Q16", "D16"]
    e.ok("set_free_handicap " + " ".join(stones))
    assert e.ask("set_free_handicap Q4 K10") == (False, "board not empty")
    moves = [(c, e.ok(f"genmove {c}")) for c in "WB" * 15]
    e.close()
    out = replays_under_kibo(kibo, moves, tmp_path, "KM[0.5]HA[3]AB" + "".join(f"[{sgf(v)}]" for v in stones))
    rows = pl.read_parquet(f"{out}/samples/*.parquet").sort("move_number")
    assert rows["move_number"].to_list() == list(range(1, 31))
    for i in range(rows.height):
        game = kibo_py.Game(komi=0.5)
        game.place_handicap(stones)
        for c, m in moves[:i]:
            game.play(c, m)
        same_planes(game, moves[i][0], rows.slice(i, 1), f"move {i + 1}")


def test_genmove_keeps_to_legal_moves_that_fill_no_own_eye(tmp_path):
    e = engine(write_net(tmp_path / "zero.pt", zero=True))
    # Every logit equal: the first point the side may play, A19 on the empty board.
    assert e.ok("genmove b") == "A19"
    # A19 becomes Black's one-point eye: Black does not fill it, White may not (suicide).
    e.ok("clear_board")
    e.ok("play b B19")
    e.ok("play b A18")
    assert e.ok("genmove b") == "C19"
    e.ok("undo")
    assert e.ok("genmove w") == "C19"
    # A ko: Black B19 takes White A19; White may not take back at once (D19, the next point).
    e.ok("clear_board")
    for c, m in [("b", "A18"), ("w", "A19"), ("w", "C19"), ("w", "B18"), ("b", "B19")]:
        e.ok(f"play {c} {m}")
    assert e.ask("play w A19") == (False, "illegal move")
    assert e.ok("genmove w") == "D19"
    # After two passes the ko is open, but taking back repeats the whole board: positional
    # superko bans it; with --superko off (simple ko only) it is the first point.
    e.ok("undo")
    e.ok("play w pass")
    e.ok("play b pass")
    assert e.ok("genmove w") == "D19"
    e.close()
    off = engine(tmp_path / "zero.pt", "--superko", "off")
    for c, m in [("b", "A18"), ("w", "A19"), ("w", "C19"), ("w", "B18"), ("b", "B19"), ("w", "pass"), ("b", "pass")]:
        off.ok(f"play {c} {m}")
    assert off.ok("genmove w") == "A19"
    off.close()
    # The pass wins when its logit is above every point's.
    p = engine(write_net(tmp_path / "pass.pt", zero=True, pass_bias=1.0))
    assert p.ok("genmove b") == "pass"
    p.close()


def test_set_random_seed_makes_the_draws_reproducible(tmp_path):
    net = write_net(tmp_path / "net.pt")

    def draws(e, seed):
        e.ok("clear_board")
        e.ok(f"set_random_seed {seed}")
        return [e.ok(f"genmove {'bw'[i % 2]}") for i in range(12)]

    e = engine(net, "--temperature", "1")
    a, b, c = draws(e, 7), draws(e, 7), draws(e, 8)
    e.close()
    assert a == b and a != c
    # A second process with --seed 7 draws the same moves.
    f = engine(net, "--temperature", "1", "--seed", "7")
    assert [f.ok(f"genmove {'bw'[i % 2]}") for i in range(12)] == a
    f.close()


def test_train_policy_saves_a_net_the_engine_plays(sample_out, tmp_path):
    # A few seconds of training in another feature set than the default: the file names it.
    path = tmp_path / "a48.pt"
    subprocess.run([sys.executable, str(ROOT / "examples/train_policy.py"), str(sample_out), "--minutes", "0.03",
                    "--features", "alphago-48", "--val-positions", "100", "--save", str(path)], cwd=ROOT, check=True)
    net, features = load_net(path)
    assert features == "alphago-48" and (net.channels_in, net.width, net.blocks) == (48, 32, 4)
    e = engine(path)
    assert e.ok("version") == "alphago-48 32x4"
    game = kibo_py.Game()
    for c in "bwbw":
        game.play(c, e.ok(f"genmove {c}"))  # kibo's rules accept each
    e.close()
    torch.save({"state_dict": {}}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a net"):
        load_net(tmp_path / "other.pt")


def gnugo_binary():
    for p in (shutil.which("gnugo"), "/usr/games/gnugo"):
        if p and pathlib.Path(p).exists():
            return p
    pytest.fail("gnugo not found (PATH, /usr/games): install the Debian package gnugo (`make debs`)", pytrace=False)


def test_gnugo_and_the_net_play_a_game(kibo, tmp_path):
    net = engine(write_net(tmp_path / "net.pt"))
    gnugo = Gtp([gnugo_binary(), "--mode", "gtp", "--level", "1"])
    for e in (net, gnugo):
        e.ok("boardsize 19")
        e.ok("clear_board")
        e.ok("komi 7.5")
    players = {"B": (gnugo, net), "W": (net, gnugo)}
    moves = []
    for i in range(80):
        c = "BW"[i % 2]
        mover, other = players[c]
        m = mover.ok(f"genmove {c}").upper()
        if m == "RESIGN":
            break
        m = "pass" if m == "PASS" else m
        other.ok(f"play {c} {m}")  # each accepts the other's move
        moves.append((c, m))
        if len(moves) >= 2 and moves[-1][1] == moves[-2][1] == "pass":
            break
    assert len(moves) >= 40, moves
    net.close()
    gnugo.close()
    replays_under_kibo(kibo, moves, tmp_path)
