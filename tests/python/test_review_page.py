"""The review page `kibo sample` writes (OUT/verify/index.html), driven in a real browser.

Headless Chromium from Debian (`/usr/bin/chromium`, `make debs`) through Playwright from
PyPI (`make venv`); no browser is downloaded. The test clicks intersections at pixel
positions computed from the board's bounding box and the page's own geometry (the
`kibo-data` JSON: origin, cell, n; the SVG's viewBox), then checks what the page shows
(the pick's GTP name, the blue ring, the revealed answer, the tally) and the saved review
JSON against GTP names the test derives itself and against the per-sample `sample-NN.json`.

Set REVIEW_SCREENSHOT=/some/path.png to also write a screenshot of the page.
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

try:
    from playwright.sync_api import sync_playwright
except ImportError as e:  # pragma: no cover - the environment is incomplete
    sync_playwright = None
    _PLAYWRIGHT_ERROR = e

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP: no I
N = 19


def gtp_of(row, col):
    """GTP name of (row, col), row 0 at the top; derived here, not taken from the page."""
    return f"{COLUMNS[col]}{N - row}"


def point_of(gtp):
    """(row, col) of a GTP name such as `Q16`."""
    return N - int(gtp[1:]), COLUMNS.index(gtp[0].upper())


@pytest.fixture(scope="module")
def verify_dir(kibo, sample_out, tmp_path_factory):
    """`kibo sample` on a copy of the embedded sample's output: OUT/verify/."""
    out = tmp_path_factory.mktemp("review") / "out"
    shutil.copytree(sample_out, out)
    subprocess.run([kibo, "sample", "--out", str(out), "--pipeline", "pipelines/default.toml"],
                   cwd=ROOT, check=True, capture_output=True)
    d = out / "verify"
    assert (d / "index.html").is_file(), f"kibo sample wrote no {d / 'index.html'}"
    return d


@pytest.fixture(scope="module")
def browser():
    if sync_playwright is None:
        pytest.fail(f"playwright is not installed ({_PLAYWRIGHT_ERROR}); run `make venv`")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing; run `make debs` (Debian package chromium)")
    with sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        except Exception as e:  # noqa: BLE001 - report any launch failure loudly
            pytest.fail(f"could not start {CHROMIUM} through playwright: {e}; run `make debs` / `make venv`")
        yield b
        b.close()


def click_point(page, svg, row, col, geo):
    """Clicks intersection (row, col) of `svg` at the pixel the page's geometry puts it on."""
    svg.evaluate("e => e.scrollIntoView({block: 'center', inline: 'center'})")
    box = svg.bounding_box()
    style = svg.evaluate(
        "e => { const s = getComputedStyle(e); const vb = e.viewBox.baseVal;"
        " return [parseFloat(s.borderLeftWidth), parseFloat(s.borderTopWidth),"
        "         parseFloat(s.borderRightWidth), vb.width]; }")
    border_left, border_top, border_right, view_w = style
    scale = (box["width"] - border_left - border_right) / view_w
    x = box["x"] + border_left + (geo["origin_x"] + col * geo["cell"]) * scale
    y = box["y"] + border_top + (geo["origin_y"] + row * geo["cell"]) * scale
    # The click must land on the board itself (not on the sticky header above it).
    inside = page.evaluate("([x, y, e]) => { const t = document.elementFromPoint(x, y);"
                           " return t !== null && (t === e || e.contains(t)); }",
                           [x, y, svg.element_handle()])
    assert inside, f"pixel ({x:.1f}, {y:.1f}) for {gtp_of(row, col)} is not on the board"
    page.mouse.click(x, y)
    return x, y


def pick_ring(svg):
    """Where the blue pick ring is, in SVG units, or None when it is hidden."""
    g = svg.locator("g.pick")
    if g.get_attribute("visibility") != "visible":
        return None
    t = g.get_attribute("transform")  # "translate(x y)"
    x, y = t[t.index("(") + 1:t.index(")")].replace(",", " ").split()
    return float(x), float(y)


def test_review_page(browser, verify_dir, tmp_path):
    answers = {}
    for i in range(1, 21):
        f = verify_dir / f"sample-{i:02}.json"
        assert f.is_file(), f"{f} is missing"
        answers[i] = json.loads(f.read_text())

    context = browser.new_context(viewport={"width": 1280, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
    page.goto((verify_dir / "index.html").as_uri())
    page.wait_for_load_state("load")
    assert errors == [], errors

    # (2) 20 samples, each with a question board; the tally starts at 0 / 0 / 20.
    sections = page.locator("section.sample")
    assert sections.count() == 20
    assert page.locator("section.sample .question svg").count() == 20
    assert page.locator("#n-correct").inner_text() == "0"
    assert page.locator("#n-revealed").inner_text() == "0"
    assert page.locator("#n-total").inner_text() == "20"

    geo = json.loads(page.locator("#kibo-data").text_content())
    assert geo["n"] == N

    by_id = {}
    for k in range(20):
        s = sections.nth(k)
        sid = int(s.get_attribute("data-id"))
        assert int(s.get_attribute("data-index")) == k
        by_id[sid] = s
    assert sorted(by_id) == list(range(1, 21))

    # Three samples: A gets its true move, B a wrong point with a two-digit row, C a wrong
    # corner (picked but not revealed).
    played = [i for i in range(1, 21) if answers[i]["answer_gtp"] != "pass"]
    assert played, "every sample is a pass"
    a = played[0]
    b = next(i for i in range(1, 21) if i != a)
    wrong_b = next(g for g in ("Q16", "C17", "R14") if g != answers[b]["answer_gtp"])
    c = next(i for i in range(1, 21) if i not in (a, b))
    wrong_c = next(g for g in ("T19", "A1") if g != answers[c]["answer_gtp"])
    targets = {a: answers[a]["answer_gtp"], b: wrong_b, c: wrong_c}

    def svg_of(sid):
        return by_id[sid].locator(".question svg")

    # (3) First aim A at a wrong point, then at its answer: the pick moves each time.
    first = next(g for g in ("C17", "Q16") if g != targets[a])
    for sid, gtp in [(a, first)] + list(targets.items()):
        row, col = point_of(gtp)
        assert gtp_of(row, col) == gtp
        click_point(page, svg_of(sid), row, col, geo)
        assert by_id[sid].locator(".pick-text").inner_text() == f"your pick: {gtp}", (sid, gtp)
        ring = pick_ring(svg_of(sid))
        want = (geo["origin_x"] + col * geo["cell"], geo["origin_y"] + row * geo["cell"])
        assert ring == pytest.approx(want), (sid, gtp, ring, want)

    # (4) Reveal A (correct) and B (incorrect).
    for sid, correct in ((a, True), (b, False)):
        sec = by_id[sid]
        sec.locator("button.reveal").click()
        ans = answers[sid]
        verdict = sec.locator(".verdict")
        text = verdict.inner_text()
        assert text.startswith("\u2713 correct" if correct else "\u2717 incorrect"), text
        assert f"answer {ans['answer_gtp']} (SGF {ans['answer_sgf_property']})" in text, text
        assert text.endswith(f"you picked {targets[sid]}"), text
        assert ("correct" if correct else "incorrect") in verdict.get_attribute("class").split()
        fig = sec.locator("figure.answer")
        assert fig.is_visible()
        # The answer board marks the true move with the red ring (#dc1414) at its centre.
        row, col = point_of(ans["answer_gtp"])
        cx, cy = geo["origin_x"] + col * geo["cell"], geo["origin_y"] + row * geo["cell"]
        red = fig.locator(f'svg circle[stroke="#dc1414"][cx="{cx:g}"][cy="{cy:g}"]')
        assert red.count() == 1, (sid, ans["answer_gtp"], cx, cy)
        assert pick_ring(fig.locator("svg")) == pytest.approx(
            (geo["origin_x"] + point_of(targets[sid])[1] * geo["cell"],
             geo["origin_y"] + point_of(targets[sid])[0] * geo["cell"]))
        assert sec.locator("button.reveal").is_disabled()
    assert page.locator("#n-correct").inner_text() == "1"
    assert page.locator("#n-revealed").inner_text() == "2"
    assert page.locator("#n-total").inner_text() == "20"

    # A revealed board no longer takes picks.
    click_point(page, svg_of(b), *point_of("D4" if targets[b] != "D4" else "E5"), geo)
    assert by_id[b].locator(".pick-text").inner_text() == f"your pick: {targets[b]}"

    if os.environ.get("REVIEW_SCREENSHOT"):
        # Sample B (wrong pick, revealed) just below the sticky header.
        by_id[b].evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 60)")
        page.screenshot(path=os.environ["REVIEW_SCREENSHOT"])

    # (5) Save review: a download of kibo-review.json recording picks and verdicts.
    with page.expect_download() as dl_info:
        page.locator("#save").click()
    dl = dl_info.value
    assert dl.suggested_filename == "kibo-review.json"
    saved = tmp_path / "kibo-review.json"
    dl.save_as(saved)
    review = json.loads(saved.read_text())
    assert isinstance(review, list) and len(review) == 20
    for entry in review:
        sid = entry["id"]
        ans = answers[sid]
        for key in ("source", "game_index", "move_number", "answer_gtp"):
            assert entry[key] == ans[key], (sid, key, entry[key], ans[key])
        if sid == a:
            want = (targets[a], True, True)
        elif sid == b:
            want = (targets[b], True, False)
        elif sid == c:
            want = (targets[c], False, None)
        else:
            want = (None, False, None)
        assert (entry["clicked_gtp"], entry["revealed"], entry["correct"]) == want, entry
    assert sorted(e["id"] for e in review) == list(range(1, 21))

    assert errors == [], errors
    context.close()


@pytest.fixture(scope="module")
def vlm_verify_dir(kibo, sample_out, tmp_path_factory):
    """`kibo export vlm` of the embedded sample (every task, symmetries), then
    `kibo sample --vlm`: OUT/verify/vlm/."""
    tmp = tmp_path_factory.mktemp("vlm-review")
    dest, out = tmp / "vlm", tmp / "out"
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(dest), "--limit", "300", "--seed", "2",
                    "--mix", "next-move=2,transcribe=1,tactics=1", "--symmetries", "8", "-q"], check=True)
    subprocess.run([kibo, "sample", "--out", str(out), "--vlm", str(dest)], cwd=ROOT, check=True, capture_output=True)
    return dest, out / "verify" / "vlm"


def test_vlm_review_page_shows_the_rows_as_the_model_sees_them(browser, vlm_verify_dir):
    import pyarrow.parquet as pq

    dest, d = vlm_verify_dir
    stored = {(r["game_id"], r["move_number"]): r
              for r in pq.read_table(dest / "train").to_pylist()}
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.goto((d / "index.html").as_uri())
    page.wait_for_load_state("load")
    assert errors == [], errors
    rows = page.locator("section.row")
    assert rows.count() == 20
    tasks = set()
    for i in range(20):
        row = rows.nth(i)
        meta = json.loads((d / f"vlm-{i + 1:02}.json").read_text())
        r = stored[(meta["game_id"], meta["move_number"])]
        # The picture on the page is the stored PNG, drawn at its own size and loaded.
        img = row.locator("img")
        size = img.evaluate("e => [e.complete, e.naturalWidth, e.naturalHeight, e.width]")
        assert size == [True, 672, 672, 672], size
        assert (d / f"vlm-{i + 1:02}.png").read_bytes() == r["images"][0]["bytes"]
        # The turns are the stored text; the answer is hidden until opened.
        user = [m["content"] for m in r["messages"] if m["role"] == "user"][0]
        assert row.locator(".turn.user pre").inner_text() == user
        answer = row.locator("details.answer")
        assert not answer.evaluate("e => e.open")
        assert not answer.locator("pre").is_visible()
        answer.locator("summary").click()
        assert answer.locator("pre").is_visible()
        assert answer.locator("pre").inner_text() == r["answer"]
        tasks.add(r["task"])
    assert tasks == {"next-move", "transcribe", "tactics"}
    if os.environ.get("REVIEW_SCREENSHOT"):
        page.screenshot(path=os.environ["REVIEW_SCREENSHOT"].replace(".png", "-vlm.png"), full_page=False)
    context.close()


@pytest.mark.parametrize("layout", ["parquet", "qwen"])
def test_vlm_review_page_of_a_text_set_shows_the_text_board(browser, kibo, sample_out, tmp_path, layout):
    """`--board text`: no picture files, no <img>; the user turn shows the stored prompt
    with its text board."""
    dest, out = tmp_path / "vlm", tmp_path / "out"
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(dest), "--limit", "100",
                    "--board", "text", "--layout", layout, "-q"], check=True)
    r = subprocess.run([kibo, "sample", "--out", str(out), "--vlm", str(dest)], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    d = out / "verify" / "vlm"
    assert sorted(p.name for p in d.glob("vlm-*")) == [f"vlm-{i:02}.json" for i in range(1, 21)]
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.goto((d / "index.html").as_uri())
    assert errors == [] and page.locator("section.row").count() == 20 and page.locator("img").count() == 0
    for i in range(20):
        user = page.locator("section.row").nth(i).locator(".turn pre").first.inner_text()
        assert "   A B C D E F G H J K L M N O P Q R S T\n19 " in user and "<image>" not in user, user
    page.close()
