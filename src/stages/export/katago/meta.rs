//! `metadataInputNC` (192 floats, side-to-move relative), KataGo's `SGFMetadata`
//! `get_metadata_row` (version 1), filled from what the games table knows: both players
//! human, their ranks, the date and the source. Time controls and ratedness are not in
//! kibo's tables: time control "unknown" (75), main time and periods 0 (82-85), ratedness
//! unknown (74 = 0.5).

use crate::color::Color;
use crate::game::GameRow;

/// KataGo's inverse rank: 1 for 9d and professionals, 10 − n for n dan, 9 + n for n kyu;
/// kibo's numeric rank is d for dan, 1 − k for kyu, 9 + p for pro.
fn inverse_rank(num: i16) -> usize {
    if num >= 9 {
        1
    } else {
        (10 - num as i32).max(1) as usize
    }
}

/// KataGo's source index (0 KataGo, 1 OGS, 2 KGS, 3 Fox, 4 Tygem, 5 GoGoD, 6 Go4Go), from
/// the configured source name; 0 when none matches.
fn source_index(source: &str) -> usize {
    let s = source.to_ascii_lowercase();
    [("ogs", 1), ("kgs", 2), ("fox", 3), ("tygem", 4), ("gogod", 5), ("go4go", 6)]
        .into_iter()
        .find(|(k, _)| s.contains(k))
        .map_or(0, |(_, i)| i)
}

/// Days since 1970-01-01 of `YYYY[-MM[-DD]]` (missing month or day: the 1st).
fn days_since_1970(iso: &str) -> Option<i64> {
    let mut it = iso.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next().map_or(Some(1), |s| s.parse().ok())?;
    let d: i64 = it.next().map_or(Some(1), |s| s.parse().ok())?;
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146097 + doe - 719468)
}

/// Fills the 192 floats (little-endian bytes) for the side to move `pla`.
pub fn fill_metadata(g: &GameRow, pla: Color, out: &mut [u8]) {
    let mut m = [0f32; 192];
    let (own, other) = match pla {
        Color::Black => (g.meta.black_rank_num, g.meta.white_rank_num),
        Color::White => (g.meta.white_rank_num, g.meta.black_rank_num),
    };
    m[0] = 1.0;
    m[1] = 1.0;
    m[4] = own.is_none() as u8 as f32;
    m[5] = other.is_none() as u8 as f32;
    for (base, rank) in [(6, own), (40, other)] {
        if let Some(r) = rank {
            for v in m.iter_mut().skip(base).take(inverse_rank(r).min(34)) {
                *v = 1.0;
            }
        }
    }
    m[74] = 0.5;
    m[75] = 1.0;
    m[82] = (0.4 * ((60f64).ln() - 6.5)) as f32;
    m[83] = (0.3 * ((1f64).ln() - 3.0)) as f32;
    m[84] = (0.5 * ((2f64).ln() - 1.5)) as f32;
    m[85] = (0.25 * ((2f64).ln() - 1.5)) as f32;
    let days = g.meta.date_iso.as_deref().and_then(days_since_1970).unwrap_or(0) as f64;
    let factor = 80000f64.powf(1.0 / 31.0);
    let mut period = 7.0f64;
    for i in 0..32 {
        let a = days / period * std::f64::consts::TAU;
        m[87 + 2 * i] = a.cos() as f32;
        m[88 + 2 * i] = a.sin() as f32;
        period *= factor;
    }
    m[151 + source_index(&g.source)] = 1.0;
    for (i, v) in m.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_ranks() {
        assert_eq!(days_since_1970("1970-01-01"), Some(0));
        assert_eq!(days_since_1970("2000-03-01"), Some(11017));
        assert_eq!(days_since_1970("2001"), Some(11323));
        assert_eq!(inverse_rank(9), 1);
        assert_eq!(inverse_rank(1), 9);
        assert_eq!(inverse_rank(0), 10);
        assert_eq!(inverse_rank(-29), 39);
        assert_eq!(source_index("kgs2001"), 2);
    }
}
