"""A stand-in for `kibo export vlm`: writes a small dataset in the export's layout
(default layout) from synthetic boards, with pyarrow and PIL only.

Used by tests/python/test_train_vlm.py while the kibo binary has no `export vlm`; the
layout (folders, column names, Arrow types, the `huggingface` schema metadata) is the
export's, the boards and texts are random:

    DEST/README.md  dataset_info.json  vlm.json
    DEST/train/part-00000.parquet ...  DEST/val/part-00000.parquet

    python tests/python/vlm_fixture.py DEST [--rows 64] [--cell-px 28] [--seed 1] [--no-image-tag]
"""
import io
import json
import pathlib
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw

SIZE = 19
COLS = "ABCDEFGHJKLMNOPQRST"  # GTP letters: no I
BOARD = (222, 184, 108)
LINE = (40, 30, 20)
BLACK = (22, 22, 22)
WHITE = (246, 246, 240)
STARS = (3, 9, 15)

# The Arrow schema of every part (all fields nullable; list children are named "item").
IMAGE = pa.struct([pa.field("bytes", pa.binary()), pa.field("path", pa.string())])
MESSAGE = pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())])
SCHEMA = pa.schema([
    pa.field("images", pa.list_(pa.field("item", IMAGE))),
    pa.field("messages", pa.list_(pa.field("item", MESSAGE))),
    pa.field("prompt", pa.string()),
    pa.field("answer", pa.string()),
    pa.field("task", pa.string()),
    pa.field("to_play", pa.string()),
    pa.field("symmetry", pa.uint8()),
    pa.field("game_id", pa.string()),
    pa.field("move_number", pa.uint16()),
    pa.field("source", pa.string()),
    pa.field("split", pa.string()),
    pa.field("tags", pa.list_(pa.field("item", pa.string()))),
])


def _value(dtype):
    return {"dtype": dtype, "_type": "Value"}


# `datasets.Features.to_dict()` of the columns: `load_dataset` reads it from the schema
# metadata (key b"huggingface") and decodes `images` to PIL images with no cast.
FEATURES = {
    "images": {"feature": {"_type": "Image"}, "_type": "List"},
    "messages": {"feature": {"role": _value("string"), "content": _value("string")}, "_type": "List"},
    "prompt": _value("string"),
    "answer": _value("string"),
    "task": _value("string"),
    "to_play": _value("string"),
    "symmetry": _value("uint8"),
    "game_id": _value("string"),
    "move_number": _value("uint16"),
    "source": _value("string"),
    "split": _value("string"),
    "tags": {"feature": _value("string"), "_type": "List"},
}
SCHEMA = SCHEMA.with_metadata({b"huggingface": json.dumps({"info": {"features": FEATURES}}).encode()})


def gtp(r, c):
    """GTP name of the point at row r from the top, column c from the left (0-based)."""
    return f"{COLS[c]}{SIZE - r}"


def draw_board(stones, cell):
    """The board picture: 21*cell px square, intersection (r, c) centred at
    (cell*(c+1) + cell/2, cell*(r+1) + cell/2); `stones` maps (r, c) to 'b' or 'w'.
    Returned as palette ("P") PNG bytes, like the export's."""
    px = cell * (SIZE + 2)
    img = Image.new("RGB", (px, px), BOARD)
    d = ImageDraw.Draw(img)
    centre = lambda i: cell * (i + 1) + cell / 2  # noqa: E731
    lo, hi = centre(0), centre(SIZE - 1)
    for i in range(SIZE):
        d.line([(centre(i), lo), (centre(i), hi)], fill=LINE, width=1)
        d.line([(lo, centre(i)), (hi, centre(i))], fill=LINE, width=1)
    for r in STARS:
        for c in STARS:
            k = max(2, cell // 9)
            d.ellipse([centre(c) - k, centre(r) - k, centre(c) + k, centre(r) + k], fill=LINE)
    for i in range(SIZE):  # coordinate labels on the one-cell margin
        for x, y, t in ((centre(i), cell / 2, COLS[i]), (centre(i), px - cell / 2, COLS[i]),
                        (cell / 2, centre(i), str(SIZE - i)), (px - cell / 2, centre(i), str(SIZE - i))):
            d.text((x, y), t, fill=LINE, anchor="mm")
    rad = cell * 0.47
    for (r, c), colour in stones.items():
        x, y = centre(c), centre(r)
        d.ellipse([x - rad, y - rad, x + rad, y + rad], fill=BLACK if colour == "b" else WHITE,
                  outline=BLACK, width=1)
    buf = io.BytesIO()
    img.quantize(colors=16, method=Image.Quantize.MEDIANCUT).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def _row(rng, i, split, cell, image_tag):
    n = rng.randrange(4, 40)
    points = rng.sample([(r, c) for r in range(SIZE) for c in range(SIZE)], n + 1)
    stones = {p: "b" if k % 2 == 0 else "w" for k, p in enumerate(points[:n])}
    move_number = n + 1
    to_play = "black" if n % 2 == 0 else "white"
    colour = to_play.capitalize()
    task = ("next-move", "transcribe", "tactics")[i % 3]
    if task == "next-move":
        prompt = f"{colour} to play. What is the next move? Answer with one point, like Q16."
        answer = gtp(*points[n])
    elif task == "transcribe":
        prompt = "List the stones on the board: black first, then white, each as points like Q16."
        b = " ".join(gtp(*p) for p in sorted(p for p, s in stones.items() if s == "b"))
        w = " ".join(gtp(*p) for p in sorted(p for p, s in stones.items() if s == "w"))
        answer = f"Black: {b}\nWhite: {w}"
    else:
        prompt = f"{colour} to play. Find the move that captures or saves stones. Answer with one point."
        answer = gtp(*points[n])
    game_id = f"synthetic-{i:04d}"
    user = ("<image>" if image_tag else "") + prompt
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": answer}]
    return {
        "images": [{"bytes": draw_board(stones, cell), "path": f"{game_id}-{move_number}.png"}],
        "messages": messages,
        "prompt": prompt,
        "answer": answer,
        "task": task,
        "to_play": to_play,
        "symmetry": rng.randrange(8),
        "game_id": game_id,
        "move_number": move_number,
        "source": "synthetic",
        "split": split,
        "tags": [task],
    }


def write(dest, rows=64, cell_px=28, seed=1, image_tag=True, rows_per_part=32):
    """Write the dataset to `dest` (created); returns the counts per split."""
    dest = pathlib.Path(dest)
    rng = random.Random(seed)
    n_val = max(1, rows // 8)
    splits = {"train": rows - n_val, "val": n_val}
    k = 0
    for split, n in splits.items():
        (dest / split).mkdir(parents=True, exist_ok=True)
        recs = []
        for _ in range(n):
            recs.append(_row(rng, k, split, cell_px, image_tag))
            k += 1
        for part, start in enumerate(range(0, n, rows_per_part)):
            table = pa.Table.from_pylist(recs[start:start + rows_per_part], schema=SCHEMA)
            pq.write_table(table, dest / split / f"part-{part:05d}.parquet")
    (dest / "README.md").write_text(
        "---\n"
        "configs:\n"
        "- config_name: default\n"
        "  data_files:\n"
        "  - split: train\n"
        "    path: \"train/*.parquet\"\n"
        "  - split: validation\n"
        "    path: \"val/*.parquet\"\n"
        "task_categories:\n- image-text-to-text\n"
        "---\n\n"
        "# Synthetic Go boards (vlm_fixture.py, a stand-in for `kibo export vlm`)\n")
    entry = {"formatting": "sharegpt", "columns": {"messages": "messages", "images": "images"},
             "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user",
                      "assistant_tag": "assistant", "system_tag": "system"}}
    (dest / "dataset_info.json").write_text(json.dumps({
        "kibo_vlm_train": {"file_name": "train", **entry},
        "kibo_vlm_val": {"file_name": "val", **entry},
    }, indent=2) + "\n")
    (dest / "vlm.json").write_text(json.dumps({
        "options": {"limit": rows, "cell_px": cell_px, "seed": seed, "image_tag": image_tag, "layout": "default"},
        "counts": splits, "generator": "tests/python/vlm_fixture.py",
    }, indent=2) + "\n")
    return splits


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest")
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--cell-px", type=int, default=28)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-image-tag", action="store_true")
    a = ap.parse_args()
    print(write(a.dest, a.rows, a.cell_px, a.seed, not a.no_image_tag), file=sys.stderr)
