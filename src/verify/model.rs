//! Pictures of a board made for a model (`kibo export vlm`, docs/vlm.md): the eye check's
//! board ([`super::render::board_scene`]) without its caption, at a [`Style::model`] cell
//! size, as a palette PNG, about a thousand a second on one core.
//!
//! [`BoardPainter::new`] draws, once, six boards with the one renderer: the empty board
//! (wood, grid, star points, labels), a black stone on every point, a white stone on every
//! point, the same two with the previous-move ring on every stone, and the ko square on
//! every point. Every mark lies inside its intersection's `cell`×`cell` square, so a
//! picture is the empty board with, for each point that holds something, that square
//! copied from the board that shows it: the same pixels as drawing the position's own
//! shapes (pinned by `painter_equals_the_renderer` in the tests). Without anti-aliasing
//! the boards hold a handful of flat colours, stored as 4-bit palette indices, and the
//! squares start on whole bytes (the cell size is even, the square's left edge
//! `margin + cell·col − cell/2` too), so a copy is a `memcpy` per pixel row.

use super::render::{board_base, draw_shapes, ko_shape, prev_ring, stone_shapes, BoardMarkers, Style};
use crate::coord::{Point, NN};

/// Palette indices per pixel: 4 bits (two pixels a byte, the first in the high nibble)
/// when the boards have at most 16 colours, else 8.
const LAYERS: usize = 6;
const EMPTY: usize = 0;
const BLACK: usize = 1;
const WHITE: usize = 2;
const BLACK_PREV: usize = 3;
const WHITE_PREV: usize = 4;
const KO: usize = 5;

/// Draws model pictures of one [`Style`] (see the module docs).
#[derive(Clone, Debug)]
pub struct BoardPainter {
    style: Style,
    /// Width and height in pixels.
    side: usize,
    /// Bits per pixel: 4 or 8.
    bits: u8,
    /// Bytes per pixel row.
    stride: usize,
    /// RGB triples, index order.
    palette: Vec<u8>,
    /// The six boards as packed palette indices (`EMPTY`…`KO`).
    layers: Vec<Vec<u8>>,
}

impl BoardPainter {
    /// Draws the six boards of `style` (a few milliseconds). Fails if the drawing has
    /// more than 256 colours (it cannot with anti-aliasing off).
    pub fn new(style: Style) -> anyhow::Result<BoardPainter> {
        anyhow::ensure!(!style.anti_alias, "model pictures are drawn without anti-aliasing");
        let side = style.board_px();
        let all = |c: u8| [c; NN];
        let points = || (0..NN as u16).filter_map(Point::from_index);
        let with_stones = |c: u8, ring: bool| {
            let mut v = board_base(style);
            stone_shapes(style, &all(c), &mut v);
            if ring {
                v.extend(points().map(|p| prev_ring(style, &all(c), p)));
            }
            v
        };
        let mut ko = board_base(style);
        ko.extend(points().map(|p| ko_shape(style, p)));
        let scenes = [
            board_base(style),
            with_stones(1, false),
            with_stones(2, false),
            with_stones(1, true),
            with_stones(2, true),
            ko,
        ];
        let mut colours: Vec<[u8; 3]> = Vec::new();
        let mut indexed: Vec<Vec<u8>> = Vec::with_capacity(LAYERS);
        for shapes in scenes {
            let pm = draw_shapes(shapes, side, side, false);
            let mut idx = Vec::with_capacity((side * side) as usize);
            for px in pm.data().chunks_exact(4) {
                let c = [px[0], px[1], px[2]];
                let i = match colours.iter().position(|&k| k == c) {
                    Some(i) => i,
                    None => {
                        colours.push(c);
                        colours.len() - 1
                    }
                };
                idx.push(i as u8);
            }
            indexed.push(idx);
        }
        anyhow::ensure!(colours.len() <= 256, "{} colours in a model picture (at most 256)", colours.len());
        let bits = if colours.len() <= 16 { 4 } else { 8 };
        let side = side as usize;
        let stride = side * bits as usize / 8;
        let layers = indexed.iter().map(|idx| pack(idx, side, bits)).collect();
        Ok(BoardPainter { style, side, bits, stride, palette: colours.concat(), layers })
    }

    /// The style drawn.
    pub fn style(&self) -> Style {
        self.style
    }

    /// Width (and height) of a picture in pixels.
    pub fn side(&self) -> u32 {
        self.side as u32
    }

    /// The palette, RGB triples in index order.
    pub fn palette(&self) -> &[u8] {
        &self.palette
    }

    /// Bits per pixel of [`BoardPainter::paint`]'s rows: 4 or 8.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// The picture of `board` (row-major from the top-left, 0 empty 1 black 2 white) with
    /// `marks`, as packed palette indices ([`BoardPainter::bits`] a pixel, rows of
    /// `side · bits / 8` bytes) into `out` (resized).
    pub fn paint(&self, board: &[u8; NN], marks: BoardMarkers, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.layers[EMPTY]);
        let cell = self.style.cell as usize;
        let bytes = cell * self.bits as usize / 8;
        let prev = marks.prev_move.map(|p| p.index() as usize);
        let ko = marks.ko_point.map(|p| p.index() as usize);
        for (i, &c) in board.iter().enumerate() {
            let layer = match (c, Some(i) == prev) {
                (1, false) => BLACK,
                (1, true) => BLACK_PREV,
                (2, false) => WHITE,
                (2, true) => WHITE_PREV,
                _ if Some(i) == ko => KO,
                _ => continue,
            };
            let p = Point::from_index(i as u16).expect("invariant: i < NN");
            let (x, y) = self.style.point_pixel(p);
            let (x0, y0) = (x as usize - cell / 2, y as usize - cell / 2);
            let from = &self.layers[layer];
            for row in y0..y0 + cell {
                let at = row * self.stride + x0 * self.bits as usize / 8;
                out[at..at + bytes].copy_from_slice(&from[at..at + bytes]);
            }
        }
    }

    /// [`BoardPainter::paint`]'s rows as a PNG file: indexed colour with the palette, the
    /// Up filter, zlib level 2; the same rows give the same bytes.
    pub fn png(&self, rows: &[u8], out: &mut Vec<u8>) -> anyhow::Result<()> {
        out.clear();
        let mut enc = png::Encoder::new(&mut *out, self.side as u32, self.side as u32);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(if self.bits == 4 { png::BitDepth::Four } else { png::BitDepth::Eight });
        enc.set_palette(self.palette.as_slice());
        // The Up filter turns the board's repeated rows into zeros; zlib level 2: ~10 KB a
        // 672-px picture at ~3,000 a second on one core (docs/vlm.md, "Figures").
        enc.set_filter(png::Filter::Up);
        enc.set_deflate_compression(png::DeflateCompression::Level(2));
        let mut w = enc.write_header()?;
        w.write_image_data(rows)?;
        w.finish()?;
        Ok(())
    }

    /// The picture of `board` with `marks` as PNG bytes.
    pub fn png_of(&self, board: &[u8; NN], marks: BoardMarkers) -> anyhow::Result<Vec<u8>> {
        let mut rows = Vec::new();
        self.paint(board, marks, &mut rows);
        let mut out = Vec::new();
        self.png(&rows, &mut out)?;
        Ok(out)
    }
}

/// One index a pixel, rows of `side`, packed at `bits` per pixel.
fn pack(idx: &[u8], side: usize, bits: u8) -> Vec<u8> {
    if bits == 8 {
        return idx.to_vec();
    }
    let mut out = Vec::with_capacity(idx.len().div_ceil(2));
    for row in idx.chunks_exact(side) {
        for pair in row.chunks(2) {
            out.push((pair[0] << 4) | pair.get(1).copied().unwrap_or(0));
        }
    }
    out
}
