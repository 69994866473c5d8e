"""`kibo label` (docs/labels.md): KataGo's reading of drawn positions as DIR/labels/.
With `make katago`'s engine and a one-block net of random weights (conftest.py,
`tiny_katago`: what kibo sends and keeps is under test here, not the net's judgement): a
labelled row equals a query this test writes itself; the history reaches KataGo (a ko retake is never the
answer); rules, komi and handicap go as recorded; labels are byte-identical over engine
counts, after kill -9 and a rerun, and when a draw grows; and with stand-in engines that
crash or hang."""
import json
import shutil
import signal
import subprocess
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import KATAGO_BINARY, KATAGO_CONFIG, fake_katago

COLS = "ABCDEFGHJKLMNOPQRST"


def gtp(i):
    """GTP text of a kibo point index (row 0 at the top), written out here on purpose:
    the test does not borrow kibo's conversion."""
    return "pass" if i == 361 else f"{COLS[i % 19]}{19 - i // 19}"


KO_GAME = (  # Black's F15 (move 9) takes a ko at E15; White may not retake at move 10.
    "(;GM[1]FF[4]SZ[19]KM[6.5]RU[Japanese]PB[a]PW[b]RE[B+R]"
    ";B[ed];W[fd];B[de];W[ee];B[ef];W[ff];B[pp];W[ge];B[fe];W[dp];B[ee])"
)
HANDICAP_GAME = (  # two handicap stones, Chinese rules, komi 0.5, White first
    "(;GM[1]FF[4]SZ[19]HA[2]KM[0.5]RU[Chinese]AB[pd][dp]PL[W]PB[c]PW[d]RE[W+R]"
    ";W[dd];B[pp];W[qq];B[qp])"
)
KO_POINT = 4 * 19 + 4  # E15


def run(kibo, *args, **kw):
    return subprocess.run([kibo, *args], capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def small(kibo, tiny_katago, tmp_path_factory):
    """`kibo run` on the two games above, every position labelled with the policy."""
    tmp = tmp_path_factory.mktemp("label-small")
    (tmp / "in").mkdir()
    (tmp / "in" / "ko.sgf").write_text(KO_GAME)
    (tmp / "in" / "handicap.sgf").write_text(HANDICAP_GAME)
    out = tmp / "out"
    r = run(kibo, "run", "--input", str(tmp / "in"), "--out", str(out), "--licence", "MIT", "-q")
    assert r.returncode == 0, r.stderr
    r = run(kibo, "label", "--out", str(out), "--limit", "0", "--splits", "train,val,test", "--policy", "--ownership",
            "-q", *tiny_katago[0])
    assert r.returncode == 0, r.stderr
    return out


def katago_answers(queries, model):
    """KataGo's own answers to `queries` (one engine, one position at a time, as kibo
    runs it), by (id, turn)."""
    p = subprocess.run(
        [str(KATAGO_BINARY), "analysis", "-config", str(KATAGO_CONFIG), "-model", str(model),
         "-override-config", "nnRandomize=false,wideRootNoise=0,numAnalysisThreads=1,numSearchThreads=1"],
        input="".join(json.dumps(q) + "\n" for q in queries), capture_output=True, text=True, timeout=600)
    out = {}
    for line in p.stdout.splitlines():
        v = json.loads(line)
        assert "error" not in v, v
        if "turnNumber" in v:
            out[(v["id"], v["turnNumber"])] = v
    return out


def rules_of(ru):
    ru = (ru or "").lower()
    return "chinese" if "chin" in ru else "japanese"


def test_a_labelled_row_equals_katagos_own_answer_to_the_same_query(small, tiny_katago):
    games = {g["game_id"]: g for g in pq.read_table(small / "games").to_pylist()}
    labels = pq.read_table(small / "labels").to_pylist()
    samples = pq.read_table(small / "samples").to_pylist()
    assert len(labels) == len(samples) == 15
    assert {r["sent"] for r in labels} == {"history"}
    queries = []
    for gid, g in games.items():
        turns = sorted(r["move_number"] - 1 for r in labels if r["game_id"] == gid)
        queries.append({
            "id": gid,
            "initialStones": [["B", gtp(i)] for i in g["setup_black"]] + [["W", gtp(i)] for i in g["setup_white"]],
            "initialPlayer": g["colors"][0],
            "moves": [[c, gtp(m)] for c, m in zip(g["colors"], g["moves"])][: max(turns)],
            "rules": rules_of(g["rules"]),
            "komi": g["komi"],
            "boardXSize": 19, "boardYSize": 19,
            "analyzeTurns": turns, "maxVisits": 1, "includePolicy": True, "includeOwnership": True,
            "overrideSettings": {"reportAnalysisWinratesAs": "BLACK"},
        })
    answers = katago_answers(queries, tiny_katago[1])
    f32 = lambda x: float(np.float32(x))
    for r in labels:
        v = answers[(r["game_id"], r["move_number"] - 1)]
        policy = v["policy"]
        best = max((i for i in range(362) if policy[i] >= 0), key=lambda i: (policy[i], -i))
        assert r["engine_move"] == gtp(best), r
        assert r["engine_top"][0]["move"] == r["engine_move"]
        assert r["engine_top"][0]["prior"] == f32(policy[best])
        assert len(r["engine_top"]) == 8
        assert r["winrate_black"] == f32(v["rootInfo"]["winrate"]), r
        assert r["score_lead_black"] == f32(v["rootInfo"]["scoreLead"]), r
        assert r["visits"] == v["rootInfo"]["visits"] == 1
        assert r["status"] == "ok" and r["score_stdev"] == f32(v["rootInfo"]["scoreStdev"]), r
        assert r["policy"] == [f32(x) for x in policy]
        # Ownership from Black's side, x 100 rounded half away from zero, as i8.
        own = np.clip(np.array(v["ownership"], dtype=np.float32), -1, 1) * np.float32(100)
        assert r["ownership"] == (np.sign(own) * np.floor(np.abs(own) + 0.5)).astype(np.int8).tolist()


def test_the_history_reaches_katago_so_a_ko_retake_is_never_the_answer(small):
    samples = {(s["game_id"], s["move_number"]): s for s in pq.read_table(small / "samples").to_pylist()}
    labels = pq.read_table(small / "labels").to_pylist()
    after = [r for r in labels if samples[(r["game_id"], r["move_number"])]["ko_point"] == KO_POINT]
    assert [r["move_number"] for r in after] == [10]
    (r,) = after
    assert r["policy"][KO_POINT] == -1.0, "KataGo was not shown the ko capture"
    assert r["engine_move"] != gtp(KO_POINT)
    assert all(t["move"] != gtp(KO_POINT) for t in r["engine_top"])
    # One move later the ko point is Black's to fill, and legal again.
    later = next(x for x in labels if x["game_id"] == r["game_id"] and x["move_number"] == 11)
    assert later["policy"][KO_POINT] >= 0


def test_every_engine_move_is_an_empty_legal_point_of_the_samples_board(small):
    samples = {(s["game_id"], s["move_number"]): s for s in pq.read_table(small / "samples").to_pylist()}
    for r in pq.read_table(small / "labels").to_pylist():
        s = samples[(r["game_id"], r["move_number"])]
        i = r["engine_move_index"]
        assert gtp(i) == r["engine_move"]
        if i != 361:
            assert s["board"][i] == 0, r
            assert i != s["ko_point"], r
            assert r["policy"][i] >= 0


def test_the_manifest_records_the_engine_and_the_draw(small, tiny_katago):
    m = json.loads((small / "manifest.json").read_text())
    lab = m["labels"]
    assert lab["version"] == "2" and lab["rows"] == 15
    assert lab["engine"]["model"] == tiny_katago[1].name and len(lab["engine"]["model_blake3"]) == 64
    assert lab["engine"]["visits"] == 1 and {"nnRandomize=false", "wideRootNoise=0"} <= set(lab["engine"]["overrides"])
    assert lab["draw"]["splits"] == ["train", "val", "test"] and lab["draw"]["limit"] == 0
    assert m["tables"]["labels"]["rows"] == 15
    rep = json.loads((small / "report.json").read_text())["label"]
    assert rep["rows"] == 15 and rep["read"] == 15 and rep["reused"] == 0
    meta = pq.read_metadata(next((small / "labels").glob("*.parquet"))).metadata
    assert meta[b"kibo.labels_version"] == b"2" and meta[b"kibo.table"] == b"labels"
    kibo_torch = pytest.importorskip("kibo.torch")
    assert meta[b"kibo.labels_version"] == kibo_torch.LABELS_VERSION.encode(), "the loader reads what kibo writes"
    assert "labels" in (small / "README.md").read_text()


# ---------------------------------------------------------------- determinism and resume

N = 8
# Visits a position in the runs below: a search past one visit (whose answers must not
# vary between runs either), and about 0.3 s a position with the tiny net, so that the
# kill -9 test finds the first chunk committed and the second not.
VISITS = ["--katago-visits", "400"]


@pytest.fixture(scope="module")
def chunked(tmp_path_factory):
    """A pipeline file with chunks of 2 rows (so that a run commits several)."""
    p = tmp_path_factory.mktemp("label-pipe") / "p.toml"
    p.write_text("[label]\nchunk_rows = 2\n")
    return p


def fresh(source, tmp_path, name):
    out = tmp_path / name
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("verify", "labels", ".tmp-*"))
    return out


def label(kibo, out, pipeline, flags, *extra):
    r = run(kibo, "label", "--out", str(out), "--pipeline", str(pipeline), "-q", *flags, *extra)
    assert r.returncode == 0, r.stderr
    return json.loads((out / "report.json").read_text())["label"]


def files(out):
    return {p.name: p.read_bytes() for p in sorted((out / "labels").iterdir())}


@pytest.fixture(scope="module")
def reference_out(kibo, dev_out, tiny_katago, chunked, tmp_path_factory):
    """N rows of the dev corpus labelled by one engine, in chunks of 2."""
    out = fresh(dev_out, tmp_path_factory.mktemp("label-ref"), "one")
    label(kibo, out, chunked, tiny_katago[0] + VISITS, "--limit", str(N), "--katago-threads", "1")
    assert len(files(out)) == N // 2
    return out


@pytest.fixture(scope="module")
def reference(reference_out):
    return files(reference_out)


def test_every_engine_move_of_dev_labels_is_an_empty_legal_point(reference_out):
    labels = pq.read_table(reference_out / "labels").to_pylist()
    ids = sorted({r["game_id"] for r in labels})
    samples = {(s["game_id"], s["move_number"]): s for s in pq.read_table(
        reference_out / "samples", columns=["game_id", "move_number", "board", "ko_point"],
        filters=[("game_id", "in", ids)]).to_pylist()}
    assert len(labels) == N
    for r in labels:
        s = samples[(r["game_id"], r["move_number"])]
        i = r["engine_move_index"]
        assert gtp(i) == r["engine_move"] == r["engine_top"][0]["move"]
        if i != 361:
            assert s["board"][i] == 0 and i != s["ko_point"], r


def test_labels_are_byte_identical_whatever_the_engine_count(kibo, dev_out, tiny_katago, chunked, reference,
                                                            tmp_path):
    out = fresh(dev_out, tmp_path, "two")
    label(kibo, out, chunked, tiny_katago[0] + VISITS, "--limit", str(N), "--katago-threads", "2")
    assert files(out) == reference


def test_a_larger_limit_labels_only_the_new_rows(kibo, dev_out, tiny_katago, chunked, reference, tmp_path):
    out = fresh(dev_out, tmp_path, "grow")
    first = label(kibo, out, chunked, tiny_katago[0] + VISITS, "--limit", str(N // 2), "--katago-threads", "2")
    assert first["read"] == N // 2
    second = label(kibo, out, chunked, tiny_katago[0] + VISITS, "--limit", str(N), "--katago-threads", "2")
    assert (second["reused"], second["read"]) == (N // 2, N // 2)
    assert files(out) == reference
    # The same draw again reads nothing.
    again = label(kibo, out, chunked, tiny_katago[0] + VISITS, "--limit", str(N), "--katago-threads", "2")
    assert (again["reused"], again["read"]) == (N, 0)
    assert files(out) == reference


def test_kill_9_then_a_rerun_goes_on_from_the_last_chunk_and_equals_an_uninterrupted_run(
        kibo, dev_out, tiny_katago, chunked, reference, tmp_path):
    out = fresh(dev_out, tmp_path, "killed")
    store = out / ".tmp-label-chunks"
    p = subprocess.Popen([kibo, "label", "--out", str(out), "--pipeline", str(chunked), "-q", "--limit", str(N),
                          "--katago-threads", "1", *tiny_katago[0], *VISITS], stderr=subprocess.PIPE)
    deadline = time.time() + 300
    while time.time() < deadline and not list(store.glob("chunk-*.parquet")) and p.poll() is None:
        time.sleep(0.05)
    assert p.poll() is None, "the run ended before a chunk was committed"
    p.send_signal(signal.SIGKILL)
    p.wait()
    committed = list(store.glob("chunk-*.parquet"))
    assert 1 <= len(committed) < N // 2 and not (out / "labels").exists()
    rep = label(kibo, out, chunked, tiny_katago[0] + VISITS, "--limit", str(N), "--katago-threads", "1")
    assert rep["reused"] >= 2 and rep["read"] <= N - 2
    assert files(out) == reference
    assert not store.exists() and not list(out.glob(".tmp-*"))


# ---------------------------------------------------------------- setup errors and engine failures

def test_a_missing_engine_is_a_setup_error_before_anything_is_written(kibo, sample_out, tmp_path):
    out = fresh(sample_out, tmp_path, "noengine")
    before = sorted(p.name for p in out.iterdir())
    r = run(kibo, "label", "--out", str(out), "--katago-binary", str(tmp_path / "no-katago"))
    assert r.returncode == 2, r.stderr
    assert f"label.katago: the KataGo binary {tmp_path / 'no-katago'} is missing" in r.stderr
    r = run(kibo, "label", "--out", str(out), "--katago-model", str(tmp_path / "no-net.bin.gz"))
    assert r.returncode == 2 and "the KataGo model" in r.stderr, r.stderr
    assert sorted(p.name for p in out.iterdir()) == before
    r = run(kibo, "label", "--out", str(tmp_path / "nothing"))
    assert r.returncode == 2 and "run `kibo run` first" in r.stderr, r.stderr


FAKE = """#!/usr/bin/env python3
# A stand-in for `katago analysis`: answers kibo's probe (ownership queries) and the
# first label query with a flat policy, then crashes or hangs.
import json, sys, time
mode = sys.argv[sys.argv.index("-model") + 1].rsplit("-", 1)[-1]
labels = 0
for line in sys.stdin:
    q = json.loads(line)
    if "analyzeTurns" not in q:
        print(json.dumps({"id": q["id"], "ownership": [0.0] * 361}), flush=True)
        continue
    labels += 1
    if labels > 1:
        if mode == "crash":
            sys.stderr.write("fake katago: segmentation fault\\n")
            sys.exit(139)
        time.sleep(3600)
    for t in q["analyzeTurns"]:
        print(json.dumps({"id": q["id"], "turnNumber": t, "moveInfos": [], "policy": [0.001] * 361 + [0.5],
                          "rootInfo": {"winrate": 0.5, "scoreLead": 0.0, "scoreStdev": 1.0, "visits": 1}}),
              flush=True)
"""


@pytest.mark.parametrize("mode", ["crash", "hang"])
def test_a_crashed_or_hung_engine_is_exit_3_naming_the_position_and_keeps_the_committed_chunks(
        kibo, sample_out, tmp_path, mode):
    flags = fake_katago(tmp_path, FAKE, mode)
    out = fresh(sample_out, tmp_path, "fake")
    pipeline = tmp_path / "p.toml"
    pipeline.write_text("[label]\nchunk_rows = 1\n[label.katago]\ntimeout_s = 2\n")
    r = run(kibo, "label", "--out", str(out), "--pipeline", str(pipeline), "--limit", "3", "--katago-threads", "1",
            *flags)
    assert r.returncode == 3, r.stderr
    assert "KataGo" in r.stderr and ".sgf" in r.stderr and "move " in r.stderr, r.stderr
    if mode == "crash":
        assert "fake katago: segmentation fault" in r.stderr, r.stderr
    else:
        assert "no answer in 2 s" in r.stderr and "label.katago.timeout_s" in r.stderr, r.stderr
    assert not (out / "labels").exists()
    chunks = list((out / ".tmp-label-chunks").glob("chunk-*.parquet"))
    assert len(chunks) == 1, "the chunk read before the failure is kept"
    assert pq.read_table(chunks[0]).num_rows == 1
    assert not list((out / ".tmp-label-chunks").glob("*.partial"))


# ---------------------------------------------------------------- the exports that use the labels

def sym_point(row, col, s):
    """KataGo's symmetry numbering, written out here: bit 0 flips rows, bit 1 columns,
    bit 2 transposes (after the flips)."""
    x = 18 - col if s & 2 else col
    y = 18 - row if s & 1 else row
    return (x, y) if s & 4 else (y, x)


def gtp_under(text, s):
    if text == "pass":
        return text
    col, row = COLS.index(text[0]), 19 - int(text[1:])
    r, c = sym_point(row, col, s)
    return gtp(r * 19 + c)


def test_vlm_answer_engine_is_the_labels_move_and_judge_answers_the_lead(kibo, small, tmp_path):
    to = tmp_path / "vlm"
    r = run(kibo, "export", "vlm", "--out", str(small), "--to", str(to), "--limit", "0", "--answer", "engine",
            "--mix", "next-move=1,judge=1", "--symmetries", "8", "-q")
    assert r.returncode == 0, r.stderr
    labels = {(x["game_id"], x["move_number"]): x for x in pq.read_table(small / "labels").to_pylist()}
    samples = {(x["game_id"], x["move_number"]): x for x in pq.read_table(small / "samples").to_pylist()}
    rows = [x for split in ("train", "val") for f in sorted((to / split).glob("*.parquet"))
            for x in pq.read_table(f).to_pylist()]
    assert rows and {x["task"] for x in rows} == {"next-move", "judge"}
    for x in rows:
        lab, s = labels[(x["game_id"], x["move_number"])], samples[(x["game_id"], x["move_number"])]
        if x["task"] == "next-move":
            assert x["answer"] == gtp_under(lab["engine_move"], x["symmetry"]), x
            assert x["human_move"] == gtp_under(s["move_gtp"], x["symmetry"]), x
        else:
            assert x["human_move"] is None
            side, _, pts = x["answer"].partition("+")
            lead = 0.0 if x["answer"] == "even" else (1 if side == "B" else -1) * float(pts)
            assert lead == round(lab["score_lead_black"] * 2) / 2, (x["answer"], lab["score_lead_black"])
    # The human answer is the default; without labels, engine answers are refused before writing.
    bare = tmp_path / "bare"
    shutil.copytree(small, bare)
    shutil.rmtree(bare / "labels")
    r = run(kibo, "export", "vlm", "--out", str(bare), "--to", str(tmp_path / "no"), "--answer", "engine")
    assert r.returncode == 2 and "kibo label" in r.stderr and not (tmp_path / "no").exists(), r.stderr
    r = run(kibo, "export", "katago", "--out", str(bare), "--to", str(tmp_path / "no"), "--policy", "engine")
    assert r.returncode == 2 and "kibo label --policy" in r.stderr and not (tmp_path / "no").exists(), r.stderr


def test_katago_export_policy_engine_trains_on_katagos_policy(kibo, small, tmp_path):
    to = tmp_path / "npz"
    r = run(kibo, "export", "katago", "--out", str(small), "--to", str(to), "--policy", "engine", "-q")
    assert r.returncode == 0, r.stderr
    labels = {(x["game_id"], x["move_number"]): x for x in pq.read_table(small / "labels").to_pylist()}
    n = 0
    for f in sorted(to.glob("*/data-*.npz")):
        z = np.load(f)
        rows = pq.read_table(f.with_name(f.name[:-4] + ".rows.parquet")).to_pylist()
        pol = z["policyTargetsNCMove"][:, 0, :]
        for k, row in enumerate(rows):
            lab = labels[(row["game_id"], row["move_number"])]
            # Counts out of 32,000: each legal point's probability × 32,000, rounded.
            p = np.array(lab["policy"], dtype=np.float32)
            want = np.where(p > 0, np.floor(p * np.float32(32000) + np.float32(0.5)), 0).astype(np.int16)
            assert (pol[k] == want).all(), row
            assert abs(pol[k].sum() / 32000 - 1) < 6e-3
            n += 1
    assert n == sum(1 for x in labels.values() if x["split"] in ("train", "val")) > 0


def test_the_torch_loader_yields_the_label_columns_under_the_batch_symmetry(small):
    kibo_torch = pytest.importorskip("kibo.torch")
    labels = {(x["game_id"], x["move_number"]): x for x in pq.read_table(small / "labels").to_pylist()}
    seen = 0
    for split in ("train", "val", "test"):
        ds = kibo_torch.ShardDataset(small, split=split, labels=True, policy="engine", batch_size=4,
                                     shuffle_buffer=4, seed=1)
        for b in ds:
            s = b["symmetry"]
            for k, (gid, mn) in enumerate(zip(b["game_id"], b["move_number"].tolist())):
                lab = labels[(gid, mn)]
                assert b["winrate_black"][k] == np.float32(lab["winrate_black"])
                assert b["score_lead_black"][k] == np.float32(lab["score_lead_black"])
                assert gtp(int(b["engine_move"][k])) == gtp_under(lab["engine_move"], s)
                pol = b["policy"][k]
                assert abs(pol.sum() - 1) < 1e-5 and pol[int(b["engine_move"][k])] == pol.max()
                seen += 1
    assert seen == len(labels)
    with pytest.raises(ValueError, match="kibo label"):
        kibo_torch.ShardDataset(small.parent / "in", labels=True)


# ---------------------------------------------------------------- the one reader, nulls

def rewrite_labels(folder, change, version=None):
    """Rewrites every labels file of `folder` with `change(table)`, its metadata kept
    (the labels version replaced by `version` when given)."""
    for f in sorted((folder / "labels").glob("*.parquet")):
        t = pq.read_table(f)
        meta = dict(pq.read_metadata(f).metadata)
        meta.pop(b"ARROW:schema", None)
        if version is not None:
            meta[b"kibo.labels_version"] = version
        t = change(t)
        pq.write_table(t.replace_schema_metadata(meta), f, compression="zstd")


def test_a_labels_table_of_another_version_is_refused_by_every_reader_naming_the_file(kibo, small, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(small, old)
    rewrite_labels(old, lambda t: t, version=b"1")
    for args in (["export", "vlm", "--answer", "engine"], ["export", "katago", "--policy", "engine"]):
        r = run(kibo, *args, "--out", str(old), "--to", str(tmp_path / "no"), "-q")
        assert r.returncode == 2, (args, r.stderr)
        assert "part-00000.parquet" in r.stderr and "version 1" in r.stderr and "version 2" in r.stderr, r.stderr
        assert not (tmp_path / "no").exists()
    kibo_torch = pytest.importorskip("kibo.torch")
    with pytest.raises(ValueError, match="part-00000.parquet: labels table version 1; this loader reads version 2"):
        kibo_torch.ShardDataset(old, split="train", labels=True)


def test_a_row_without_a_score_lead_stops_the_judge_task_and_is_nan_in_the_loader(kibo, small, tmp_path):
    gap = tmp_path / "gap"
    shutil.copytree(small, gap)
    first = pq.read_table(small / "labels").slice(0, 1).to_pylist()[0]

    def drop_lead(t):
        hit = [(g, m) == (first["game_id"], first["move_number"])
               for g, m in zip(t.column("game_id").to_pylist(), t.column("move_number").to_pylist())]
        lead = [None if h else x for h, x in zip(hit, t.column("score_lead_black").to_pylist())]
        status = ["missing:score_lead_black" if h else x for h, x in zip(hit, t.column("status").to_pylist())]
        i, j = t.schema.get_field_index("score_lead_black"), t.schema.get_field_index("status")
        t = t.set_column(i, t.schema.field(i), pa.array(lead, pa.float32()))
        return t.set_column(j, t.schema.field(j), pa.array(status, pa.string()))

    rewrite_labels(gap, drop_lead)
    r = run(kibo, "export", "vlm", "--out", str(gap), "--to", str(tmp_path / "no"), "--limit", "0",
            "--mix", "judge=1", "-q")
    assert r.returncode == 2, r.stderr
    assert f"{first['game_id']} move {first['move_number']}" in r.stderr and "score lead" in r.stderr, r.stderr
    assert not any((tmp_path / "no").iterdir()), "DEST as it was"
    # The next-move task needs KataGo's move only: the same labels serve it.
    r = run(kibo, "export", "vlm", "--out", str(gap), "--to", str(tmp_path / "ok"), "--limit", "0",
            "--answer", "engine", "-q")
    assert r.returncode == 0, r.stderr
    kibo_torch = pytest.importorskip("kibo.torch")
    seen = False
    for b in kibo_torch.ShardDataset(gap, split=first["split"], labels=True, batch_size=64, shuffle_buffer=64):
        for k, (gid, mn) in enumerate(zip(b["game_id"], b["move_number"].tolist())):
            if (gid, mn) == (first["game_id"], first["move_number"]):
                assert np.isnan(b["score_lead_black"][k]) and not np.isnan(b["winrate_black"][k])
                seen = True
    assert seen
