//! Tests of the eye-check export. The positions are asymmetric on purpose (stones in one
//! corner only, answers at known points), so that a left/right or up/down flip, or a
//! one-row shift, changes what the tests see.

use super::marks;
use super::render::{self, Anchor, CELL, MARGIN};
use super::sample::*;
use super::*;
use crate::coord::{gtp_move, sgf_move, sgf_point, PASS};
use crate::coord::{Move, Point, NN};
use tiny_skia::Pixmap;

/// A point from its GTP name (test input only).
fn pt(gtp: &str) -> Point {
    match gtp_move(gtp) {
        Some(Move::Play(p)) => p,
        other => panic!("{gtp} is not a point: {other:?}"),
    }
}

fn sample(black: &[&str], white: &[&str], to_play: u8, mv: Move) -> VerifySample {
    let mut board = [0u8; 361];
    for g in black {
        board[pt(g).index() as usize] = 1;
    }
    for g in white {
        board[pt(g).index() as usize] = 2;
    }
    VerifySample {
        id: 1,
        board,
        to_play,
        mv,
        prev_move: None,
        ko_point: None,
        source: "corner.sgf".into(),
        game_index: 0,
        move_number: 12,
        game_id: "g1".into(),
        black: Some("Black Player".into()),
        white: Some("White Player".into()),
        black_rank: Some("5d".into()),
        white_rank: None,
        tags: vec![],
        split: "train".into(),
    }
}

/// Black A19 B19 C17, White A18 B18 (just played), Black to play, answer Q16.
fn top_left_sample() -> VerifySample {
    let mut s = sample(&["A19", "B19", "C17"], &["A18", "B18"], 1, Move::Play(pt("Q16")));
    s.prev_move = Some(Move::Play(pt("B18")));
    s
}

/// A ko in the bottom-right corner: White R2 just took a stone at S2; Black to play,
/// ko point S2, answer C3 (a ko threat on the other side).
fn ko_sample() -> VerifySample {
    let mut s = sample(&["R3", "Q2", "R1"], &["S3", "R2", "T2", "S1"], 1, Move::Play(pt("C3")));
    s.prev_move = Some(Move::Play(pt("R2")));
    s.ko_point = Some(pt("S2"));
    s.source = "games.zip!pro/ko.sgf".into();
    s.game_index = 2;
    s.move_number = 140;
    s
}

/// Edges: Black A19 (just played), White to play at T1.
fn edge_sample() -> VerifySample {
    let mut s = sample(&["A19"], &[], 2, Move::Play(pt("T1")));
    s.prev_move = Some(Move::Play(pt("A19")));
    s.move_number = 2;
    s
}

fn lines(ls: &[&str]) -> String {
    let mut out = String::new();
    for l in ls {
        out.push_str(l);
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------
// Text diagram: golden strings

#[test]
fn text_golden_top_left_corner_answer_q16() {
    let expected = lines(&[
        "   A B C D E F G H J K L M N O P Q R S T",
        "19 X X . . . . . . . . . . . . . . . . . 19",
        "18 O(O). . . . . . . . . . . . . . . . . 18",
        "17 . . X . . . . . . . . . . . . . . . . 17",
        "16 . . . + . . . . . + . . . . . * . . . 16",
        "15 . . . . . . . . . . . . . . . . . . . 15",
        "14 . . . . . . . . . . . . . . . . . . . 14",
        "13 . . . . . . . . . . . . . . . . . . . 13",
        "12 . . . . . . . . . . . . . . . . . . . 12",
        "11 . . . . . . . . . . . . . . . . . . . 11",
        "10 . . . + . . . . . + . . . . . + . . . 10",
        " 9 . . . . . . . . . . . . . . . . . . .  9",
        " 8 . . . . . . . . . . . . . . . . . . .  8",
        " 7 . . . . . . . . . . . . . . . . . . .  7",
        " 6 . . . . . . . . . . . . . . . . . . .  6",
        " 5 . . . . . . . . . . . . . . . . . . .  5",
        " 4 . . . + . . . . . + . . . . . + . . .  4",
        " 3 . . . . . . . . . . . . . . . . . . .  3",
        " 2 . . . . . . . . . . . . . . . . . . .  2",
        " 1 . . . . . . . . . . . . . . . . . . .  1",
        "   A B C D E F G H J K L M N O P Q R S T",
        "Black (X) to play; answer: Q16 (SGF B[pd]); previous: White B18 (SGF W[bb]); ko: none",
        "source: corner.sgf, game 0, move 12",
    ]);
    assert_eq!(text_diagram(&top_left_sample()), expected);
}

#[test]
fn text_golden_bottom_right_ko_answer_c3() {
    let expected = lines(&[
        "   A B C D E F G H J K L M N O P Q R S T",
        "19 . . . . . . . . . . . . . . . . . . . 19",
        "18 . . . . . . . . . . . . . . . . . . . 18",
        "17 . . . . . . . . . . . . . . . . . . . 17",
        "16 . . . + . . . . . + . . . . . + . . . 16",
        "15 . . . . . . . . . . . . . . . . . . . 15",
        "14 . . . . . . . . . . . . . . . . . . . 14",
        "13 . . . . . . . . . . . . . . . . . . . 13",
        "12 . . . . . . . . . . . . . . . . . . . 12",
        "11 . . . . . . . . . . . . . . . . . . . 11",
        "10 . . . + . . . . . + . . . . . + . . . 10",
        " 9 . . . . . . . . . . . . . . . . . . .  9",
        " 8 . . . . . . . . . . . . . . . . . . .  8",
        " 7 . . . . . . . . . . . . . . . . . . .  7",
        " 6 . . . . . . . . . . . . . . . . . . .  6",
        " 5 . . . . . . . . . . . . . . . . . . .  5",
        " 4 . . . + . . . . . + . . . . . + . . .  4",
        " 3 . . * . . . . . . . . . . . . . X O .  3",
        " 2 . . . . . . . . . . . . . . . X(O)# O  2",
        " 1 . . . . . . . . . . . . . . . . X O .  1",
        "   A B C D E F G H J K L M N O P Q R S T",
        "Black (X) to play; answer: C3 (SGF B[cq]); previous: White R2 (SGF W[qr]); ko: S2 (SGF rr)",
        "source: games.zip!pro/ko.sgf, game 2, move 140",
    ]);
    assert_eq!(text_diagram(&ko_sample()), expected);
}

#[test]
fn text_golden_edges_a19_and_t1() {
    let expected = lines(&[
        "   A B C D E F G H J K L M N O P Q R S T",
        "19(X). . . . . . . . . . . . . . . . . . 19",
        "18 . . . . . . . . . . . . . . . . . . . 18",
        "17 . . . . . . . . . . . . . . . . . . . 17",
        "16 . . . + . . . . . + . . . . . + . . . 16",
        "15 . . . . . . . . . . . . . . . . . . . 15",
        "14 . . . . . . . . . . . . . . . . . . . 14",
        "13 . . . . . . . . . . . . . . . . . . . 13",
        "12 . . . . . . . . . . . . . . . . . . . 12",
        "11 . . . . . . . . . . . . . . . . . . . 11",
        "10 . . . + . . . . . + . . . . . + . . . 10",
        " 9 . . . . . . . . . . . . . . . . . . .  9",
        " 8 . . . . . . . . . . . . . . . . . . .  8",
        " 7 . . . . . . . . . . . . . . . . . . .  7",
        " 6 . . . . . . . . . . . . . . . . . . .  6",
        " 5 . . . . . . . . . . . . . . . . . . .  5",
        " 4 . . . + . . . . . + . . . . . + . . .  4",
        " 3 . . . . . . . . . . . . . . . . . . .  3",
        " 2 . . . . . . . . . . . . . . . . . . .  2",
        " 1 . . . . . . . . . . . . . . . . . . *  1",
        "   A B C D E F G H J K L M N O P Q R S T",
        "White (O) to play; answer: T1 (SGF W[ss]); previous: Black A19 (SGF B[aa]); ko: none",
        "source: corner.sgf, game 0, move 2",
    ]);
    assert_eq!(text_diagram(&edge_sample()), expected);
}

#[test]
fn text_pass_answer_and_previous_pass() {
    let mut s = top_left_sample();
    s.mv = Move::Pass;
    s.prev_move = Some(Move::Pass);
    let t = text_diagram(&s);
    let board: String = t.lines().skip(1).take(19).collect();
    assert!(!board.contains('*'), "a pass marks no point:\n{t}");
    assert!(!board.contains('(') && !board.contains(')'), "a previous pass brackets no point:\n{t}");
    assert!(t.contains("Black (X) to play; answer: pass (SGF B[]); previous: White pass (SGF W[]); ko: none\n"), "{t}");
    s.prev_move = None;
    assert!(text_diagram(&s).contains("; previous: none; "));
}

#[test]
fn text_layout_invariants_hold_for_every_sample() {
    for s in [top_left_sample(), ko_sample(), edge_sample()] {
        let t = text_diagram(&s);
        let ls: Vec<&str> = t.lines().collect();
        assert_eq!(ls.len(), 23);
        assert_eq!(ls[0], ls[20], "header and footer letters agree");
        assert!(!ls[0].contains('I'), "no I column");
        for (k, l) in ls[1..20].iter().enumerate() {
            let n = 19 - k;
            assert_eq!(l.len(), 43, "every board line is 43 characters: {l:?}");
            assert_eq!(&l[..2], format!("{n:>2}"), "left label of line {k}");
            assert_eq!(&l[41..], format!("{n:>2}"), "right label of line {k}");
        }
        assert!(t.lines().all(|l| !l.ends_with(' ')), "no trailing spaces");
    }
}

// ---------------------------------------------------------------------------
// PNG: pixels at known places

fn decode(png: &[u8]) -> Pixmap {
    let pm = Pixmap::decode_png(png).expect("valid PNG");
    assert_eq!((pm.width(), pm.height()), (IMAGE_WIDTH, IMAGE_HEIGHT));
    pm
}

fn rgb(pm: &Pixmap, x: u32, y: u32) -> (u8, u8, u8) {
    let c = pm.pixel(x, y).expect("inside the picture");
    assert_eq!(c.alpha(), 255, "opaque picture");
    (c.red(), c.green(), c.blue())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Black,
    White,
    Wood,
    Red,
    Other,
}

fn classify((r, g, b): (u8, u8, u8)) -> Seen {
    let near = |a: u8, e: u8| (a as i32 - e as i32).abs() <= 25;
    if r < 70 && g < 70 && b < 70 {
        Seen::Black
    } else if r > 200 && g > 200 && b > 200 {
        Seen::White
    } else if r > 170 && g < 90 && b < 90 {
        Seen::Red
    } else if near(r, render::WOOD.0) && near(g, render::WOOD.1) && near(b, render::WOOD.2) {
        Seen::Wood
    } else {
        Seen::Other
    }
}

/// What a stone looks like: a pixel 4 px right of and below the intersection centre, inside
/// any stone but clear of grid lines, star points and the small markers.
fn stone_seen(pm: &Pixmap, gtp: &str) -> Seen {
    let (x, y) = point_pixel(pt(gtp));
    classify(rgb(pm, x + 4, y + 4))
}

/// The centre pixel of an intersection.
fn centre_seen(pm: &Pixmap, gtp: &str) -> Seen {
    let (x, y) = point_pixel(pt(gtp));
    classify(rgb(pm, x, y))
}

#[test]
fn point_pixel_geometry() {
    assert_eq!(point_pixel(pt("A19")), (MARGIN, MARGIN));
    assert_eq!(point_pixel(pt("T19")), (MARGIN + 18 * CELL, MARGIN));
    assert_eq!(point_pixel(pt("A1")), (MARGIN, MARGIN + 18 * CELL));
    assert_eq!(point_pixel(pt("Q16")), (MARGIN + 15 * CELL, MARGIN + 3 * CELL));
    const { assert!(MARGIN + 18 * CELL < IMAGE_WIDTH && MARGIN + 18 * CELL < IMAGE_HEIGHT) };
}

#[test]
fn png_corner_read_in_absolute_pixels() {
    // Without point_pixel: the top-left corner of the picture shows A and 19 and the
    // black A19 stone; the other corners show their own labels and no stone.
    let pm = decode(&render_png(&top_left_sample(), true));
    let letters: Vec<String> = ('A'..='Z').map(|c| c.to_string()).collect();
    let numbers: Vec<String> = (0..=25).map(|n| n.to_string()).collect();
    let (w, b) = (IMAGE_WIDTH, IMAGE_WIDTH); // the board part is square
    assert_eq!(read_label(&pm, (32, 0, 64, 30), &letters), vec!["A"]);
    assert_eq!(read_label(&pm, (w - 64, 0, w - 32, 30), &letters), vec!["T"]);
    assert_eq!(read_label(&pm, (32, b - 30, 64, b), &letters), vec!["A"]);
    assert_eq!(read_label(&pm, (0, 32, 30, 64), &numbers), vec!["19"]);
    assert_eq!(read_label(&pm, (0, b - 64, 30, b - 32), &numbers), vec!["1"]);
    assert_eq!(read_label(&pm, (w - 30, 32, w, 64), &numbers), vec!["19"]);
    assert_eq!(classify(rgb(&pm, 52, 52)), Seen::Black, "A19 stone near the top-left corner");
    assert_eq!(classify(rgb(&pm, w - 44, 52)), Seen::Wood, "no stone near the top-right corner");
    assert_eq!(classify(rgb(&pm, 52, b - 44)), Seen::Wood, "no stone near the bottom-left corner");
}

#[test]
fn png_stones_are_where_the_board_says_and_nowhere_mirrored() {
    let s = top_left_sample();
    let pm = decode(&render_png(&s, true));

    // Named checks: the corner stones, and where a flip or a shift would put them.
    for g in ["A19", "B19", "C17"] {
        assert_eq!(stone_seen(&pm, g), Seen::Black, "black stone at {g}");
    }
    for g in ["A18", "B18"] {
        assert_eq!(stone_seen(&pm, g), Seen::White, "white stone at {g}");
    }
    for (g, why) in [
        ("T19", "left/right flip of A19"),
        ("S19", "left/right flip of B19"),
        ("R17", "left/right flip of C17"),
        ("A1", "up/down flip of A19"),
        ("C3", "up/down flip of C17"),
        ("T1", "both flips of A19"),
        ("C16", "C17 one row down"),
        ("C18", "C17 one row up"),
        ("A17", "A18 one row down"),
        ("B17", "B18 one row down"),
        ("T2", "left/right + up/down flip of A18"),
        ("A2", "up/down flip of A18"),
    ] {
        assert_eq!(stone_seen(&pm, g), Seen::Wood, "no stone at {g} ({why})");
    }

    // Every intersection: stone colour exactly as in the board array.
    for i in 0..NN as u16 {
        let p = Point::from_index(i).unwrap();
        let want = match s.board[i as usize] {
            1 => Seen::Black,
            2 => Seen::White,
            _ => Seen::Wood,
        };
        assert_eq!(stone_seen(&pm, &p.to_gtp()), want, "intersection {}", p.to_gtp());
    }

    // The answer Q16: red dot in the centre and red ring around it; not at its mirror
    // images or next to it.
    assert_eq!(centre_seen(&pm, "Q16"), Seen::Red, "answer dot at Q16");
    let (x, y) = point_pixel(pt("Q16"));
    for (dx, dy) in [(13i32, 0i32), (-13, 0), (0, 13), (0, -13)] {
        let c = rgb(&pm, (x as i32 + dx) as u32, (y as i32 + dy) as u32);
        assert_eq!(classify(c), Seen::Red, "answer ring at Q16 {dx:+},{dy:+}");
    }
    for g in ["D16", "Q4", "D4", "Q15", "Q17", "P16", "R16", "C16"] {
        assert_ne!(centre_seen(&pm, g), Seen::Red, "no answer marker at {g}");
    }
}

#[test]
fn png_without_answer_has_no_red_on_the_board() {
    let s = top_left_sample();
    let pm = decode(&render_png(&s, false));
    let board_px = point_pixel(pt("T1")).1 + CELL;
    for y in 0..board_px {
        for x in 0..IMAGE_WIDTH {
            assert_ne!(classify(rgb(&pm, x, y)), Seen::Red, "red pixel at ({x}, {y}) with the answer hidden");
        }
    }
    // The stones are still drawn.
    assert_eq!(stone_seen(&pm, "A19"), Seen::Black);
    assert_eq!(stone_seen(&pm, "T19"), Seen::Wood);
}

#[test]
fn png_pass_answer_is_in_the_caption_only() {
    let mut s = top_left_sample();
    s.mv = Move::Pass;
    let pm = decode(&render_png(&s, true));
    let board_px = point_pixel(pt("T1")).1 + CELL;
    let red = |y0: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (0..IMAGE_WIDTH).map(move |x| (x, y)))
            .filter(|&(x, y)| classify(rgb(&pm, x, y)) == Seen::Red)
            .count()
    };
    assert_eq!(red(0, board_px), 0, "a pass marks no intersection");
    assert!(red(board_px, IMAGE_HEIGHT) > 20, "the caption's answer line is red");
}

#[test]
fn png_previous_move_and_ko_markers() {
    let s = ko_sample();
    let pm = decode(&render_png(&s, true));
    // Previous move R2 (white stone): dark ring 8 px from the centre, white inside.
    let (x, y) = point_pixel(pt("R2"));
    assert_eq!(classify(rgb(&pm, x + 8, y)), Seen::Black, "previous-move ring on R2");
    assert_eq!(classify(rgb(&pm, x, y + 3)), Seen::White, "R2 is still a white stone");
    // Other white stones carry no ring.
    let (x2, y2) = point_pixel(pt("T2"));
    assert_eq!(classify(rgb(&pm, x2 + 8, y2)), Seen::White, "no ring on T2");
    // Ko point S2: open square, edge 8 px from the centre.
    let (kx, ky) = point_pixel(pt("S2"));
    assert_eq!(classify(rgb(&pm, kx + 8, ky + 4)), Seen::Black, "ko square at S2");
    assert_eq!(classify(rgb(&pm, kx + 4, ky + 4)), Seen::Wood, "the ko point is empty");
    for g in ["B2", "S18", "B18", "C3"] {
        let (ex, ey) = point_pixel(pt(g));
        assert_eq!(classify(rgb(&pm, ex + 8, ey + 4)), Seen::Wood, "no ko square at {g}");
    }
    // Answer C3 in red; the up/down mirror C17 and the left/right mirror R3 are not red.
    assert_eq!(centre_seen(&pm, "C3"), Seen::Red);
    assert_ne!(centre_seen(&pm, "C17"), Seen::Red);
    assert_eq!(stone_seen(&pm, "R3"), Seen::Black);

    // Previous move on a black stone gets a light ring.
    let e = edge_sample();
    let pm = decode(&render_png(&e, true));
    let (x, y) = point_pixel(pt("A19"));
    assert_eq!(classify(rgb(&pm, x + 8, y)), Seen::White, "light ring on the black A19");
    assert_eq!(centre_seen(&pm, "T1"), Seen::Red, "answer at T1");
    assert_ne!(centre_seen(&pm, "A1"), Seen::Red);
    assert_ne!(centre_seen(&pm, "T19"), Seen::Red);
}

/// Bounding box `(min x, min y, max x, max y)` and the pixels relative to it.
type Ink = (u32, u32, u32, u32, Vec<(u32, u32)>);

/// Dark (label) pixels of a region as a set of coordinates relative to their bounding box.
fn ink(pm: &Pixmap, x0: u32, y0: u32, x1: u32, y1: u32) -> Option<Ink> {
    let mut pts = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            let (r, g, b) = rgb(pm, x, y);
            let lum = 0.299 * r as f32 + 0.587 * g as f32 + 0.114 * b as f32;
            if lum < 120.0 {
                pts.push((x, y));
            }
        }
    }
    let minx = pts.iter().map(|p| p.0).min()?;
    let maxx = pts.iter().map(|p| p.0).max()?;
    let miny = pts.iter().map(|p| p.1).min()?;
    let maxy = pts.iter().map(|p| p.1).max()?;
    let rel = pts.iter().map(|&(x, y)| (x - minx, y - miny)).collect();
    Some((minx, miny, maxx, maxy, rel))
}

/// Reads a label back from the picture: the candidate whose rendering (the same font,
/// on whole pixels) has exactly the same ink.
fn read_label(pm: &Pixmap, region: (u32, u32, u32, u32), candidates: &[String]) -> Vec<String> {
    read_label_styled(pm, region, candidates, render::TEXT_SIZE, true)
}

/// [`read_label`] for text of font size `size`, anti-aliased or not.
fn read_label_styled(
    pm: &Pixmap,
    region: (u32, u32, u32, u32),
    candidates: &[String],
    size: f32,
    aa: bool,
) -> Vec<String> {
    let (_, _, _, _, seen) = ink(pm, region.0, region.1, region.2, region.3).expect("a label is drawn here");
    candidates
        .iter()
        .filter(|c| {
            let mut probe = Pixmap::new(200, 60).unwrap();
            let w = render::WOOD;
            probe.fill(tiny_skia::Color::from_rgba8(w.0, w.1, w.2, 255));
            render::draw_text(&mut probe, 20.0, 40.0, Anchor::Start, Rgb(50, 35, 15), c, size, aa);
            ink(&probe, 0, 0, 200, 60).map(|i| i.4) == Some(seen.clone())
        })
        .cloned()
        .collect()
}

use super::render::Rgb;

#[test]
fn png_axis_labels_read_back_a_to_t_without_i_and_19_at_the_top() {
    let s = top_left_sample();
    let pm = decode(&render_png(&s, true));
    let letters: Vec<String> = ('A'..='Z').map(|c| c.to_string()).collect();
    let numbers: Vec<String> = (0..=25).map(|n| n.to_string()).collect();
    let half = CELL / 2;
    let grid_end = MARGIN + 18 * CELL;
    let expected_cols = "ABCDEFGHJKLMNOPQRST";
    for (col, want) in expected_cols.chars().enumerate() {
        let (x, _) = point_pixel(Point::new(0, col).unwrap());
        let top = (x - half, 0, x + half, MARGIN - half - 2);
        let bottom = (x - half, grid_end + half + 2, x + half, grid_end + MARGIN);
        assert_eq!(read_label(&pm, top, &letters), vec![want.to_string()], "top label of column {col}");
        assert_eq!(read_label(&pm, bottom, &letters), vec![want.to_string()], "bottom label of column {col}");
    }
    let mut left_right_edges = Vec::new();
    for row in 0..19u32 {
        let want = (19 - row).to_string();
        let (_, y) = point_pixel(Point::new(row as usize, 0).unwrap());
        let left = (0, y - half, MARGIN - half - 2, y + half);
        let right = (IMAGE_WIDTH - 30, y - half, IMAGE_WIDTH, y + half);
        assert_eq!(read_label(&pm, left, &numbers), vec![want.clone()], "left label of row {row}");
        assert_eq!(read_label(&pm, right, &numbers), vec![want.clone()], "right label of row {row}");
        // Vertically centred on its row (no shift of two-digit labels).
        for region in [left, right] {
            let (_, miny, _, maxy, _) = ink(&pm, region.0, region.1, region.2, region.3).unwrap();
            let mid = (miny + maxy) as f32 / 2.0;
            assert!((mid - y as f32).abs() <= 1.5, "label {want} centred on row {row}: ink {miny}..{maxy}, row at {y}");
        }
        let l = ink(&pm, left.0, left.1, left.2, left.3).unwrap();
        let r = ink(&pm, right.0, right.1, right.2, right.3).unwrap();
        left_right_edges.push((want, l.0, l.2, r.0, r.2));
    }
    // Right-aligned on both sides: "19" and "9" end at the same pixel, "19" starts further left.
    let get = |n: &str| left_right_edges.iter().find(|e| e.0 == n).unwrap().clone();
    for (two, one) in [("19", "9"), ("11", "1"), ("13", "3")] {
        let (a, b) = (get(two), get(one));
        assert_eq!(a.2, b.2, "left labels {two} and {one} end at the same x");
        assert_eq!(a.4, b.4, "right labels {two} and {one} end at the same x");
        assert!(a.1 + 5 < b.1 && a.3 + 5 < b.3, "{two} starts left of {one}");
    }
}

// ---------------------------------------------------------------------------
// SVG

/// `(cx, cy, fill)` of every stone-sized circle.
fn svg_stones(svg: &str) -> Vec<(String, String, String)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!(" {name}=\"");
        let start = tag.find(&key).map(|i| i + key.len()).unwrap_or_else(|| panic!("{name} in {tag}"));
        tag[start..start + tag[start..].find('"').unwrap()].to_string()
    };
    svg.split("<circle")
        .skip(1)
        .map(|t| &t[..t.find("/>").unwrap()])
        .filter(|t| attr(t, "r") == "15.36")
        .map(|t| (attr(t, "cx"), attr(t, "cy"), attr(t, "fill")))
        .collect()
}

#[test]
fn svg_matches_the_png_geometry() {
    let s = top_left_sample();
    let svg = render_svg(&s, true);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let mut stones = svg_stones(&svg);
    stones.sort();
    let stone = |g: &str, fill: &str| {
        let (x, y) = point_pixel(pt(g));
        (format!("{x}.5"), format!("{y}.5"), fill.to_string())
    };
    let mut want = vec![
        stone("A19", "#161616"),
        stone("B19", "#161616"),
        stone("C17", "#161616"),
        stone("A18", "#f6f6f0"),
        stone("B18", "#f6f6f0"),
    ];
    want.sort();
    assert_eq!(stones, want);
    // Labels: 19 on the top row, 1 on the bottom row, no I.
    let (_, y19) = point_pixel(pt("A19"));
    let (_, y1) = point_pixel(pt("A1"));
    let texts: Vec<(f32, String)> = svg
        .split("<text")
        .skip(1)
        .map(|t| {
            let y0 = t.find(" y=\"").unwrap() + 4;
            let y: f32 = t[y0..y0 + t[y0..].find('"').unwrap()].parse().unwrap();
            let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            (y, body.to_string())
        })
        .collect();
    let ys = |label: &str| texts.iter().filter(|t| t.1 == label).map(|t| t.0).collect::<Vec<_>>();
    assert_eq!(ys("19").len(), 2);
    assert!(ys("19").iter().all(|&y| (y - y19 as f32).abs() < 8.0), "19 on the top row");
    assert!(ys("1").iter().all(|&y| (y - y1 as f32).abs() < 8.0), "1 on the bottom row");
    assert!(ys("I").is_empty() && ys("J").len() == 2 && ys("T").len() == 2);
    // Answer marker only when asked for.
    assert!(svg.contains("stroke=\"#dc1414\""));
    assert!(!render_svg(&s, false).contains("#dc1414"));
}

// ---------------------------------------------------------------------------
// Mini SGF: read it back with a tiny parser

/// Nodes of a one-variation SGF as lists of (property, values), values unescaped.
fn parse_sgf(text: &str) -> Vec<Vec<(String, Vec<String>)>> {
    let t = text.trim();
    assert!(t.starts_with("(;") && t.ends_with(')'), "one game tree: {t}");
    let chars: Vec<char> = t[1..t.len() - 1].chars().collect();
    let mut nodes: Vec<Vec<(String, Vec<String>)>> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            ';' => {
                nodes.push(Vec::new());
                i += 1;
            }
            c if c.is_ascii_uppercase() => {
                let mut ident = String::new();
                while chars[i].is_ascii_uppercase() {
                    ident.push(chars[i]);
                    i += 1;
                }
                let mut values = Vec::new();
                while i < chars.len() && chars[i] == '[' {
                    i += 1;
                    let mut v = String::new();
                    while chars[i] != ']' {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        v.push(chars[i]);
                        i += 1;
                    }
                    i += 1;
                    values.push(v);
                }
                assert!(!values.is_empty(), "property {ident} has values");
                nodes.last_mut().expect("a node").push((ident, values));
            }
            c if c.is_whitespace() => i += 1,
            c => panic!("unexpected {c:?} in SGF"),
        }
    }
    nodes
}

fn prop<'a>(node: &'a [(String, Vec<String>)], name: &str) -> Vec<&'a String> {
    node.iter().filter(|p| p.0 == name).flat_map(|p| p.1.iter()).collect()
}

fn check_sgf_round_trip(s: &VerifySample) {
    let text = mini_sgf(s);
    let nodes = parse_sgf(&text);
    assert_eq!(nodes.len(), 2, "root with setup, then the move: {text}");
    let root = &nodes[0];
    assert_eq!(prop(root, "SZ"), vec!["19"]);
    let mut board = [0u8; 361];
    for (name, color) in [("AB", 1u8), ("AW", 2u8)] {
        for v in prop(root, name) {
            let (row, col) = sgf_point(v, 19).expect("setup point");
            let i = Point::new(row, col).unwrap().index() as usize;
            assert_eq!(board[i], 0, "{v} set twice");
            board[i] = color;
        }
    }
    assert_eq!(board, s.board, "setup stones are exactly the board");
    assert_eq!(prop(root, "PL"), vec![if s.to_play == 2 { "W" } else { "B" }]);
    assert!(prop(root, "B").is_empty() && prop(root, "W").is_empty(), "no move in the root");
    let mv_node = &nodes[1];
    let (color, value) = match (prop(mv_node, "B").as_slice(), prop(mv_node, "W").as_slice()) {
        ([b], []) => (1u8, (*b).clone()),
        ([], [w]) => (2u8, (*w).clone()),
        other => panic!("one move in the second node: {other:?}"),
    };
    assert_eq!(color, s.to_play, "the move is by the side to play");
    assert_eq!(sgf_move(&value), Ok(s.mv));
    assert_eq!(prop(mv_node, "MN"), vec![&s.move_number.to_string()]);
    let comment = prop(root, "C");
    assert_eq!(comment.len(), 1);
    assert!(
        comment[0].starts_with(&format!("{}, game {}, move {}", s.source, s.game_index, s.move_number)),
        "{comment:?}"
    );
}

#[test]
fn mini_sgf_round_trips() {
    let top = top_left_sample();
    assert_eq!(
        mini_sgf(&top),
        "(;GM[1]FF[4]CA[UTF-8]SZ[19]PB[Black Player]PW[White Player]BR[5d]PL[B]AB[aa][ba][cc]AW[ab][bb]\
         C[corner.sgf, game 0, move 12];B[pd]MN[12])\n"
    );
    check_sgf_round_trip(&top);
    check_sgf_round_trip(&ko_sample());
    check_sgf_round_trip(&edge_sample());
    let mut pass = edge_sample();
    pass.mv = Move::Pass;
    assert!(mini_sgf(&pass).ends_with(";W[]MN[2])\n"));
    check_sgf_round_trip(&pass);
    let mut odd = ko_sample();
    odd.source = r"dir\x]y.sgf".into();
    odd.black = Some("a]b".into());
    check_sgf_round_trip(&odd);
    assert!(mini_sgf(&odd).contains(r"PB[a\]b]"));
}

// ---------------------------------------------------------------------------
// HTML page

fn twenty() -> Vec<VerifySample> {
    (1..=20)
        .map(|id| {
            let mut s = if id % 2 == 0 { top_left_sample() } else { ko_sample() };
            s.id = id;
            s.move_number = 10 + id as u32;
            s
        })
        .collect()
}

fn page_json(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"kibo-data\">";
    let start = html.find(open).expect("data block") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).expect("valid JSON")
}

#[test]
fn html_is_self_contained_with_one_entry_per_sample() {
    let mut samples = twenty();
    samples[3].source = "https://example.org/x.sgf</script><b>".into();
    let html = html_page(&samples);
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("http://") && !lower.contains("https://"), "no external references");
    for needle in ["src=\"", "<link", "@import", "<iframe", "<img"] {
        assert!(!lower.contains(needle), "no {needle}");
    }
    let css = &lower[lower.find("<style>").unwrap()..lower.find("</style>").unwrap()];
    assert!(!css.contains("url("), "no CSS resources");
    assert_eq!(html.matches("<section class=\"sample\"").count(), 20);
    assert_eq!(html.matches("<template class=\"answer-tpl\">").count(), 20);
    assert_eq!(html.matches("<button type=\"button\" class=\"reveal\">Reveal</button>").count(), 20);
    assert!(html.contains("Save review (JSON)") && html.contains("new Blob("));
    assert_eq!(html.matches("</script>").count(), 2, "the source cannot close the data block");
    for s in &samples {
        assert!(html.contains(&format!("id=\"sample-{:02}\"", s.id)));
    }
    let data = page_json(&html);
    let entries = data["samples"].as_array().unwrap();
    assert_eq!(entries.len(), 20);
    for (e, s) in entries.iter().zip(&samples) {
        assert_eq!(e["id"], s.id);
        assert_eq!(e["source"], s.source.as_str());
        assert_eq!(e["answer_gtp"], s.mv.to_gtp().as_str());
        assert_eq!(e["answer_index"], s.mv.index());
    }
    // The click geometry and names the script uses agree with point_pixel and coord.
    let names = data["names"].as_array().unwrap();
    assert_eq!(names.len(), NN + 1);
    assert_eq!(names[PASS as usize], "pass");
    assert_eq!(names[pt("Q16").index() as usize], "Q16");
    assert_eq!(names[pt("A19").index() as usize], "A19");
    assert_eq!(names[pt("T1").index() as usize], "T1");
    let (x, y) = point_pixel(pt("A19"));
    assert_eq!(data["origin_x"].as_f64().unwrap(), x as f64 + 0.5);
    assert_eq!(data["origin_y"].as_f64().unwrap(), y as f64 + 0.5);
    assert_eq!(data["cell"], CELL);
}

#[test]
fn html_question_board_hides_the_answer() {
    let html = html_page(&twenty());
    for section in html.split("<section class=\"sample\"").skip(1) {
        let question =
            &section[section.find("<figure class=\"question\">").unwrap()..section.find("</figure>").unwrap()];
        assert!(!question.contains("#dc1414"), "no answer marker before Reveal");
        assert!(question.contains("<g class=\"pick\""), "a pick marker to move");
        let tpl = &section[section.find("<template").unwrap()..section.find("</template>").unwrap()];
        assert!(tpl.contains("#dc1414"), "the answer board marks the move");
        assert!(tpl.contains("<pre class=\"diagram\">"), "the text diagram comes with the answer");
    }
    assert!(html_page(&[]).contains("No samples."));
}

// ---------------------------------------------------------------------------
// Export folder

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kibo-verify-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn write_export_writes_every_file_atomically_and_deterministically() {
    let dir = scratch_dir("export");
    let mut samples = twenty();
    samples.truncate(3);
    write_export(&dir, &samples).unwrap();
    let mut want = vec!["index.html".to_string()];
    for id in 1..=3 {
        for ext in ["json", "png", "sgf", "svg", "txt"] {
            want.push(format!("sample-{id:02}.{ext}"));
        }
    }
    want.sort();
    assert_eq!(listing(&dir), want, "exactly these files, no temporary leftovers");

    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("sample-02.json")).unwrap()).unwrap();
    assert_eq!(json["source"], "corner.sgf");
    assert_eq!(json["game_index"], 0);
    assert_eq!(json["move_number"], 12);
    assert_eq!(json["answer_gtp"], "Q16");
    assert_eq!(json["answer_sgf"], "pd");
    assert_eq!(json["to_play"], "B");
    assert_eq!(json["prev_move"]["gtp"], "B18");
    assert_eq!(std::fs::read_to_string(dir.join("sample-02.txt")).unwrap(), text_diagram(&samples[1]));
    assert_eq!(std::fs::read_to_string(dir.join("sample-02.sgf")).unwrap(), mini_sgf(&samples[1]));
    assert_eq!(std::fs::read(dir.join("sample-02.png")).unwrap(), render_png(&samples[1], true));
    let before: Vec<Vec<u8>> = want.iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect();

    // Same input, same bytes.
    write_export(&dir, &samples).unwrap();
    let after: Vec<Vec<u8>> = want.iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect();
    assert!(before == after, "a rerun writes byte-identical files");

    // A smaller export removes the extra sample files, leaving other files alone.
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.join(".sample-07.png.tmp-12345"), "interrupted").unwrap();
    write_export(&dir, &samples[..2]).unwrap();
    let names = listing(&dir);
    assert!(!names.iter().any(|n| n.starts_with("sample-03") || n.contains(".tmp-")), "{names:?}");
    assert!(names.contains(&"notes.txt".to_string()) && names.contains(&"sample-02.png".to_string()));

    // Duplicate ids are refused.
    let dup = vec![samples[0].clone(), samples[0].clone()];
    assert_eq!(write_export(&dir, &dup).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Model pictures (`kibo export vlm`): BoardPainter

/// The model picture's pixels as RGB triples, decoded with the png crate.
fn decode_model(png_bytes: &[u8]) -> (u32, Vec<[u8; 3]>) {
    let mut d = png::Decoder::new(std::io::Cursor::new(png_bytes));
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "a palette expands to RGB");
    let px = buf[..info.buffer_size()].chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    (info.width, px)
}

/// A board of random stones (about a third of the points) and random marks, from `seed`.
fn random_position(seed: u64) -> ([u8; NN], BoardMarkers) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut board = [0u8; NN];
    for c in board.iter_mut() {
        *c = match next() % 6 {
            0 => 1,
            1 => 2,
            _ => 0,
        };
    }
    let stones: Vec<u16> = (0..NN as u16).filter(|&i| board[i as usize] != 0).collect();
    let empties: Vec<u16> = (0..NN as u16).filter(|&i| board[i as usize] == 0).collect();
    let prev = stones.get(next() as usize % stones.len().max(1)).and_then(|&i| Point::from_index(i));
    let ko = empties.get(next() as usize % empties.len().max(1)).and_then(|&i| Point::from_index(i));
    (board, BoardMarkers { prev_move: prev, ko_point: ko })
}

#[test]
fn painter_equals_the_renderer() {
    // The painter's copies of pre-drawn squares give exactly the pixels of drawing the
    // position's own shapes with the one renderer, at both cell sizes.
    for cell in [28, 32, 26, 64] {
        let st = Style::model(cell).unwrap();
        let painter = BoardPainter::new(st).unwrap();
        assert!(painter.palette().len() / 3 <= 16, "a handful of flat colours: {}", painter.palette().len() / 3);
        assert_eq!(painter.side(), 21 * cell);
        for seed in 0..6 {
            let (board, marks) = random_position(seed + cell as u64);
            let png_bytes = painter.png_of(&board, marks).unwrap();
            let (w, px) = decode_model(&png_bytes);
            assert_eq!(w, 21 * cell);
            let drawn = render::draw_shapes(render::board_scene(st, &board, marks), w, w, false);
            for (i, (a, b)) in px.iter().zip(drawn.data().chunks_exact(4)).enumerate() {
                assert_eq!(a[..], b[..3], "cell {cell}, seed {seed}: pixel ({}, {})", i as u32 % w, i as u32 / w);
            }
        }
    }
}

#[test]
fn model_pictures_are_deterministic_and_anti_aliasing_is_refused() {
    let painter = BoardPainter::new(Style::model(32).unwrap()).unwrap();
    let (board, marks) = random_position(7);
    assert_eq!(painter.png_of(&board, marks).unwrap(), painter.png_of(&board, marks).unwrap());
    assert!(BoardPainter::new(Style::EYE).is_err());
    assert!(
        Style::model(30).is_some()
            && Style::model(29).is_none()
            && Style::model(24).is_none()
            && Style::model(66).is_none()
    );
}

/// Ink of a colour in a square region: bounding box of the pixels equal to `c`.
fn bbox_of(px: &[[u8; 3]], w: u32, region: (u32, u32, u32, u32), c: [u8; 3]) -> Option<(u32, u32, u32, u32)> {
    let mut b: Option<(u32, u32, u32, u32)> = None;
    for y in region.1..region.3 {
        for x in region.0..region.2 {
            if px[(y * w + x) as usize] == c {
                b = Some(match b {
                    None => (x, y, x, y),
                    Some((a, bb, cc, d)) => (a.min(x), bb.min(y), cc.max(x), d.max(y)),
                });
            }
        }
    }
    b
}

#[test]
fn each_intersection_sits_in_the_middle_of_its_own_token() {
    // At cell size c, token (i, j) spans [c·j, c·j + c) × [c·i, c·i + c); intersection
    // (row, col) belongs to token (row + 1, col + 1), its pixel at c·(col + 1) + c/2, and
    // its stone fills the token symmetrically about that pixel (to the pixel).
    for cell in [28u32, 32] {
        let st = Style::model(cell).unwrap();
        let painter = BoardPainter::new(st).unwrap();
        let mut board = [0u8; NN];
        let corners = ["A19", "T19", "A1", "T1", "Q16", "K10", "D4"];
        for (k, g) in corners.iter().enumerate() {
            board[pt(g).index() as usize] = 1 + (k % 2) as u8;
        }
        let (w, px) = decode_model(&painter.png_of(&board, BoardMarkers::default()).unwrap());
        for (k, g) in corners.iter().enumerate() {
            let p = pt(g);
            let (x, y) = st.point_pixel(p);
            assert_eq!((x, y), (cell * (p.col as u32 + 1) + cell / 2, cell * (p.row as u32 + 1) + cell / 2), "{g}");
            let token = (cell * (p.col as u32 + 1), cell * (p.row as u32 + 1));
            let fill = if k % 2 == 0 { render::BLACK_STONE } else { render::WHITE_STONE };
            let region = (token.0, token.1, token.0 + cell, token.1 + cell);
            let (x0, y0, x1, y1) = bbox_of(&px, w, region, [fill.0, fill.1, fill.2]).expect("the stone is drawn");
            assert!(
                x0 > token.0 && y0 > token.1 && x1 < token.0 + cell - 1 && y1 < token.1 + cell - 1,
                "{g} inside its token"
            );
            assert!(
                (x0 + x1) as i64 - 2 * x as i64 <= 1 && 2 * x as i64 - (x0 + x1) as i64 <= 1,
                "{g}: x {x0}..{x1} about {x}"
            );
            assert!(
                (y0 + y1) as i64 - 2 * y as i64 <= 1 && 2 * y as i64 - (y0 + y1) as i64 <= 1,
                "{g}: y {y0}..{y1} about {y}"
            );
        }
    }
}

#[test]
fn model_picture_labels_read_back_at_both_cell_sizes() {
    for cell in [28u32, 32] {
        let st = Style::model(cell).unwrap();
        let painter = BoardPainter::new(st).unwrap();
        let (w, px) = decode_model(&painter.png_of(&[0; NN], BoardMarkers::default()).unwrap());
        let mut pm = Pixmap::new(w, w).unwrap();
        for (d, s) in pm.data_mut().chunks_exact_mut(4).zip(&px) {
            d.copy_from_slice(&[s[0], s[1], s[2], 255]);
        }
        let size = render::TEXT_SIZE * cell as f32 / 32.0;
        let letters: Vec<String> = ('A'..='Z').map(|c| c.to_string()).collect();
        let numbers: Vec<String> = (0..=25).map(|n| n.to_string()).collect();
        for (col, want) in "ABCDEFGHJKLMNOPQRST".chars().enumerate() {
            // Column labels in the margin's top and bottom token rows.
            let x0 = cell * (col as u32 + 1);
            for y0 in [0, 20 * cell] {
                let got = read_label_styled(&pm, (x0, y0, x0 + cell, y0 + cell), &letters, size, false);
                assert_eq!(got, vec![want.to_string()], "cell {cell}: label of column {col} at y {y0}");
            }
        }
        for row in 0..19u32 {
            let y0 = cell * (row + 1);
            for x0 in [0, 20 * cell] {
                let got = read_label_styled(&pm, (x0, y0, x0 + cell, y0 + cell), &numbers, size, false);
                assert_eq!(got, vec![(19 - row).to_string()], "cell {cell}: label of row {row} at x {x0}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// `kibo score` pictures: the caption is wrapped, never cut

#[test]
fn marks_caption_lines_wrap_at_the_width_and_keep_every_word() {
    let long = "game's rules, japanese: Black 71 territory + 13 prisoners + 1 dead = 85 · White 64 territory + 9 \
                prisoners + 2 dead + komi 6.5 = 81.5 → B+3.5 (4 undecided points)";
    for max in [40, 72, 200] {
        let pieces = marks::wrap(long, max);
        assert!(pieces.iter().all(|p| p.chars().count() <= max), "{max}: {pieces:?}");
        let words = |s: &str| s.split_whitespace().filter(|w| *w != "·").map(str::to_string).collect::<Vec<_>>();
        let joined: Vec<String> = pieces.iter().flat_map(|p| words(p)).collect();
        assert_eq!(joined, words(long), "{max}: every word once, in order");
        assert_eq!(pieces.len() == 1, long.chars().count() <= max);
    }
    let m = BoardMarks {
        board: [0; NN],
        dead: vec![],
        territory: [0; NN],
        caption: vec![long.to_string(), long.replace("japanese", "korean"), "recorded RE[W+4.5]: agrees".into()],
        title: "t".into(),
    };
    let pm = Pixmap::decode_png(&render_marks_png(&m)).expect("valid PNG");
    assert_eq!(pm.width(), IMAGE_WIDTH);
    assert!(pm.height() > IMAGE_HEIGHT, "a caption of more than four lines makes the picture taller");
    // The last line is drawn: dark ink in the last caption row.
    let last = ink(&pm, 0, pm.height() - 30, IMAGE_WIDTH, pm.height());
    assert!(last.is_some(), "the last caption line is on the picture");
    assert!(render_marks_svg(&m).contains(&format!("height=\"{}\"", pm.height())));
}
