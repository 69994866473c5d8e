"""`kibo match` with an `openai:URL` player: whole games through pixels and HTTP.

The stand-in server (match_server.py) reads the board off every picture it is sent and
answers a random legal move of what it read. Every picture must be the one `kibo export
vlm` draws for that position, byte for byte, and the board read must be the position's.
Answers it plans (a row-flipped point, an occupied point, garbage) must be counted exactly,
by kind and class, in match.json.
"""
import json
import pathlib
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import match_server  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
PICTURE = ["--layout", "qwen", "--mix", "next-move=1", "--cell-px", "28", "--last-moves", "3", "--symmetries", "1"]


@pytest.fixture
def server(tmp_path):
    procs = []

    def start(*flags):
        proc, url = match_server.spawn("--record", tmp_path / "rec", *flags)
        procs.append(proc)
        return url
    yield start
    for p in procs:
        p.kill()
        p.wait()


def vlm_set(kibo, sample_out, tmp_path):
    """The picture options a model was trained on: a set's vlm.json."""
    dest = tmp_path / "set"
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(dest), *PICTURE,
                    "--limit", "20", "-q"], check=True)
    return dest


def requests(tmp_path):
    return [json.loads(line) for line in (tmp_path / "rec" / "requests.jsonl").read_text().splitlines()]


def test_whole_games_go_through_pixels_and_http(kibo, sample_out, server, tmp_path):
    url = server("--seed", "3")
    to = tmp_path / "m"
    r = subprocess.run([kibo, "match", "--to", str(to), "--player", f"vlm=openai:{url} model=stand-in",
                        "--player", "r=random", "--games", "2", "--max-moves", "60", "--count-stopped", "reference",
                        "--vlm-set", str(vlm_set(kibo, sample_out, tmp_path))], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    reqs = requests(tmp_path)
    assert len(reqs) == 60 and all(q["status"] == 200 and q["model"] == "stand-in" for q in reqs)
    assert report_of(to)["players"][0]["invalid"] == {k: 0 for k in report_of(to)["players"][0]["invalid"]}
    # The same games through kibo run and kibo export vlm: one row per position.
    out, exp = tmp_path / "out", tmp_path / "exp"
    subprocess.run([kibo, "run", "--input", str(to / "games"), "--out", str(out), "-q",
                    "--pipeline", str(HERE / "match_all_train.toml")], check=True)
    subprocess.run([kibo, "export", "vlm", "--out", str(out), "--to", str(exp), *PICTURE, "--limit", "0", "-q"],
                   check=True)
    file_of = {g["game_id"]: int(pathlib.Path(g["source_file"]).stem) for g in pq.read_table(out / "games").to_pylist()}
    rows = {}
    for line in (exp / "train.jsonl").read_text().splitlines():
        j = json.loads(line)
        rows[(file_of[j["game_id"]], j["move_number"])] = j
    boards = {}
    for s in pq.read_table(out / "samples", columns=["game_id", "move_number", "board"]).to_pylist():
        boards[(file_of[s["game_id"]], s["move_number"])] = s["board"]
    for q in reqs:
        key = (q["game"], q["move"])
        row = rows[key]
        assert (tmp_path / "rec" / q["png"]).read_bytes() == (exp / row["image"]).read_bytes(), key
        assert q["prompt"] == row["conversations"][0]["value"].removeprefix("<image>\n"), key
        truth = ["".join(".XO"[v] for v in boards[key][r * 19:(r + 1) * 19]) for r in range(19)]
        assert q["board"] == truth, key


def report_of(to):
    return json.loads((to / "match.json").read_text())


def test_planned_wrong_answers_are_counted_by_kind_and_class(kibo, server, tmp_path):
    url = server("--seed", "4", "--flip", "0:9,0:15,1:10", "--occupied", "0:21,1:14", "--garbage", "1:20")
    to = tmp_path / "m"
    r = subprocess.run([kibo, "match", "--to", str(to), "--player", f"vlm=openai:{url}", "--player", "r=random",
                        "--games", "2", "--max-moves", "40", "--count-stopped", "reference"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    reqs = requests(tmp_path)
    planned = {k: sum(q["kind"] == k for q in reqs) for k in ("flip", "occupied", "garbage")}
    # Each planned move is one the model is asked (its colour's move numbers).
    assert planned == {"flip": 3, "occupied": 2, "garbage": 1}, planned
    flips = [q for q in reqs if q["kind"] == "flip"]
    assert all("meant" in q for q in flips), "a flip fell back to an occupied point: choose other moves"
    vlm = report_of(to)["players"][0]
    assert vlm["invalid"]["occupied"] == 5 and vlm["invalid"]["unreadable"] == 1
    assert vlm["invalid_classes"]["row_flip"] == 3
    assert sum(vlm["invalid_classes"].values()) == 5
    assert vlm["requests"] == 2 * 20 + 6  # 20 moves a game, and each wrong answer asked again


def test_a_hung_endpoint_is_an_error_game_and_exit_3(kibo, server, tmp_path):
    url = server("--hang", "0:3@*", "--hang-seconds", "5")
    to = tmp_path / "m"
    r = subprocess.run([kibo, "match", "--to", str(to), "--player", f"vlm=openai:{url}", "--player", "r=random",
                        "--games", "2", "--max-moves", "10", "--timeout", "0.5", "--http-retries", "1",
                        "--count-stopped", "reference"], capture_output=True, text=True)
    assert r.returncode == 3, (r.stdout, r.stderr)
    rep = report_of(to)
    assert (rep["played"], rep["errors"]) == (1, 1)
    err = json.loads((to / "records" / "00000.json").read_text())["error"]
    assert "timeout" in err.lower() or "timed out" in err.lower(), err
    assert "1 of 2 games ended in an error" in r.stderr
