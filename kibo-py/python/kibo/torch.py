"""`ShardDataset`: a PyTorch IterableDataset over kibo's sample shards (OUT/samples/
part-<split>-*.parquet), read directly with pyarrow, encoded by kibo's Rust feature sets.

Units of work are the shards' row groups; with DataLoader workers, worker `w` of `n`
takes units `w, w + n, …`, so every row is read by exactly one worker. Rows pass through a
shuffle buffer (`shuffle_buffer` rows, seeded by `seed` and the worker; numpy arrays
allocated once, which the Rust encoder writes into, each batch drawn at random from them); each batch gets
one of the 8 symmetries (KataGo's numbering: bit 0 flips rows, bit 1 flips columns, bit 2
transposes, after the flips), applied to the planes and the policy alike.

Each item is a dict of numpy arrays: `spatial` float32 [B, C, 19, 19] (uint8 with
`planes="uint8"`: every plane is 0/1, a quarter of the bytes to move between processes;
convert on the device), `global` [B, G],
`policy` [B, 362] (the corpus's move distribution, or the move played with
`policy="played"`), `value` [B] (+1 the side to move won, −1 lost), `weight` [B] (1 when
the game has a winner, else 0), `symmetry` (int), `game_id` (list), `move_number` [B].
"""
import glob
import os

import numpy as np
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


class ShardDataset(torch.utils.data.IterableDataset):
    def __init__(self, out, split="train", features="leela-18", symmetries=True, shuffle_buffer=65536,
                 seed=0, batch_size=256, policy="dist", planes="float32"):
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
        """The rows of `units` as Arrow tables of at most `CHUNK` rows."""
        for f, rg in units:
            t = _table(pq.ParquetFile(f).read_row_group(rg, columns=list(COLUMNS)))
            for start in range(0, t.num_rows, CHUNK):
                yield t.slice(start, CHUNK)

    def _fill(self, buf, m, part):
        """Encodes the rows of `part` into rows `m..` of the buffer."""
        k = part.num_rows
        sp, gl, pol, val, ids, numbers = buf
        _encode_into(part, self.features, sp[m:m + k], gl[m:m + k], pol[m:m + k], val[m:m + k])
        if self.policy == "played":
            pol[m:m + k] = 0
            pol[np.arange(m, m + k), part.column("move").to_numpy()] = 1
        ids[m:m + k] = part.column("game_id").to_pylist()
        numbers[m:m + k] = part.column("move_number").to_numpy()

    def _shuffled(self, units, rng):
        """The rows of `units` through the shuffle buffer, as arrays of `batch_size` rows
        (the last one shorter). The buffer is a set of arrays allocated once, which the
        Rust encoder writes into: a chunk of rows goes in at its end; while it holds more
        than `shuffle_buffer` rows, a batch of random rows is taken out and the last rows
        fill their places."""
        want = self.shuffle_buffer + self.batch_size
        cap = want + CHUNK
        buf = list(empty_targets(cap, self.features)) + [np.empty(cap, "S64"), np.empty(cap, np.uint16)]
        m = 0
        for part in self._chunks(units):
            self._fill(buf, m, part)
            m += part.num_rows
            while m >= want:
                yield self._take(buf, m, rng)
                m -= self.batch_size
        order = rng.permutation(m)
        for b in range(0, m, self.batch_size):
            idx = order[b:b + self.batch_size]
            yield [x[idx] for x in buf]

    def _take(self, buf, m, rng):
        """`batch_size` random rows of the first `m` of `buf`, taken out: the rows after
        `m - batch_size` that were not taken move into the holes below it."""
        bs = self.batch_size
        idx = rng.choice(m, size=bs, replace=False)
        out = [x[idx] for x in buf]
        tail = m - bs
        taken = np.zeros(bs, bool)
        high = idx[idx >= tail] - tail
        taken[high] = True
        holes = idx[idx < tail]
        movers = tail + np.nonzero(~taken)[0]
        for x in buf:
            x[holes] = x[movers]
        return out

    def _batch(self, rows, rng):
        sp, gl, pol, val, ids, numbers = rows
        s = int(rng.integers(8)) if self.symmetries else 0
        sp, pol = orient(sp, pol, s, self.planes)
        return {"spatial": sp, "global": gl, "policy": pol, "value": val,
                "weight": (val != 0).astype(np.float32), "symmetry": s, "game_id": [i.decode() for i in ids],
                "move_number": numbers}

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid, n = (info.id, info.num_workers) if info else (0, 1)
        rng = np.random.default_rng([self.seed, wid])
        # The symmetries draw from their own stream: the row order does not depend on them.
        sym_rng = np.random.default_rng([self.seed, wid, 1])
        for rows in self._shuffled(self.units[wid::n], rng):
            yield self._batch(rows, sym_rng)
