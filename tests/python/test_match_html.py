"""`kibo match`'s HTML report (docs/match-html.md): a match of a fake GTP engine that gives
invalid answers on a schedule (fake_gtp_html.py, which logs them) against `random`. The
page counts exactly the answers the engine logged, draws each with the refused point ringed
where the record says (blue on the picture Chromium renders), escapes a `<script>` answer,
and links every game to a review page that exists and holds the game's moves."""
import io
import json
import pathlib
import re
import subprocess
import sys

import pytest
from PIL import Image

from conftest import ROOT
from test_eval import browser  # noqa: F401 (the headless Chromium fixture)

FAKE = ROOT / "tests" / "python" / "fake_gtp_html.py"
COLS = "ABCDEFGHJKLMNOPQRST"
# The eye check's geometry (verify::Style::EYE): 32-px cells, the margin one and a half.
CELL, MARGIN = 32, 48


def pixel(gtp):
    col, row = COLS.index(gtp[0]), 19 - int(gtp[1:])
    return MARGIN + col * CELL, MARGIN + row * CELL


def circles(svg):
    out = []
    for tag in re.findall(r"<circle[^>]*>", svg):
        a = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', tag))
        out.append((float(a["cx"]), float(a["cy"]), a.get("fill", ""), a.get("stroke", "")))
    return out


@pytest.fixture(scope="module")
def match(kibo, tmp_path_factory):
    """The match's folder and the fake engine's log of the invalid answers it gave."""
    tmp_path = tmp_path_factory.mktemp("match_html")
    log = tmp_path / "given.txt"
    d = tmp_path / "m"
    fake = f"gtp:{sys.executable} {FAKE} --occupied-every 4 --garbage-at 3 --log {log}"
    subprocess.run([kibo, "match", "--to", str(d), "--player", f"f={fake}", "--player", "r=random",
                    "--games", "2", "--max-moves", "30", "--count-stopped", "reference"],
                   check=True, cwd=ROOT, timeout=300)
    return d, log


def figures(page):
    """The drawn invalid answers: (game, move, kind, answer, the figure's markup)."""
    return re.findall(r'<figure class="invalid" data-game="(\d+)" data-move="(\d+)" data-kind="(\w+)" '
                      r'data-answer="([^"]*)">(.*?)</figure>', page, re.S)


def test_the_report_counts_draws_and_escapes_the_invalid_answers(match):
    d, log = match
    given = [l.split(" ", 2) for l in log.read_text().splitlines()]
    kinds = [g[1] for g in given]
    # Two games of 30 moves, the fake moving 15 times in each: one garbage answer a game
    # (at move 3, its own move only where it is Black), occupied ones every 4th move.
    assert kinds.count("unreadable") >= 1 and kinds.count("occupied") >= 4, given
    page = (d / "match.html").read_text()
    for kind in ("unreadable", "occupied"):
        m = re.search(rf'<tr data-player="f">.*?data-kind="{kind}" data-count="(\d+)"', page)
        assert m and int(m.group(1)) == kinds.count(kind), (kind, given)
    m = re.search(r'<tr data-player="r">.*?</tr>', page)
    assert 'data-count="0"' in m.group(0) and not re.search(r'data-count="[1-9]', m.group(0))
    # The raw answer escaped, never live.
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&quot;kibo&quot;)&lt;/script&gt;" in page
    # Each figure: the occupied answer ringed in blue where the record says, over a stone.
    figs = figures(page)
    assert len(figs) == len(given)
    assert sorted((int(f[1]), f[2], f[3]) for f in figs) == sorted(
        (int(g[0]), g[1], g[2] if g[1] == "occupied" else "") for g in given)
    for game, move, kind, answer, body in figs:
        rings = [c for c in circles(body) if c[3] == "#1964ff"]
        if kind != "occupied":
            assert rings == []
            continue
        x, y = pixel(answer)
        assert [(c[0], c[1]) for c in rings] == [(x, y)], (answer, rings)
        stones = [c for c in circles(body) if c[2] in ("#161616", "#f6f6f0") and abs(c[0] - x - 0.5) < 1
                  and abs(c[1] - y - 0.5) < 1]
        assert len(stones) == 1, (answer, body[:300])
    # Every game linked to its review page, which exists and holds the game.
    recs = [json.loads(p.read_text()) for p in sorted((d / "records").glob("*.json"))]
    assert len(recs) == 2
    for r in recs:
        href = f"review/{r['game']:05}.html"
        assert f'href="{href}"' in page
        review = (d / href).read_text()
        assert f"Game {r['game']}:" in review and "<script>alert" not in review
        moves = re.search(r"const MOVES=\[(.*?)\];", review).group(1)
        assert len(re.findall(r"\[[12],-?\d+,\[", moves)) == r["moves"]
        assert len(re.findall(r"<li data-move=", review)) == len(r["invalid"])


def test_the_refused_point_is_ringed_in_blue_on_the_rendered_picture(match, browser):
    """Each occupied answer's picture, rendered by Chromium at its own size: blue on the
    ring around the refused point, the stone's colour at its centre."""
    d, _ = match
    page = browser.new_page(viewport={"width": 800, "height": 900})
    occupied = [f for f in figures((d / "match.html").read_text()) if f[2] == "occupied"]
    assert occupied
    for game, move, kind, answer, body in occupied:
        svg = body[body.index("<svg"):body.index("</svg>") + len("</svg>")]
        page.set_content(f"<html><body style='margin:0'>{svg}</body></html>")
        png = page.screenshot(clip={"x": 0, "y": 0, "width": 700, "height": 700})
        im = Image.open(io.BytesIO(png)).convert("RGB")
        x, y = pixel(answer)
        r, g, b = im.getpixel((x + 9, y))
        assert b > 200 and r < 90, (answer, (r, g, b))
        centre = im.getpixel((x, y))
        assert max(centre) < 60 or min(centre) > 200, (answer, centre)  # a black or a white stone
    page.close()
