//! A final position with its count marked ([`BoardMarks`]), drawn with the eye check's
//! renderer: dead stones crossed, territory as small squares of its owner's colour,
//! and four caption lines (the count, the recorded result). Used by `kibo score`.

use super::render::{
    centre, char_advance, draw_shapes, scene, svg_sized, Anchor, Shape, BLACK_STONE, CAPTION_TEXT_C, IMAGE_HEIGHT,
    IMAGE_WIDTH, WHITE_STONE,
};
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
    /// Caption lines under the board, each wrapped at the picture's width (the picture
    /// grows to hold them all).
    pub caption: Vec<String>,
    /// The picture's title (SVG `<title>`).
    pub title: String,
}

/// Caption line spacing and the baseline of the first line below the board.
const LINE: f32 = 22.0;
const FIRST: f32 = 24.0;

/// `line` cut into pieces of at most `max` characters: at ` · ` where it can, else at a
/// space, else mid-word; continuation pieces indented by two spaces.
pub(crate) fn wrap(line: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: Vec<char> = line.chars().collect();
    let mut indent = "";
    while !rest.is_empty() {
        let room = max.saturating_sub(indent.len()).max(8);
        if rest.len() <= room {
            out.push(format!("{indent}{}", rest.iter().collect::<String>()));
            break;
        }
        let head: String = rest[..room].iter().collect();
        let cut = head.rfind(" · ").map(|b| head[..b].chars().count()).filter(|&c| c > room / 3);
        let cut = cut.or_else(|| head.rfind(' ').map(|b| head[..b].chars().count()).filter(|&c| c > 0)).unwrap_or(room);
        out.push(format!("{indent}{}", rest[..cut].iter().collect::<String>().trim_end()));
        rest.drain(..cut);
        while rest.first().is_some_and(|c| *c == ' ' || *c == '·') {
            rest.remove(0);
        }
        indent = "  ";
    }
    out
}

/// The caption's lines as drawn: each wrapped at the picture's width.
fn caption_lines(m: &BoardMarks) -> Vec<String> {
    let max = ((IMAGE_WIDTH as f32 - 32.0) / char_advance()).floor() as usize;
    m.caption.iter().flat_map(|l| wrap(l, max)).collect()
}

/// The picture's height: the eye check's, or more when the caption needs it.
fn height(lines: usize) -> u32 {
    let board = IMAGE_WIDTH as f32;
    IMAGE_HEIGHT.max((board + FIRST + LINE * lines.saturating_sub(1) as f32 + 14.0).ceil() as u32)
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
    let lines = caption_lines(m);
    let h = height(lines.len());
    if h > IMAGE_HEIGHT {
        // The caption's background, grown (the eye check's covers its four lines).
        let bg = match shapes.get(1) {
            Some(Shape::Rect { fill, .. }) => *fill,
            _ => None,
        };
        let y = IMAGE_HEIGHT as f32;
        shapes.insert(
            2,
            Shape::Rect { x: 0.0, y, w: IMAGE_WIDTH as f32, h: (h - IMAGE_HEIGHT) as f32, fill: bg, stroke: None },
        );
    }
    let base = IMAGE_WIDTH as f32 + FIRST;
    for (k, line) in lines.iter().enumerate() {
        shapes.push(Shape::Text {
            x: 16.0,
            y: base + LINE * k as f32,
            anchor: Anchor::Start,
            color: CAPTION_TEXT_C,
            text: line.clone(),
            size: super::render::TEXT_SIZE,
        });
    }
    shapes
}

/// The marked position as PNG bytes (the eye check's picture size, taller when the
/// caption needs more than four lines).
pub fn render_marks_png(m: &BoardMarks) -> Vec<u8> {
    let h = height(caption_lines(m).len());
    draw_shapes(marks_scene(m), IMAGE_WIDTH, h, true).encode_png().expect("PNG encoding of an in-memory pixmap")
}

/// The marked position as a standalone SVG document (the same size as the PNG).
pub fn render_marks_svg(m: &BoardMarks) -> String {
    let h = height(caption_lines(m).len());
    svg_sized(marks_scene(m), &m.title, true, h)
}
