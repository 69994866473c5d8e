/*!
The per-move samples table: the dedup key of a position ([`position_hash`],
[`canonical_key`]), the columnar buffer samples are collected in ([`SampleBuf`]), and
the table's columns ([`columns`]): one declaration per column that gives its name, type,
Parquet encoding and how it is built, from which the schema, the writer options and the
Arrow batch all come.

`board` is `Binary`, 361 bytes per row (row-major from the top-left, 0 empty,
1 black, 2 white): in Python Polars,
`np.frombuffer(b"".join(df["board"]), np.uint8).reshape(-1, 19, 19)`.
See `docs/schema.md` for every column and the reasons behind the encoding.
*/

use crate::coord::NN;

mod buffer;
pub mod columns;

pub use buffer::{capture_code, capture_parts, BufMode, GameInfo, SampleBuf, SampleMove, HISTORY};
pub use columns::{samples_schema, samples_table_options};

/// Length of the canonical encoding that [`position_hash`] hashes.
pub const ENCODING_LEN: usize = NN + 3;

/// The canonical encoding of a position (RULES-AND-SGF §4): the 361 cells (row-major
/// from the top-left, 0/1/2) ‖ side to move (1 black, 2 white) ‖ ko point as u16
/// little-endian (`0xFFFF` = none).
pub fn encoding(cells: &[u8; NN], to_play: u8, ko: Option<u16>) -> [u8; ENCODING_LEN] {
    let mut buf = [0u8; ENCODING_LEN];
    buf[..NN].copy_from_slice(cells);
    buf[NN] = to_play;
    buf[NN + 1..].copy_from_slice(&ko.unwrap_or(0xFFFF).to_le_bytes());
    buf
}

/// 128-bit position hash: blake3 of the [`encoding`], truncated to 16 bytes. Stable
/// across versions and languages. [`position_hashes`] computes the same values for many
/// positions at once, several times faster.
pub fn position_hash(cells: &[u8; NN], to_play: u8, ko: Option<u16>) -> [u8; 16] {
    let h = blake3::hash(&encoding(cells, to_play, ko));
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.as_bytes()[..16]);
    out
}

/// [`position_hash`] of many encodings: `out[i]` = the first 16 bytes of
/// `blake3(encs[i])`.
///
/// A 364-byte input is one BLAKE3 chunk of six blocks, compressed one after the other:
/// hashing positions one by one leaves the SIMD lanes of the CPU idle. Here the first
/// five (full) blocks of up to 16 positions go through the blake3 crate's own multi-input
/// compression (`Platform::hash_many`, the routine it uses for the chunks of long
/// inputs), and the last, partial block of each through its single-block compression
/// with the chunk-end and root flags: the same steps as `blake3::hash`, so the same bytes
/// (checked against it in the tests). `platform` is a hidden module of the crate, so the
/// version is pinned in `Cargo.toml`.
pub fn position_hashes(encs: &[[u8; ENCODING_LEN]], out: &mut [[u8; 16]]) {
    use blake3::platform::Platform;
    const FULL: usize = 5 * blake3::BLOCK_LEN;
    const LAST: usize = ENCODING_LEN - FULL;
    // BLAKE3's IV and domain flags (the specification, §2.1 and Table 3).
    const IV: [u32; 8] =
        [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];
    const CHUNK_START: u8 = 1;
    const CHUNK_END: u8 = 2;
    const ROOT: u8 = 8;
    assert_eq!(encs.len(), out.len(), "position_hashes: one output per encoding");
    static PLATFORM: std::sync::OnceLock<Platform> = std::sync::OnceLock::new();
    let platform = *PLATFORM.get_or_init(Platform::detect);
    const GROUP: usize = 64;
    let mut cvs = [0u8; 32 * GROUP];
    let mut refs: Vec<&[u8; FULL]> = Vec::with_capacity(GROUP);
    for (encs, out) in encs.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
        refs.clear();
        refs.extend(encs.iter().map(|e| <&[u8; FULL]>::try_from(&e[..FULL]).expect("invariant: 320 bytes")));
        let cvs = &mut cvs[..32 * encs.len()];
        platform.hash_many(&refs, &IV, 0, blake3::IncrementCounter::No, 0, CHUNK_START, 0, cvs);
        for ((e, cv), o) in encs.iter().zip(cvs.chunks_exact(32)).zip(out.iter_mut()) {
            let mut words = [0u32; 8];
            for (w, b) in words.iter_mut().zip(cv.chunks_exact(4)) {
                *w = u32::from_le_bytes(b.try_into().expect("invariant: 4 bytes"));
            }
            let mut block = [0u8; blake3::BLOCK_LEN];
            block[..LAST].copy_from_slice(&e[FULL..]);
            platform.compress_in_place(&mut words, &block, LAST as u8, 0, CHUNK_END | ROOT);
            for (b, w) in o.chunks_exact_mut(4).zip(&words[..4]) {
                b.copy_from_slice(&w.to_le_bytes());
            }
        }
    }
}

/// Point-index tables for the 8 symmetries: `SYM[s][i]` = image of point `i` under `s`.
fn sym_table() -> &'static [[u16; NN]; 8] {
    static T: std::sync::OnceLock<[[u16; NN]; 8]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = [[0u16; NN]; 8];
        for (s, row) in t.iter_mut().enumerate() {
            for (i, v) in row.iter_mut().enumerate() {
                *v = crate::coord::symmetry_index(i as u16, s as u8);
            }
        }
        t
    })
}

/// Dedup key in symmetry mode: the [`position_hash`] of the lexicographically smallest
/// of the 8 symmetric images of (board, ko point), and the symmetry `s` that maps this
/// position onto it (ties: the smallest `s`).
pub fn canonical_key(cells: &[u8; NN], to_play: u8, ko: Option<u16>) -> ([u8; 16], u8) {
    let t = sym_table();
    let mut best = [0u8; NN];
    let mut best_ko = u16::MAX;
    let mut best_s = 0u8;
    let mut img = [0u8; NN];
    for s in 0..8u8 {
        let map = &t[s as usize];
        for i in 0..NN {
            img[map[i] as usize] = cells[i];
        }
        let k = ko.map(|k| map[k as usize]).unwrap_or(u16::MAX);
        if s == 0 || (img, k) < (best, best_ko) {
            best = img;
            best_ko = k;
            best_s = s;
        }
    }
    (position_hash(&best, to_play, (best_ko != u16::MAX).then_some(best_ko)), best_s)
}
