"""`make test-train`: KataGo's own reader and trainer on kibo's export of the dev corpus.

* `read_npz_training_data` (katago/train/data_processing_pytorch.py) reads every npz file
  of train/ and val/ and yields `num_rows // 64` batches of each, every value finite;
* `train.py` (the oracle folder's, unpatched) trains b1c6nbt on CPU for 300 batches of 64
  from `-datadir`: it exits 0, every logged loss is finite, and the policy loss
  (`p0loss`) of the last logged 100 batches is below the first's.
"""
import json
import math
import os
import subprocess
import sys
import time

import pytest

from conftest import SHARED

ORACLE = SHARED.parent / "oracles" / "katago-python"
BATCHES = 300


def oracle_or_skip():
    if not (ORACLE / "train.py").exists():
        pytest.skip(f"{ORACLE} is absent")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))


@pytest.mark.train
def test_read_npz_training_data_reads_every_file(katago_data):
    oracle_or_skip()
    torch = pytest.importorskip("torch", reason="torch is not in this venv (KataGo's loader needs it)")
    from katago.train import data_processing_pytorch, modelconfigs
    cfg = modelconfigs.config_of_name["b1c6nbt"]
    for split in ("train", "val"):
        for f in sorted((katago_data / split).glob("*.npz")):
            n = json.loads(f.with_suffix(".json").read_text())["num_rows"]
            k = 0
            for b in data_processing_pytorch.read_npz_training_data(
                    [str(f)], 64, 1, 0, 19, torch.device("cpu"), True, False, cfg):
                for name, t in b.items():
                    assert torch.isfinite(t).all(), (f, name)
                k += 1
            assert k == n // 64, (f, k, n)


@pytest.mark.train
def test_train_py_trains_b1c6nbt(katago_data, tmp_path):
    oracle_or_skip()
    run = tmp_path / "run"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    cmd = [sys.executable, "train.py", "-traindir", str(run), "-datadir", str(katago_data), "-pos-len", "19",
           "-batch-size", "64", "-model-kind", "b1c6nbt", "-samples-per-epoch", str(64 * BATCHES),
           "-max-epochs-this-instance", "1", "-max-val-samples", "2048", "-no-export", "-no-compile",
           "-quit-if-no-data",
           # The default schedule warms up from ~1e-6: in a run this short the policy
           # would not move from uniform (p0loss log 362 ≈ 5.89) at all.
           "-lr-scale", "30", "-no-lr-warmup"]
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ORACLE, env=env, capture_output=True, text=True)
    secs = time.time() - t0
    assert p.returncode == 0, p.stderr[-4000:]
    train = [json.loads(line) for line in (run / "metrics_train.json").read_text().splitlines() if line.strip()]
    val = [json.loads(line) for line in (run / "metrics_val.json").read_text().splitlines() if line.strip()]
    assert len(train) >= 2, train
    for m in train + val:
        for k, v in m.items():
            if isinstance(v, float):
                assert math.isfinite(v), (k, v)
    p0 = [m["p0loss"] for m in train]
    print(f"train.py b1c6nbt: {BATCHES} batches of 64 in {secs:.0f} s; train p0loss {p0}; "
          f"val p0loss {val[-1].get('p0loss')}, vloss {val[-1].get('vloss')}")
    assert p0[-1] < p0[0], p0
