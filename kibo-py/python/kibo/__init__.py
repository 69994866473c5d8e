"""kibo's network inputs from sample rows: `kibo.features(table, "leela-18")` encodes an
Arrow table (or a Polars frame) of rows of kibo's samples table with one of the Rust
feature sets (docs/planes-leela.md, docs/planes.md). `kibo.torch.ShardDataset` reads the
shards directly for PyTorch."""
import numpy as np
import pyarrow as pa

from . import _kibo

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


def encode_targets(table, name):
    """(spatial uint8 [n, C, 19, 19], global float32 [n, G], policy float32 [n, 362],
    value float32 [n]) of every row of `table`."""
    s_ch, g_n = feature_sets()[name]
    parts = []
    for batch in _table(table).to_batches():
        schema, array = batch.__arrow_c_array__()
        sp, gl, pol, val, n = _kibo.encode(name, schema, array)
        parts.append((np.frombuffer(sp, np.uint8).reshape(n, s_ch, 19, 19),
                      np.frombuffer(gl, "<f4").reshape(n, g_n),
                      np.frombuffer(pol, "<f4").reshape(n, 362), np.frombuffer(val, "<f4")))
    if not parts:
        return (np.zeros((0, s_ch, 19, 19), np.uint8), np.zeros((0, g_n), np.float32),
                np.zeros((0, 362), np.float32), np.zeros(0, np.float32))
    return tuple(np.concatenate(x) for x in zip(*parts))


def features(table, name):
    """(spatial uint8 [n, C, 19, 19], global float32 [n, G]) of every row of `table` (an
    Arrow table or batch, or a Polars frame, of samples rows), planes in kibo's frame
    (row 0 the top edge)."""
    spatial, glob, _, _ = encode_targets(table, name)
    return spatial, glob
