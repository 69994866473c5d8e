"""The README's own commands for any archive: `make run INPUT=… OUT=…` and
`make spark INPUT=… OUT=…` on an archive that declares no licence (pipelines/default.toml
sets `require_licence`, which holds for its own [[sources]], not for --input). Both
finish, warn once how to declare a licence, record it as `unknown` in manifest.json and
in the dataset card, and build the same dataset (dist/spark/compare.py).

make runs with KIBO and CARGO_TARGET_DIR of the binary under test, so `build` finds it
up to date instead of building in another folder.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("compare", ROOT / "dist" / "spark" / "compare.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

GAMES = sorted((ROOT / "data" / "kombilo").glob("*.sgf"))[:6]
WARNING = "kibo: warning: source \"input\""


def make(kibo, target, archive, out, *extra):
    kibo = pathlib.Path(kibo).resolve()
    env = dict(os.environ, CARGO_TARGET_DIR=str(kibo.parent.parent))
    argv = ["make", "--no-print-directory", "-C", str(ROOT), target, f"INPUT={archive}", f"OUT={out}", f"KIBO={kibo}",
            *extra]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """A small .tar.gz of kombilo games, with no licence anywhere."""
    tmp = tmp_path_factory.mktemp("make-input")
    path = tmp / "my.tar.gz"
    with tarfile.open(path, "w:gz") as t:
        for g in GAMES:
            t.add(g, arcname=f"games/{g.name}")
    return path


@pytest.fixture(scope="module")
def built(kibo, archive):
    outs = {}
    for target in ("run", "spark"):
        out = archive.parent / f"out-{target}"
        r = make(kibo, target, archive, out)
        assert r.returncode == 0, f"make {target} failed:\n{r.stdout[-3000:]}\n{r.stderr[-4000:]}"
        outs[target] = (out, r.stderr)
    return outs


@pytest.mark.parametrize("target", ["run", "spark"])
def test_make_input_without_licence(built, archive, target):
    out, err = built[target]
    warnings = [l for l in err.splitlines() if l.startswith("kibo: warning:")]
    assert len(warnings) == 1, err
    assert warnings[0].startswith(f"{WARNING} ({archive}) declares no licence"), warnings[0]
    assert "--licence SPDX" in warnings[0] and "[[sources]]" in warnings[0], warnings[0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(s["name"], s["licence"]) for s in manifest["sources"]] == [("input", "unknown")]
    card = (out / "README.md").read_text()
    assert "license:\n- unknown\n" in card
    assert f"| input | unknown | {len(GAMES)} | command line |" in card, card
    report = json.loads((out / "report.json").read_text())
    assert report["games"]["found"] == len(GAMES) and report["games"]["balanced"]


def test_make_run_and_make_spark_build_the_same_dataset(built):
    (one, _), (two, _) = built["run"], built["spark"]
    problems = compare.compare(one, two)
    assert problems == [], "\n".join(problems)
    sources = [json.loads((d / "manifest.json").read_text())["sources"] for d in (one, two)]
    assert [(s["name"], s["licence"], s["origin"]) for s in sources[0]] == \
        [(s["name"], s["licence"], s["origin"]) for s in sources[1]]


def test_make_licence_declares_it(kibo, archive):
    out = archive.parent / "out-licensed"
    r = make(kibo, "run", archive, out, "LICENCE=CC-BY-4.0")
    assert r.returncode == 0, r.stderr[-4000:]
    assert "kibo: warning:" not in r.stderr, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["sources"][0]["licence"] == "CC-BY-4.0"
    assert "license:\n- cc-by-4.0\n" in (out / "README.md").read_text()
