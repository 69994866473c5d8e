"""The Spark job builds the same dataset as `kibo run` (issue: past one machine).

On the dev corpus, in exact and symmetry dedup modes: the same samples (every column,
sorted by position_hash), games, rejects, report counts and dataset card; the map side
ran as several Spark tasks and every dedup observation crossed Spark's shuffle. A kibo
map process killed with SIGKILL mid-write is retried by Spark and the output is still
the same. The card loads with `datasets.load_dataset` and the shards with Polars.
"""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOB = ROOT / "dist" / "spark" / "kibo_spark.py"
spec = importlib.util.spec_from_file_location("compare", ROOT / "dist" / "spark" / "compare.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

SOURCES = [
    ("gnugo", "gnugo-regression-games", "GPL-3.0"),
    ("fuego", "fuego-regression-sgf", "LGPL-3.0"),
    ("kombilo", "kombilo-0.8.4-test-sgfs", "MIT"),
    ("kgs2001", "kgs-2001-archive", None),
]


def pipeline(tmp, dev, mode):
    text = f'[pipeline]\nname = "spark-{mode}"\nseed = 20261130\n'
    for name, sub, licence in SOURCES:
        text += f'\n[[sources]]\nname = "{name}"\npath = "{dev / sub}"\n'
        if licence:
            text += f'licence = "{licence}"\n'
    text += f'\n[filter]\nmin_moves = 1\n\n[split]\ndedup = "{mode}"\n\n[label]\nchunk_rows = 2\n'
    p = tmp / f"{mode}.toml"
    p.write_text(text)
    return p


def spark(kibo, pipe, out, *extra):
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    r = subprocess.run(
        [sys.executable, str(JOB), "--kibo", kibo, "--pipeline", str(pipe), "--out", str(out), "--master", "local[2]", *extra],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert r.returncode == 0, f"the Spark job failed:\n{r.stderr[-4000:]}"
    return r.stderr


# Exact mode also labels this many rows with KataGo (`--label`; the tiny net of conftest.py's
# `tiny_katago`), one `kibo part label` task a part, and one process labels them too: the
# labels must be the same bytes.
LABEL = 8


@pytest.fixture(scope="module")
def built(kibo, shared, tiny_katago, tmp_path_factory):
    dev = shared("dev").resolve()
    tmp = tmp_path_factory.mktemp("spark")
    outs = {}
    label_flags = ["--katago-threads", "1", *tiny_katago[0]]
    for mode in ("exact", "symmetry"):
        pipe = pipeline(tmp, dev, mode)
        one = tmp / f"one-{mode}"
        r = subprocess.run([kibo, "run", "--pipeline", str(pipe), "--out", str(one), "-q"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        two = tmp / f"spark-{mode}"
        if mode == "exact":
            r = subprocess.run([kibo, "label", "--out", str(one), "--pipeline", str(pipe), "--limit", str(LABEL),
                                "-q", *label_flags], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            spark(kibo, pipe, two, "--label", str(LABEL), "--label-flags", " ".join(label_flags))
        else:
            # The symmetry job also has a kibo process killed with SIGKILL as it writes
            # (`test_killed_task_is_retried`): one Spark job fewer.
            outs["fault-log"] = spark(kibo, pipe, two, "--fault", "write:1", "--parts", "3")
        outs[mode] = (one, two)
    return tmp, outs


def spark_figures(out):
    return json.loads((out / "report.json").read_text())["spark"]


@pytest.mark.parametrize("mode", ["exact", "symmetry"])
def test_spark_equals_one_process(built, mode):
    one, two = built[1][mode]
    problems = compare.compare(one, two)
    assert problems == [], "\n".join(problems)
    report = json.loads((two / "report.json").read_text())
    s = report["spark"]
    assert s["parts"] > 1
    for step in ("filter", "keys", "write"):
        assert s["steps"][step]["tasks"] == s["parts"], (step, s["steps"][step])
    assert s["map_tasks"] == 3 * s["parts"]
    # Every observation (sample before dedup) was a record of Spark's shuffle.
    observations = report["split"]["dedup"]["observations"]
    assert observations > 600_000
    assert s["steps"]["dedup"]["shuffle_write_records"] >= observations
    assert s["steps"]["dedup"]["shuffle_write_bytes"] > 10 * observations
    assert s["steps"]["dups"]["shuffle_write_records"] >= report["games"]["kept"]
    assert report["games"]["balanced"] and report["split"]["accounting"]["balanced"]
    if mode == "exact":
        assert len(list((two / "labels").glob("*.parquet"))) >= 1
        assert json.loads((two / "report.json").read_text())["label"]["read"] == 0, "the driver read nothing again"


def test_comparison_sees_a_difference(built):
    """The comparison is not vacuous: exact and symmetry datasets differ."""
    problems = compare.compare(built[1]["exact"][0], built[1]["symmetry"][1])
    assert any(p.startswith("samples") for p in problems), problems


def test_killed_task_is_retried(built):
    """The symmetry job's kibo process for write task 1 was killed (`--fault write:1`):
    Spark ran it again, and the dataset is the one process's."""
    one, out = built[1]["symmetry"]
    assert "killed by signal 9" in built[1]["fault-log"]
    w = spark_figures(out)["steps"]["write"]
    assert w["failed_attempts"] == 1 and w["task_attempts"] == w["tasks"] + 1, w
    problems = compare.compare(one, out)
    assert problems == [], "\n".join(problems)
    assert not (out / ".spark-work").exists()
    assert not [p for p in out.iterdir() if p.name.startswith((".tmp-", ".old-"))]


def test_card_loads_with_datasets_and_polars(built, tmp_path):
    import datasets
    import polars as pl

    two = built[1]["exact"][1]
    report = json.loads((two / "report.json").read_text())
    card = (two / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: samples" in card and "split: validation" in card
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    d = datasets.load_dataset(str(two), cache_dir=str(tmp_path / "hf"))
    by_split = report["split"]["samples_by_split"]
    assert {k: d[k].num_rows for k in d} == {"train": by_split["train"], "validation": by_split["val"], "test": by_split["test"]}
    assert d["train"][0]["move_gtp"]
    n = pl.scan_parquet(str(two / "samples" / "*.parquet")).select(pl.len()).collect().item()
    assert n == report["split"]["samples"]


def test_comparison_sees_one_changed_value(built, tmp_path):
    """One value changed in one row of one shard is found, and named."""

    import pyarrow as pa
    import pyarrow.parquet as pq

    two = built[1]["exact"][1]
    copy = tmp_path / "changed"
    shutil.copytree(two, copy)
    shard = sorted((copy / "samples").glob("part-train-*.parquet"))[1]
    t = pq.read_table(shard)
    moves = t.column("move_number").to_pylist()
    moves[len(moves) // 2] += 1
    t = t.set_column(t.schema.get_field_index("move_number"), t.schema.field("move_number"), pa.array(moves, pa.uint16()))
    pq.write_table(t, shard)
    problems = compare.compare(built[1]["exact"][0], copy)
    assert any(p.startswith("samples") for p in problems), problems
