//! The picture of a sample, as PNG and as SVG, drawn from one list of shapes so that
//! both show exactly the same thing.
//!
//! Layout (pixels; the SVG's user units are the same), for a [`Style`] of cell size `c`
//! (the eye check: `c = 32`, [`Style::EYE`]; `kibo export vlm`: 32 or 28, no anti-aliasing):
//!
//! * the board square is `21·c` wide (19 lines and a margin of one and a half cells on
//!   each side, so each intersection sits in the middle of its own `c`×`c` square);
//!   intersection `(row, col)` has its centre in the pixel [`Style::point_pixel`]
//!   returns (`x = 1.5c + c·col`, `y = 1.5c + c·row`, row 0 at the top; at 32 px:
//!   `48 + 32·col`);
//! * column letters (`A`–`T` without `I`) above and below the grid, row numbers on both
//!   sides (`19` at the top), right-aligned so the units digits line up;
//! * under the board (the eye check only), a caption of four lines: a stone swatch and "Black to play · move
//!   N · sample K"; the answer (red) or "answer: hidden"; previous move and ko point; source.
//!
//! Markers: previous move = small ring on its stone (light on black, dark on white); ko
//! point = open square; the move played (when shown) = red ring with a red centre dot;
//! a pass is shown in the caption only ("answer: pass (SGF B[])").
//!
//! Text in the PNG is drawn with the embedded DejaVu Sans Mono (`assets/fonts/`), glyphs
//! placed on whole pixels. The SVG names that font first and falls back to monospace.

use super::sample::*;
use super::text;
use crate::coord::{Move, Point, N, NN};
use ab_glyph::{Font, FontRef, Glyph, PxScale, ScaleFont};
use std::fmt::Write as _;
use tiny_skia::{FillRule, LineCap, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");

/// Distance between two lines of the grid in the eye check.
pub(crate) const CELL: u32 = 32;
/// Distance from the image edge to the outer grid lines in the eye check.
pub(crate) const MARGIN: u32 = 48;
const BOARD_PX: u32 = 2 * MARGIN + (N as u32 - 1) * CELL;

/// How a board is drawn: its cell size (the distance between two lines, in pixels) and
/// whether edges are anti-aliased. Every length of the picture scales with the cell;
/// at 32 px it is the eye check's picture exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Distance between two grid lines, in pixels (even, [`Style::MIN_CELL`]..=[`Style::MAX_CELL`]).
    pub cell: u32,
    /// Anti-aliased edges (the eye check); without, every pixel has one of the
    /// palette's flat colours (the VLM pictures: a point reads the same everywhere).
    pub anti_alias: bool,
}

impl Style {
    /// The eye check's board: 32 px cells, anti-aliased.
    pub const EYE: Style = Style { cell: CELL, anti_alias: true };
    /// Smallest cell size drawn: below it a stone's edge (0.48 of a cell and half the
    /// 1-px stroke) reaches the next intersection's square.
    pub const MIN_CELL: u32 = 26;
    /// Largest cell size drawn.
    pub const MAX_CELL: u32 = 64;

    /// A model's picture with `cell`-pixel cells, no anti-aliasing; `None` unless `cell`
    /// is even and within [`Style::MIN_CELL`]..=[`Style::MAX_CELL`].
    pub fn model(cell: u32) -> Option<Style> {
        (cell.is_multiple_of(2) && (Style::MIN_CELL..=Style::MAX_CELL).contains(&cell))
            .then_some(Style { cell, anti_alias: false })
    }

    /// Distance from the image edge to the outer grid lines: one and a half cells.
    pub fn margin(self) -> u32 {
        self.cell * 3 / 2
    }

    /// Width and height of the board square: 21 cells.
    pub fn board_px(self) -> u32 {
        2 * self.margin() + (N as u32 - 1) * self.cell
    }

    /// Lengths drawn at 32-px cells, scaled to this style.
    fn scale(self) -> f32 {
        self.cell as f32 / CELL as f32
    }

    /// Pixel whose centre is the centre of intersection `p`, as `(x, y)` from the
    /// top-left of the picture. Row 0 (GTP row 19) is at the top, column 0 (GTP column
    /// `A`) at the left.
    pub fn point_pixel(self, p: Point) -> (u32, u32) {
        (self.margin() + p.col as u32 * self.cell, self.margin() + p.row as u32 * self.cell)
    }

    /// Centre of an intersection in drawing coordinates (the middle of its pixel).
    pub(crate) fn centre(self, p: Point) -> (f32, f32) {
        let (x, y) = self.point_pixel(p);
        (x as f32 + 0.5, y as f32 + 0.5)
    }
}
const CAPTION_LINE: u32 = 22;
const CAPTION_LINES: u32 = 4;
/// Width of the picture in pixels.
pub const IMAGE_WIDTH: u32 = BOARD_PX;
/// Height of the picture in pixels (board square plus caption).
pub const IMAGE_HEIGHT: u32 = BOARD_PX + CAPTION_LINES * CAPTION_LINE + 14;

/// Font size of labels and caption at 32-px cells, in pixels per em.
pub(crate) const TEXT_SIZE: f32 = 15.0;
/// Radii and half sizes of the marks, in cells.
const STONE_R: f32 = 0.48;
const PREV_R: f32 = 0.25;
const ANSWER_R: f32 = 0.40;
const ANSWER_DOT_R: f32 = 0.14;
const KO_HALF: f32 = 0.25;
pub(crate) const PICK_R: f32 = CELL as f32 * 0.28;

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

pub(crate) const WOOD: Rgb = Rgb(222, 184, 108);
pub(crate) const GRID: Rgb = Rgb(60, 42, 20);
const LABEL: Rgb = Rgb(50, 35, 15);
pub(crate) const CAPTION_TEXT_C: Rgb = CAPTION_TEXT;
pub(crate) const BLACK_STONE: Rgb = Rgb(22, 22, 22);
const BLACK_EDGE: Rgb = Rgb(0, 0, 0);
pub(crate) const WHITE_STONE: Rgb = Rgb(246, 246, 240);
const WHITE_EDGE: Rgb = Rgb(70, 70, 70);
pub(crate) const ANSWER: Rgb = Rgb(220, 20, 20);
pub(crate) const PICK: Rgb = Rgb(25, 100, 255);
pub(crate) const PREV_ON_BLACK: Rgb = Rgb(235, 235, 235);
pub(crate) const PREV_ON_WHITE: Rgb = Rgb(25, 25, 25);
pub(crate) const KO: Rgb = Rgb(25, 25, 25);
const CAPTION_BG: Rgb = Rgb(250, 247, 240);
const CAPTION_TEXT: Rgb = Rgb(30, 30, 30);
const MUTED: Rgb = Rgb(110, 110, 110);

/// Pixel whose centre is the centre of intersection `p`, as `(x, y)` from the top-left
/// of the picture (PNG and SVG alike). Row 0 (GTP row 19) is at the top, column 0
/// (GTP column `A`) at the left.
pub fn point_pixel(p: Point) -> (u32, u32) {
    Style::EYE.point_pixel(p)
}

/// Centre of an intersection in the eye check's drawing coordinates.
pub(crate) fn centre(p: Point) -> (f32, f32) {
    Style::EYE.centre(p)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

#[derive(Clone, Debug)]
pub(crate) enum Shape {
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        fill: Option<Rgb>,
        stroke: Option<(Rgb, f32)>,
    },
    Line {
        x1: f32,
        y1: f32,
        x2: f32,
        y2: f32,
        color: Rgb,
        width: f32,
    },
    Circle {
        cx: f32,
        cy: f32,
        r: f32,
        fill: Option<Rgb>,
        stroke: Option<(Rgb, f32)>,
    },
    /// `y` is the baseline; `size` the font size in pixels per em.
    Text {
        x: f32,
        y: f32,
        anchor: Anchor,
        color: Rgb,
        text: String,
        size: f32,
    },
}

fn font() -> FontRef<'static> {
    FontRef::try_from_slice(FONT_BYTES).expect("embedded DejaVu Sans Mono parses")
}

fn px_scale(font: &FontRef<'_>, size: f32) -> PxScale {
    let upem = font.units_per_em().unwrap_or(2048.0);
    PxScale::from(size * font.height_unscaled() / upem)
}

/// Whole-pixel advance of one character at [`TEXT_SIZE`] (the font is monospaced).
pub(crate) fn char_advance() -> f32 {
    let f = font();
    let sf = f.as_scaled(px_scale(&f, TEXT_SIZE));
    sf.h_advance(f.glyph_id('0')).round()
}

/// Height of capital letters and digits above the baseline at font size `size`, in pixels.
fn cap_height(size: f32) -> f32 {
    // DejaVu Sans Mono: 1493 units of 2048.
    size * 1493.0 / 2048.0
}

/// Shortens `text` to at most `max` characters by putting `…` in its middle.
fn fit(text: &str, max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max || max < 5 {
        return text.to_string();
    }
    let keep = max - 1;
    let head = keep / 3;
    let tail = keep - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// Where the labels go: `(x, baseline, anchor, text)`. Column letters centred above and
/// below the grid; row numbers right-aligned left of the grid and at the right edge.
pub(crate) fn labels(st: Style) -> Vec<(f32, f32, Anchor, String)> {
    let mut out = Vec::new();
    let (cell, margin, k) = (st.cell as f32, st.margin() as f32, st.scale());
    let half_cap = (cap_height(TEXT_SIZE * k) / 2.0).round();
    let top = margin - cell * 0.5 - 12.0 * k;
    let bottom = margin + (N - 1) as f32 * cell + cell * 0.5 + 12.0 * k;
    for col in 0..N {
        let (x, _) = st.centre(Point::new(0, col).expect("on board"));
        let text = text::col_label(col);
        out.push((x, top + half_cap, Anchor::Middle, text.clone()));
        out.push((x, bottom + half_cap, Anchor::Middle, text));
    }
    let left_edge = margin - cell * 0.5 - 8.0 * k;
    let right_edge = st.board_px() as f32 - 6.0 * k;
    for row in 0..N {
        let (_, y) = st.centre(Point::new(row, 0).expect("on board"));
        let text = text::row_label(row);
        out.push((left_edge, y + half_cap, Anchor::End, text.clone()));
        out.push((right_edge, y + half_cap, Anchor::End, text));
    }
    out
}

/// What a board picture shows besides the stones' colours: the marks of a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardMarkers {
    /// The previous move: a small ring on its stone (light on black, dark on white).
    pub prev_move: Option<Point>,
    /// The point the side to move may not retake: an open square.
    pub ko_point: Option<Point>,
}

/// The board alone as shapes, back to front: wood, grid, star points, labels, the ko
/// mark, the stones of `board` (row-major from the top-left, 0 empty 1 black 2 white) and
/// the previous-move ring; the board square is [`Style::board_px`] wide. The eye check
/// and the VLM pictures both start from it.
pub(crate) fn board_scene(st: Style, board: &[u8; NN], marks: BoardMarkers) -> Vec<Shape> {
    let mut shapes = board_base(st);
    if let Some(ko) = marks.ko_point {
        shapes.push(ko_shape(st, ko));
    }
    stone_shapes(st, board, &mut shapes);
    if let Some(p) = marks.prev_move {
        shapes.push(prev_ring(st, board, p));
    }
    shapes
}

/// The empty board: wood, grid, star points and labels.
pub(crate) fn board_base(st: Style) -> Vec<Shape> {
    let mut shapes = Vec::new();
    let k = st.scale();
    let w = st.board_px() as f32;
    shapes.push(Shape::Rect { x: 0.0, y: 0.0, w, h: w, fill: Some(WOOD), stroke: None });

    // Grid: 19 horizontal and 19 vertical lines, the outer ones thicker.
    let first = st.centre(Point::new(0, 0).expect("on board"));
    let last = st.centre(Point::new(N - 1, N - 1).expect("on board"));
    for i in 0..N {
        let width = if i == 0 || i == N - 1 { 2.0 } else { 1.0 };
        let (x, y) = st.centre(Point::new(i, i).expect("on board"));
        shapes.push(Shape::Line { x1: first.0, y1: y, x2: last.0, y2: y, color: GRID, width });
        shapes.push(Shape::Line { x1: x, y1: first.1, x2: x, y2: last.1, color: GRID, width });
    }
    for i in 0..NN as u16 {
        let p = Point::from_index(i).expect("on board");
        if is_star_point(p) {
            let (cx, cy) = st.centre(p);
            shapes.push(Shape::Circle { cx, cy, r: 3.5 * k, fill: Some(GRID), stroke: None });
        }
    }
    for (x, y, anchor, text) in labels(st) {
        shapes.push(Shape::Text { x, y, anchor, color: LABEL, text, size: TEXT_SIZE * k });
    }
    shapes
}

/// The ko mark at `ko`: an open square half a cell wide.
pub(crate) fn ko_shape(st: Style, ko: Point) -> Shape {
    let (cx, cy) = st.centre(ko);
    let half = KO_HALF * st.cell as f32;
    Shape::Rect { x: cx - half, y: cy - half, w: 2.0 * half, h: 2.0 * half, fill: None, stroke: Some((KO, 2.0)) }
}

/// The stones of `board`, appended to `shapes`.
pub(crate) fn stone_shapes(st: Style, board: &[u8; NN], shapes: &mut Vec<Shape>) {
    for i in 0..NN as u16 {
        let p = Point::from_index(i).expect("on board");
        let (cx, cy) = st.centre(p);
        let (fill, edge) = match board[i as usize] {
            1 => (BLACK_STONE, BLACK_EDGE),
            2 => (WHITE_STONE, WHITE_EDGE),
            _ => continue,
        };
        let r = STONE_R * st.cell as f32;
        shapes.push(Shape::Circle { cx, cy, r, fill: Some(fill), stroke: Some((edge, 1.0)) });
    }
}

/// The previous-move ring on the stone at `p` (light on black, dark on anything else).
pub(crate) fn prev_ring(st: Style, board: &[u8; NN], p: Point) -> Shape {
    let (cx, cy) = st.centre(p);
    let color = if board[p.index() as usize] == 1 { PREV_ON_BLACK } else { PREV_ON_WHITE };
    Shape::Circle { cx, cy, r: PREV_R * st.cell as f32, fill: None, stroke: Some((color, 2.0)) }
}

/// The picture as a list of shapes, back to front.
pub(crate) fn scene(s: &VerifySample, show_answer: bool) -> Vec<Shape> {
    let st = Style::EYE;
    let w = IMAGE_WIDTH as f32;
    let prev_move = match s.prev_move {
        Some(Move::Play(p)) => Some(p),
        _ => None,
    };
    let mut shapes = board_scene(st, &s.board, BoardMarkers { prev_move, ko_point: s.ko_point });
    shapes.insert(
        1,
        Shape::Rect {
            x: 0.0,
            y: BOARD_PX as f32,
            w,
            h: (IMAGE_HEIGHT - BOARD_PX) as f32,
            fill: Some(CAPTION_BG),
            stroke: None,
        },
    );

    if show_answer {
        if let Move::Play(p) = s.mv {
            let (cx, cy) = centre(p);
            let cell = st.cell as f32;
            shapes.push(Shape::Circle { cx, cy, r: ANSWER_R * cell, fill: None, stroke: Some((ANSWER, 3.5)) });
            shapes.push(Shape::Circle { cx, cy, r: ANSWER_DOT_R * cell, fill: Some(ANSWER), stroke: None });
        }
    }

    // Caption.
    let adv = char_advance();
    let left = 16.0;
    let max_chars = ((w - 2.0 * left) / adv).floor() as usize;
    let base = |line: u32| (BOARD_PX + 24 + line * CAPTION_LINE) as f32;
    let (sw_fill, sw_edge) = if is_white(s.to_play) { (WHITE_STONE, WHITE_EDGE) } else { (BLACK_STONE, BLACK_EDGE) };
    shapes.push(Shape::Circle {
        cx: left + 8.0,
        cy: base(0) - (cap_height(TEXT_SIZE) / 2.0).round(),
        r: 8.5,
        fill: Some(sw_fill),
        stroke: Some((sw_edge, 1.0)),
    });
    let line0 = format!("{} · move {} · sample {}", side_line(s), s.move_number, s.id);
    shapes.push(Shape::Text {
        x: left + 24.0,
        y: base(0),
        anchor: Anchor::Start,
        color: CAPTION_TEXT,
        text: fit(&line0, max_chars.saturating_sub(3)),
        size: TEXT_SIZE,
    });
    let (line1, color1) = if show_answer {
        let mut t = answer_line(s);
        if !s.tags.is_empty() {
            let _ = write!(t, " · tags: {}", s.tags.join(", "));
        }
        (t, ANSWER)
    } else {
        ("answer: hidden".to_string(), MUTED)
    };
    shapes.push(Shape::Text {
        x: left,
        y: base(1),
        anchor: Anchor::Start,
        color: color1,
        text: fit(&line1, max_chars),
        size: TEXT_SIZE,
    });
    let line2 = format!("{} · {}", previous_line(s), ko_line(s));
    shapes.push(Shape::Text {
        x: left,
        y: base(2),
        anchor: Anchor::Start,
        color: CAPTION_TEXT,
        text: fit(&line2, max_chars),
        size: TEXT_SIZE,
    });
    shapes.push(Shape::Text {
        x: left,
        y: base(3),
        anchor: Anchor::Start,
        color: MUTED,
        text: fit(&source_line(s), max_chars),
        size: TEXT_SIZE,
    });
    shapes
}

// ---------------------------------------------------------------------------
// SVG

fn num(v: f32) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

fn paint_attrs(fill: Option<Rgb>, stroke: Option<(Rgb, f32)>) -> String {
    let mut a = match fill {
        Some(c) => format!(" fill=\"{}\"", c.hex()),
        None => " fill=\"none\"".to_string(),
    };
    if let Some((c, w)) = stroke {
        let _ = write!(a, " stroke=\"{}\" stroke-width=\"{}\"", c.hex(), num(w));
    }
    a
}

/// The picture as SVG. `standalone` adds the `xmlns` attribute (a file of its own);
/// without it the markup is meant for inline use in HTML and also carries a hidden
/// `<g class="pick">` marker that the review page moves to the reviewer's click.
pub(crate) fn svg_markup(s: &VerifySample, show_answer: bool, standalone: bool) -> String {
    let title = format!("Sample {}: {}, move {}", s.id, side_line(s), s.move_number);
    svg_of(scene(s, show_answer), &title, standalone)
}

/// `shapes` as SVG (see [`svg_markup`]).
pub(crate) fn svg_of(shapes: Vec<Shape>, title: &str, standalone: bool) -> String {
    svg_sized(shapes, title, standalone, IMAGE_HEIGHT)
}

/// `shapes` as SVG of the eye check's width and `height`.
pub(crate) fn svg_sized(shapes: Vec<Shape>, title: &str, standalone: bool, height: u32) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg{} class=\"board\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"'DejaVu Sans Mono', 'Bitstream Vera Sans Mono', Menlo, Consolas, monospace\" \
         font-size=\"{fs}\">",
        if standalone { " xmlns=\"http://www.w3.org/2000/svg\"" } else { "" },
        w = IMAGE_WIDTH,
        h = height,
        fs = num(TEXT_SIZE),
    );
    let _ = writeln!(out, "<title>{}</title>", xml_escape(title));
    for shape in shapes {
        match shape {
            Shape::Rect { x, y, w, h, fill, stroke } => {
                let _ = writeln!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}/>",
                    num(x),
                    num(y),
                    num(w),
                    num(h),
                    paint_attrs(fill, stroke)
                );
            }
            Shape::Line { x1, y1, x2, y2, color, width } => {
                let _ = writeln!(
                    out,
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"square\"/>",
                    num(x1),
                    num(y1),
                    num(x2),
                    num(y2),
                    color.hex(),
                    num(width)
                );
            }
            Shape::Circle { cx, cy, r, fill, stroke } => {
                let _ = writeln!(
                    out,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{}/>",
                    num(cx),
                    num(cy),
                    num(r),
                    paint_attrs(fill, stroke)
                );
            }
            Shape::Text { x, y, anchor, color, text, size } => {
                let size_attr = if size == TEXT_SIZE { String::new() } else { format!(" font-size=\"{}\"", num(size)) };
                let anchor = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                let _ = writeln!(
                    out,
                    "<text x=\"{}\" y=\"{}\"{size_attr} text-anchor=\"{anchor}\" fill=\"{}\" xml:space=\"preserve\">{}</text>",
                    num(x),
                    num(y),
                    color.hex(),
                    xml_escape(&text)
                );
            }
        }
    }
    if !standalone {
        let _ = writeln!(
            out,
            "<g class=\"pick\" visibility=\"hidden\" pointer-events=\"none\">\
             <circle cx=\"0\" cy=\"0\" r=\"{}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"3\"/>\
             <circle cx=\"0\" cy=\"0\" r=\"3\" fill=\"{c}\"/></g>",
            num(PICK_R),
            c = PICK.hex()
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The picture as a standalone SVG document (same layout and pixel geometry as the PNG).
pub fn render_svg(s: &VerifySample, show_answer: bool) -> String {
    svg_markup(s, show_answer, true)
}

// ---------------------------------------------------------------------------
// PNG

fn paint(c: Rgb, anti_alias: bool) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c.0, c.1, c.2, 255);
    p.anti_alias = anti_alias;
    p
}

fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Square, ..Stroke::default() }
}

/// Draws `text` at font size `size` with its baseline at `y`, glyphs on whole pixels,
/// blending the font's coverage over what is there (without `anti_alias`: a pixel at
/// least half covered takes the colour, any other is left alone).
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_text(
    pm: &mut Pixmap,
    x: f32,
    y: f32,
    anchor: Anchor,
    color: Rgb,
    text: &str,
    size: f32,
    anti_alias: bool,
) {
    let font = font();
    let scale = px_scale(&font, size);
    let sf = font.as_scaled(scale);
    let advances: Vec<f32> = text.chars().map(|c| sf.h_advance(font.glyph_id(c)).round()).collect();
    let width: f32 = advances.iter().sum();
    let mut pen = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - width / 2.0,
        Anchor::End => x - width,
    }
    .round();
    let baseline = y.round();
    let (pw, ph) = (pm.width() as i64, pm.height() as i64);
    let data = pm.data_mut();
    for (c, adv) in text.chars().zip(advances) {
        let glyph = Glyph { id: font.glyph_id(c), scale, position: ab_glyph::point(pen, baseline) };
        if let Some(outlined) = font.outline_glyph(glyph) {
            let b = outlined.px_bounds();
            outlined.draw(|gx, gy, cov| {
                let px = b.min.x as i64 + gx as i64;
                let py = b.min.y as i64 + gy as i64;
                if px < 0 || py < 0 || px >= pw || py >= ph {
                    return;
                }
                let a = match anti_alias {
                    true => cov.clamp(0.0, 1.0),
                    false if cov >= 0.5 => 1.0,
                    false => return,
                };
                let i = ((py * pw + px) * 4) as usize;
                for (k, src) in [color.0, color.1, color.2, 255].into_iter().enumerate() {
                    let dst = data[i + k] as f32;
                    data[i + k] = (src as f32 * a + dst * (1.0 - a)).round().clamp(0.0, 255.0) as u8;
                }
            });
        }
        pen += adv;
    }
}

/// The picture drawn into a pixmap.
pub(crate) fn render_pixmap(s: &VerifySample, show_answer: bool) -> Pixmap {
    pixmap_of(scene(s, show_answer))
}

/// Draws `shapes` into a pixmap of the eye check's picture size.
pub(crate) fn pixmap_of(shapes: Vec<Shape>) -> Pixmap {
    draw_shapes(shapes, IMAGE_WIDTH, IMAGE_HEIGHT, true)
}

/// Draws `shapes` into a `width` × `height` pixmap, anti-aliased or not.
pub(crate) fn draw_shapes(shapes: Vec<Shape>, width: u32, height: u32, aa: bool) -> Pixmap {
    let mut pm = Pixmap::new(width, height).expect("non-empty picture");
    let paint = |c| paint(c, aa);
    let id = Transform::identity();
    for shape in shapes {
        match shape {
            Shape::Rect { x, y, w, h, fill, stroke: st } => {
                let Some(rect) = Rect::from_xywh(x, y, w, h) else { continue };
                let path = PathBuilder::from_rect(rect);
                if let Some(c) = fill {
                    pm.fill_path(&path, &paint(c), FillRule::Winding, id, None);
                }
                if let Some((c, width)) = st {
                    pm.stroke_path(&path, &paint(c), &stroke(width), id, None);
                }
            }
            Shape::Line { x1, y1, x2, y2, color, width } => {
                let mut pb = PathBuilder::new();
                pb.move_to(x1, y1);
                pb.line_to(x2, y2);
                if let Some(path) = pb.finish() {
                    pm.stroke_path(&path, &paint(color), &stroke(width), id, None);
                }
            }
            Shape::Circle { cx, cy, r, fill, stroke: st } => {
                let Some(path) = PathBuilder::from_circle(cx, cy, r) else { continue };
                if let Some(c) = fill {
                    pm.fill_path(&path, &paint(c), FillRule::Winding, id, None);
                }
                if let Some((c, width)) = st {
                    pm.stroke_path(&path, &paint(c), &stroke(width), id, None);
                }
            }
            Shape::Text { x, y, anchor, color, text, size } => draw_text(&mut pm, x, y, anchor, color, &text, size, aa),
        }
    }
    pm
}

/// The picture as PNG bytes ([`IMAGE_WIDTH`] × [`IMAGE_HEIGHT`], RGBA). With
/// `show_answer` the move played is marked with a red ring and dot.
pub fn render_png(s: &VerifySample, show_answer: bool) -> Vec<u8> {
    render_pixmap(s, show_answer).encode_png().expect("PNG encoding of an in-memory pixmap")
}
