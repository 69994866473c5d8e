"""`ShardDataset`: a PyTorch IterableDataset over kibo's sample shards (OUT/samples/
part-<split>-*.parquet), read directly with pyarrow, encoded by kibo's Rust feature sets.

Units of work are the shards' row groups; with DataLoader workers, worker `w` of `n`
takes units `w, w + n, …`, so every row is read by exactly one worker. Rows pass through a
shuffle buffer (`shuffle_buffer + batch_size` rows, seeded by `seed` and the worker; numpy
arrays allocated once, which the Rust encoder writes rows into): each batch is
`batch_size` of its rows drawn at random, and the next rows are encoded into their places.
Each batch gets one of the 8 symmetries (KataGo's numbering: bit 0 flips rows, bit 1
flips columns, bit 2 transposes, after the flips), applied to the planes and the policy
alike; the gather, the symmetry and the widening to float32 are one pass in Rust, written
into a block of memory that is reused once nothing holds the batch written there. In a
DataLoader worker the blocks are shared memory, and a batch is sent to the training
process as its block's file descriptor (no copy; `_Batch`).

Each item is a dict of numpy arrays: `spatial` float32 [B, C, 19, 19] (uint8 with
`planes="uint8"`: every plane is 0/1, a quarter of the bytes to move between processes;
convert on the device), `global` [B, G],
`policy` [B, 362] (the corpus's move distribution, or the move played with
`policy="played"`, or KataGo's raw policy with `policy="engine"`), `value` [B] (+1 the
side to move won, −1 lost), `weight` [B] (1 when the game has a winner, else 0),
`symmetry` (int), `game_id` (list), `move_number` [B].

With `labels=True` (or `policy="engine"`), only the rows of OUT/labels/ (`kibo label`,
docs/labels.md) are read, and each batch also has KataGo's reading of them:
`engine_move` int64 [B] (point index under the batch's symmetry, 361 = pass),
`winrate_black` and `score_lead_black` float32 [B] (NaN where KataGo gave none: the
labels' null, `status` not `ok`). `policy="engine"` needs labels written with
`kibo label --policy`. A labels file of another version than `LABELS_VERSION` is refused
(ValueError naming the file and both versions).
"""
import glob
import mmap
import multiprocessing.reduction
import os
import weakref

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch.utils.data

from . import COLUMNS, _encode_into, _kibo, _table, empty_targets, feature_sets

#: Rows encoded at a time.
CHUNK = 4096


def _oriented(a, s):
    """A view of `a` [..., 19, 19] under symmetry `s`."""
    if s & 1:
        a = a[..., ::-1, :]
    if s & 2:
        a = a[..., :, ::-1]
    if s & 4:
        a = np.swapaxes(a, -1, -2)
    return a


def apply_symmetry(planes, policy, s, dtype=None):
    """Symmetry `s` on planes [..., 19, 19] and policy [..., 362] (the pass stays), as new
    arrays; the planes are converted to `dtype` (default: theirs) in the same pass."""
    sp = np.empty(planes.shape, dtype or planes.dtype)
    np.copyto(sp, _oriented(planes, s))
    lead = policy.shape[:-1]
    pol = np.empty_like(policy)
    pol[..., :361] = _oriented(policy[..., :361].reshape(lead + (19, 19)), s).reshape(lead + (361,))
    pol[..., 361:] = policy[..., 361:]
    return sp, pol


def orient(planes, policy, s, dtype=np.float32):
    """`apply_symmetry(planes, policy, s, dtype)` for uint8 planes, in one pass in Rust
    (`coord::symmetry`, the same numbering); `dtype` float32 or uint8."""
    sp = np.empty(planes.shape, dtype)
    pol = np.empty_like(policy)
    if len(planes):
        _kibo.orient_into(s, len(planes), np.ascontiguousarray(planes), np.ascontiguousarray(policy), sp, pol)
    return sp, pol


class _Stream:
    """The rows of a list of row groups, taken a few at a time."""

    def __init__(self, chunks):
        self.chunks, self.cur, self.at = chunks, None, 0

    def take(self, k):
        """Up to `k` next rows (fewer at the end of a chunk) as (Arrow table, game ids (an
        object array of str), move numbers, label rows or None), or None at the end of the
        rows."""
        while self.cur is None or self.at == self.cur[0].num_rows:
            self.cur, self.at = next(self.chunks, None), 0
            if self.cur is None:
                return None
        t, ids, numbers, rows = self.cur
        a = self.at
        k = min(k, t.num_rows - a)
        self.at += k
        return t.slice(a, k), ids[a:a + k], numbers[a:a + k], None if rows is None else rows[a:a + k]


class ShardDataset(torch.utils.data.IterableDataset):
    def __init__(self, out, split="train", features="leela-18", symmetries=True, shuffle_buffer=65536,
                 seed=0, batch_size=256, policy="dist", planes="float32", labels=False):
        if policy not in ("dist", "played", "engine"):
            raise ValueError(f"policy must be 'dist', 'played' or 'engine', not {policy!r}")
        self.labels = _Labels(out, policy == "engine") if labels or policy == "engine" else None
        self.files = sorted(glob.glob(os.path.join(str(out), "samples", f"part-{split}-*.parquet")))
        if features not in feature_sets():
            raise ValueError(f"no feature set {features!r}; known: {sorted(feature_sets())}")
        self.features, self.symmetries, self.seed = features, symmetries, seed
        self.shuffle_buffer, self.batch_size, self.policy = max(shuffle_buffer, 1), batch_size, policy
        if planes not in ("float32", "uint8"):
            raise ValueError(f"planes must be 'float32' or 'uint8', not {planes!r}")
        self.planes = np.dtype(planes)
        self.units = [(f, rg) for f in self.files for rg in range(pq.ParquetFile(f).num_row_groups)]

    def _chunks(self, units):
        """The rows of `units` as (Arrow table of at most `CHUNK` rows, game ids, move numbers)."""
        for f, rg in units:
            t = _table(pq.ParquetFile(f).read_row_group(rg, columns=list(COLUMNS)))
            for start in range(0, t.num_rows, CHUNK):
                part = t.slice(start, CHUNK)
                rows = None
                if self.labels is not None:
                    rows = self.labels.rows(part)
                    part, rows = part.filter(rows >= 0), rows[rows >= 0]
                    if part.num_rows == 0:
                        continue
                ids = np.empty(part.num_rows, object)
                ids[:] = part.column("game_id").to_pylist()
                yield part, ids, part.column("move_number").to_numpy(), rows

    def _put(self, buf, stream, slots):
        """Encodes the next rows of `stream` into rows `slots` of the buffer; returns how
        many (fewer than `len(slots)` only at the end of the rows)."""
        sp, gl, pol, val, ids, numbers, labrows = buf
        done = 0
        while done < len(slots):
            got = stream.take(len(slots) - done)
            if got is None:
                break
            part, part_ids, part_numbers, part_rows = got
            k = part.num_rows
            at = slots[done:done + k]
            _encode_into(part, self.features, sp, gl, pol, val, at)
            if self.policy == "played":
                pol[at] = 0
                pol[at, part.column("move").to_numpy()] = 1
            elif self.policy == "engine":
                pol[at] = self.labels.policy_of(part_rows)
            if part_rows is not None:
                labrows[at] = part_rows
            ids[at] = part_ids
            numbers[at] = part_numbers
            done += k
        return done

    def _shuffled(self, units, rng, sym_rng, pool):
        """The rows of `units` through the shuffle buffer, as batches of `batch_size` rows
        (the last one shorter). The buffer is `shuffle_buffer + batch_size` rows of arrays
        allocated once, which the Rust encoder writes into; once it is full, each batch is
        `batch_size` of its rows drawn at random (without replacement), and the next rows
        are encoded into their places; at the end of the rows, those left come out in a
        random order."""
        bs = self.batch_size
        size = self.shuffle_buffer + bs
        buf = list(empty_targets(size, self.features)) + [np.empty(size, object), np.empty(size, np.uint16),
                                                            np.zeros(size, np.int64)]
        stream = _Stream(self._chunks(units))
        live = np.arange(size)
        m = self._put(buf, stream, live)
        if m == size:
            while True:
                idx = rng.choice(size, size=bs, replace=False)
                yield self._batch(buf, idx, sym_rng, pool)
                k = self._put(buf, stream, idx)
                if k < bs:
                    live = np.setdiff1d(live, idx[k:])
                    break
        else:
            live = live[:m]
        order = live[rng.permutation(len(live))]
        for b in range(0, len(order), bs):
            yield self._batch(buf, order[b:b + bs], sym_rng, pool)

    def _empty(self, n, pool):
        """The arrays of a batch of `n` rows, numpy views of one block of `pool`."""
        s_ch, g_n = feature_sets()[self.features]
        shapes = {"spatial": ((n, s_ch, 19, 19), self.planes), "global": ((n, g_n), np.float32),
                  "policy": ((n, 362), np.float32), "value": ((n,), np.float32), "weight": ((n,), np.float32),
                  "move_number": ((n,), np.uint16)}
        at, spans = _HEADER, {}
        for k, (shape, dtype) in shapes.items():
            spans[k] = at, int(np.prod(shape)) * np.dtype(dtype).itemsize
            at += -(-spans[k][1] // 64) * 64
        block, whole = pool.get(at)
        return {k: whole[a:a + nb].view(shapes[k][1]).reshape(shapes[k][0]) for k, (a, nb) in spans.items()}, block

    def _batch(self, buf, idx, sym_rng, pool):
        """The batch of rows `idx` of the buffer, under a symmetry drawn from `sym_rng`."""
        sp, gl, pol, val, ids, numbers, labrows = buf
        s = int(sym_rng.integers(8)) if self.symmetries else 0
        n = len(idx)
        out, block = self._empty(n, pool)
        _kibo.orient_into(s, n, sp, pol, out["spatial"], out["policy"], idx)
        np.take(gl, idx, axis=0, out=out["global"])
        np.take(val, idx, out=out["value"])
        np.not_equal(out["value"], 0, out=out["weight"], casting="unsafe")
        np.take(numbers, idx, out=out["move_number"])
        out.update(symmetry=s, game_id=ids[idx].tolist())
        if self.labels is not None:
            out.update(self.labels.batch(labrows[idx], s))
        return _Batch(out, block) if pool.shared else out

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid, n = (info.id, info.num_workers) if info else (0, 1)
        rng = np.random.default_rng([self.seed, wid])
        # The symmetries draw from their own stream: the row order does not depend on them.
        sym_rng = np.random.default_rng([self.seed, wid, 1])
        # Each batch is written into one block of memory, reused once nothing holds the
        # batch any more; in a DataLoader worker the blocks are shared memory, and a batch
        # goes to the training process as the block's file descriptor (see `_Batch`).
        yield from self._shuffled(self.units[wid::n], rng, sym_rng, _Pool(shared=info is not None and _MEMFD))


#: The labels table's version this loader reads: kibo's `label::table::LABELS_VERSION`
#: (tests/python/test_label.py checks that `kibo label` writes it).
LABELS_VERSION = "2"


def _check_labels_version(path):
    """Refuses a labels file of another version than `LABELS_VERSION`, naming both."""
    found = (pq.read_metadata(path).metadata or {}).get(b"kibo.labels_version")
    if found != LABELS_VERSION.encode():
        found = "none" if found is None else found.decode()
        raise ValueError(f"{path}: labels table version {found}; this loader reads version {LABELS_VERSION} "
                         "(rerun `kibo label`)")


class _Labels:
    """OUT/labels/ in memory: the rows of KataGo's reading, found by (game_id, move_number)."""

    def __init__(self, out, policy):
        files = sorted(glob.glob(os.path.join(str(out), "labels", "*.parquet")))
        if not files:
            raise ValueError(f"{out} has no labels: run `kibo label --out {out}` first")
        for f in files:
            _check_labels_version(f)
        cols = ["game_id", "move_number", "engine_move_index", "winrate_black", "score_lead_black"]
        if policy:
            if "policy" not in pq.read_schema(files[0]).names:
                raise ValueError(f"the labels of {out} have no policy: run `kibo label --policy`")
            cols.append("policy")
        t = pq.read_table(files, columns=cols)
        self.index = {k: i for i, k in enumerate(zip(t.column("game_id").to_pylist(),
                                                     t.column("move_number").to_pylist()))}
        self.move = t.column("engine_move_index").to_numpy().astype(np.int64)
        # A root value KataGo gave none of is null in the table: NaN here, explicitly.
        nan = pa.scalar(np.nan, pa.float32())
        self.winrate = t.column("winrate_black").fill_null(nan).to_numpy()
        self.lead = t.column("score_lead_black").fill_null(nan).to_numpy()
        self.policy = None
        if policy:
            p = np.stack(t.column("policy").to_numpy(zero_copy_only=False)).astype(np.float32)
            p = np.clip(p, 0, None)
            self.policy = p / p.sum(axis=1, keepdims=True)
        # Where each point goes under each symmetry (the pass stays): `_oriented` of the
        # point indices, inverted.
        self.sym = np.empty((8, 362), np.int64)
        for s in range(8):
            at = _oriented(np.arange(361).reshape(19, 19), s).reshape(361)
            self.sym[s, at] = np.arange(361)
            self.sym[s, 361] = 361

    def rows(self, part):
        """Each row's label row, -1 for rows without a label."""
        keys = zip(part.column("game_id").to_pylist(), part.column("move_number").to_pylist())
        return np.array([self.index.get(k, -1) for k in keys], np.int64)

    def policy_of(self, rows):
        return self.policy[rows]

    def batch(self, rows, s):
        return {"engine_move": self.sym[s, self.move[rows]], "winrate_black": self.winrate[rows],
                "score_lead_black": self.lead[rows]}


#: Shared blocks need memfd_create (Linux); elsewhere a worker's batches go the plain torch
#: way (copied into torch's own shared memory).
_MEMFD = hasattr(os, "memfd_create")

#: Bytes before a block's arrays; byte 0 is 1 while another process may hold the batch.
_HEADER = 64


class _Block:
    """The memory of one batch: shared memory (a memfd) or anonymous."""

    def __init__(self, nbytes, shared):
        self.nbytes = nbytes
        self.fd = os.memfd_create("kibo-batch", os.MFD_CLOEXEC) if shared else -1
        if shared:
            os.ftruncate(self.fd, nbytes)
        self.map = mmap.mmap(self.fd, nbytes)
        self.token = lambda: None

    def free(self):
        """True when nothing holds the block's last batch: no array over it in this process
        (its `token`, the buffer numpy's views of it hold, is gone), and no other process
        (byte 0, cleared there when the batch is let go)."""
        return self.token() is None and self.map[0] == 0

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _Pool:
    """The blocks of a stream of batches: a batch takes a free block of its size or more,
    else a new one; at most `KEEP` blocks are kept (the oldest one is let go of: what
    still holds its memory keeps it)."""

    KEEP = 16

    def __init__(self, shared):
        self.shared, self.blocks = shared, []

    def get(self, nbytes):
        """(block, a uint8 array over all of it) for `nbytes` bytes."""
        block = next((b for b in self.blocks if b.nbytes >= nbytes and b.free()), None)
        if block is None:
            if len(self.blocks) >= self.KEEP:
                self.blocks.pop(0).close()
            block = _Block(nbytes, self.shared)
            self.blocks.append(block)
        whole = np.frombuffer(block.map, np.uint8)
        block.token = weakref.ref(whole.base)
        return block, whole


class _Batch(dict):
    """A batch whose arrays lie in a block of shared memory: pickled (by a DataLoader
    worker, to the training process) as the block's file descriptor and where each array
    lies in it, instead of torch copying each array into new shared memory. The receiving
    side maps the block (`_rebuilt`) and clears its byte 0 when nothing there holds the
    batch any more: then the worker may write a new batch into it."""

    def __init__(self, items, block):
        super().__init__(items)
        self.block = block

    def __copy__(self):
        return _Batch(self, self.block)

    def __reduce__(self):
        b = self.block
        if b.fd < 0:  # let go of by its pool already: pickled as a plain dict
            return dict, (dict(self),)
        lo = np.frombuffer(b.map, np.uint8).ctypes.data
        layout, rest = [], {}
        for k, v in self.items():
            span = _span(v, lo, b.nbytes)
            if span is None:
                rest[k] = v
            layout.append((k, span))
        b.map[0] = 1
        return _rebuilt, (multiprocessing.reduction.DupFd(b.fd), b.nbytes, layout, rest)


def _span(v, lo, nbytes):
    """(offset, dtype, shape, is a tensor) of `v` when it is a C-contiguous numpy array or
    tensor lying in the `nbytes` bytes from address `lo`, else None."""
    if isinstance(v, torch.Tensor) and v.device.type == "cpu" and v.is_contiguous() and not v.requires_grad:
        at, size, tensor = v.data_ptr(), v.numel() * v.element_size(), True
        if v.dtype not in _NUMPY:
            return None
        dtype = _NUMPY[v.dtype]
    elif isinstance(v, np.ndarray) and v.flags.c_contiguous:
        at, size, tensor, dtype = v.ctypes.data, v.nbytes, False, v.dtype
    else:
        return None
    if not (lo + _HEADER <= at and at + size <= lo + nbytes):
        return None
    return at - lo, dtype.str, tuple(v.shape), tensor


_NUMPY = {torch.float32: np.dtype(np.float32), torch.uint8: np.dtype(np.uint8), torch.uint16: np.dtype(np.uint16)}


def _rebuilt(fd, nbytes, layout, rest):
    """The batch `_Batch.__reduce__` sent: the block mapped, its arrays as views of it."""
    fd = fd.detach()
    try:
        block = mmap.mmap(fd, nbytes)
    finally:
        os.close(fd)
    whole = np.frombuffer(block, np.uint8)
    # Byte 0 is cleared once the views are all gone (they hold `whole.base`).
    weakref.finalize(whole.base, block.__setitem__, 0, 0)
    out = {}
    for k, span in layout:
        if span is None:
            out[k] = rest[k]
            continue
        at, dtype, shape, tensor = span
        dtype = np.dtype(dtype)
        a = whole[at:at + int(np.prod(shape)) * dtype.itemsize].view(dtype).reshape(shape)
        out[k] = torch.from_numpy(a) if tensor else a
    return out
