"""`ShardDataset`: a PyTorch IterableDataset over kibo's sample shards (OUT/samples/
part-<split>-*.parquet), read directly with pyarrow, encoded by kibo's Rust feature sets.

Units of work are the shards' row groups; with DataLoader workers, worker `w` of `n`
takes units `w, w + n, …`, so every row is read by exactly one worker. Rows pass through a
shuffle buffer (`shuffle_buffer` rows, seeded by `seed` and the worker); each batch gets
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

    def _rows(self, units, rng):
        """Encoded rows of `units`, through the shuffle buffer, as arrays of one row each."""
        buf = []
        for f, rg in units:
            t = pq.ParquetFile(f).read_row_group(rg, columns=list(COLUMNS))
            for start in range(0, t.num_rows, 4096):
                part = t.slice(start, 4096)
                sp, gl, pol, val = encode_targets(part, self.features)
                if self.policy == "played":
                    pol = np.zeros_like(pol)
                    pol[np.arange(len(pol)), part.column("move").to_numpy()] = 1
                ids, numbers = part.column("game_id").to_pylist(), part.column("move_number").to_numpy()
                buf.extend(zip(sp, gl, pol, val, ids, numbers))
                while len(buf) >= self.shuffle_buffer:
                    j = rng.integers(len(buf))
                    buf[j], buf[-1] = buf[-1], buf[j]
                    yield buf.pop()
        rng.shuffle(buf)
        yield from buf

    def _batch(self, rows, rng):
        sp, gl, pol, val, ids, numbers = (np.stack(x) if i != 4 else list(x) for i, x in enumerate(zip(*rows)))
        s = int(rng.integers(8)) if self.symmetries else 0
        sp, pol = apply_symmetry(sp, pol, s)
        return {"spatial": sp.astype(np.float32), "global": gl, "policy": pol, "value": val,
                "weight": (val != 0).astype(np.float32), "symmetry": s, "game_id": ids, "move_number": numbers}

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid, n = (info.id, info.num_workers) if info else (0, 1)
        rng = np.random.default_rng([self.seed, wid])
        # The symmetries draw from their own stream: the row order does not depend on them.
        sym_rng = np.random.default_rng([self.seed, wid, 1])
        rows = []
        for r in self._rows(self.units[wid::n], rng):
            rows.append(r)
            if len(rows) == self.batch_size:
                yield self._batch(rows, sym_rng)
                rows = []
        if rows:
            yield self._batch(rows, sym_rng)
