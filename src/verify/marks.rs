//! A final position with its count marked ([`BoardMarks`]), drawn with the eye check's
//! renderer: dead stones crossed, territory as small squares of its owner's colour,
//! and four caption lines (the count, the recorded result). Used by `kibo score`.

use super::render::{centre, pixmap_of, scene, svg_of, Anchor, Shape, BLACK_STONE, CAPTION_TEXT_C, WHITE_STONE};
use super::sample::VerifySample;
use crate::coord::{Move, Point, NN};

/// What `kibo score` draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardMarks {
    /// The final position, row-major from the top-left, 0 empty 1 black 2 white.
    pub board: [u8; NN],
    /// Dead stones (crossed).
    pub dead: Vec<Point>,
    /// Per point: `1` Black's territory, `2` White's (a small square), else nothing.
    pub territory: [u8; NN],
    /// Up to four caption lines under the board.
    pub caption: Vec<String>,
    /// The picture's title (SVG `<title>`).
    pub title: String,
}

/// The picture as shapes: the board of the eye check, then the marks and the caption.
fn marks_scene(m: &BoardMarks) -> Vec<Shape> {
    let s = VerifySample {
        id: 0,
        board: m.board,
        to_play: 1,
        mv: Move::Pass,
        prev_move: None,
        ko_point: None,
        source: String::new(),
        game_index: 0,
        move_number: 0,
        game_id: String::new(),
        black: None,
        white: None,
        black_rank: None,
        white_rank: None,
        tags: Vec::new(),
        split: String::new(),
    };
    let mut shapes = scene(&s, false);
    // The sample's caption is its last five shapes (a stone swatch and four lines).
    shapes.truncate(shapes.len().saturating_sub(5));
    let red = super::render::ANSWER;
    for i in 0..NN {
        let Some(p) = Point::from_index(i as u16) else { continue };
        let (cx, cy) = centre(p);
        match m.territory[i] {
            1 | 2 => {
                let fill = if m.territory[i] == 1 { BLACK_STONE } else { WHITE_STONE };
                let h = 6.0;
                shapes.push(Shape::Rect {
                    x: cx - h,
                    y: cy - h,
                    w: 2.0 * h,
                    h: 2.0 * h,
                    fill: Some(fill),
                    stroke: Some((super::render::GRID, 1.0)),
                });
            }
            _ => {}
        }
    }
    for p in &m.dead {
        let (cx, cy) = centre(*p);
        let d = 8.0;
        for (dx, dy) in [(d, d), (d, -d)] {
            shapes.push(Shape::Line { x1: cx - dx, y1: cy - dy, x2: cx + dx, y2: cy + dy, color: red, width: 3.0 });
        }
    }
    let base = super::render::IMAGE_WIDTH as f32 + 24.0;
    for (k, line) in m.caption.iter().take(4).enumerate() {
        shapes.push(Shape::Text {
            x: 16.0,
            y: base + 22.0 * k as f32,
            anchor: Anchor::Start,
            color: CAPTION_TEXT_C,
            text: line.clone(),
            size: super::render::TEXT_SIZE,
        });
    }
    shapes
}

/// The marked position as PNG bytes (the eye check's picture size).
pub fn render_marks_png(m: &BoardMarks) -> Vec<u8> {
    pixmap_of(marks_scene(m)).encode_png().expect("PNG encoding of an in-memory pixmap")
}

/// The marked position as a standalone SVG document.
pub fn render_marks_svg(m: &BoardMarks) -> String {
    svg_of(marks_scene(m), &m.title, true)
}
