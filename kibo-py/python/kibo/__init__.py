"""kibo's network inputs from sample rows: `kibo.features(table, "leela-18")` encodes an
Arrow table (or a Polars frame) of rows of kibo's samples table with one of the Rust
feature sets (docs/planes-leela.md, docs/planes.md). `kibo.torch.ShardDataset` reads the
shards directly for PyTorch. `kibo.Game` is a game being played on kibo's rules engine
(legality, undo, the moves a player may choose, the planes of its position in a set), for
a GTP engine in Python (examples/gtp_policy.py); `kibo.gtp_text`, `kibo.gtp_index`
and `kibo.sgf_text` convert move indices and GTP or SGF text through kibo's coordinates."""
import numpy as np
import pyarrow as pa

from . import _kibo
from ._kibo import Game, gtp_index, gtp_text, sgf_text  # noqa: F401 (the package's API)

#: The columns a position is read from, and the Arrow types the Rust side expects.
COLUMNS = {
    "game_id": pa.string(), "move_number": pa.uint16(), "board": pa.binary(), "to_play": pa.uint8(),
    "ko_point": pa.uint16(), "history": pa.list_(pa.field("item", pa.uint16(), nullable=False)),
    "history_captures": pa.list_(pa.field("item", pa.uint16(), nullable=False)),
    "prisoners_black": pa.uint16(), "prisoners_white": pa.uint16(), "move": pa.uint16(),
    "komi": pa.float32(), "handicap": pa.uint8(), "rules": pa.string(), "winner": pa.string(),
    "black_rank_num": pa.int16(), "white_rank_num": pa.int16(), "date": pa.string(), "split": pa.string(),
    "move_dist_moves": pa.list_(pa.field("item", pa.uint16(), nullable=False)),
    "move_dist_counts": pa.list_(pa.field("item", pa.uint32(), nullable=False)),
}


def feature_sets():
    """{name: (spatial channels, global values)} of the registered sets."""
    return {name: (s, g) for name, s, g in _kibo.feature_sets()}


def _table(table):
    if not isinstance(table, (pa.Table, pa.RecordBatch)):
        table = table.to_arrow()  # a Polars frame
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    cols = [table.column(n).cast(t) if table.column(n).type != t else table.column(n) for n, t in COLUMNS.items()]
    return pa.Table.from_arrays(cols, names=list(COLUMNS)).combine_chunks()


def _encode_into(table, name, spatial, glob, policy, value, slots=None):
    """Encodes the rows of `table` (as `_table` makes it) into the first rows of the
    arrays (C-contiguous, writable: numpy arrays or row ranges of them), or with `slots`
    (int64, one per row) row `i` into row `slots[i]` of the whole arrays; returns the
    rows written."""
    at = 0
    for batch in table.to_batches():
        schema, array = batch.__arrow_c_array__()
        n = batch.num_rows
        if slots is None:
            _kibo.encode_into(name, schema, array, spatial[at:at + n], glob[at:at + n], policy[at:at + n],
                              value[at:at + n])
        else:
            _kibo.encode_into(name, schema, array, spatial, glob, policy, value, slots[at:at + n])
        at += n
    return at


def empty_targets(n, name):
    """Uninitialised (spatial uint8 [n, C, 19, 19], global float32 [n, G], policy float32
    [n, 362], value float32 [n]) arrays for `n` rows of the set `name`."""
    s_ch, g_n = feature_sets()[name]
    return (np.empty((n, s_ch, 19, 19), np.uint8), np.empty((n, g_n), np.float32),
            np.empty((n, 362), np.float32), np.empty(n, np.float32))


def encode_targets(table, name):
    """(spatial uint8 [n, C, 19, 19], global float32 [n, G], policy float32 [n, 362],
    value float32 [n]) of every row of `table`, written by the Rust encoder straight into
    the arrays."""
    if name not in feature_sets():
        raise ValueError(f"no feature set {name!r}; known: {sorted(feature_sets())}")
    table = _table(table)
    out = empty_targets(table.num_rows, name)
    _encode_into(table, name, *out)
    return out


def features(table, name):
    """(spatial uint8 [n, C, 19, 19], global float32 [n, G]) of every row of `table` (an
    Arrow table or batch, or a Polars frame, of samples rows), planes in kibo's frame
    (row 0 the top edge)."""
    spatial, glob, _, _ = encode_targets(table, name)
    return spatial, glob
