"""`ShardDataset`: a PyTorch IterableDataset over kibo's sample shards (OUT/samples/
part-<split>-*.parquet), read directly with pyarrow, encoded by kibo's Rust feature sets.

Units of work are the shards' row groups; with DataLoader workers, worker `w` of `n`
takes units `w, w + n, …`, so every row is read by exactly one worker. Rows pass through a
shuffle buffer (`shuffle_buffer` rows, seeded by `seed` and the worker; numpy arrays
allocated once, each batch drawn at random from them); each batch gets
one of the 8 symmetries (KataGo's numbering: bit 0 flips rows, bit 1 flips columns, bit 2
transposes, after the flips), applied to the planes and the policy alike.

Each item is a dict of numpy arrays: `spatial` float32 [B, C, 19, 19], `global` [B, G],
`policy` [B, 362] (the corpus's move distribution, or the move played with
`policy="played"`), `value` [B] (+1 the side to move won, −1 lost), `weight` [B] (1 when
the game has a winner, else 0), `symmetry` (int), `game_id` (list), `move_number` [B].
"""
import glob
import os

import numpy as np
import pyarrow.parquet as pq
import torch.utils.data

from . import COLUMNS, encode_targets, feature_sets


def apply_symmetry(planes, policy, s):
    """Symmetry `s` on planes [..., 19, 19] and policy [..., 362] (the pass stays)."""
    board = policy[..., :361].reshape(policy.shape[:-1] + (19, 19))
    out = []
    for a in (planes, board):
        if s & 1:
            a = a[..., ::-1, :]
        if s & 2:
            a = a[..., :, ::-1]
        if s & 4:
            a = np.swapaxes(a, -1, -2)
        out.append(np.ascontiguousarray(a))
    pol = np.concatenate([out[1].reshape(policy.shape[:-1] + (361,)), policy[..., 361:]], axis=-1)
    return out[0], pol


class ShardDataset(torch.utils.data.IterableDataset):
    def __init__(self, out, split="train", features="leela-18", symmetries=True, shuffle_buffer=65536,
                 seed=0, batch_size=256, policy="dist"):
        self.files = sorted(glob.glob(os.path.join(str(out), "samples", f"part-{split}-*.parquet")))
        if features not in feature_sets():
            raise ValueError(f"no feature set {features!r}; known: {sorted(feature_sets())}")
        self.features, self.symmetries, self.seed = features, symmetries, seed
        self.shuffle_buffer, self.batch_size, self.policy = max(shuffle_buffer, 1), batch_size, policy
        self.units = [(f, rg) for f in self.files for rg in range(pq.ParquetFile(f).num_row_groups)]

    def _chunks(self, units):
        """Encoded rows of `units`, 4,096 at a time: (spatial, global, policy, value,
        game ids, move numbers) arrays."""
        for f, rg in units:
            t = pq.ParquetFile(f).read_row_group(rg, columns=list(COLUMNS))
            for start in range(0, t.num_rows, 4096):
                part = t.slice(start, 4096)
                sp, gl, pol, val = encode_targets(part, self.features)
                if self.policy == "played":
                    pol = np.zeros_like(pol)
                    pol[np.arange(len(pol)), part.column("move").to_numpy()] = 1
                ids = np.array(part.column("game_id").to_pylist(), dtype="S")
                yield sp, gl, pol, val, ids, part.column("move_number").to_numpy()

    def _shuffled(self, units, rng):
        """The rows of `units` through the shuffle buffer, as arrays of `batch_size` rows
        (the last one shorter). The buffer is a set of arrays allocated once: a chunk of
        rows goes in at its end; while it holds more than `shuffle_buffer` rows, a batch
        of random rows is taken out and the last rows fill their places."""
        buf, m = None, 0
        want = self.shuffle_buffer + self.batch_size
        for chunk in self._chunks(units):
            k = len(chunk[3])
            if buf is None or m + k > len(buf[0]):
                cap = max(want + k, 2 * (m + k)) if buf is None else 2 * (m + k)
                grown = [np.empty((cap,) + x.shape[1:], x.dtype if x.dtype.kind != "S" else "S64") for x in chunk]
                if buf is not None:
                    for g, b in zip(grown, buf):
                        g[:m] = b[:m]
                buf = grown
            for b, x in zip(buf, chunk):
                b[m:m + k] = x
            m += k
            while m >= want:
                yield self._take(buf, m, rng)
                m -= self.batch_size
        if buf is not None:
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
        sp, pol = apply_symmetry(sp, pol, s)
        return {"spatial": sp.astype(np.float32), "global": gl, "policy": pol, "value": val,
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
