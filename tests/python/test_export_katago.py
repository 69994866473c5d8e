"""`kibo export katago`: the npz files as KataGo's `read_npz_training_data` reads them.

The dev corpus is exported once (conftest `katago_data`); every array is checked for the
dtype and shape the reader expects, the sums the trainer relies on (policy rows
normalisable, score distributions of 100, value targets one distribution), and every
row is traced through `X.rows.parquet` to its sample: the stone planes are the sample's
board from the side to move, policy channel 0 is the sample's move distribution and
channel 1 the game's next move. Then `--policy played` and a rerun (identical bytes).
"""
import hashlib
import json
import subprocess

import numpy as np
import polars as pl
import pytest

from conftest import KATAGO_SEED

ARRAYS = {
    "binaryInputNCHWPacked": (np.uint8, (22, 46)),
    "globalInputNC": (np.float32, (19,)),
    "policyTargetsNCMove": (np.int16, (2, 362)),
    "globalTargetsNC": (np.float32, (80,)),
    "scoreDistrN": (np.int8, (842,)),
    "valueTargetsNCHW": (np.int8, (5, 19, 19)),
}


def npz_files(data, split):
    return sorted((data / split).glob("*.npz"))


def digest(folder):
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def samples(dev_out):
    cols = ["game_id", "move_number", "split", "board", "to_play", "move", "move_dist_moves", "move_dist_counts",
            "dup_count"]
    return pl.read_parquet(dev_out / "samples" / "*.parquet", columns=cols)


def test_layout_and_arrays(katago_data, samples):
    total = {}
    for split in ("train", "val"):
        files = npz_files(katago_data, split)
        assert files, split
        n_split = 0
        for f in files:
            z = np.load(f)
            n = json.loads(f.with_suffix(".json").read_text())["num_rows"]
            for name, (dtype, shape) in ARRAYS.items():
                assert z[name].dtype == dtype, (f, name, z[name].dtype)
                assert z[name].shape == (n,) + shape, (f, name, z[name].shape)
            assert "metadataInputNC" not in z.files
            assert "qValueTargetsNCMove" not in z.files
            n_split += n
        total[split] = n_split
    assert json.loads((katago_data / "train.json").read_text()) == {"range": [0, total["train"]]}
    assert not (katago_data / "test").exists()
    want = samples.group_by("split").len()
    want = dict(zip(want["split"], want["len"]))
    assert total == {"train": want["train"], "val": want["val"]}


def test_rows_trace_to_samples(katago_data, samples, dev_out):
    games = pl.read_parquet(dev_out / "games" / "*.parquet", columns=["game_id", "moves", "score_check"])
    games = games.unique("game_id", keep="first", maintain_order=True)
    counted_ids = set(games.filter(pl.col("score_check") == "agrees")["game_id"])
    moves_of = dict(zip(games["game_id"], games["moves"]))
    seen = 0
    counted_rows = 0
    for split in ("train", "val"):
        for f in npz_files(katago_data, split)[:2]:
            z = np.load(f)
            rows = pl.read_parquet(f.with_name(f.name[:-4] + ".rows.parquet"))
            assert rows.columns == ["game_id", "move_number", "symmetry"]
            assert (rows["symmetry"] == 0).all()
            joined = rows.with_row_index("r").join(samples, on=["game_id", "move_number"], how="left",
                                                   maintain_order="left")
            assert joined["split"].to_list() == [split] * rows.height
            n = rows.height
            bins = np.unpackbits(z["binaryInputNCHWPacked"], axis=2)[:, :, :361]
            boards = np.frombuffer(b"".join(joined["board"]), np.uint8).reshape(n, 361)
            to_play = joined["to_play"].to_numpy()
            own = np.where(to_play[:, None] == 1, boards == 1, boards == 2)
            opp = np.where(to_play[:, None] == 1, boards == 2, boards == 1)
            assert (bins[:, 0] == 1).all()
            assert (bins[:, 1] == own).all() and (bins[:, 2] == opp).all()
            assert (bins[:, 8] == 0).all() and (bins[:, 7] == 0).all() and (bins[:, 20:] == 0).all()
            pol = z["policyTargetsNCMove"].astype(np.int64)
            for k, (mvs, cts, dup, mv, gid, mn) in enumerate(zip(joined["move_dist_moves"], joined["move_dist_counts"],
                                                                 joined["dup_count"], joined["move"],
                                                                 joined["game_id"], joined["move_number"])):
                want = np.zeros(362, np.int64)
                want[list(mvs)] = list(cts)
                assert (pol[k, 0] == want).all() and pol[k, 0].sum() == dup and pol[k, 0, mv] >= 1
                nxt = moves_of[gid][mn] if mn < len(moves_of[gid]) else None
                if nxt is None:
                    assert (pol[k, 1] == 1).all()
                else:
                    assert pol[k, 1, nxt] == 1 and pol[k, 1].sum() == 1
            gt = z["globalTargetsNC"]
            assert np.allclose(gt[:, 0] + gt[:, 1] + gt[:, 2], 1.0)
            assert (gt[:, 24] == 1).all() and (gt[:, 25] == 1).all() and (gt[:, 26] == 1).all()
            assert (gt[:, 63] == 3).all() and (gt[:, 33] == 1).all()
            assert np.allclose(gt[:, 47], z["globalInputNC"][:, 5] * 20)
            counted = gt[:, 27] == 1
            assert set(joined.filter(pl.Series(counted))["game_id"]) <= counted_ids
            sd = z["scoreDistrN"].astype(np.int64)
            assert (sd.sum(axis=1) == 100).all() and (sd >= 0).all()
            assert (sd[~counted][:, 420] == 50).all() and (sd[~counted][:, 421] == 50).all()
            vt = z["valueTargetsNCHW"]
            assert (np.abs(vt[:, :4]) <= 1).all()
            assert (vt[~counted][:, [0, 1, 4]] == 0).all()
            if counted.any():
                assert (np.abs(vt[counted][:, 0]).sum(axis=(1, 2)) > 0).all()
                # Score distribution centred on the final score of globalTargets C3.
                centre = (sd[counted] * (np.arange(842) - 421 + 0.5)).sum(axis=1) / 100
                assert np.allclose(centre, gt[counted][:, 3], atol=0.51)
                assert (gt[counted][:, 34] == 1).all() and (gt[counted][:, 20] == gt[counted][:, 3]).all()
            counted_rows += int(counted.sum())
            seen += n
    assert seen > 10000
    assert counted_rows > 0


def test_policy_played_and_rerun_identity(kibo, dev_out, katago_data, samples, tmp_path):
    again = tmp_path / "again"
    subprocess.run([kibo, "export", "katago", "--out", str(dev_out), "--to", str(again), "--seed", str(KATAGO_SEED)],
                   check=True)
    assert digest(again) == digest(katago_data)
    played = tmp_path / "played"
    subprocess.run([kibo, "export", "katago", "--out", str(dev_out), "--to", str(played), "--seed", str(KATAGO_SEED),
                    "--policy", "played", "--rows-per-file", "50000"], check=True)
    f = npz_files(played, "val")[0]
    z = np.load(f)
    rows = pl.read_parquet(f.with_name(f.name[:-4] + ".rows.parquet"))
    mv = rows.join(samples, on=["game_id", "move_number"], how="left", maintain_order="left")["move"].to_numpy()
    pol = z["policyTargetsNCMove"]
    assert (pol[:, 0].sum(axis=1) == 1).all()
    assert (pol[np.arange(len(mv)), 0, mv] == 1).all()
    # Same rows in the same order whatever the file size: the val split fits one file here.
    base = [pl.read_parquet(p.with_name(p.name[:-4] + ".rows.parquet")) for p in npz_files(katago_data, "val")]
    assert pl.concat(base).equals(rows)


def test_read_npz_training_data_reads_the_export(katago_data, shared):
    """KataGo's own loader (data_processing_pytorch.read_npz_training_data) on one file."""
    import sys
    from conftest import SHARED
    oracle = SHARED.parent / "oracles" / "katago-python"
    if not oracle.exists():
        pytest.skip(f"{oracle} is absent")
    sys.path.insert(0, str(oracle))
    torch = pytest.importorskip("torch", reason="torch is not in this venv (KataGo's loader needs it)")
    from katago.train import data_processing_pytorch, modelconfigs
    cfg = modelconfigs.config_of_name["b1c6nbt"]
    f = npz_files(katago_data, "val")[0]
    batches = list(data_processing_pytorch.read_npz_training_data(
        [str(f)], 64, 1, 0, 19, torch.device("cpu"), True, False, cfg))
    n = json.loads(f.with_suffix(".json").read_text())["num_rows"]
    assert len(batches) == n // 64
    b = batches[0]
    assert tuple(b["binaryInputNCHW"].shape) == (64, 22, 19, 19)
    assert tuple(b["policyTargetsNCMove"].shape) == (64, 2, 362)
    assert torch.isfinite(b["globalTargetsNC"]).all()


def test_a_split_with_no_rows_exports_empty(kibo, tmp_path):
    """Every row in train (`split_ratios = [1, 0, 0]`): the export still succeeds (its
    empty val buckets hold no zstd frame), writes every row to train and none to val."""
    import pathlib
    sample = pathlib.Path(__file__).resolve().parents[2] / "data" / "kombilo"
    pipe = tmp_path / "p.toml"
    pipe.write_text('[split]\nsplit_ratios = [1.0, 0.0, 0.0]\n')
    out, data = tmp_path / "out", tmp_path / "data"
    subprocess.run([kibo, "run", "--input", str(sample), "--pipeline", str(pipe), "--out", str(out), "-q",
                    "--licence", "MIT"], check=True)
    r = subprocess.run([kibo, "export", "katago", "--out", str(out), "--to", str(data), "--seed", "7"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    splits = pl.read_parquet(out / "samples" / "*.parquet", columns=["split"])["split"]
    assert set(splits.to_list()) == {"train"}
    rows = {s: sum(json.loads(p.read_text())["num_rows"] for p in (data / s).glob("*.json")) if (data / s).exists() else 0
            for s in ("train", "val")}
    assert rows == {"train": len(splits), "val": 0}, rows
