"""`kibo eval` (docs/eval.md) on dev evaluation sets built from the embedded sample:
the true answers score 100%; answers transformed by a row flip, a column flip, a
transpose or the I shift are right only where the transform leaves them unchanged and
every wrong one is named by its class; garbage parses 0%; the three prediction shapes
score the same; the exit codes and messages of a missing set, a training set, a
mismatched file, duplicate and unknown ids; the HTML report in headless Chromium; the
judge task in the report, the summary and the page; a truth, question, layout, notation or
row field that is missing or unreadable, and an empty predictions file, refused (exit 2)
with the file and row named.

The transforms, GTP letters and the expected classes are computed here, independently
of kibo's code."""
import json
import os
import pathlib
import re
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
COLS = "ABCDEFGHJKLMNOPQRST"
N = 19
# The labels table's version, as kibo writes it (a hand-made table carries it to be read).
LABELS_VERSION = re.search(r'pub const LABELS_VERSION: &str = "(\w+)"', (ROOT / "src/stages/label/table.rs").read_text())[1]


def export(kibo, out, to, *args):
    subprocess.run([kibo, "export", "vlm", "--out", str(out), "--to", str(to), "--split", "test", "--limit", "0",
                    "--symmetries", "8", "-q", *args], cwd=ROOT, check=True, capture_output=True)
    return to


@pytest.fixture(scope="module")
def eval_set(kibo, sample_out, tmp_path_factory):
    """The sample's whole test split, the three tasks, the eight symmetries, GTP."""
    return export(kibo, sample_out, tmp_path_factory.mktemp("eval") / "set")


def rows_of(dest):
    return pq.read_table(dest / "test").to_pylist()


def run_eval(kibo, dest, preds, tmp, *extra, check=True):
    path = tmp / "preds.jsonl"
    if not isinstance(preds, (str, pathlib.Path)):
        path.write_text("".join(json.dumps(p) + "\n" for p in preds))
    else:
        path = pathlib.Path(preds)
    report = tmp / "report.json"
    r = subprocess.run([kibo, "eval", "--set", str(dest), "--predictions", str(path), "--report", str(report), *extra],
                       cwd=ROOT, capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
        return json.loads(report.read_text())
    return r


def gtp(rc):
    if rc is None:
        return "pass"
    r, c = rc
    return f"{COLS[c]}{N - r}"


def point(s):
    if s == "pass":
        return None
    return (N - int(s[1:]), COLS.index(s[0]))


def board_of(text):
    lines = text.splitlines()[1:]
    return [[{"X": 1, "O": 2, ".": 0}[ch] for ch in line[3:]] for line in lines]


def text_of(b):
    out = ["   " + COLS]
    for r in range(N):
        out.append(f"{N - r:>2} " + "".join(".XO"[v] for v in b[r]))
    return "\n".join(out)


# The symmetries in kibo's order of naming (coord::symmetry: bit 0 rows, 1 columns, 2 transpose).
SYMS = [("row_flip", lambda r, c: (18 - r, c)), ("col_flip", lambda r, c: (r, 18 - c)),
        ("transpose", lambda r, c: (c, r)), ("rotate_180", lambda r, c: (18 - r, 18 - c)),
        ("rotate_cw", lambda r, c: (c, 18 - r)), ("rotate_ccw", lambda r, c: (18 - c, r)),
        ("anti_transpose", lambda r, c: (18 - c, 18 - r))]


def i_shift_point(r, c):
    return (r, c + 1 if 8 <= c < 18 else (17 if c == 18 else c))


def board_map(b, f):
    out = [[0] * N for _ in range(N)]
    for r in range(N):
        for c in range(N):
            rr, cc = f(r, c)
            out[rr][cc] = b[r][c]
    return out


def board_i_shift(b):
    return [[b[r][c] if c < 8 else (0 if c == 8 else b[r][c - 1]) for c in range(N)] for r in range(N)]


def expected_board_class(truth, ans, own):
    for name, f in SYMS:
        if board_map(truth, f) == ans:
            return name
    return own


def expected_move_class(truth, ans, own):
    for name, f in SYMS:
        if f(*truth) == ans:
            return name
    return own


def test_true_answers_score_100_percent(kibo, eval_set, tmp_path):
    rows = rows_of(eval_set)
    assert {r["task"] for r in rows} == {"next-move", "transcribe", "tactics"}
    assert len({r["id"] for r in rows}) == len(rows)
    assert all(r["id"] == f"{r['game_id']}-{r['move_number']}" for r in rows)
    rep = run_eval(kibo, eval_set, [{"id": r["id"], "answer": r["answer"]} for r in rows], tmp_path)
    nm, tr, ta = rep["next-move"], rep["transcribe"], rep["tactics"]
    for task, names in [(nm, ["parsed", "legal", "top1"]), (tr, ["parsed", "exact", "point_accuracy"]),
                        (ta, ["parsed", "accuracy"])]:
        for name in names:
            assert task[name]["rate"] == 1.0, (name, task[name])
        assert task["n"] > 0
        assert sum(task.get("errors", {}).values()) == 0
    for q in ["atari", "capture", "ladder"]:
        assert ta["by_question"][q]["accuracy"]["rate"] == 1.0
    assert tr["black"]["f1"] == 1.0 and tr["white"]["f1"] == 1.0
    assert rep["unanswered"] == 0 and rep["rows"] == len(rows)


@pytest.mark.parametrize("name", ["row_flip", "col_flip", "transpose", "i_shift"])
def test_transformed_answers_are_named(kibo, eval_set, tmp_path, name):
    move_f = dict(SYMS).get(name, i_shift_point)
    board_f = (lambda b: board_map(b, move_f)) if name != "i_shift" else board_i_shift
    rows = rows_of(eval_set)
    preds, same = [], {"next-move": 0, "transcribe": 0}
    want = {"next-move": {}, "transcribe": {}}
    for r in rows:
        ans = r["answer"]
        def count(task, truth, answer, expected):
            if answer == truth:
                same[task] += 1
            else:
                k = expected(truth, answer, name)
                want[task][k] = want[task].get(k, 0) + 1

        if r["task"] == "next-move":
            t = point(ans)
            m = None if t is None else move_f(*t)
            ans = gtp(m)
            count("next-move", t, m, expected_move_class)
        elif r["task"] == "transcribe":
            t = board_of(ans)
            b = board_f(t)
            ans = text_of(b)
            count("transcribe", t, b, expected_board_class)
        preds.append({"id": r["id"], "answer": ans})
    rep = run_eval(kibo, eval_set, preds, tmp_path)
    for task, rate in [("next-move", "top1"), ("transcribe", "exact")]:
        got = rep[task]
        assert got[rate]["count"] == same[task], (task, got[rate], same)
        assert got["parsed"]["rate"] == 1.0
        errors = {k: v for k, v in got["errors"].items() if v}
        assert errors == want[task], (task, errors, want[task])
        assert want[task].get(name, 0) > 0, f"no {name} answer to name in {task}"
    # The mutation must fail something: the test can fail.
    assert rep["next-move"]["top1"]["rate"] < 1.0


def test_garbage_parses_nothing(kibo, eval_set, tmp_path):
    rows = rows_of(eval_set)
    rep = run_eval(kibo, eval_set, [{"id": r["id"], "answer": "I am not sure, maybe I5?"} for r in rows], tmp_path)
    for task in ["next-move", "transcribe", "tactics"]:
        assert rep[task]["parsed"]["count"] == 0 and rep[task]["n"] > 0


def test_answers_are_read_as_models_write_them(kibo, eval_set, tmp_path):
    rows = rows_of(eval_set)
    styled = []
    for r in rows:
        a = r["answer"]
        if r["task"] == "next-move":
            a = f" {a[0].lower()} {a[1:]}." if a != "pass" else "Pass."
        elif r["task"] == "tactics" and a in ("yes", "no"):
            a = a.capitalize() + "."
        styled.append({"id": r["id"], "answer": a})
    rep = run_eval(kibo, eval_set, styled, tmp_path)
    assert rep["next-move"]["top1"]["rate"] == 1.0
    assert rep["tactics"]["accuracy"]["rate"] == 1.0


def test_unanswered_rows_are_counted(kibo, eval_set, tmp_path):
    rows = rows_of(eval_set)
    half = [{"id": r["id"], "answer": r["answer"]} for r in rows[::2]]
    rep = run_eval(kibo, eval_set, half, tmp_path)
    assert rep["answered"] == len(half) and rep["unanswered"] == len(rows) - len(half)
    n_nm = sum(r["task"] == "next-move" for r in rows)
    assert rep["next-move"]["n"] == n_nm
    assert rep["next-move"]["top1"]["count"] == sum(r["task"] == "next-move" for r in rows[::2])


def task_objects(rep):
    return {k: rep[k] for k in ["next-move", "transcribe", "tactics"]}


def test_each_prediction_shape_scores_the_same(kibo, eval_set, sample_out, tmp_path):
    rows = rows_of(eval_set)
    # Some wrong answers, so that the figures are not all 100%.
    answers = [r["answer"] if i % 3 else "D4" for i, r in enumerate(rows)]
    base = run_eval(kibo, eval_set, [{"id": r["id"], "answer": a} for r, a in zip(rows, answers)], tmp_path)
    assert base["shape"] == "ids"
    llama = [{"prompt": r["prompt"], "predict": a, "label": r["answer"]} for r, a in zip(rows, answers)]
    rep = run_eval(kibo, eval_set, llama, tmp_path)
    assert rep["shape"] == "llama-factory" and task_objects(rep) == task_objects(base)
    swift = []
    for r, a in zip(rows, answers):
        row = {k: v for k, v in r.items() if k not in ("images",)}
        swift.append({**row, "response": a})
    rep = run_eval(kibo, eval_set, list(reversed(swift)), tmp_path)
    assert rep["shape"] == "swift" and task_objects(rep) == task_objects(base)
    # ms-swift's result without the row's ids: in the set's order, `labels` the set's answers.
    bare = [{"messages": [], "response": a, "labels": r["answer"]} for r, a in zip(rows, answers)]
    rep = run_eval(kibo, eval_set, bare, tmp_path)
    assert rep["shape"] == "swift" and task_objects(rep) == task_objects(base)
    r = run_eval(kibo, eval_set, list(reversed(bare)), tmp_path, check=False)
    assert r.returncode == 2 and "labels differ" in r.stderr, r.stderr
    # The Qwen layout's set: the same rows, ids in its JSONL.
    qwen = export(kibo, sample_out, tmp_path / "qwen", "--layout", "qwen")
    lines = [json.loads(x) for x in (qwen / "test.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == [r["id"] for r in rows]
    rep = run_eval(kibo, qwen, [{"id": r["id"], "answer": a} for r, a in zip(rows, answers)], tmp_path)
    assert task_objects(rep) == task_objects(base)


def test_sgf_sets_read_sgf_letters(kibo, sample_out, tmp_path):
    dest = export(kibo, sample_out, tmp_path / "sgf", "--answer", "sgf", "--mix", "next-move=1,tactics=1")
    rows = rows_of(dest)
    rep = run_eval(kibo, dest, [{"id": r["id"], "answer": r["answer"].upper()} for r in rows], tmp_path)
    assert rep["next-move"]["top1"]["rate"] == 1.0 and rep["tactics"]["accuracy"]["rate"] == 1.0


def test_usage_errors_exit_2_with_counts(kibo, eval_set, sample_out, tmp_path):
    rows = rows_of(eval_set)
    good = [{"id": r["id"], "answer": r["answer"]} for r in rows]
    r = run_eval(kibo, tmp_path / "nothing", good, tmp_path, check=False)
    assert r.returncode == 2 and "no evaluation set" in r.stderr, r.stderr
    train = tmp_path / "train_set"
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(train), "--limit", "50", "-q"],
                   cwd=ROOT, check=True, capture_output=True)
    assert "id" in pq.read_table(train / "train").column_names
    r = run_eval(kibo, train, good, tmp_path, check=False)
    assert r.returncode == 2 and "not an evaluation set" in r.stderr, r.stderr
    r = run_eval(kibo, eval_set, good + good[:3], tmp_path, check=False)
    assert r.returncode == 2 and "3 duplicate ids" in r.stderr, r.stderr
    r = run_eval(kibo, eval_set, good + [{"id": "nope-1", "answer": "D4"}, {"id": "nope-2", "answer": "D4"}],
                 tmp_path, check=False)
    assert r.returncode == 2 and "2 unknown ids" in r.stderr, r.stderr
    llama = [{"prompt": "", "predict": r["answer"], "label": r["answer"]} for r in rows[:-1]]
    r = run_eval(kibo, eval_set, llama, tmp_path, check=False)
    assert r.returncode == 2 and f"has {len(rows) - 1} predictions" in r.stderr and f"{len(rows)} rows" in r.stderr
    shuffled = [{"prompt": "", "predict": r["answer"], "label": r["answer"]} for r in reversed(rows)]
    r = run_eval(kibo, eval_set, shuffled, tmp_path, check=False)
    assert r.returncode == 2 and "labels differ" in r.stderr, r.stderr


@pytest.fixture(scope="module")
def browser():
    from test_review_page import CHROMIUM, sync_playwright
    if sync_playwright is None or not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"playwright or {CHROMIUM} missing; run `make venv` / `make debs`")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield b
        b.close()


def test_html_report_page(kibo, eval_set, tmp_path, browser):
    rows = rows_of(eval_set)
    preds = []
    for r in rows:
        a = r["answer"]
        if r["task"] == "next-move" and a != "pass":
            a = gtp(SYMS[0][1](*point(a)))
        preds.append({"id": r["id"], "answer": a})
    html = tmp_path / "report.html"
    rep = run_eval(kibo, eval_set, preds, tmp_path, "--html", str(html))
    wrong = rep["next-move"]["n"] - rep["next-move"]["top1"]["count"]
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    page.wait_for_load_state("load")
    assert errors == []
    figs = page.locator("figure.wrong")
    assert figs.count() == min(20, wrong) > 0
    for i in range(figs.count()):
        f = figs.nth(i)
        assert f.get_attribute("data-class") == "row_flip"
        # The board is drawn and visible, with the model's answer marked on it.
        box = f.locator("svg.board").bounding_box()
        assert box["width"] > 300 and box["height"] > 300
        assert f.locator("svg.board .answer").count() == 1
    # The plots: bars per move-number band, and the error classes with row_flip's count.
    plots = page.locator("figure.plot")
    assert plots.count() >= 5
    bar = page.locator("figure.plot rect.bar[data-key='row_flip']").first
    assert int(bar.get_attribute("data-count")) == rep["next-move"]["errors"]["row_flip"]
    assert bar.bounding_box()["width"] > 10


def test_engine_figures_from_a_labels_table(kibo, sample_out, tmp_path):
    """A labels table (docs/schema.md, `labels`) written here in the positions' own frame:
    KataGo's list has the move played first for a third of the rows, fifth for a third,
    seventh for the rest, each listed move with the side to move's lead 10 − its place.
    The true answers then give engine_top1 a third, engine_top5 two thirds, every answer
    in the list, and the mean score loss of the places: through the set's eight symmetries."""
    import shutil
    out = tmp_path / "out"
    shutil.copytree(sample_out, out)
    dest = export(kibo, out, tmp_path / "set", "--mix", "next-move=1")
    samples = pq.read_table(out / "samples", columns=["game_id", "move_number", "move", "to_play", "split"]).to_pylist()
    cols = {k: [] for k in ["game_id", "move_number", "split", "engine_move", "engine_move_index", "winrate_black",
                            "score_lead_black", "score_stdev", "visits", "engine_top", "sent"]}
    place_of = {}
    for k, s in enumerate(r for r in samples if r["split"] == "test"):
        place = [0, 4, 6][k % 3]
        others = [(s["move"] + 1 + t) % 361 for t in range(7)]
        moves = others[:place] + [s["move"]] + others[place:6]
        sign = 1 if s["to_play"] == 1 else -1
        top = [{"move": gtp(None if m == 361 else divmod(m, N)), "prior": 0.1, "visits": 1, "winrate_black": 0.5,
                "score_lead_black": sign * (10.0 - j)} for j, m in enumerate(moves)]
        place_of[f"{s['game_id']}-{s['move_number']}"] = place
        for key, v in [("game_id", s["game_id"]), ("move_number", s["move_number"]), ("split", "test"),
                       ("engine_move", top[0]["move"]), ("engine_move_index", moves[0]), ("winrate_black", 0.5),
                       ("score_lead_black", 10.0 * sign), ("score_stdev", 1.0), ("visits", 1), ("engine_top", top),
                       ("sent", "history")]:
            cols[key].append(v)
    write_labels(out, cols)
    rows = rows_of(dest)
    assert {r["symmetry"] for r in rows} != {0}
    rep = run_eval(kibo, dest, [{"id": r["id"], "answer": r["answer"]} for r in rows], tmp_path)
    nm = rep["next-move"]
    places = [place_of[r["id"]] for r in rows]
    assert rep["labels"] and nm["labelled"] == len(rows)
    assert nm["engine_top1"]["count"] == places.count(0)
    assert nm["engine_top5"]["count"] == places.count(0) + places.count(4)
    assert nm["in_engine_list"]["count"] == len(rows)
    assert nm["score_loss"]["n"] == len(rows)
    assert abs(nm["score_loss"]["mean"] - sum(places) / len(places)) < 1e-5, (nm["score_loss"], sum(places) / len(places))


# ---------------------------------------------------------------- issue 54: typed report, missing is an error


def labels_table(out, lead_of):
    """A labels table for the test split of `out` (docs/schema.md, `labels`; a kibo table,
    so that `kibo export vlm --mix judge=...` reads it): KataGo's move the move played,
    Black's score lead `lead_of(k)` for the k-th test sample."""
    samples = pq.read_table(out / "samples", columns=["game_id", "move_number", "move", "split"]).to_pylist()
    cols = {k: [] for k in ["game_id", "move_number", "split", "engine_move", "engine_move_index", "winrate_black",
                            "score_lead_black", "score_stdev", "visits", "engine_top", "sent"]}
    for k, s in enumerate(r for r in samples if r["split"] == "test"):
        mv = gtp(None if s["move"] == 361 else divmod(s["move"], N))
        top = [{"move": mv, "prior": 0.5, "visits": 1, "winrate_black": 0.5, "score_lead_black": lead_of(k)}]
        for key, v in [("game_id", s["game_id"]), ("move_number", s["move_number"]), ("split", "test"),
                       ("engine_move", mv), ("engine_move_index", s["move"]), ("winrate_black", 0.5),
                       ("score_lead_black", lead_of(k)), ("score_stdev", 1.0), ("visits", 1), ("engine_top", top),
                       ("sent", "history")]:
            cols[key].append(v)
    write_labels(out, cols)


def write_labels(out, cols):
    """The columns `cols` (name: values) as OUT/labels/part-00000.parquet, a kibo table of
    this labels version (the metadata kibo's one reader checks: the samples' schema
    version, `LABELS_VERSION`)."""
    top_type = pa.struct([("move", pa.utf8()), ("prior", pa.float32()), ("visits", pa.uint32()),
                          ("winrate_black", pa.float32()), ("score_lead_black", pa.float32())])
    types = {"move_number": pa.uint16(), "engine_move_index": pa.uint16(), "winrate_black": pa.float32(),
             "score_lead_black": pa.float32(), "score_stdev": pa.float32(), "visits": pa.uint32(),
             "engine_top": pa.list_(top_type)}
    table = pa.table({k: pa.array(v, types.get(k, pa.utf8())) for k, v in cols.items()})
    schema_version = pq.read_metadata(next((out / "samples").glob("*.parquet"))).metadata[b"kibo.schema_version"]
    table = table.replace_schema_metadata({b"kibo.schema_version": schema_version,
                                           b"kibo.labels_version": LABELS_VERSION.encode()})
    (out / "labels").mkdir()
    pq.write_table(table, out / "labels" / "part-00000.parquet", compression="zstd")


@pytest.fixture(scope="module")
def judge_set(kibo, sample_out, tmp_path_factory):
    """The sample's test split with a labels table, exported with every task, judge included."""
    import shutil
    tmp = tmp_path_factory.mktemp("judge")
    out = tmp / "out"
    shutil.copytree(sample_out, out)
    labels_table(out, lambda k: [12.3, -0.2, -7.6, 0.4, 3.0][k % 5])
    return export(kibo, out, tmp / "set", "--mix", "next-move=1,transcribe=1,tactics=1,judge=1")


def test_every_task_is_shown_judge_included(kibo, judge_set, tmp_path):
    """The judge task is in the report, the printed summary and the HTML page."""
    rows = rows_of(judge_set)
    assert {r["task"] for r in rows} == {"next-move", "transcribe", "tactics", "judge"}
    judge = [r for r in rows if r["task"] == "judge"]
    # Every third judge answer wrong (the other side named ahead, unless even).
    flip = {"B": "W", "W": "B"}
    preds = []
    for k, r in enumerate(rows):
        a = r["answer"]
        if r["task"] == "judge" and k % 3 == 0 and a != "even":
            a = flip[a[0]] + a[1:]
        preds.append({"id": r["id"], "answer": a})
    html = tmp_path / "report.html"
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in preds))
    report = tmp_path / "report.json"
    r = subprocess.run([kibo, "eval", "--set", str(judge_set), "--predictions", str(path), "--report", str(report),
                        "--html", str(html)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rep = json.loads(report.read_text())
    wrong = sum(1 for k, r in enumerate(rows) if r["task"] == "judge" and k % 3 == 0 and r["answer"] != "even")
    assert rep["judge"]["n"] == len(judge) and rep["judge"]["winner"]["count"] == len(judge) - wrong > 0
    line = [x for x in r.stdout.splitlines() if x.startswith("judge")]
    assert len(line) == 1 and f"n {len(judge)}: parsed 100.0%" in line[0] and "winner" in line[0], r.stdout
    page = html.read_text()
    assert f'<h2 id="judge">judge (n {len(judge)})</h2>' in page
    winner = rep["judge"]["winner"]
    assert f"<tr><td>winner</td><td>{100 * winner['rate']:.1f}%" in page
    assert f"· {winner['count']}/{winner['n']}</small>" in page


def copy_set(src, dst):
    import shutil
    shutil.copytree(src, dst)
    return dst


def set_with(src, dst, pick, field, value):
    """A copy of the Parquet set `src` at `dst` with `field` of its first row that `pick`
    accepts set to `value` (every part file rewritten); returns the copy and that row."""
    copy_set(src, dst)
    first = next(r for r in rows_of(dst) if pick(r))
    for f in sorted((dst / "test").glob("*.parquet")):
        t = pq.read_table(f)
        rows = t.to_pylist()
        for r in rows:
            if r["id"] == first["id"]:
                r[field] = value
        pq.write_table(pa.Table.from_pylist(rows, schema=t.schema), f, compression="zstd")
    return dst, first


def truth_preds(dest):
    return [{"id": r["id"], "answer": r["answer"]} for r in rows_of(dest)]


def test_an_unparsable_truth_is_refused(kibo, eval_set, judge_set, tmp_path):
    """A judge truth that is not a score lead scored as 0 (even), and an unreadable yes/no
    truth counted an unparsed answer right: both are refused, naming the file and row."""
    dest, first = set_with(judge_set, tmp_path / "judge", lambda r: r["task"] == "judge", "answer", "B+lots")
    r = run_eval(kibo, dest, truth_preds(judge_set), tmp_path, check=False)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert str(dest / "test") in r.stderr and first["id"] in r.stderr and '"B+lots"' in r.stderr, r.stderr
    dest, first = set_with(eval_set, tmp_path / "capture", lambda r: r["question"] == "capture", "answer", "maybe")
    preds = [{"id": r["id"], "answer": "I cannot tell"} for r in rows_of(dest)]
    r = run_eval(kibo, dest, preds, tmp_path, check=False)
    assert r.returncode == 2 and first["id"] in r.stderr and '"maybe"' in r.stderr, (r.returncode, r.stderr)


def test_a_tactics_row_without_its_question_is_refused(kibo, eval_set, tmp_path):
    """A tactics row whose question is missing was scored as an atari question."""
    dest, first = set_with(eval_set, tmp_path / "set", lambda r: r["question"] in ("capture", "ladder"), "question",
                           None)
    r = run_eval(kibo, dest, truth_preds(eval_set), tmp_path, check=False)
    assert r.returncode == 2, (r.returncode, r.stdout)
    assert str(dest / "test") in r.stderr and first["id"] in r.stderr and "without a question" in r.stderr, r.stderr


@pytest.mark.parametrize("key,value", [("layout", "qwen2"), ("answer", "sgff"), ("layout", None)])
def test_an_unknown_layout_or_notation_is_refused(kibo, eval_set, tmp_path, key, value):
    """An unknown (or missing) layout read as Parquet, an unknown notation as GTP."""
    dest = copy_set(eval_set, tmp_path / "set")
    info = json.loads((dest / "vlm.json").read_text())
    if value is None:
        del info[key]
    else:
        info[key] = value
    (dest / "vlm.json").write_text(json.dumps(info))
    r = run_eval(kibo, dest, truth_preds(eval_set), tmp_path, check=False)
    assert r.returncode == 2, (r.returncode, r.stdout)
    assert str(dest / "vlm.json") in r.stderr and key in r.stderr and (value or "") in r.stderr, r.stderr


@pytest.mark.parametrize("field", ["symmetry", "move_number", "game_id", "tags"])
def test_a_missing_field_in_a_set_row_is_refused(kibo, sample_out, tmp_path, field):
    """A Qwen set's line without a field read it as 0 (or empty): a missing symmetry scored
    the row in another frame, a missing move number reported "another output folder"."""
    dest = export(kibo, sample_out, tmp_path / "qwen", "--layout", "qwen")
    lines = [json.loads(x) for x in (dest / "test.jsonl").read_text().splitlines()]
    k = next(i for i, x in enumerate(lines) if x["symmetry"] != 0 and x["task"] == "next-move")
    del lines[k][field]
    (dest / "test.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    preds = [{"id": x["id"], "answer": x["conversations"][-1]["value"]} for x in lines]
    r = run_eval(kibo, dest, preds, tmp_path, check=False)
    assert r.returncode == 2, (r.returncode, r.stdout)
    assert f"{dest / 'test.jsonl'} line {k + 1}: no {field}" in r.stderr, r.stderr
    assert "another output folder" not in r.stderr


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_predictions_file_is_refused(kibo, eval_set, tmp_path, text):
    """An empty file exited 0 with every row unanswered."""
    path = tmp_path / "empty.jsonl"
    path.write_text(text)
    r = run_eval(kibo, eval_set, path, tmp_path, check=False)
    assert r.returncode == 2, (r.returncode, r.stdout)
    assert str(path) in r.stderr and "empty" in r.stderr, r.stderr
    assert not (tmp_path / "report.json").exists()


@pytest.mark.parametrize("layout", ["parquet", "qwen"])
def test_a_text_set_scores_as_its_picture_set(kibo, sample_out, eval_set, tmp_path, layout):
    """`--board text`: the same rows and truths as the picture set, so the same answers get
    the same report (but for the file names); the HTML page draws the rendered boards."""
    text = export(kibo, sample_out, tmp_path / f"text-{layout}", "--board", "text", "--layout", layout)
    assert json.loads((text / "vlm.json").read_text())["board"] == "text"
    rows = rows_of(eval_set)
    preds = []
    for k, r in enumerate(rows):
        a = r["answer"]
        if k % 3 == 1 and r["task"] == "next-move" and a != "pass":
            a = gtp(SYMS[0][1](*point(a)))
        elif k % 3 == 2:
            a = "I am not sure"
        preds.append({"id": r["id"], "answer": a})
    (tmp_path / "p").mkdir()
    (tmp_path / "t").mkdir()
    want = run_eval(kibo, eval_set, preds, tmp_path / "p")
    html = tmp_path / "t" / "report.html"
    got = run_eval(kibo, text, preds, tmp_path / "t", "--html", str(html))
    for key in ["set", "predictions"]:
        want.pop(key), got.pop(key)
    assert got == want
    assert 0 < got["next-move"]["top1"]["count"] < got["next-move"]["n"]
    assert html.read_text().count("<svg") > 1
