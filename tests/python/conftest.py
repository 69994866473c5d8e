"""Shared fixtures: the kibo binary and a pipeline run on the embedded sample."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The shared corpus: $SHARED as given (relative to the cwd), by default ../shared/data
# beside the repository (as the Rust tests' `shared`).
SHARED = pathlib.Path(os.environ["SHARED"]) if os.environ.get("SHARED") else ROOT.parent / "shared" / "data"
REQUIRE_VAR = "KIBO_REQUIRE_SHARED_DATA"


def shared_path(sub):
    """`$SHARED/<sub>` if it exists. If it is absent: a failure naming the path when
    KIBO_REQUIRE_SHARED_DATA=1, else one `SKIPPED: ...` line and a skip."""
    p = SHARED / sub
    if p.exists():
        return p
    required = os.environ.get(REQUIRE_VAR, "")
    if required == "1":
        pytest.fail(f"{p} is absent and {REQUIRE_VAR}=1: this test needs the shared corpus", pytrace=False)
    if required not in ("", "0"):
        pytest.fail(f"{REQUIRE_VAR}={required!r}: expected 1 (require the shared corpus) or 0", pytrace=False)
    print(f"SKIPPED: {p} is absent; this test needs the shared corpus ({REQUIRE_VAR}=1 fails instead)")
    pytest.skip(f"{p} is absent")


@pytest.fixture(scope="session")
def shared():
    """The shared-corpus lookup, as a fixture: `shared("dev")` (see `shared_path`)."""
    return shared_path


def gnugo_binary():
    """GNU Go (`make debs` installs the Debian package, in /usr/games); a failure when absent."""
    for p in (shutil.which("gnugo"), "/usr/games/gnugo"):
        if p and os.access(p, os.X_OK):
            return p
    pytest.fail("gnugo not found (PATH, /usr/games): install the Debian package gnugo (`make debs`)", pytrace=False)


KATAGO_HOME = pathlib.Path(os.environ.get("KATAGO_HOME") or pathlib.Path.home() / ".cache" / "kibo-katago")
KATAGO_BINARY = KATAGO_HOME / "katago-6a1fc5d" / "cpp" / "katago"
KATAGO_MODEL = KATAGO_HOME / "katrain" / "katrain" / "models" / "b10c384h6nbttflrs.bin.gz"
KATAGO_CONFIG = KATAGO_HOME / "katrain" / "katrain" / "KataGo" / "analysis_config.cfg"


@pytest.fixture(scope="session")
def katago_flags():
    """The `--katago-*` flags of the KataGo that `make katago` builds; a failure in CI
    when it is missing, a skip elsewhere."""
    missing = [p for p in (KATAGO_BINARY, KATAGO_MODEL, KATAGO_CONFIG) if not p.is_file()]
    if missing:
        msg = f"{missing[0]} is missing: run `make katago`"
        if os.environ.get(REQUIRE_VAR) == "1":
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return ["--katago-binary", str(KATAGO_BINARY), "--katago-model", str(KATAGO_MODEL),
            "--katago-config", str(KATAGO_CONFIG)]


@pytest.fixture(scope="session")
def tiny_katago(katago_flags, tmp_path_factory):
    """`make katago`'s engine and config with a one-block net of random weights
    (tiny_katago_net.py, the same model version as the real net): `(flags, model)`.
    For the tests of what kibo sends and keeps (positions, legality, resume, engine
    counts), where the net's judgement is not under test; an evaluation costs about 2 ms
    against the real net's 2-3 s on these cores. The judge's tests keep the real net."""
    from tiny_katago_net import write_tiny_net
    model = write_tiny_net(tmp_path_factory.mktemp("tiny-net") / "kibo-tiny-b1c16.bin.gz")
    flags = list(katago_flags)
    flags[flags.index("--katago-model") + 1] = str(model)
    return flags, pathlib.Path(model)


def fake_katago(tmp_path, script, mode):
    """`--katago-*` flags of a stand-in engine: `script` (a Python program reading the
    mode from its model's name, `net-<mode>`) and empty model and config files."""
    import stat
    fake = tmp_path / "katago"
    fake.write_text(script)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    model, config = tmp_path / f"net-{mode}", tmp_path / "analysis.cfg"
    model.write_text("")
    config.write_text("")
    return ["--katago-binary", str(fake), "--katago-model", str(model), "--katago-config", str(config)]


@pytest.fixture(scope="session")
def kibo():
    path = os.environ.get("KIBO", os.path.expanduser("~/.cache/kibo-target/release/kibo"))
    if not os.path.exists(path):
        pytest.fail(f"kibo binary not found at {path}; run `make build` (or set KIBO)")
    return path


@pytest.fixture(scope="session")
def sample_out(kibo, tmp_path_factory):
    """`kibo run` on the embedded sample (pipelines/default.toml: exact dedup on)."""
    out = tmp_path_factory.mktemp("sample") / "out"
    subprocess.run([kibo, "run", "--pipeline", "pipelines/default.toml", "--out", str(out), "-q"], cwd=ROOT, check=True)
    return out


@pytest.fixture(scope="session")
def sample_all(kibo, tmp_path_factory):
    """The embedded sample with dedup off: one row per move."""
    out = tmp_path_factory.mktemp("sample_all") / "out"
    subprocess.run([kibo, "run", "--input", "data/kombilo", "--pipeline", str(ROOT / "tests/python/nodedup.toml"),
                    "--out", str(out), "-q"], cwd=ROOT, check=True)
    return out


@pytest.fixture(scope="session")
def sample_filtered(kibo, tmp_path_factory):
    """The embedded sample with min_moves = 10: contlist.sgf's short games are rejects."""
    tmp = tmp_path_factory.mktemp("filtered")
    p = tmp / "p.toml"
    p.write_text('[filter]\nmin_moves = 10\n')
    out = tmp / "out"
    subprocess.run([kibo, "run", "--input", "data/kombilo", "--pipeline", str(p), "--out", str(out), "-q"],
                   cwd=ROOT, check=True)
    return out


def built_once(tmp_path_factory, name, build):
    """`build(path)` once for the whole run, and the path. Under pytest-xdist each worker
    holds its own session fixtures, so each would build its own; here the first worker to
    ask builds it in the run's shared base folder, and the others wait (a file lock) and
    read it. The tests only read it, as they read any session fixture."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        path = tmp_path_factory.mktemp(name) / "out"
        build(path)
        return path
    import fcntl
    import shutil
    root = tmp_path_factory.getbasetemp().parent / f"once-{name}"
    with open(f"{root}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / ".built").exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            build(root / "out")
            (root / ".built").touch()
    return root / "out"


@pytest.fixture(scope="session")
def dev_out(kibo, tmp_path_factory):
    """`kibo run` on the dev corpus (pipelines/dev.toml: exact dedup)."""
    shared_path("dev")
    return built_once(tmp_path_factory, "dev", lambda out: subprocess.run(
        [kibo, "run", "--pipeline", "pipelines/dev.toml", "--out", str(out), "-q"], cwd=ROOT, check=True))


KATAGO_SEED = 7


@pytest.fixture(scope="session")
def katago_data(kibo, dev_out, tmp_path_factory):
    """`kibo export katago` of the dev corpus (the data folder train.py reads)."""
    return built_once(tmp_path_factory, "katago", lambda to: subprocess.run(
        [kibo, "export", "katago", "--out", str(dev_out), "--to", str(to), "--seed", str(KATAGO_SEED)], check=True))


def pytest_addoption(parser):
    parser.addoption("--run-train", action="store_true", default=False,
                     help="also run the tests marked `train` (KataGo's train.py on the export; `make test-train`)")


def pytest_configure(config):
    config.addinivalue_line("markers", "train: slow training runs, only with --run-train (make test-train)")
    # sgfmill 1.1.1's source has a docstring with '\ ', which Python warns about when it
    # compiles the module (at its first import: `make venv` installs with --no-compile).
    config.addinivalue_line("filterwarnings", "ignore:invalid escape sequence:DeprecationWarning:.*sgfmill.*")


# The slowest files, slowest first (`pytest --durations`, two workers, 2026-12-06, the tiny
# net in test_label and features.py's answers remembered): they run first, so that the
# workers of `make test` (`-n 2 --dist loadfile`: a file to a worker, in collection order)
# end together instead of one of them finishing the longest file alone. test_planes_katago
# is third for a first run, where features.py answers every game (~200 s; ~12 s later).
SLOWEST_FIRST = ["test_score_katago.py", "test_spark.py", "test_planes_katago.py", "test_export_vlm.py",
                 "test_export_katago.py", "test_kibo_py.py", "test_make_input.py", "test_ladder_cpp.py",
                 "test_label.py", "test_oracle.py"]


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: file order kept otherwise
    if config.getoption("--run-train"):
        return
    skip = pytest.mark.skip(reason="training run: `make test-train` (pytest --run-train)")
    for item in items:
        if "train" in item.keywords:
            item.add_marker(skip)
