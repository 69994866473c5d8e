"""The `kibo` Python package (kibo-py/, built into the venv by `make venv`): its planes
equal `kibo export leela`'s bit for bit, two DataLoader workers read every train row
exactly once, and a batch's symmetry moves planes and policy together."""
import concurrent.futures
import subprocess

import numpy as np
import polars as pl
import torch.utils.data

import kibo as kibo_py  # the package (`kibo` is the binary's fixture)
import kibo.torch as kibo_torch

from test_export_leela import ROOT, parse_chunk


def test_features_equal_the_leela_export_bit_for_bit(kibo, sample_out, tmp_path):
    subprocess.run([kibo, "export", "leela", "--out", str(sample_out), "--to", str(tmp_path), "-q"], cwd=ROOT, check=True)
    table = pl.read_parquet(f"{sample_out}/samples/part-train-*.parquet")
    assert {"leela-18", "alphago-48"} <= set(kibo_py.feature_sets())
    spatial, glob = kibo_py.features(table, "leela-18")
    assert spatial.shape == (table.height, 18, 19, 19) and glob.shape == (table.height, 0)
    index = {(g, m): i for i, (g, m) in enumerate(zip(table["game_id"], table["move_number"]))}
    # Leela Zero's bit v is kibo's point leela_index(v): rows flipped.
    flip = np.array([(18 - v // 19) * 19 + v % 19 for v in range(361)])
    n = 0
    for chunk in sorted((tmp_path / "train").glob("*.gz")):
        rows = pl.read_csv(str(chunk).replace(".gz", ".rows.tsv"), separator="\t")
        for (planes, stm, _, _), g, m in zip(parse_chunk(chunk), rows["game_id"], rows["move_number"]):
            mine = spatial[index[(g, m)]].reshape(18, 361)
            assert (mine[:16, flip] == planes).all(), (g, m)
            assert (mine[16 + stm] == 1).all() and (mine[17 - stm] == 0).all()
            n += 1
    assert n > 3000


def test_two_workers_cover_every_train_row_once(sample_out):
    ds = kibo_torch.ShardDataset(sample_out, split="train", features="leela-18", shuffle_buffer=1000, seed=3,
                                 batch_size=128)
    dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
    seen = [(g, int(m)) for b in dl for g, m in zip(b["game_id"], b["move_number"])]
    train = pl.read_parquet(f"{sample_out}/samples/part-train-*.parquet")
    want = sorted(zip(train["game_id"], train["move_number"]))
    assert len(seen) == len(set(seen)) and sorted(seen) == want


def test_symmetries_keep_the_policy_on_its_stone(sample_out):
    args = dict(split="train", features="leela-18", shuffle_buffer=500, seed=5, batch_size=64, policy="played")
    plain = list(kibo_torch.ShardDataset(sample_out, symmetries=False, **args))
    turned = list(kibo_torch.ShardDataset(sample_out, symmetries=True, **args))
    assert len(plain) == len(turned) and {b["symmetry"] for b in turned} != {0}
    for a, b in zip(plain, turned):
        assert a["game_id"] == b["game_id"]
        sp, pol = kibo_torch.apply_symmetry(a["spatial"], a["policy"], b["symmetry"])
        assert (sp == b["spatial"]).all() and (pol == b["policy"]).all()
        # The move played is on an empty point of the board now, in the turned frame too.
        moves = b["policy"].argmax(1)
        on_board = moves < 361
        stones = (b["spatial"][:, 0] + b["spatial"][:, 8]).reshape(len(moves), 361)
        assert (stones[on_board, moves[on_board]] == 0).all()


def test_the_rust_symmetries_equal_numpys_views():
    """`orient` (Rust: turn and widen in one pass) against `apply_symmetry` (numpy views)
    for every symmetry, in both plane types, with a policy that marks every point, on
    planes empty, constant (ones, and another value), with a few points (the corners and
    the last point among them), and half full."""
    rng = np.random.default_rng(7)
    planes = rng.integers(0, 2, (5, 9, 19, 19), dtype=np.uint8)
    flat = planes.reshape(5, 9, 361)
    flat[:, 0] = 0
    flat[:, 1] = 1
    flat[:, 2] = 3
    for row in range(5):
        for c, k in ((3, 1), (4, 5), (5, 96), (6, 97), (7, 200)):
            flat[row, c] = 0
            flat[row, c, rng.choice(361, k, replace=False)] = rng.integers(1, 4, k)
        flat[row, 4, [0, 18, 342, 360]] = 2
    policy = rng.random((5, 362), dtype=np.float32)
    for s in range(8):
        want_sp, want_pol = kibo_torch.apply_symmetry(planes, policy, s, np.float32)
        for dtype in (np.float32, np.uint8):
            sp, pol = kibo_torch.orient(planes, policy, s, dtype)
            assert sp.dtype == dtype and (sp == want_sp).all() and (pol == want_pol).all(), (s, dtype)
    # Symmetry 4 is the transpose: row 0 becomes column 0.
    sp, _ = kibo_torch.orient(planes, policy, 4)
    assert (sp[:, :, :, 0] == planes[:, :, 0, :]).all()


def test_uint8_planes_are_the_float_planes(sample_out):
    args = dict(split="train", features="leela-18", shuffle_buffer=500, seed=5, batch_size=64)
    wide = list(kibo_torch.ShardDataset(sample_out, **args))
    narrow = list(kibo_torch.ShardDataset(sample_out, planes="uint8", **args))
    assert len(wide) == len(narrow) > 10
    for a, b in zip(wide, narrow):
        assert b["spatial"].dtype == np.uint8 and a["symmetry"] == b["symmetry"]
        assert (a["spatial"] == b["spatial"]).all() and (a["policy"] == b["policy"]).all()


def test_katago_features_equal_the_npz_export(katago_data, dev_out):
    """`kibo.features(rows, "katago-v7")` (from sample rows alone) against `kibo export
    katago` (from a replay of each game), every train and val row of the dev corpus.
    The rows may differ only where a row cannot tell what the replay knows
    (src/features/katago_rows.rs): the komi globals of a handicap game whose stones
    are played as moves, or of a game without KM whose setup stones have no HA. Every
    spatial plane and every other global is equal."""
    assert kibo_py.feature_sets()["katago-v7"] == (22, 19)
    table = pl.read_parquet(dev_out / "samples" / "*.parquet")
    index = {(g, m): i for i, (g, m) in enumerate(zip(table["game_id"], table["move_number"]))}

    def check(f):
        """(rows, rows differing in their komi alone) of one npz file."""
        z = np.load(f)
        rows = pl.read_parquet(f.with_name(f.name[:-4] + ".rows.parquet"))
        take = [index[(g, m)] for g, m in zip(rows["game_id"], rows["move_number"])]
        spatial, glob = kibo_py.features(table[take], "katago-v7")
        want = np.unpackbits(z["binaryInputNCHWPacked"], axis=2)[:, :, :361]
        got = spatial.reshape(len(take), 22, 361)
        bad = np.nonzero((got != want).any(axis=(1, 2)))[0]
        assert len(bad) == 0, (f, [(rows["game_id"][int(k)], rows["move_number"][int(k)]) for k in bad[:5]])
        differ = ~(glob == z["globalInputNC"]).all(axis=1)
        for k in np.nonzero(differ)[0]:
            # Only the komi (5, 18): of a handicap game (its stones played as moves), or
            # of a game without KM (the default komi of setup stones without HA).
            r = table[take[int(k)]]
            cols = set(np.nonzero(glob[k] != z["globalInputNC"][k])[0].tolist())
            assert cols <= {5, 18} and (r["handicap"][0] >= 2 or r["komi"][0] is None), (
                f, rows["game_id"][int(k)], rows["move_number"][int(k)], cols)
        return len(take), int(differ.sum())

    # Two files at a time: kibo.features and numpy let go of the GIL.
    files = [f for split in ("train", "val") for f in sorted((katago_data / split).glob("*.npz"))]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        counts = list(pool.map(check, files))
    n = sum(c[0] for c in counts)
    global_only = sum(c[1] for c in counts)
    assert n > 10000
    assert global_only <= n // 1000, f"{global_only} of {n} rows differ in their komi"


def test_worker_batches_are_the_in_process_ones_held_or_not(sample_out):
    """A DataLoader worker writes each batch into a block of shared memory that it writes
    again only once nothing holds that batch: its batches, all held at once (more than the
    pool keeps) or each let go of at once (blocks reused), are those of the same dataset in
    the calling process, and the same seed gives the same batches."""
    args = dict(split="train", features="leela-18", shuffle_buffer=500, seed=9, batch_size=64)
    mine = list(kibo_torch.ShardDataset(sample_out, **args))
    assert len(mine) > kibo_torch._Pool.KEEP
    keys = ("spatial", "global", "policy", "value", "weight", "move_number")

    def same(a, b):
        assert a["game_id"] == b["game_id"] and a["symmetry"] == b["symmetry"]
        for k in keys:
            x, y = np.asarray(a[k]), np.asarray(b[k])
            assert x.dtype == y.dtype and x.shape == y.shape and (x == y).all(), k

    for a, b in zip(mine, kibo_torch.ShardDataset(sample_out, **args), strict=True):
        same(a, b)
    dl = torch.utils.data.DataLoader(kibo_torch.ShardDataset(sample_out, **args), batch_size=None, num_workers=1)
    held = list(dl)
    for a, b in zip(mine, held, strict=True):
        same(a, b)
    n = 0
    for a, b in zip(mine, dl, strict=True):
        same(a, b)
        n += len(b["value"])
    assert n == sum(len(a["value"]) for a in mine)
