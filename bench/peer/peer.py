#!/usr/bin/env python3
"""peer.py: the Python pipeline a careful user would write instead of kibo.

SGF files and archives -> replay with sgfmill -> one row per move -> global position
dedup -> zstd Parquet shards with pyarrow. Single process. `make bench` runs it next to
kibo on the same input; see README.md for what it does and does not do.

    python peer.py --input PATH [--input PATH ...] --out DIR [--shard-rows 1048576]
"""

import argparse
import json
import os
import sys
import tarfile
import time
import zipfile
from itertools import chain

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from blake3 import blake3
from sgfmill import boards, sgf, sgf_grammar, sgf_moves

N = 19
NN = N * N
PASS = NN
ROW_GROUP_ROWS = 65536
ZSTD_LEVEL = 3
NO_KO = (0xFFFF).to_bytes(2, "little")

CELL = {None: 0, "b": 1, "w": 2}
COLOR_NUM = {"b": 1, "w": 2}
OPPONENT = {"b": "w", "w": "b"}
COLS = "ABCDEFGHJKLMNOPQRST"
# GTP text of each point index (row 0 = top edge), 361 = pass.
GTP = [f"{COLS[i % N]}{N - i // N}" for i in range(NN)] + ["pass"]
# Neighbours of each point index: (index, sgfmill row, sgfmill col); sgfmill's row 0
# is the BOTTOM edge, so sgfmill row = 18 - kibo row.
NEIGHBOURS = [
    [
        (rr * N + cc, N - 1 - rr, cc)
        for rr, cc in ((i // N - 1, i % N), (i // N + 1, i % N), (i // N, i % N - 1), (i // N, i % N + 1))
        if 0 <= rr < N and 0 <= cc < N
    ]
    for i in range(NN)
]
# to_play byte ‖ ko index u16le, for every (to_play, ko) pair: the hash suffix.
KO_SUFFIX = {
    (tp, ko): bytes([tp]) + (NO_KO if ko is None else ko.to_bytes(2, "little"))
    for tp in (1, 2)
    for ko in chain([None], range(NN))
}

SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("game_index", pa.uint32(), nullable=False),
        pa.field("move_number", pa.uint16(), nullable=False),
        pa.field("position_hash", pa.binary(16), nullable=False),
        pa.field("board", pa.binary(), nullable=False),
        pa.field("to_play", pa.uint8(), nullable=False),
        pa.field("ko_point", pa.uint16(), nullable=True),
        pa.field("prisoners_black", pa.uint16(), nullable=False),
        pa.field("prisoners_white", pa.uint16(), nullable=False),
        pa.field("move", pa.uint16(), nullable=False),
        pa.field("move_gtp", pa.string(), nullable=False),
        pa.field("dup_count", pa.uint32(), nullable=False),
    ]
)
BATCH_FIELDS = [f.name for f in SCHEMA if f.name != "dup_count"]
BATCH_SCHEMA = pa.schema([SCHEMA.field(n) for n in BATCH_FIELDS])
# Boards and hashes do not repeat: plain encoding, like kibo. Dictionary for the rest.
DICT_COLUMNS = [n for n in SCHEMA.names if n not in ("board", "position_hash")]


def game_id(cells0, first_player, moves, colors):
    """kibo's content hash (docs/schema.md): setup stones, first player, moves."""
    h = blake3(b"kibo.game.v1\0")
    h.update(b"".join(i.to_bytes(2, "little") for i, v in enumerate(cells0) if v == 1))
    h.update(b"\xff\xff")
    h.update(b"".join(i.to_bytes(2, "little") for i, v in enumerate(cells0) if v == 2))
    h.update(b"\xff\xff")
    h.update(first_player.encode())
    h.update(b"".join(c + m.to_bytes(2, "little") for c, m in zip(colors, moves)))
    return h.hexdigest()[:32]


class Peer:
    def __init__(self):
        self.files_read = 0
        self.bytes_read = 0
        self.skipped_non_sgf = 0
        self.games_found = 0
        self.games_kept = 0
        self.rejected = {}
        self.samples_before_dedup = 0
        self.seen_games = set()
        # Dedup: position_hash -> number of the kept row; dup_count by kept row.
        self.first_row = {}
        self.dup_count = []
        self.cols = {n: [] for n in BATCH_FIELDS}
        self.batches = []

    def reject(self, reason):
        self.rejected[reason] = self.rejected.get(reason, 0) + 1

    # ---- input ---------------------------------------------------------------------

    def walk(self, inputs):
        for path in inputs:
            if os.path.isdir(path):
                for root, dirs, files in os.walk(path):
                    dirs.sort()
                    for f in sorted(files):
                        self.read_file(os.path.join(root, f))
            else:
                self.read_file(path)

    def read_file(self, path):
        low = path.lower()
        if low.endswith(".sgf"):
            with open(path, "rb") as fh:
                data = fh.read()
            self.files_read += 1
            self.bytes_read += len(data)
            self.read_sgf(data, path)
        elif low.endswith((".tar.gz", ".tgz", ".tar")):
            self.files_read += 1
            self.bytes_read += os.path.getsize(path)
            with tarfile.open(path, "r:*") as tf:
                for m in tf:
                    if not m.isfile():
                        continue
                    if not m.name.lower().endswith(".sgf"):
                        self.skipped_non_sgf += 1
                        continue
                    self.read_sgf(tf.extractfile(m).read(), f"{path}!{m.name}")
        elif low.endswith(".zip"):
            self.files_read += 1
            self.bytes_read += os.path.getsize(path)
            with zipfile.ZipFile(path) as zf:
                for info in zf.infolist():
                    if info.is_dir():
                        continue
                    if not info.filename.lower().endswith(".sgf"):
                        self.skipped_non_sgf += 1
                        continue
                    self.read_sgf(zf.read(info), f"{path}!{info.filename}")
        else:
            self.skipped_non_sgf += 1

    def read_sgf(self, data, source):
        try:
            trees = sgf_grammar.parse_sgf_collection(data)
        except ValueError:
            # A broken game later in a collection fails the whole collection: fall
            # back to the first game alone (what Sgf_game.from_bytes reads).
            try:
                trees = [sgf_grammar.parse_sgf_game(data)]
            except ValueError:
                self.games_found += 1
                self.reject("unparseable")
                return
        for index, tree in enumerate(trees):
            self.games_found += 1
            try:
                game = sgf.Sgf_game.from_coarse_game_tree(tree)
            except ValueError:
                self.reject("unparseable")
                continue
            self.game(game, source, index)

    # ---- replay --------------------------------------------------------------------

    def game(self, game, source, game_index):
        if game.get_size() != N:
            self.reject("board_size")
            return
        try:
            board, plays = sgf_moves.get_setup_and_moves(game, boards.Board(N))
        except ValueError:
            self.reject("setup_or_moves")
            return
        if not plays:
            self.reject("no_moves")
            return
        grid = board.board  # grid[row][col], row 0 = BOTTOM; rows are mutated in place
        # Duplicate games (same setup, first player and moves) are replayed once, as
        # kibo does; the first copy in input order is kept even if it fails replay.
        moves = [PASS if mv is None else (N - 1 - mv[0]) * N + mv[1] for _, mv in plays]
        colors = [b"B" if colour == "b" else b"W" for colour, _ in plays]
        root = game.get_root()
        try:
            pl = root.get("PL") if root.has_property("PL") else None
        except ValueError:
            pl = None
        setup = bytes(map(CELL.__getitem__, chain.from_iterable(grid[::-1])))
        gid = game_id(setup, {"b": "B", "w": "W"}.get(pl, "-"), moves, colors)
        if gid in self.seen_games:
            self.reject("duplicate_game")
            return
        self.seen_games.add(gid)

        # The board in kibo's layout (row 0 = top), kept in step with sgfmill's grid:
        # each move sets one cell; a move that captures rebuilds it from the grid.
        top_down = grid[::-1]  # the same row lists, top row first
        cells = bytearray(setup)
        stones = NN - setup.count(0)
        boards_, hashes, to_play, kos, pris_b, pris_w = [], [], [], [], [], []
        prisoners = [0, 0, 0]  # by colour number
        ko_pt = None  # point index banned by simple ko ...
        ko_color = None  # ... for this colour
        for i, (colour, mv) in enumerate(plays):
            tp = COLOR_NUM[colour]
            ko = ko_pt if ko_color == colour else None
            snap = bytes(cells)
            boards_.append(snap)
            hashes.append(blake3(snap + KO_SUFFIX[tp, ko]).digest()[:16])
            to_play.append(tp)
            kos.append(ko)
            pris_b.append(prisoners[1])
            pris_w.append(prisoners[2])
            if mv is None:
                ko_pt = ko_color = None
                continue
            r, c = mv
            idx = moves[i]
            if idx == ko:
                self.reject("ko")
                return
            if grid[r][c] is not None:
                self.reject("occupied")
                return
            ko_rc = board.play(r, c, colour)
            if grid[r][c] is None:
                self.reject("suicide")
                return
            cells[idx] = tp
            opp = 3 - tp
            for j, rr, cc in NEIGHBOURS[idx]:
                if cells[j] == opp and grid[rr][cc] is None:
                    cells[:] = bytes(map(CELL.__getitem__, chain.from_iterable(top_down)))
                    after = NN - cells.count(0)
                    prisoners[tp] += stones + 1 - after
                    stones = after
                    break
            else:
                stones += 1
            if ko_rc is None:
                ko_pt = ko_color = None
            else:
                ko_pt = (N - 1 - ko_rc[0]) * N + ko_rc[1]
                ko_color = OPPONENT[colour]

        self.games_kept += 1
        self.samples_before_dedup += len(moves)
        self.emit(gid, source, game_index, boards_, hashes, to_play, kos, pris_b, pris_w, moves)

    # ---- dedup and columns ---------------------------------------------------------

    def emit(self, gid, source, game_index, boards_, hashes, to_play, kos, pris_b, pris_w, moves):
        first_row = self.first_row
        dup = self.dup_count
        c = self.cols
        keep = []
        for i, h in enumerate(hashes):
            row = first_row.get(h)
            if row is None:
                first_row[h] = len(dup)
                dup.append(1)
                keep.append(i)
            else:
                dup[row] += 1
        if not keep:
            return
        if len(keep) == len(hashes):
            pick = lambda xs: xs  # noqa: E731
        else:
            pick = lambda xs: [xs[i] for i in keep]  # noqa: E731
        n = len(keep)
        c["game_id"] += [gid] * n
        c["source"] += [source] * n
        c["game_index"] += [game_index] * n
        c["move_number"] += [i + 1 for i in keep]
        c["position_hash"] += pick(hashes)
        c["board"] += pick(boards_)
        c["to_play"] += pick(to_play)
        c["ko_point"] += pick(kos)
        c["prisoners_black"] += pick(pris_b)
        c["prisoners_white"] += pick(pris_w)
        mv = pick(moves)
        c["move"] += mv
        c["move_gtp"] += [GTP[m] for m in mv]
        if len(c["move"]) >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self):
        """Column lists -> one Arrow record batch (compact; the lists are dropped)."""
        c = self.cols
        if not c["move"]:
            return
        n = len(c["move"])
        arrays = []
        for f in BATCH_SCHEMA:
            if f.name == "board":  # every board is 361 bytes: one join, computed offsets
                offsets = np.arange(0, (n + 1) * NN, NN, dtype=np.int32)
                buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(c["board"]))]
                arrays.append(pa.Array.from_buffers(f.type, n, buffers))
            elif f.name == "position_hash":
                arrays.append(pa.Array.from_buffers(f.type, n, [None, pa.py_buffer(b"".join(c[f.name]))]))
            else:
                arrays.append(pa.array(c[f.name], type=f.type))
        self.batches.append(pa.RecordBatch.from_arrays(arrays, schema=BATCH_SCHEMA))
        self.cols = {n: [] for n in BATCH_FIELDS}

    # ---- output --------------------------------------------------------------------

    def write(self, out, shard_rows):
        self.flush()
        dup = pa.array(self.dup_count, type=pa.uint32())
        table = pa.Table.from_batches(self.batches, schema=BATCH_SCHEMA).append_column(SCHEMA.field("dup_count"), dup)
        self.batches = []
        sdir = os.path.join(out, "samples")
        os.makedirs(sdir, exist_ok=True)
        for f in os.listdir(sdir):
            if f.startswith("part-") and f.endswith(".parquet"):
                os.remove(os.path.join(sdir, f))
        shards = []
        for k, start in enumerate(range(0, max(table.num_rows, 1), shard_rows)):
            path = os.path.join(sdir, f"part-{k:05d}.parquet")
            part = table.slice(start, shard_rows)
            with pq.ParquetWriter(
                path,
                SCHEMA,
                compression="zstd",
                compression_level=ZSTD_LEVEL,
                use_dictionary=DICT_COLUMNS,
                write_statistics=True,
                write_page_index=True,
            ) as w:
                w.write_table(part, row_group_size=ROW_GROUP_ROWS)
            shards.append({"path": path, "rows": part.num_rows, "bytes": os.path.getsize(path)})
        return shards


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", action="append", required=True, help="file or folder (repeatable)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--shard-rows", type=int, default=1 << 20)
    a = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()

    p = Peer()
    p.walk(a.input)
    shards = p.write(a.out, a.shard_rows)

    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    samples = len(p.dup_count)
    disk = sum(s["bytes"] for s in shards)
    report = {
        "tool": "peer (sgfmill + pyarrow, single process)",
        "inputs": a.input,
        "files_read": p.files_read,
        "bytes_read": p.bytes_read,
        "skipped_non_sgf": p.skipped_non_sgf,
        "games_found": p.games_found,
        "games_kept": p.games_kept,
        "games_rejected": sum(p.rejected.values()),
        "rejected_by_reason": dict(sorted(p.rejected.items())),
        "samples_before_dedup": p.samples_before_dedup,
        "samples": samples,
        "wall_s": wall,
        "cpu_s": cpu,
        "samples_per_s": samples / wall if wall > 0 else 0.0,
        "samples_before_dedup_per_s": p.samples_before_dedup / wall if wall > 0 else 0.0,
        "bytes_on_disk": disk,
        "bytes_per_sample": disk / samples if samples else 0.0,
        "shards": shards,
    }
    with open(os.path.join(a.out, "peer_report.json"), "w") as fh:
        json.dump(report, fh, indent=2)
        fh.write("\n")
    print(
        f"peer: {p.games_kept} games kept, {p.samples_before_dedup} samples ({samples} after dedup) "
        f"in {wall:.2f} s: {report['samples_per_s']:.0f} samples/s (per process), "
        f"{report['bytes_per_sample']:.1f} bytes/sample"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
