"""A stand-in vision-language model for `kibo match`'s `openai:URL` player: an
OpenAI-compatible chat-completions server (the standard library's ThreadingHTTPServer)
that reads the board off the picture it is sent and answers a random legal move of what it
read, in GTP notation (SGF letters with --sgf).

    python match_server.py [--seed S] [--record DIR] [--sgf] [--host 127.0.0.1] [--port 0]
                           [--flip SPECS] [--occupied SPECS] [--garbage SPECS]
                           [--pass SPECS] [--resign SPECS] [--malformed SPECS]
                           [--status500 SPECS] [--hang SPECS] [--hang-seconds 30]
                           [--flaky SPECS] [--flaky-times 2]

It prints `port N` (the port it listens on; --port 0 takes a free one) as its first line
of stdout, then serves until killed. POST any path ending in `chat/completions`. From a
test: `proc, url = match_server.spawn("--record", tmp / "rec", "--garbage", "5")`, then
`kibo match --player m=openai:URL ...`, then `proc.kill()`.

The request: `messages` = [system (optional)], one user turn whose content is
[{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}, {"type": "text", ...}],
`temperature` 0. Anything else is answered 400 (and recorded). The picture is read by
board_picture.Reader (docs/vlm.md's geometry; the cell size is the picture's side / 21);
the side to move from `Black to play` / `White to play` in the prompt (else Black when
the stones are even). A legal move is an empty point with an empty neighbour (never
suicide, never a ko retake, never an own one-point eye); with none, `pass`.

SPECS (for the answer plans): comma-separated `[GAME:]MOVE[@ATTEMPT]` with MOVE a 1-based
move number or `*` (every move) and ATTEMPT a number or `*` (default 0: the first asking
only). Game, move and attempt come from kibo's `X-Kibo-Game`, `X-Kibo-Move` and
`X-Kibo-Attempt` headers. A request that matches:
  --flip       the row-flipped point (row r -> 20 - r) of a legal move whose flip is occupied
               (an illegal answer of class row flip), and that legal move when asked again;
               with no such move, an occupied point
  --occupied   an occupied point (with none on the board: `pass`)
  --garbage    `I am not sure.` (does not parse)
  --pass / --resign   `pass` / `resign`
  --malformed  HTTP 200 with a body that has no `choices`
  --status500  HTTP 500
  --hang       sleeps --hang-seconds before answering (a timeout for the player)
  --flaky      HTTP 500 to the first --flaky-times requests of that (game, move, attempt),
               then an ordinary answer (kibo's HTTP retries get through)
The random move is seeded by (--seed, game, move, attempt), so answers do not depend on
the order concurrent requests arrive in.

--record DIR: every request is kept: `DIR/<n>.png` (the picture as received, byte for
byte) and one line of `DIR/requests.jsonl` (n, game, move, attempt, model, temperature,
seed, max_tokens, authorization (the header), system, prompt, png file, the board read: 19 strings of `.XO` from row
19, to_play, kind, answer, status, error).
"""
import argparse
import base64
import binascii
import io
import json
import pathlib
import random
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from board_picture import N, Reader  # noqa: E402

GTP_COLS = "ABCDEFGHJKLMNOPQRST"
KINDS = ["flip", "occupied", "garbage", "pass", "resign", "malformed", "status500", "hang"]


def parse_specs(text):
    """`[GAME:]MOVE[@ATTEMPT],...` -> [(game or None, move or '*', attempt or '*')]."""
    out = []
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        game, _, rest = part.rpartition(":")
        move, _, attempt = rest.partition("@")
        out.append((int(game) if game else None, move if move == "*" else int(move),
                    "*" if attempt == "*" else int(attempt or 0)))
    return out


def matches(specs, game, move, attempt):
    return any((g is None or g == game) and (m == "*" or m == move) and (a == "*" or a == attempt)
               for g, m, a in specs)


def write_point(p, sgf):
    r, c = p
    return f"{chr(97 + c)}{chr(97 + r)}" if sgf else f"{GTP_COLS[c]}{N - r}"


def neighbours(r, c):
    return [(y, x) for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= y < N and 0 <= x < N]


def legal_moves(board):
    """Empty points with an empty neighbour (board: N×N of 0/1/2)."""
    return [(r, c) for r in range(N) for c in range(N)
            if board[r][c] == 0 and any(board[y][x] == 0 for y, x in neighbours(r, c))]


def choose(board, kind, rng, sgf):
    """The answer text for `kind` (None: a random legal move), and for a flip the legal
    point it is the flip of (the move meant, answered when asked again)."""
    legal = legal_moves(board)
    occupied = [(r, c) for r in range(N) for c in range(N) if board[r][c] != 0]
    if kind == "garbage":
        return "I am not sure.", None
    if kind in ("pass", "resign"):
        return kind, None
    if kind == "flip":
        flips = [(r, c) for r, c in legal if board[N - 1 - r][c] != 0]
        if flips:
            r, c = rng.choice(flips)
            return write_point((N - 1 - r, c), sgf), (r, c)
        kind = "occupied"
    if kind == "occupied":
        return (write_point(rng.choice(occupied), sgf) if occupied else "pass"), None
    return (write_point(rng.choice(legal), sgf) if legal else "pass"), None


def completion(n, model, answer):
    """A chat.completion body with `answer` as the message."""
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 1, "total_tokens": 1},
    }


def check_request(req):
    """(system, prompt, png bytes) of a well-formed request; raises ValueError otherwise."""
    msgs = req.get("messages")
    if not isinstance(msgs, list) or not msgs:
        raise ValueError("no messages")
    system = None
    if msgs[0].get("role") == "system":
        system = msgs[0].get("content")
        msgs = msgs[1:]
    if len(msgs) != 1 or msgs[0].get("role") != "user":
        raise ValueError(f"expected one user turn, got {[m.get('role') for m in msgs]}")
    parts = msgs[0].get("content")
    if not (isinstance(parts, list) and len(parts) == 2 and parts[0].get("type") == "image_url"
            and parts[1].get("type") == "text"):
        raise ValueError("the user turn is not [image_url, text]")
    url = parts[0]["image_url"]["url"]
    prefix = "data:image/png;base64,"
    if not url.startswith(prefix):
        raise ValueError("the image is not a data:image/png;base64 URL")
    if req.get("temperature") != 0:
        raise ValueError(f"temperature {req.get('temperature')!r}, not 0")
    try:
        png = base64.b64decode(url[len(prefix):], validate=True)
    except binascii.Error as e:
        raise ValueError(f"bad base64: {e}") from e
    return system, parts[1]["text"], png


class State:
    def __init__(self, args):
        self.args = args
        self.plans = {k: parse_specs(getattr(args, k)) for k in KINDS}
        self.flaky = parse_specs(args.flaky)
        self.tries = {}  # (game, move, attempt) -> requests seen
        self.intended = {}  # (game, move) -> the legal point a flipped answer meant
        self.lock = threading.Lock()
        self.count = 0
        self.readers = {}
        self.record = pathlib.Path(args.record) if args.record else None
        if self.record:
            self.record.mkdir(parents=True, exist_ok=True)

    def kind(self, game, move, attempt):
        if move is None:
            return None
        return next((k for k in KINDS if matches(self.plans[k], game, move, attempt)), None)

    def read(self, png):
        """The board read off the picture: N lists of 0 (empty), 1 (black), 2 (white)."""
        side = Image.open(io.BytesIO(png)).size[0]
        cell = side // 21
        with self.lock:
            reader = self.readers.setdefault(cell, Reader(cell))
        return [list(map(int, row)) for row in reader.read(png).reshape(N, N)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, obj):
        body = json.dumps(obj).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout)

    def do_POST(self):
        st = self.server.state
        data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not self.path.rstrip("/").endswith("chat/completions"):
            return self.reply(404, {"error": {"message": f"no route {self.path}"}})
        header = lambda k: int(self.headers[k]) if self.headers.get(k, "").isdigit() else None  # noqa: E731
        game, move, attempt = header("X-Kibo-Game"), header("X-Kibo-Move"), header("X-Kibo-Attempt")
        with st.lock:
            n = st.count
            st.count += 1
        rec = {"n": n, "game": game, "move": move, "attempt": attempt,
               "authorization": self.headers.get("Authorization")}
        kind = st.kind(game, move, attempt or 0)
        rec["kind"] = kind
        try:
            req = json.loads(data)
            rec.update({k: req.get(k) for k in ("model", "temperature", "seed", "max_tokens")})
            system, prompt, png = check_request(req)
            rec.update(system=system, prompt=prompt)
            if st.record:
                (st.record / f"{n:06}.png").write_bytes(png)
                rec["png"] = f"{n:06}.png"
            board = st.read(png)
            rec["board"] = ["".join(".XO"[v] for v in row) for row in board]
        except (ValueError, KeyError, TypeError, AssertionError, OSError) as e:
            rec.update(status=400, error=f"{type(e).__name__}: {e}")
            self.save(rec)
            return self.reply(400, {"error": {"message": rec["error"]}})
        m = re.search(r"\b(Black|White) to play", prompt)
        stones = sum(v != 0 for row in board for v in row)
        to_play = m.group(1) if m else ("Black" if stones % 2 == 0 else "White")
        rec["to_play"] = to_play
        rng = random.Random(f"{st.args.seed}:{game}:{move}:{attempt}" if move is not None else png)
        if kind == "hang":
            # Recorded on arrival: the client has usually given up before the answer.
            rec.update(status="hang", answer=choose(board, None, rng, st.args.sgf)[0])
            self.save(rec)
            time.sleep(st.args.hang_seconds)
            return self.reply(200, completion(n, req.get("model"), rec["answer"]))
        with st.lock:
            seen = st.tries[(game, move, attempt)] = st.tries.get((game, move, attempt), 0) + 1
        if move is not None and matches(st.flaky, game, move, attempt or 0) and seen <= st.args.flaky_times:
            kind = rec["kind"] = "status500"
        if kind == "status500":
            rec["status"] = 500
            self.save(rec)
            return self.reply(500, {"error": {"message": "stand-in server error"}})
        if kind == "malformed":
            rec["status"] = 200
            self.save(rec)
            return self.reply(200, {"object": "chat.completion", "error": "no choices here"})
        with st.lock:
            meant = st.intended.pop((game, move), None) if kind is None and attempt else None
        if meant is not None:
            # Asked again after a flipped answer: the move it meant.
            answer = write_point(meant, st.args.sgf)
        else:
            answer, meant = choose(board, kind, rng, st.args.sgf)
            if meant is not None:
                with st.lock:
                    st.intended[(game, move)] = meant
                rec["meant"] = write_point(meant, st.args.sgf)
        rec.update(status=200, answer=answer)
        self.save(rec)
        self.reply(200, completion(n, req.get("model"), answer))

    def save(self, rec):
        st = self.server.state
        if st.record:
            with st.lock, open(st.record / "requests.jsonl", "a") as f:
                f.write(json.dumps(rec) + "\n")


def spawn(*args, python=sys.executable):
    """Starts this server as a child (`args`: its flags): `(Popen, URL)`, the URL of its
    chat-completions endpoint (`openai:URL`). The caller kills it (`proc.kill()`)."""
    import subprocess
    proc = subprocess.Popen([python, __file__, *map(str, args)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("port "):
        proc.kill()
        raise RuntimeError(f"match_server.py did not start: {line!r}")
    return proc, f"http://127.0.0.1:{int(line.split()[1])}/v1/chat/completions"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--record")
    p.add_argument("--sgf", action="store_true", help="answer in SGF letters")
    p.add_argument("--hang-seconds", type=float, default=30.0)
    p.add_argument("--flaky", default="", metavar="SPECS")
    p.add_argument("--flaky-times", type=int, default=2)
    for k in KINDS:
        p.add_argument(f"--{k}", default="", metavar="SPECS")
    args = p.parse_args(argv)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.state = State(args)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
