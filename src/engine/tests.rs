//! Engine tests: golden diagrams (captures, ko, snapback, suicide, superko, setup),
//! and property-style tests over random legal games driven by a fixed-seed xorshift
//! generator: incremental state against [`Board::check_consistency`], bookkeeping,
//! hashes, unchanged boards on `Err`, and a flood-fill reference board with sgfmill's
//! play and ko semantics.

use crate::coord::{Move, Point, N, NN};

use super::zobrist::stone_key;
use super::*;

// ---------------------------------------------------------------- helpers

/// Point from row and column (test input is always on the board).
fn p(row: usize, col: usize) -> Point {
    Point::new(row, col).expect("test point on the board")
}

fn play(row: usize, col: usize) -> Move {
    Move::Play(p(row, col))
}

const B: Color = Color::Black;
const W: Color = Color::White;
const STD: Rules = Rules { multi_stone_suicide: false };
const NZ: Rules = Rules { multi_stone_suicide: true };

/// Pads a partial diagram (the top-left corner) to 19 rows of 19 cells with `.`.
fn pad(text: &str) -> String {
    let mut out = String::new();
    let mut rows = 0;
    for line in text.lines() {
        let cells: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.is_empty() {
            continue;
        }
        out.push_str(&cells);
        for _ in cells.chars().count()..N {
            out.push('.');
        }
        out.push('\n');
        rows += 1;
    }
    for _ in rows..N {
        out.push_str(&".".repeat(N));
        out.push('\n');
    }
    out
}

/// Board from a partial diagram (top-left corner), checked for consistency.
fn corner(text: &str) -> Board {
    let b = Board::from_diagram(&pad(text)).expect("test diagram");
    b.check_consistency().expect("consistent setup");
    b
}

/// Asserts the stones of `b` equal the (padded) diagram, and that `b` is consistent.
#[track_caller]
fn expect_board(b: &Board, expected: &str) {
    let want = pad(expected);
    let got = b.to_diagram();
    assert!(got == want, "board differs\n--- got\n{got}--- want\n{want}");
    if let Err(e) = b.check_consistency() {
        panic!("inconsistent board: {e}\n{got}");
    }
}

/// Asserts that playing `m` for `c` fails with `why` and leaves the board unchanged.
#[track_caller]
fn expect_illegal(b: &mut Board, c: Color, m: Move, rules: &Rules, why: Illegal) {
    let before = b.clone();
    assert_eq!(b.is_legal(c, m, rules), Err(why));
    assert_eq!(b.play(c, m, rules), Err(why));
    assert!(*b == before, "board changed by an illegal move");
}

// ---------------------------------------------------------------- golden: captures

#[test]
fn single_capture_in_the_centre() {
    let mut b = corner(
        "
        .......
        ...X...
        ..XO...
        ...X...
        ",
    );
    let info = b.play(B, play(2, 4), &STD).unwrap();
    assert_eq!(info, PlayInfo { captured: 1, suicided: 0, ko_point: None });
    expect_board(
        &b,
        "
        .......
        ...X...
        ..X.X..
        ...X...
        ",
    );
    assert_eq!(b.prisoners(B), 1);
    assert_eq!(b.prisoners(W), 0);
    assert_eq!(b.stone_count(W), 0);
    assert_eq!(b.stone_count(B), 4);
    assert_eq!(b.chain_liberties(p(2, 4)), 4);
}

#[test]
fn multi_stone_capture() {
    let mut b = corner(
        "
        ......
        ..XX..
        .XOOX.
        .XO...
        ..X...
        ",
    );
    assert_eq!(b.chain_liberties(p(2, 2)), 1);
    assert_eq!(b.chain_size(p(2, 2)), 3);
    let info = b.play(B, play(3, 3), &STD).unwrap();
    assert_eq!(info.captured, 3);
    assert_eq!(info.ko_point, None);
    expect_board(
        &b,
        "
        ......
        ..XX..
        .X..X.
        .X.X..
        ..X...
        ",
    );
    assert_eq!(b.prisoners(B), 3);
    // The capturing stone got the three captured points next to it back as liberties.
    assert_eq!(b.chain_liberties(p(3, 3)), 4);
}

#[test]
fn edge_capture() {
    let mut b = corner(
        "
        ..XO..
        ...X..
        ",
    );
    assert_eq!(b.chain_liberties(p(0, 3)), 1);
    let info = b.play(B, play(0, 4), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, None);
    expect_board(
        &b,
        "
        ..X.X.
        ...X..
        ",
    );
    assert_eq!(b.chain_liberties(p(0, 4)), 3);
}

#[test]
fn capture_next_to_a_dead_setup_chain_revives_it() {
    // The white stone at (0,3) was set up without liberties; capturing the black stone
    // at (0,4) gives it one.
    let mut b = corner(
        "
        ..XOX.
        ...XO.
        ",
    );
    assert!(b.has_dead_chains());
    assert_eq!(b.chain_liberties(p(0, 3)), 0);
    let info = b.play(W, play(0, 5), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert!(!b.has_dead_chains());
    assert_eq!(b.chain_liberties(p(0, 3)), 1);
    expect_board(
        &b,
        "
        ..XO.O
        ...XO.
        ",
    );
}

#[test]
fn corner_capture() {
    let mut b = corner(
        "
        OX.
        ...
        ",
    );
    assert_eq!(b.chain_liberties(p(0, 0)), 1);
    let info = b.play(B, play(1, 0), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, None);
    expect_board(
        &b,
        "
        .X.
        X..
        ",
    );
    assert_eq!(b.prisoners(B), 1);
}

#[test]
fn two_single_stones_captured_at_once_make_no_ko() {
    let mut b = corner(
        "
        .XOX.
        XO.OX
        .XOX.
        ..X..
        ",
    );
    // Playing (1,2): neighbours (0,2) O, (2,2) O, (1,1) O, (1,3) O: four separate
    // single stones, all in atari.
    let info = b.play(B, play(1, 2), &STD).unwrap();
    assert_eq!(info.captured, 4);
    assert_eq!(info.ko_point, None);
    assert_eq!(b.ko_point(), None);
    expect_board(
        &b,
        "
        .X.X.
        X.X.X
        .X.X.
        ..X..
        ",
    );
    assert_eq!(b.chain_liberties(p(1, 2)), 4);
}

// ---------------------------------------------------------------- golden: ko

const KO_START: &str = "
...................
...................
...................
...................
...................
......XO...........
.....XO.O..........
......XO...........
...................
...................
...................
...................
...................
...................
...................
...................
...................
...................
...................
";

#[test]
fn simple_ko_ban_then_release_by_tenuki() {
    let mut b = Board::from_diagram(KO_START).unwrap();
    b.check_consistency().unwrap();
    let info = b.play(B, play(6, 7), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, Some(p(6, 6)));
    assert_eq!(b.ko_point(), Some(p(6, 6)));
    assert_eq!(b.ko_color(), Some(W));
    expect_board(
        &b,
        "
        .
        .
        .
        .
        .
        ......XO
        .....X.XO
        ......XO
        ",
    );
    // Immediate recapture is a ko violation; the board is unchanged.
    expect_illegal(&mut b, W, play(6, 6), &STD, Illegal::Ko);
    expect_illegal(&mut b, W, play(6, 6), &NZ, Illegal::Ko);
    assert_eq!(Illegal::Ko.as_str(), "ko_violation");
    // A ko threat and its answer clear the ban.
    b.play(W, play(15, 15), &STD).unwrap();
    assert_eq!(b.ko_point(), None);
    b.play(B, play(15, 14), &STD).unwrap();
    let info = b.play(W, play(6, 6), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, Some(p(6, 7)));
    assert_eq!(b.ko_color(), Some(B));
    expect_illegal(&mut b, B, play(6, 7), &STD, Illegal::Ko);
}

#[test]
fn simple_ko_released_by_pass() {
    let mut b = Board::from_diagram(KO_START).unwrap();
    b.play(B, play(6, 7), &STD).unwrap();
    assert_eq!(b.play(W, Move::Pass, &STD), Ok(PlayInfo::default()));
    assert_eq!(b.ko_point(), None);
    b.play(B, Move::Pass, &STD).unwrap();
    let info = b.play(W, play(6, 6), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, Some(p(6, 7)));
}

#[test]
fn ko_ban_binds_only_the_opponent_of_the_capturer() {
    let mut b = Board::from_diagram(KO_START).unwrap();
    b.play(B, play(6, 7), &STD).unwrap();
    // Black (the capturer) may fill the ko point; White may not retake.
    assert_eq!(b.is_legal(B, play(6, 6), &STD), Ok(()));
    assert_eq!(b.is_legal(W, play(6, 6), &STD), Err(Illegal::Ko));
    let mut filled = b.clone();
    assert_eq!(filled.play(B, play(6, 6), &STD).map(|i| i.captured), Ok(0));
    assert_eq!(filled.chain_size(p(6, 6)), 5);
    assert_eq!(filled.ko_point(), None);
    // play_unchecked plays even the ko violation itself.
    let mut c = b.clone();
    let info = c.play_unchecked(W, play(6, 6));
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, Some(p(6, 7)));
    c.check_consistency().unwrap();
}

#[test]
fn snapback_recapture_of_several_stones_is_legal() {
    let mut b = corner(
        "
        XO..OX
        XOOOOX
        XXXXXX
        ",
    );
    assert_eq!(b.chain_liberties(p(0, 1)), 2);
    // Black throws in: no capture, and White is left in atari.
    let info = b.play(B, play(0, 2), &STD).unwrap();
    assert_eq!(info, PlayInfo::default());
    assert_eq!(b.chain_liberties(p(0, 1)), 1);
    assert_eq!(b.chain_liberties(p(0, 2)), 1);
    // White captures the single stone, but the capturing stone joins a big chain: no ko.
    let info = b.play(W, play(0, 3), &STD).unwrap();
    assert_eq!(info.captured, 1);
    assert_eq!(info.ko_point, None);
    assert_eq!(b.chain_liberties(p(0, 3)), 1);
    // Black plays back on the same point and takes all seven.
    let info = b.play(B, play(0, 2), &STD).unwrap();
    assert_eq!(info.captured, 7);
    assert_eq!(info.ko_point, None);
    expect_board(
        &b,
        "
        X.X..X
        X....X
        XXXXXX
        ",
    );
    assert_eq!(b.prisoners(B), 7);
    assert_eq!(b.prisoners(W), 1);
}

// ---------------------------------------------------------------- golden: suicide, occupied

#[test]
fn single_stone_suicide_is_always_illegal() {
    let mut b = corner(
        "
        .O.
        O..
        ",
    );
    expect_illegal(&mut b, B, play(0, 0), &STD, Illegal::Suicide);
    expect_illegal(&mut b, B, play(0, 0), &NZ, Illegal::Suicide);
    assert_eq!(b.suicide_stones(B, p(0, 0)), 1);
    assert_eq!(b.suicide_stones(W, p(0, 0)), 0);
    assert_eq!(Illegal::Suicide.as_str(), "suicide");
    // White may fill its own eye.
    assert_eq!(b.is_legal(W, play(0, 0), &STD), Ok(()));
}

#[test]
fn multi_stone_suicide_by_rule() {
    let start = "
        X.O
        OO.
        ";
    let mut b = corner(start);
    assert_eq!(b.suicide_stones(B, p(0, 1)), 2);
    expect_illegal(&mut b, B, play(0, 1), &STD, Illegal::Suicide);
    expect_board(&b, start);

    let info = b.play(B, play(0, 1), &NZ).unwrap();
    assert_eq!(info, PlayInfo { captured: 0, suicided: 2, ko_point: None });
    expect_board(
        &b,
        "
        ..O
        OO.
        ",
    );
    assert_eq!(b.prisoners(W), 2);
    assert_eq!(b.prisoners(B), 0);
    assert_eq!(b.stone_count(B), 0);
    assert_eq!(b.ko_point(), None);
    // The hash is back to White's stones only.
    let mut w_only = Board::new();
    for (r, c) in [(0, 2), (1, 0), (1, 1)] {
        w_only.set_stone(p(r, c), WHITE).unwrap();
    }
    assert_eq!(b.hash(), w_only.hash());
}

#[test]
fn occupied_point() {
    let mut b = corner("XO");
    expect_illegal(&mut b, B, play(0, 0), &STD, Illegal::Occupied);
    expect_illegal(&mut b, W, play(0, 0), &STD, Illegal::Occupied);
    expect_illegal(&mut b, B, play(0, 1), &NZ, Illegal::Occupied);
    assert_eq!(Illegal::Occupied.as_str(), "occupied_point");
    // play_unchecked on an occupied point is a no-op.
    let before = b.clone();
    assert_eq!(b.play_unchecked(W, play(0, 0)), PlayInfo::default());
    assert!(b == before);
}

#[test]
fn capture_that_looks_like_suicide_is_legal() {
    // (0,0) has no empty neighbour and both neighbours are white, but (0,1) is in atari.
    let mut b = corner(
        "
        .OX
        OX.
        ",
    );
    assert_eq!(b.suicide_stones(B, p(0, 0)), 0);
    let info = b.play(B, play(0, 0), &STD).unwrap();
    assert_eq!(info.captured, 1);
    // One stone captured, single stone with one liberty: a ko.
    assert_eq!(info.ko_point, Some(p(0, 1)));
    expect_board(
        &b,
        "
        X.X
        OX.
        ",
    );
    // Larger: filling the last liberty of a two-stone chain from inside its "eye".
    let mut b = corner(
        "
        .OOX
        OXX.
        .X..
        ",
    );
    assert_eq!(b.suicide_stones(B, p(0, 0)), 0);
    let info = b.play(B, play(0, 0), &STD).unwrap();
    assert_eq!(info.captured, 2);
    assert_eq!(info.ko_point, None);
    expect_board(
        &b,
        "
        X..X
        OXX.
        .X..
        ",
    );
    assert_eq!(b.chain_liberties(p(0, 0)), 1);
    assert_eq!(b.chain_liberties(p(1, 0)), 1);
}

// ---------------------------------------------------------------- golden: superko

#[test]
fn superko_positional_and_situational() {
    // The ko is taken, both players pass (clearing the simple-ko ban), and White
    // retakes: that recreates the starting stones.
    let start = Board::from_diagram(KO_START).unwrap();
    let retake = play(6, 6);
    for (mode, start_to_move, banned) in [
        (SuperkoMode::Positional, B, true),
        (SuperkoMode::Situational, B, true),
        // Recorded with White to move at the start, recreated with Black to move.
        (SuperkoMode::Situational, W, false),
        (SuperkoMode::Positional, W, true),
        (SuperkoMode::Off, B, false),
    ] {
        let mut b = start.clone();
        let mut h = SuperkoHistory::with_start(mode, &b, start_to_move);
        h.play(&mut b, B, play(6, 7), &STD).unwrap();
        h.play(&mut b, W, Move::Pass, &STD).unwrap();
        h.play(&mut b, B, Move::Pass, &STD).unwrap();
        assert_eq!(b.is_legal(W, retake, &STD), Ok(()), "simple ko is released");
        assert_eq!(h.would_repeat(&b, W, retake), banned, "{mode:?} start {start_to_move:?}");
        let before = b.clone();
        let r = h.play(&mut b, W, retake, &STD);
        if banned {
            assert_eq!(r, Err(Violation::Superko));
            assert_eq!(Violation::Superko.as_str(), "superko_violation");
            assert!(b == before);
        } else {
            assert_eq!(r.unwrap().captured, 1);
            assert_eq!(b.hash(), start.hash());
        }
    }
}

#[test]
fn superko_push_reports_repeats_and_passes_never_repeat() {
    let mut b = Board::new();
    let mut h = SuperkoHistory::with_start(SuperkoMode::Situational, &b, B);
    assert_eq!(h.len(), 1);
    assert!(!h.would_repeat(&b, B, Move::Pass));
    b.play(B, Move::Pass, &STD).unwrap();
    assert!(h.push(&b, W), "new situation");
    b.play(W, Move::Pass, &STD).unwrap();
    // Empty board with Black to move again: a repeat, reported, not refused (a pass).
    assert!(!h.push(&b, B));
    assert!(h.contains(&b, B));
    let mut pos = SuperkoHistory::with_start(SuperkoMode::Positional, &Board::new(), B);
    assert!(!pos.push(&b, W));
    // `new` starts empty; `reset` records the start.
    let mut fresh = SuperkoHistory::new(SuperkoMode::Positional);
    assert!(fresh.is_empty());
    assert!(fresh.push(&b, W));
    fresh.reset(&b, B);
    assert_eq!(fresh.len(), 1);
    let mut off = SuperkoHistory::with_start(SuperkoMode::Off, &Board::new(), B);
    assert!(off.push(&b, B));
    assert!(off.is_empty());
    assert_eq!(off.mode().as_str(), "off");
    // Illegal board moves come back as such.
    b.play(B, play(0, 0), &STD).unwrap();
    assert_eq!(h.play(&mut b, W, play(0, 0), &STD), Err(Violation::Illegal(Illegal::Occupied)));
    assert_eq!(Violation::Illegal(Illegal::Occupied).as_str(), "occupied_point");
}

// ---------------------------------------------------------------- golden: setup, diagrams, queries

#[test]
fn diagram_round_trip_and_errors() {
    let b = Board::from_diagram(KO_START).unwrap();
    assert_eq!(b.to_diagram().trim(), KO_START.trim());
    // Spaces between cells and blank lines are ignored.
    let spaced: String =
        KO_START.lines().map(|l| l.chars().map(|c| format!("{c} ")).collect::<String>() + "\n\n").collect();
    let b2 = Board::from_diagram(&spaced).unwrap();
    assert_eq!(b2.hash(), b.hash());
    assert_eq!(b2.to_diagram(), b.to_diagram());

    assert_eq!(Board::from_diagram("...").unwrap_err(), DiagramError::Rows(1));
    let short = pad("").replacen(&".".repeat(19), &".".repeat(18), 1);
    assert_eq!(Board::from_diagram(&short).unwrap_err(), DiagramError::Width { row: 0, width: 18 });
    let bad = pad("..x");
    assert_eq!(Board::from_diagram(&bad).unwrap_err(), DiagramError::Char { row: 0, col: 2, ch: 'x' });
    // Row 0 is the top line, column 0 the left character.
    let b = corner("..X\n.O");
    assert_eq!(b.get(p(0, 2)), BLACK);
    assert_eq!(b.get(p(1, 1)), WHITE);
    assert_eq!(b.color_at(p(1, 1)), Some(W));
    assert_eq!(b.get(p(2, 0)), EMPTY);
    let mut cells = [9u8; NN];
    b.cells(&mut cells);
    assert_eq!(cells[2], 1);
    assert_eq!(cells[19 + 1], 2);
    assert_eq!(cells.iter().filter(|&&v| v != 0).count(), 2);
    assert_eq!(Board::from_cells(&cells).unwrap().to_diagram(), b.to_diagram());
    cells[5] = 3;
    assert_eq!(Board::from_cells(&cells).unwrap_err(), SetupError::BadValue(3));
}

#[test]
fn setup_overwrites_never_captures_and_stays_exact() {
    let mut b = Board::from_diagram(KO_START).unwrap();
    b.play(B, play(6, 7), &STD).unwrap();
    assert!(b.ko_point().is_some());
    // Overwrite a black stone with white and remove another: no captures happen.
    b.set_stone(p(6, 5), WHITE).unwrap();
    assert_eq!(b.ko_point(), None);
    b.set_stone(p(5, 6), EMPTY).unwrap();
    expect_board(
        &b,
        "
        .
        .
        .
        .
        .
        .......O
        .....O.XO
        ......XO
        ",
    );
    assert!(!b.has_dead_chains());
    // Filling the last liberty of the black stone at (6,7) by setup leaves it dead.
    b.set_stone(p(6, 6), WHITE).unwrap();
    assert_eq!(b.chain_size(p(6, 6)), 2);
    assert_eq!(b.chain_liberties(p(6, 7)), 0);
    assert!(b.has_dead_chains());
    b.set_stone(p(7, 6), EMPTY).unwrap();
    assert!(b.has_dead_chains());
    b.check_consistency().unwrap();
    b.set_stone(p(6, 8), EMPTY).unwrap();
    assert!(!b.has_dead_chains());
    assert_eq!(b.chain_liberties(p(6, 7)), 1);
    b.check_consistency().unwrap();
    // Bad input is refused.
    assert_eq!(b.set_stone(p(0, 0), 3), Err(SetupError::BadValue(3)));
    assert_eq!(b.set_stone(Point { row: 19, col: 0 }, BLACK), Err(SetupError::OffBoard));
    // Prisoners are untouched by setup.
    assert_eq!(b.prisoners(B), 1);
}

#[test]
fn off_board_points_are_refused_without_panicking() {
    let mut b = corner("XO");
    for bad in
        [Point { row: 19, col: 0 }, Point { row: 0, col: 19 }, Point { row: 255, col: 255 }, Point { row: 3, col: 40 }]
    {
        let m = Move::Play(bad);
        expect_illegal(&mut b, B, m, &STD, Illegal::OffBoard);
        let before = b.clone();
        assert_eq!(b.play_unchecked(B, m), PlayInfo::default());
        assert!(b == before);
        assert_eq!(b.get(bad), EMPTY);
        assert_eq!(b.chain_liberties(bad), 0);
        assert_eq!(b.chain_size(bad), 0);
        assert!(!b.same_chain(bad, bad));
        assert_eq!(b.suicide_stones(B, bad), 0);
        assert_eq!(b.hash_after(B, m), b.hash());
        let mut v = vec![p(0, 0)];
        b.chain_stones(bad, &mut v);
        assert!(v.is_empty());
        b.chain_liberty_points(bad, &mut v);
        assert!(v.is_empty());
    }
    assert_eq!(Illegal::OffBoard.as_str(), "off_board");
}

#[test]
fn chain_queries() {
    let b = corner(
        "
        XX.O
        X.XO
        .XX.
        ",
    );
    let mut v = Vec::new();
    b.chain_stones(p(0, 0), &mut v);
    v.sort();
    assert_eq!(v, vec![p(0, 0), p(0, 1), p(1, 0)]);
    b.chain_liberty_points(p(0, 0), &mut v);
    assert_eq!(v, vec![p(0, 2), p(1, 1), p(2, 0)]);
    assert_eq!(b.chain_liberties(p(0, 1)), 3);
    b.chain_stones(p(2, 2), &mut v);
    assert_eq!(v.len(), 3);
    b.chain_liberty_points(p(1, 2), &mut v);
    assert_eq!(v, vec![p(0, 2), p(1, 1), p(2, 0), p(2, 3), p(3, 1), p(3, 2)]);
    assert_eq!(b.chain_liberties(p(1, 2)), 6);
    assert!(b.same_chain(p(1, 2), p(2, 1)));
    assert!(!b.same_chain(p(1, 2), p(0, 0)));
    assert!(!b.same_chain(p(1, 1), p(1, 1)));
    assert_eq!(b.chain_size(p(1, 1)), 0);
    b.chain_stones(p(1, 1), &mut v);
    assert!(v.is_empty());
}

#[test]
fn hash_is_the_xor_of_stone_keys() {
    let mut b = Board::new();
    assert_eq!(b.hash(), 0);
    b.play(B, play(3, 15), &STD).unwrap();
    assert_eq!(b.hash(), stone_key(3 * 19 + 15, B));
    b.play(W, play(15, 3), &STD).unwrap();
    assert_eq!(b.hash(), stone_key(3 * 19 + 15, B) ^ stone_key(15 * 19 + 3, W));
}

// ---------------------------------------------------------------- property-style tests

/// xorshift64* with a fixed seed: deterministic across runs and platforms.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn point(&mut self) -> Point {
        p(self.below(N), self.below(N))
    }
}

/// Picks a random legal non-pass move for `c` (up to 60 tries), else a pass.
/// One move in 40 is a pass anyway.
fn random_move(b: &Board, rng: &mut Rng, c: Color, rules: &Rules) -> Move {
    if rng.below(40) == 0 {
        return Move::Pass;
    }
    for _ in 0..60 {
        let m = Move::Play(rng.point());
        if b.is_legal(c, m, rules).is_ok() {
            return m;
        }
    }
    Move::Pass
}

/// Scale of the random tests: smaller in unoptimised builds.
fn games(release: usize, debug: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// Hash recomputed from the cells with the public key function.
fn recomputed_hash(b: &Board) -> u64 {
    let mut cells = [0u8; NN];
    b.cells(&mut cells);
    cells.iter().enumerate().filter_map(|(i, &v)| Color::from_u8(v).map(|c| stone_key(i, c))).fold(0, |h, k| h ^ k)
}

/// A move that must be refused on `b` for `c`, if one is found quickly.
fn some_illegal_move(b: &Board, rng: &mut Rng, c: Color, rules: &Rules) -> Option<(Move, Illegal)> {
    if let Some(k) = b.ko_point() {
        if b.ko_color() == Some(c) && rng.below(2) == 0 {
            return Some((Move::Play(k), Illegal::Ko));
        }
    }
    for _ in 0..40 {
        let m = Move::Play(rng.point());
        if let Err(e) = b.is_legal(c, m, rules) {
            if e != Illegal::Occupied || rng.below(8) == 0 {
                return Some((m, e));
            }
        }
    }
    None
}

#[test]
fn random_games_keep_state_exact() {
    let mut rng = Rng::new(1);
    let mut kinds = [0usize; 5]; // occupied, suicide, ko, multi-stone suicides played, captures
    for game in 0..games(300, 40) {
        let rules = if game % 2 == 0 { STD } else { NZ };
        let mut b = Board::new();
        let mut placed = [0u32; 3];
        let mut c = B;
        for _ in 0..500 {
            // An illegal move is refused and changes nothing.
            if let Some((m, why)) = some_illegal_move(&b, &mut rng, c, &rules) {
                let before = b.clone();
                assert_eq!(b.play(c, m, &rules), Err(why));
                assert!(b == before, "illegal {why:?} changed the board");
                kinds[match why {
                    Illegal::Occupied => 0,
                    Illegal::Suicide => 1,
                    Illegal::Ko => 2,
                    Illegal::OffBoard => unreachable!(),
                }] += 1;
            }
            let m = random_move(&b, &mut rng, c, &rules);
            let predicted = b.hash_after(c, m);
            let info = b.play(c, m, &rules).expect("generated move is legal");
            if m != Move::Pass {
                placed[c as usize] += 1;
            }
            if info.suicided > 0 {
                kinds[3] += 1;
                assert!(info.suicided >= 2, "single-stone suicide played");
            }
            if info.captured > 0 {
                kinds[4] += 1;
            }
            if let Err(e) = b.check_consistency() {
                panic!("game {game}: {e}\n{b:?}");
            }
            assert_eq!(b.hash(), predicted, "hash_after");
            assert_eq!(b.hash(), recomputed_hash(&b));
            assert_eq!(b.ko_point(), info.ko_point);
            for col in [B, W] {
                // Stones placed = stones on the board + stones the opponent captured.
                assert_eq!(placed[col as usize], b.stone_count(col) + b.prisoners(col.opponent()));
            }
            // Occasionally the same colour moves twice.
            if rng.below(50) != 0 {
                c = c.opponent();
            }
        }
    }
    // The random games must actually reach every case.
    assert!(kinds.iter().all(|&k| k > 0), "cases reached: {kinds:?}");
}

#[test]
fn random_setups_keep_state_exact() {
    let mut rng = Rng::new(7);
    for _ in 0..games(100, 15) {
        let mut b = Board::new();
        for step in 0..200 {
            if rng.below(3) == 0 {
                let v = rng.below(3) as u8;
                b.set_stone(rng.point(), v).unwrap();
                assert_eq!(b.ko_point(), None);
            } else {
                let c = if rng.below(2) == 0 { B } else { W };
                let m = random_move(&b, &mut rng, c, &NZ);
                b.play(c, m, &NZ).unwrap();
            }
            if let Err(e) = b.check_consistency() {
                panic!("step {step}: {e}\n{b:?}");
            }
            assert_eq!(b.hash(), recomputed_hash(&b));
        }
    }
}

/// A deliberately plain reference board: flood fill, with sgfmill's `Board.play`
/// semantics (captures opponent chains left without liberties, then self-captures,
/// returns the simple-ko point).
#[derive(Clone)]
struct RefBoard {
    cells: [u8; NN],
}

impl RefBoard {
    fn neighbours(i: usize) -> impl Iterator<Item = usize> {
        let (r, c) = (i / N, i % N);
        let mut v = Vec::with_capacity(4);
        if r > 0 {
            v.push(i - N);
        }
        if r + 1 < N {
            v.push(i + N);
        }
        if c > 0 {
            v.push(i - 1);
        }
        if c + 1 < N {
            v.push(i + 1);
        }
        v.into_iter()
    }

    /// Stones and number of distinct liberties of the chain at `i`.
    fn group(&self, i: usize) -> (Vec<usize>, usize) {
        let colour = self.cells[i];
        let mut seen = vec![false; NN];
        let mut libs = vec![false; NN];
        let mut stack = vec![i];
        let mut stones = Vec::new();
        seen[i] = true;
        while let Some(s) = stack.pop() {
            stones.push(s);
            for n in Self::neighbours(s) {
                if self.cells[n] == 0 {
                    libs[n] = true;
                } else if self.cells[n] == colour && !seen[n] {
                    seen[n] = true;
                    stack.push(n);
                }
            }
        }
        (stones, libs.iter().filter(|&&l| l).count())
    }

    /// Plays an empty point. Returns (captured, self-captured, ko point).
    fn play(&mut self, colour: u8, i: usize) -> (usize, usize, Option<usize>) {
        assert_eq!(self.cells[i], 0);
        self.cells[i] = colour;
        // All chains without liberties, as sgfmill's _find_surrounded_groups.
        let mut done = vec![false; NN];
        let mut surrounded = Vec::new();
        for j in 0..NN {
            if self.cells[j] != 0 && !done[j] {
                let (stones, libs) = self.group(j);
                for &s in &stones {
                    done[s] = true;
                }
                if libs == 0 {
                    surrounded.push((self.cells[j], stones));
                }
            }
        }
        let mut ko = None;
        let to_capture: Vec<&(u8, Vec<usize>)> = if surrounded.len() == 1 {
            surrounded.iter().collect()
        } else {
            let opp: Vec<_> = surrounded.iter().filter(|g| g.0 != colour).collect();
            if opp.len() == 1 && opp[0].1.len() == 1 {
                let own = surrounded.iter().find(|g| g.0 == colour).expect("own chain surrounded");
                if own.1.len() == 1 {
                    ko = Some(opp[0].1[0]);
                }
            }
            opp
        };
        let (mut captured, mut own) = (0, 0);
        for (col, stones) in to_capture {
            for &s in stones {
                self.cells[s] = 0;
            }
            if *col == colour {
                own += stones.len();
            } else {
                captured += stones.len();
            }
        }
        (captured, own, ko)
    }

    /// Legality by brute force: play on a copy and look.
    fn is_legal(&self, colour: u8, i: usize, ko: Option<(usize, u8)>, multi: bool) -> Result<(), Illegal> {
        if self.cells[i] != 0 {
            return Err(Illegal::Occupied);
        }
        if ko == Some((i, colour)) {
            return Err(Illegal::Ko);
        }
        let mut copy = self.clone();
        let (_, own, _) = copy.play(colour, i);
        if own == 1 || (own > 1 && !multi) {
            return Err(Illegal::Suicide);
        }
        Ok(())
    }
}

#[test]
fn random_games_match_flood_fill_reference() {
    let mut rng = Rng::new(42);
    let mut kos = 0;
    for game in 0..games(60, 6) {
        let rules = if game % 3 == 2 { NZ } else { STD };
        let mut b = Board::new();
        let mut r = RefBoard { cells: [0; NN] };
        // (point, colour banned) as the reference tracks it.
        let mut ref_ko: Option<(usize, u8)> = None;
        let mut c = B;
        for mv in 0..400 {
            // Legality agrees on a few random points.
            for _ in 0..4 {
                let q = rng.point();
                assert_eq!(
                    b.is_legal(c, Move::Play(q), &rules),
                    r.is_legal(c as u8, q.index() as usize, ref_ko, rules.multi_stone_suicide),
                    "game {game} move {mv} legality at {q:?}\n{b:?}"
                );
            }
            let m = random_move(&b, &mut rng, c, &rules);
            let info = b.play(c, m, &rules).unwrap();
            match m {
                Move::Pass => ref_ko = None,
                Move::Play(q) => {
                    let (captured, own, ko) = r.play(c as u8, q.index() as usize);
                    assert_eq!(info.captured as usize, captured);
                    assert_eq!(info.suicided as usize, own);
                    ref_ko = ko.map(|k| (k, c.opponent() as u8));
                }
            }
            let mut cells = [0u8; NN];
            b.cells(&mut cells);
            assert!(cells == r.cells, "game {game} move {mv}: cells differ\n{b:?}");
            assert_eq!(b.ko_point().map(|k| k.index() as usize), ref_ko.map(|k| k.0), "game {game} move {mv}");
            if ref_ko.is_some() {
                kos += 1;
            }
            // Liberties of every chain agree with the flood fill, every 16 moves.
            if mv % 16 == 0 {
                for i in 0..NN {
                    if r.cells[i] != 0 {
                        let (stones, libs) = r.group(i);
                        let q = Point::from_index(i as u16).unwrap();
                        assert_eq!(b.chain_liberties(q) as usize, libs);
                        assert_eq!(b.chain_size(q) as usize, stones.len());
                    }
                }
            }
            c = c.opponent();
        }
    }
    assert!(kos > 0, "no ko reached");
}

#[test]
fn clones_are_independent() {
    let mut rng = Rng::new(3);
    let mut b = Board::new();
    for _ in 0..150 {
        let m = random_move(&b, &mut rng, B, &STD);
        b.play(B, m, &STD).unwrap();
        let m = random_move(&b, &mut rng, W, &STD);
        b.play(W, m, &STD).unwrap();
    }
    let snapshot = b.to_diagram();
    let mut c = b.clone();
    for _ in 0..100 {
        let m = random_move(&c, &mut rng, B, &STD);
        c.play(B, m, &STD).unwrap();
    }
    assert_eq!(b.to_diagram(), snapshot);
    b.check_consistency().unwrap();
    c.check_consistency().unwrap();
}

/// The playouts' move test by its definition on [`Board::move_shape`] and
/// [`Board::is_legal`] (what `Board::is_playout_move_at` answers from the neighbours).
fn playout_move_by_definition(b: &Board, c: Color, q: Point) -> bool {
    let (eye, libs, stones) = b.move_shape(c, q);
    b.get(q) == EMPTY
        && b.is_on_board(q)
        && !(eye || libs == 0 || (libs == 1 && stones >= 2))
        && b.is_legal(c, Move::Play(q), &STD).is_ok()
}

/// [`Board::move_shape`] by its definition on points: an own eye when every on-board
/// neighbour is `c`'s; the liberties of the chain a `c` stone at `q` would make (its empty
/// neighbours, the neighbours it captures, the other liberties of the own chains it
/// joins), capped at 2; the stones of that chain.
fn move_shape_by_definition(b: &Board, c: Color, q: Point) -> (bool, u32, u32) {
    let near = neighbours_on_board(b, q);
    let eye = near.iter().all(|&a| b.color_at(a) == Some(c));
    let (mut libs, mut joined, mut stones, mut points) = (Vec::new(), Vec::new(), 1, Vec::new());
    for &a in &near {
        match b.color_at(a) {
            None => libs.push(a),
            Some(x) if x != c && b.chain_liberties(a) == 1 => libs.push(a),
            Some(x) if x == c && !joined.iter().any(|&j| b.same_chain(j, a)) => {
                joined.push(a);
                stones += b.chain_size(a);
                b.chain_liberty_points(a, &mut points);
                libs.extend(points.iter().copied().filter(|&l| l != q));
            }
            Some(_) => {}
        }
    }
    libs.sort_by_key(|p| (p.row, p.col));
    libs.dedup();
    (eye, libs.len().min(2) as u32, stones)
}

/// The playouts' tactical reply by its definition on points: capture a chain in atari
/// at or next to `last` (last, above, below, left, right) when the playouts may play
/// there, else save the first own chain in atari there by a legal extension to two
/// liberties.
fn playout_reply_by_definition(b: &Board, c: Color, last: Point) -> Option<Point> {
    let (r, k) = (last.row as i32, last.col as i32);
    let mut save = None;
    let mut libs = Vec::new();
    for (dr, dc) in [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)] {
        let (rr, kk) = (r + dr, k + dc);
        let Some(q) = (rr >= 0 && kk >= 0).then(|| Point::new(rr as usize, kk as usize)).flatten() else { continue };
        let Some(qc) = b.color_at(q).filter(|_| b.is_on_board(q)) else { continue };
        if b.chain_liberties(q) != 1 {
            continue;
        }
        b.chain_liberty_points(q, &mut libs);
        let l = libs[0];
        if qc != c {
            if playout_move_by_definition(b, c, l) {
                return Some(l);
            }
        } else if save.is_none() {
            let (eye, n, _) = b.move_shape(c, l);
            if !eye && n >= 2 && b.is_legal(c, Move::Play(l), &STD).is_ok() {
                save = Some(l);
            }
        }
    }
    save
}

/// The on-board neighbours of `p`.
fn neighbours_on_board(b: &Board, p: Point) -> Vec<Point> {
    let mut out = Vec::new();
    for (dr, dc) in [(-1i32, 0i32), (0, -1), (0, 1), (1, 0)] {
        let (r, k) = (p.row as i32 + dr, p.col as i32 + dc);
        if let Some(q) = (r >= 0 && k >= 0).then(|| Point::new(r as usize, k as usize)).flatten() {
            if b.is_on_board(q) {
                out.push(q);
            }
        }
    }
    out
}

#[test]
fn location_addressed_playout_primitives_match_the_point_ones() {
    let mut rng = Rng::new(23);
    // Move tests, replies found, captures, points closed to a colour, ataris.
    let mut checked = [0usize; 5];
    for game in 0..games(120, 20) {
        let mut b = if game % 4 == 3 { Board::new_sized(9 + game % 7, 7 + game % 11) } else { Board::new() };
        let mut c = B;
        for _ in 0..(60 + rng.below(260)) {
            // The empty points, by location and by point, in the same row-major order.
            let mut pts = Vec::new();
            b.empty_points(&mut pts);
            let mut locs = [Loc::default(); NN];
            let n = b.empty_locs(&mut locs);
            let from_locs: Vec<Point> = locs[..n].iter().map(|&l| b.point(l)).collect();
            assert_eq!(from_locs, pts);
            // Area owners: a stone's colour, or the colours of an empty point's stones
            // around it together; nothing outside the playing area.
            let mut owners = [0u8; NN];
            b.area_owners(&mut owners);
            for (i, &v) in owners.iter().enumerate() {
                let p = Point::from_index(i as u16).expect("index on the board");
                let want = match b.color_at(p) {
                    _ if !b.is_on_board(p) => 0,
                    Some(c) => c.as_u8(),
                    None => {
                        neighbours_on_board(&b, p).iter().filter_map(|&q| b.color_at(q)).fold(0, |m, c| m | c.as_u8())
                    }
                };
                assert_eq!(v, want, "owner of {}", p.to_gtp());
            }
            for &l in &locs[..n] {
                for col in [B, W] {
                    assert_eq!(b.is_playout_move_at(col, l), playout_move_by_definition(&b, col, b.point(l)));
                    assert_eq!(b.is_eye_at(col, l), b.move_shape(col, b.point(l)).0);
                    assert_eq!(b.move_shape(col, b.point(l)), move_shape_by_definition(&b, col, b.point(l)));
                    checked[0] += 1;
                }
                let p = b.point(l);
                let mut near = Vec::new();
                for (dr, dc) in [(-1i32, 0i32), (0, -1), (0, 1), (1, 0)] {
                    let (r, k) = (p.row as i32 + dr, p.col as i32 + dc);
                    let q = (r >= 0 && k >= 0).then(|| Point::new(r as usize, k as usize)).flatten();
                    near.push(q.filter(|q| pts.contains(q)));
                }
                assert_eq!(b.empty_neighbours(l).map(|x| x.map(|x| b.point(x))).to_vec(), near);
                // Closed to a colour: every on-board neighbour the opponent's, none of
                // their chains in atari.
                let on_board: Vec<Point> = neighbours_on_board(&b, p);
                for col in [B, W] {
                    let closed =
                        on_board.iter().all(|&q| b.color_at(q) == Some(col.opponent()) && b.chain_liberties(q) >= 2);
                    assert_eq!(b.is_closed_to(col, l), closed, "{col:?} at {}", p.to_gtp());
                    checked[3] += closed as usize;
                }
            }
            let mv = random_move(&b, &mut rng, c, &STD);
            let Move::Play(q) = mv else {
                b.play(c, mv, &STD).unwrap();
                c = c.opponent();
                continue;
            };
            let Some(at) = b.loc(q) else { continue };
            // The stones a move captures, known before it.
            let mut before = [0u8; NN];
            b.cells(&mut before);
            let mut taken = [Loc::default(); NN];
            let t = b.captured_by(c, at, &mut taken, 0);
            let mut after = b.clone();
            after.play(c, mv, &STD).unwrap();
            let mut cells = [0u8; NN];
            after.cells(&mut cells);
            let mut gone: Vec<u16> = (0..NN).filter(|&i| before[i] != 0 && cells[i] == 0).map(|i| i as u16).collect();
            let mut listed: Vec<u16> = taken[..t].iter().map(|&l| b.point(l).index()).collect();
            gone.sort_unstable();
            listed.sort_unstable();
            assert_eq!(listed, gone);
            checked[2] += (t > 0) as usize;
            b = after;
            c = c.opponent();
            // The chains at and next to the move left with one liberty.
            let mut ataris = [(B, Loc::default()); 5];
            let na = b.ataris_at(at, &mut ataris);
            let mut got: Vec<(Color, Point)> = ataris[..na].iter().map(|&(by, l)| (by, b.point(l))).collect();
            let mut want = Vec::new();
            let mut seen: Vec<Point> = Vec::new();
            for x in std::iter::once(q).chain(neighbours_on_board(&b, q)) {
                let Some(col) = b.color_at(x) else { continue };
                if b.chain_liberties(x) != 1 || seen.iter().any(|&s| b.same_chain(s, x)) {
                    continue;
                }
                seen.push(x);
                let mut libs = Vec::new();
                b.chain_liberty_points(x, &mut libs);
                want.push((col.opponent(), libs[0]));
            }
            got.sort_unstable_by_key(|&(c, p)| (c as u8, p.index()));
            want.sort_unstable_by_key(|&(c, p)| (c as u8, p.index()));
            assert_eq!(got, want);
            checked[4] += na;
            // The reply to the move just played.
            let reply = b.playout_reply(c, at).map(|l| b.point(l));
            assert_eq!(reply, playout_reply_by_definition(&b, c, q));
            checked[1] += reply.is_some() as usize;
        }
    }
    assert!(checked.iter().all(|&k| k > 50), "too few cases: {checked:?}");
}
