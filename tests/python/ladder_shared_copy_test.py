"""Issue 41 item 5: KataGo's ladder channels in a corner where White's one escape is a ko.

KataGo's `iterLadders` runs every chain's ladder search, in row order from the top, on
one shared copy of the board. These tests show that the shared copy changes no answer
(each search undoes its moves and restores the ko point), and that the corner of the
issue (White A3 B2 A1 in atari on A2, her escape the capture of Black B1 at C1, which
Black retakes as a ko) differs between features.py and kibo only by the sense of
board.py's double-ko test, where kibo follows the C++ (docs/planes.md, item 5 and "The
ladder channels and KataGo's shared copy"). The harness is checks/ladder_shared_copy.py
(which also runs KataGo's C++, `--cpp`); the Rust side is
`features::tests::ladder_double_ko_corner_follows_the_cpp`.
"""
import pathlib
import sys

import pytest

from conftest import SHARED

ROOT = pathlib.Path(__file__).resolve().parents[2]
ORACLE = SHARED.parent / "oracles" / "katago-python"
N = 150


@pytest.fixture(scope="module")
def harness():
    if not (ORACLE / "katago" / "game" / "board.py").exists():
        pytest.skip(f"{ORACLE} is absent")
    sys.path.insert(0, str(ROOT / "checks"))
    import ladder_shared_copy
    return ladder_shared_copy


def issue_corner(L):
    """The issue's corner after Black's ko retake at B1 (ko at C1, White to move); C3
    puts C2 in atari once White is at C1."""
    b = L.Board(19)
    for g in ["A4", "B4", "B3", "C2", "D1", "B1"]:
        b.set_stone(1, L.gtp(b, g))
    for g in ["A3", "B2", "A1", "C3"]:
        b.set_stone(2, L.gtp(b, g))
    for pla, g in [(2, "C1"), (1, "Q16"), (2, "D16")]:
        b.play(pla, L.gtp(b, g))
    before = b.copy()
    b.play(1, L.gtp(b, "B1"))
    b.last = (1, L.gtp(b, "B1"), before)
    return b


def test_the_issue_corner(harness):
    L = harness
    b = issue_corner(L)
    assert L.name(b, b.simple_ko_point) == "C1"
    plain, neg = L.planes(b, 2, False), L.planes(b, 2, True)
    # features.py as written: B2, not A1; with the C++'s double-ko test: A1, not B2.
    assert plain == ({"A3", "B2", "C3"}, set())
    assert neg == ({"A3", "A1", "C3"}, set())
    # The shared copy changes nothing, and leaves the copy as it found it.
    leaks = []
    assert L.planes(b, 2, False, True, leaks) == L.planes(b, 2, False, False)
    assert L.planes(b, 2, True, True, leaks) == L.planes(b, 2, True, False)
    assert leaks == []
    pytest.importorskip("kibo")
    assert L.kibo_planes([b], [2]) == [neg]


def test_the_shared_copy_changes_no_answer(harness):
    L = harness
    boards = L.positions(N, 20261205, "corner")
    rows = [(b, p) for b in boards for p in L.to_play_of(b)]
    double_ko = 0
    for b, pla in rows:
        leaks = []
        plain = L.planes(b, pla, False, True, leaks)
        neg = L.planes(b, pla, True, True, leaks)
        assert leaks == [], L.show(b)
        assert plain == L.planes(b, pla, False, False), L.show(b)
        assert neg == L.planes(b, pla, True, False), L.show(b)
        double_ko += plain != neg
    # The double-ko shape is reached: most of these corners differ by the test's sense.
    assert double_ko > len(rows) // 4, (double_ko, len(rows))


def test_kibo_follows_the_cpp_double_ko_test(harness):
    L = harness
    pytest.importorskip("kibo")
    boards = L.positions(N, 20261206, "corner")
    rows = [(b, p) for b in boards for p in L.to_play_of(b)]
    got = L.kibo_planes([b for b, _ in rows], [p for _, p in rows])
    bad = [(L.show(b), k, L.planes(b, p, True)) for (b, p), k in zip(rows, got) if k != L.planes(b, p, True)]
    assert not bad, bad[:3]
