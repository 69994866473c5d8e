"""`kibo export vlm`: every picture, read back pixel by pixel, shows exactly its board;
every answer, parsed back, is exactly its move; the files load in the trainers' readers.

Independent of kibo's code: the picture's geometry is the one docs/vlm.md states
(intersection (row, col) of a picture with cells of c px has its centre pixel at
x = c·(col + 1) + c/2, y = c·(row + 1) + c/2, row 0 at the top), points are read at the four
diagonal pixels (±d, ±d) with d = round(0.31·c) (inside a stone, outside the ko square, the
previous-move ring and the grid lines), the symmetries are KataGo's (bit 0 flips rows,
bit 1 flips columns, bit 2 transposes, flips first), and GTP/SGF are parsed here.
"""
import collections
import json
import pathlib
import subprocess

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from PIL import Image

from board_picture import Reader

N = 19
GTP_COLS = "ABCDEFGHJKLMNOPQRST"
ROWS = 20000


def export(kibo, out, to, *args, check=True):
    cmd = [kibo, "export", "vlm", "--out", str(out), "--to", str(to), "-q", *map(str, args)]
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


@pytest.fixture(scope="module")
def vlm_gtp(kibo, dev_out, tmp_path_factory):
    """20,000 dev rows, every task, 32-px cells, GTP, Parquet layout, symmetries."""
    to = tmp_path_factory.mktemp("vlm") / "gtp"
    export(kibo, dev_out, to, "--limit", ROWS, "--seed", 3, "--mix", "next-move=0.5,transcribe=0.25,tactics=0.25",
           "--symmetries", 8, "--last-moves", 2)
    return to


@pytest.fixture(scope="module")
def vlm_sgf(kibo, dev_out, tmp_path_factory):
    """20,000 dev rows, every task, 28-px cells, SGF answers, Qwen layout, symmetries."""
    to = tmp_path_factory.mktemp("vlm") / "sgf"
    export(kibo, dev_out, to, "--limit", ROWS, "--seed", 4, "--mix", "next-move=0.4,transcribe=0.3,tactics=0.3",
           "--symmetries", 8, "--cell-px", 28, "--answer", "sgf", "--layout", "qwen", "--last-moves", 3)
    return to


def parquet_rows(dest):
    rows = []
    for split in ("train", "val"):
        for f in sorted((dest / split).glob("*.parquet")):
            t = pq.read_table(f)
            for r in t.to_pylist():
                r["png"] = r["images"][0]["bytes"]
                r["user"] = [m["content"] for m in r["messages"] if m["role"] == "user"][0]
                rows.append(r)
    return rows


def qwen_rows(dest):
    rows = []
    for split in ("train", "val"):
        for line in (dest / f"{split}.jsonl").read_text().splitlines():
            r = json.loads(line)
            conv = r["conversations"]
            assert [c["from"] for c in conv] == ["human", "gpt"], conv
            assert conv[0]["value"].startswith("<image>\n") and conv[0]["value"].count("<image>") == 1
            path = dest / r["image"]
            assert path.is_file(), f"{r['image']} does not resolve"
            r["png"] = path.read_bytes()
            r["prompt"] = conv[0]["value"][len("<image>\n"):]
            r["answer"] = conv[1]["value"]
            r["split"] = split
            rows.append(r)
    return rows


def samples_of(dev_out, rows):
    """The dev samples of the exported rows, by (game_id, move_number)."""
    ids = sorted({r["game_id"] for r in rows})
    t = pq.read_table(dev_out / "samples", columns=["game_id", "move_number", "board", "to_play", "move",
                                                     "history", "tags", "split"],
                      filters=[("game_id", "in", ids)])
    out = {}
    for r in t.to_pylist():
        out[(r["game_id"], r["move_number"])] = r
    return out


def sym_point(row, col, s):
    x = N - 1 - col if s & 2 else col
    y = N - 1 - row if s & 1 else row
    return (x, y) if s & 4 else (y, x)


# For each symmetry, where `sym_point` sends each point (row-major index), computed once.
SYM_INDEX = [np.array([rr * N + cc for r in range(N) for c in range(N) for rr, cc in [sym_point(r, c, s)]])
             for s in range(8)]


def sym_board(board, s):
    out = np.zeros(N * N, dtype=np.uint8)
    out[SYM_INDEX[s]] = np.frombuffer(board, dtype=np.uint8)
    return out.reshape(N, N)


def move_point(index, s):
    """(row, col) of move index `index` under symmetry s; None for a pass."""
    if index == N * N:
        return None
    return sym_point(index // N, index % N, s)


def parse_gtp(text):
    if text == "pass":
        return None
    col = GTP_COLS.index(text[0])
    row = N - int(text[1:])
    assert 0 <= row < N and len(text) <= 3, text
    return (row, col)


def parse_sgf(text):
    if text == "pass":
        return None
    assert len(text) == 2, text
    col, row = ord(text[0]) - ord("a"), ord(text[1]) - ord("a")
    assert 0 <= row < N and 0 <= col < N, text
    return (row, col)


def atari_chains(board):
    """Independent: chains with exactly one liberty, as (colour, sorted points)."""
    seen = np.zeros((N, N), dtype=bool)
    chains = []
    for r in range(N):
        for c in range(N):
            colour = board[r, c]
            if colour == 0 or seen[r, c]:
                continue
            stack, stones, libs = [(r, c)], [], set()
            seen[r, c] = True
            while stack:
                y, x = stack.pop()
                stones.append((y, x))
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < N and 0 <= nx < N:
                        if board[ny, nx] == 0:
                            libs.add((ny, nx))
                        elif board[ny, nx] == colour and not seen[ny, nx]:
                            seen[ny, nx] = True
                            stack.append((ny, nx))
            if len(libs) == 1:
                chains.append((int(colour), sorted(stones)))
    return sorted(chains, key=lambda ch: (ch[0], ch[1][0]))


def write_point(p, notation):
    if notation == "gtp":
        return f"{GTP_COLS[p[1]]}{N - p[0]}"
    return chr(ord("a") + p[1]) + chr(ord("a") + p[0])


def check_rows(rows, samples, cell, notation):
    reader = Reader(cell)
    parse = parse_gtp if notation == "gtp" else parse_sgf
    tasks = collections.Counter()
    questions = collections.Counter()
    for r in rows:
        key = (r["game_id"], r["move_number"])
        s = samples[key]
        sym = r["symmetry"]
        assert s["split"] == r["split"]
        want = sym_board(s["board"], sym)
        seen = reader.read(r["png"])
        assert (seen == want).all(), f"{key} symmetry {sym}: the picture shows another board " \
            f"({int((seen != want).sum())} points differ)"
        side = "Black" if s["to_play"] == 1 else "White"
        task = r["task"]
        tasks[task] += 1
        prompt, answer = r["prompt"], r["answer"]
        mv = move_point(s["move"], sym)
        if task == "next-move":
            assert f"{side} to play" in prompt, prompt
            got = parse(answer)
            assert got == mv, f"{key}: answer {answer} is not the move {mv}"
            if mv is not None:
                assert seen[mv] == 0, f"{key}: the answer {answer} is not an empty point of the picture"
            # The last moves, oldest first, are the history under the symmetry.
            hist = s["history"][:2 if notation == "gtp" else 3]
            if hist:
                listed = prompt.split("The last moves were ")[1].split(".")[0].split(", ")
                assert [parse(w.split(" ")[1]) for w in listed] == [move_point(h, sym) for h in reversed(hist)]
        elif task == "transcribe":
            lines = answer.split("\n")
            assert lines[0] == "   " + GTP_COLS and len(lines) == 20
            text = np.array([[{"X": 1, "O": 2, ".": 0}[ch] for ch in line[3:]] for line in lines[1:]])
            assert [line[:2] for line in lines[1:]] == [f"{N - k:>2}" for k in range(N)]
            assert (text == want).all(), f"{key}: the transcription is not the board"
        else:
            q = r["question"]
            questions[q] += 1
            tags = s["tags"] or []
            if q == "atari":
                chains = atari_chains(want)
                expect = "; ".join(("B " if c == 1 else "W ") + " ".join(write_point(p, notation) for p in pts)
                                   for c, pts in chains) or "none"
                assert answer == expect, f"{key}: atari {answer!r}, expected {expect!r}"
            else:
                assert mv is not None, "a pass is asked about atari only"
                assert f"{side} plays {write_point(mv, notation)}." in prompt, prompt
                tag = "capture" if q == "capture" else "ladder_capture"
                assert answer == ("yes" if tag in tags else "no"), (key, q, answer, tags)
    assert set(tasks) == {"next-move", "transcribe", "tactics"}, tasks
    assert set(questions) == {"atari", "capture", "ladder"}, questions
    return tasks


def test_every_picture_and_answer_of_a_32px_gtp_export(vlm_gtp, dev_out):
    rows = parquet_rows(vlm_gtp)
    assert len(rows) == ROWS
    assert {r["split"] for r in rows} == {"train", "val"}
    assert len({r["symmetry"] for r in rows}) == 8
    assert all(r["user"] == "<image>" + r["prompt"] for r in rows)
    tasks = check_rows(rows, samples_of(dev_out, rows), 32, "gtp")
    meta = json.loads((vlm_gtp / "vlm.json").read_text())
    assert meta["tasks"] == dict(tasks)
    assert meta["rows"]["train"] + meta["rows"]["val"] == ROWS
    assert meta["picture_px"] == 672


def test_every_picture_and_answer_of_a_28px_sgf_qwen_export(vlm_sgf, dev_out):
    rows = qwen_rows(vlm_sgf)
    assert len(rows) == ROWS
    check_rows(rows, samples_of(dev_out, rows), 28, "sgf")


def test_datasets_loads_images_with_no_cast_and_llamafactory_entries_resolve(vlm_gtp, tmp_path):
    import datasets
    ds = datasets.load_dataset(str(vlm_gtp), cache_dir=str(tmp_path / "hf"))
    assert set(ds) == {"train", "validation"}
    f = ds["train"].features
    assert isinstance(f["images"], datasets.List) and isinstance(f["images"].feature, datasets.Image)
    row = ds["validation"][0]
    img = row["images"][0]
    assert isinstance(img, Image.Image) and img.size == (672, 672)
    assert [m["role"] for m in row["messages"]] == ["user", "assistant"]
    info = json.loads((vlm_gtp / "dataset_info.json").read_text())
    assert set(info) == {"kibo_go_train", "kibo_go_val"}
    for entry in info.values():
        path = vlm_gtp / entry["file_name"]
        assert path.is_dir() and list(path.glob("*.parquet")), path
        assert entry["formatting"] == "sharegpt"
        cols = pq.read_schema(next(path.glob("*.parquet"))).names
        assert set(entry["columns"].values()) <= set(cols)


def test_qwen_layout_dataset_info_names_existing_files(vlm_sgf):
    info = json.loads((vlm_sgf / "dataset_info.json").read_text())
    for entry in info.values():
        path = vlm_sgf / entry["file_name"]
        assert path.is_file(), path
        first = json.loads(path.read_text().splitlines()[0])
        assert set(entry["columns"].values()) <= set(first)


def tree(dest):
    return {p.relative_to(dest).as_posix(): p.read_bytes() for p in sorted(dest.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("layout,board", [("parquet", "picture"), ("qwen", "picture"), ("parquet", "text"),
                                          ("qwen", "text"), ("parquet", "both")])
def test_byte_identical_with_one_and_two_threads(kibo, sample_out, tmp_path, layout, board):
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--limit", 1500, "--seed", 9, "--mix", "next-move=2,transcribe=1,tactics=1", "--symmetries", 8,
              "--layout", layout, "--rows-per-file", 400, "--board", board]
    export(kibo, sample_out, a, "--threads", 1, *common)
    export(kibo, sample_out, b, "--threads", 2, *common)
    ta, tb = tree(a), tree(b)
    assert ta.keys() == tb.keys() and len(ta) > 3
    assert [k for k in ta if ta[k] != tb[k]] == []
    # A rerun over an existing export replaces it whole.
    export(kibo, sample_out, b, "--threads", 2, *common)
    assert tree(b) == ta


def test_limit_draws_a_superset_and_tag_keeps_tagged_rows(kibo, sample_out, tmp_path):
    small, large, tagged = tmp_path / "s", tmp_path / "l", tmp_path / "t"
    export(kibo, sample_out, small, "--limit", 200, "--seed", 5)
    export(kibo, sample_out, large, "--limit", 800, "--seed", 5)
    keys = lambda d: {(r["game_id"], r["move_number"]) for r in parquet_rows(d)}
    assert keys(small) < keys(large) and len(keys(small)) == 200
    export(kibo, sample_out, tagged, "--limit", 0, "--tag", "capture", "--tag", "atari")
    rows = parquet_rows(tagged)
    assert rows and all({"capture", "atari"} & set(r["tags"]) for r in rows)
    all_rows = pq.read_table(sample_out / "samples", columns=["tags", "split"]).to_pylist()
    expect = sum(1 for r in all_rows if r["split"] in ("train", "val") and {"capture", "atari"} & set(r["tags"]))
    assert len(rows) == expect


@pytest.mark.parametrize("bad,word", [
    (["--cell-px", 27], "--cell-px"),
    (["--cell-px", 24], "--cell-px"),
    (["--symmetries", 4], "--symmetries"),
    (["--mix", "next-move=1,guess=1"], "guess"),
    (["--mix", "next-move=0"], "--mix"),
    (["--tag", "nosuch"], "nosuch"),
    (["--last-moves", 9], "--last-moves"),
    (["--layout", "qwen", "--system", "You read Go boards."], "system turn"),
])
def test_bad_options_are_refused_before_anything_is_written(kibo, sample_out, tmp_path, bad, word):
    to = tmp_path / "dest"
    r = export(kibo, sample_out, to, *bad, check=False)
    assert r.returncode == 2, r.stderr
    assert word in r.stderr
    assert not to.exists()


def test_a_template_with_an_unknown_placeholder_is_a_located_error(kibo, sample_out, tmp_path):
    p = tmp_path / "p.toml"
    p.write_text('[export.vlm]\nnext_move = "{side} to play, {colour}"\n')
    r = subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(tmp_path / "d"),
                        "--pipeline", str(p)], capture_output=True, text=True)
    assert r.returncode == 2 and "{colour}" in r.stderr and "p.toml" in r.stderr, r.stderr
    p.write_text('[export.vlm]\nsystem = "You read Go boards."\nnext_move = "{side} to move (move {move_number})."\n')
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(tmp_path / "d"), "--pipeline",
                    str(p), "--limit", "5", "-q"], check=True)
    rows = parquet_rows(tmp_path / "d")
    for r in rows:
        assert r["messages"][0] == {"role": "system", "content": "You read Go boards."}
        assert r["prompt"].endswith(f"to move (move {r['move_number']}).")


# Text boards (`--board text|both`, docs/vlm.md "Text boards"): parsed here, independently
# of kibo's code, from the prompt's grid and its sentence.

def parse_text_board(prompt):
    """The grid of a text board in `prompt`: the letters' line, then 19 rows of 19 points
    separated by spaces, each row its number first; (board, the line after the grid)."""
    lines = prompt.split("\n")
    head = "   " + " ".join(GTP_COLS)
    assert lines.count(head) == 1, prompt
    k = lines.index(head)
    rows = lines[k + 1:k + 1 + N]
    assert [r[:3] for r in rows] == [f"{N - i:>2} " for i in range(N)], prompt
    cells = [r[3:].split(" ") for r in rows]
    assert all(len(c) == N and all(len(p) == 1 for p in c) for c in cells), prompt
    board = np.array([[{"X": 1, "O": 2, ".": 0}[p] for p in c] for c in cells])
    return board, lines[k + 1 + N]


def check_text_rows(rows, samples, notation):
    """Every row's text board is its sample's board under the row's symmetry, with the last
    move and the ko point in words; the side to move is named (all but transcribe rows)."""
    kos = 0
    for r in rows:
        key = (r["game_id"], r["move_number"])
        s, sym, prompt = samples[key], r["symmetry"], r["prompt"]
        board, words = parse_text_board(prompt)
        assert (board == sym_board(s["board"], sym)).all(), f"{key} symmetry {sym}: the text board is another board"
        side, opp = ("Black", "White") if s["to_play"] == 1 else ("White", "Black")
        assert words.startswith("X is Black, O is White, . is empty. "), words
        if not s["history"]:
            assert "No move has been played yet." in words, (key, words)
        elif s["history"][0] == N * N:
            assert f"The last move was a pass by {opp}." in words, (key, words)
        else:
            last = write_point(move_point(s["history"][0], sym), notation)
            assert f"The last move was {opp} {last}." in words, (key, words)
        if s["ko_point"] is None:
            assert "may not take the ko" not in words, (key, words)
        else:
            kos += 1
            ko = write_point(move_point(s["ko_point"], sym), notation)
            assert words.endswith(f"{side} may not take the ko at {ko}."), (key, words)
        if r["task"] != "transcribe":
            assert f"{side} {'to play' if r['task'] != 'tactics' or r['question'] == 'atari' else 'plays'}" \
                in prompt, prompt
        # The default templates: the board right after the coordinates' sentence.
        assert prompt.split("\n")[1] == "   " + " ".join(GTP_COLS), prompt
    assert kos > 0, "no row with a ko point: the ko sentence is untested"


TEXT_ARGS = ["--limit", 0, "--seed", 6, "--mix", "next-move=0.4,transcribe=0.3,tactics=0.3", "--symmetries", 8]


@pytest.mark.parametrize("layout,notation", [("parquet", "gtp"), ("qwen", "sgf")])
def test_every_text_board_parses_back_to_its_row(kibo, sample_out, tmp_path, layout, notation):
    to = tmp_path / "text"
    export(kibo, sample_out, to, "--board", "text", "--layout", layout, "--answer", notation, *TEXT_ARGS)
    if layout == "parquet":
        rows = [r for split in ("train", "val") for f in sorted((to / split).glob("*.parquet"))
                for r in pq.read_table(f).to_pylist()]
        assert rows and all("images" not in r for r in rows)
        for r in rows:
            assert [m["content"] for m in r["messages"] if m["role"] == "user"] == [r["prompt"]]
        meta = pq.read_schema(next((to / "train").glob("*.parquet"))).metadata[b"huggingface"].decode()
        assert "Image" not in meta and "images" not in meta
    else:
        rows = []
        for split in ("train", "val"):
            for line in (to / f"{split}.jsonl").read_text().splitlines():
                r = json.loads(line)
                assert "image" not in r and "<image>" not in line, line[:200]
                conv = r["conversations"]
                r["prompt"], r["answer"] = conv[0]["value"], conv[1]["value"]
                rows.append(r)
        assert not (to / "images").exists()
    samples = {(r["game_id"], r["move_number"]): r for r in pq.read_table(sample_out / "samples").to_pylist()}
    check_text_rows(rows, samples, notation)
    assert {r["task"] for r in rows} == {"next-move", "transcribe", "tactics"}
    assert len({r["symmetry"] for r in rows}) == 8
    assert json.loads((to / "vlm.json").read_text())["board"] == "text"
    for entry in json.loads((to / "dataset_info.json").read_text()).values():
        assert set(entry["columns"]) == {"messages"}, entry


def test_both_keeps_the_picture_and_adds_the_text_board(kibo, sample_out, tmp_path):
    args = ["--limit", 300, "--seed", 2, "--mix", "next-move=1,transcribe=1,tactics=1", "--symmetries", 8]
    export(kibo, sample_out, tmp_path / "pic", *args)
    export(kibo, sample_out, tmp_path / "both", "--board", "both", *args)
    pic, both = parquet_rows(tmp_path / "pic"), parquet_rows(tmp_path / "both")
    assert [r["png"] for r in both] == [r["png"] for r in pic], "the pictures are the picture export's"
    assert all(r["user"] == "<image>" + r["prompt"] for r in both)
    samples = {(r["game_id"], r["move_number"]): r for r in pq.read_table(sample_out / "samples").to_pylist()}
    check_text_rows(both, samples, "gtp")
    for p, b in zip(pic, both):
        assert p["answer"] == b["answer"] and "\n" not in p["prompt"] and "\n" in b["prompt"]
    assert "board" not in json.loads((tmp_path / "pic" / "vlm.json").read_text())


def test_datasets_loads_a_text_set_without_an_image_feature(kibo, sample_out, tmp_path):
    import datasets
    to = tmp_path / "text"
    export(kibo, sample_out, to, "--board", "text", "--limit", 200)
    ds = datasets.load_dataset(str(to), cache_dir=str(tmp_path / "hf"))
    assert "images" not in ds["train"].features
    row = ds["train"][0]
    assert [m["role"] for m in row["messages"]] == ["user", "assistant"]
    assert "<image>" not in row["messages"][0]["content"]
