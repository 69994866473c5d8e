//! Every record of `../shared/data/formats/` read with the facts its `NOTES.md` gives.

use super::common::tygem_handicap;
use super::*;
use crate::coord::Point;
use crate::sgf::{GameMove, ResultKind};
use crate::sgf::{GameRecord, RejectReason};

/// What NOTES.md says a correct reader gets out of one file.
struct Facts {
    file: &'static str,
    black: &'static str,
    black_rank: &'static str,
    white: &'static str,
    white_rank: &'static str,
    komi: Option<f32>,
    /// The handicap stones (SGF points), empty for none.
    stones: &'static str,
    result: &'static str,
    date: &'static str,
    moves: usize,
    passes: usize,
    first: &'static str,
    last: &'static str,
}

#[rustfmt::skip]
const FACTS: &[Facts] = &[
    Facts { file: "sabaki/euc-kr.gib", black: "dustkd1015", black_rank: "1k", white: "dongjik", white_rank: "1k", komi: Some(6.5), stones: "", result: "B+T", date: "2015-08-29", moves: 49, passes: 0, first: "B[qc] W[dp] B[qo]", last: "B[be]" },
    Facts { file: "sabaki/gb2312.gib", black: "石下之臣", black_rank: "2d", white: "harpmaster", white_rank: "3d", komi: Some(0.0), stones: "pd dp dd pp jj", result: "W+11", date: "2012-11-22", moves: 268, passes: 0, first: "W[qn] B[nq] W[qf]", last: "B[di]" },
    Facts { file: "sabaki/utf8.gib", black: "jy512", black_rank: "15k", white: "leejw977", white_rank: "10k", komi: None, stones: "pd dp dd", result: "Void", date: "2016-03-26", moves: 118, passes: 0, first: "W[pp] B[nq] W[qn]", last: "B[ki]" },
    Facts { file: "sabaki/GB2312_China_even.gib", black: "玻璃中国风", black_rank: "8d", white: "harpmaster", white_rank: "3d", komi: Some(6.5), stones: "", result: "B+1.5", date: "2012-12-03", moves: 209, passes: 0, first: "B[pd] W[dp] B[qo]", last: "B[li]" },
    Facts { file: "sabaki/UTF-8_Global_even.gib", black: "Silver Star", black_rank: "8k", white: "redacted", white_rank: "5k", komi: Some(0.0), stones: "pd dp dd", result: "B+4", date: "2017-03-16", moves: 252, passes: 0, first: "W[pp] B[mq] W[qf]", last: "B[dl]" },
    Facts { file: "sabaki/even.ngf", black: "CYY", black_rank: "9p", white: "LQC", white_rank: "9p", komi: Some(7.5), stones: "", result: "B+0.5", date: "2017-03-16", moves: 333, passes: 0, first: "B[qd] W[dd] B[pq]", last: "B[nl]" },
    Facts { file: "sabaki/handicap2.ngf", black: "p81587", black_rank: "5d", white: "ace550", white_rank: "7d", komi: Some(0.0), stones: "pd dp", result: "W+R", date: "2017-03-16", moves: 189, passes: 0, first: "W[pq] B[dd] W[fq]", last: "W[gn]" },
    Facts { file: "sabaki/pro_game_1.NGF", black: "Lin.H.C", black_rank: "7p", white: "Kobayashi.", white_rank: "9p", komi: Some(6.5), stones: "", result: "W+R", date: "2017-03-16", moves: 244, passes: 0, first: "B[qd] W[pp] B[dc]", last: "W[af]" },
    Facts { file: "sabaki/gb2312.ngf", black: "李载雄", black_rank: "5p", white: "朴承华", white_rank: "1p", komi: Some(6.5), stones: "", result: "B+R", date: "2006-09-05", moves: 211, passes: 0, first: "B[qd] W[dd] B[pq]", last: "B[jn]" },
    Facts { file: "sabaki/amateur.ugf", black: "kaziwami", black_rank: "7d", white: "YINNI", white_rank: "8d", komi: Some(-5.5), stones: "", result: "B+7.5", date: "2019-03-08", moves: 254, passes: 0, first: "B[qd] W[dd] B[pq]", last: "W[ni]" },
    Facts { file: "sabaki/review.ugi", black: "ken03110", black_rank: "2k", white: "apetresc", white_rank: "2k", komi: Some(6.5), stones: "", result: "B+2.5", date: "2020-06-23", moves: 222, passes: 3, first: "B[qd] W[dc] B[pq]", last: "W[]" },
    Facts { file: "gib2sgf/K_002odc(4D)_Menskit(4D)_202008212255.gib..gib..gib", black: "Menskit", black_rank: "4d", white: "K_002odc", white_rank: "4d", komi: Some(6.5), stones: "", result: "W+R", date: "2020-08-21", moves: 152, passes: 0, first: "B[pd] W[qp] B[dd]", last: "W[be]" },
    Facts { file: "gib2sgf/Menskit(1D)_zxcv2358(1D)_202006291602.gib..gib..gib", black: "zxcv2358", black_rank: "1d", white: "Menskit", white_rank: "1d", komi: Some(6.5), stones: "", result: "W+24.5", date: "2020-06-29", moves: 262, passes: 2, first: "B[dp] W[pd] B[dd]", last: "W[]" },
    Facts { file: "gib2sgf/Menskit(2D)_W_002tkp(2D)_202006291741.gib..gib..gib", black: "W_002tkp", black_rank: "2d", white: "Menskit", white_rank: "2d", komi: Some(6.5), stones: "", result: "W+R", date: "2020-06-29", moves: 130, passes: 0, first: "B[pd] W[dp] B[pq]", last: "W[gf]" },
    Facts { file: "gib2sgf/Menskit(4D)_W_003ej9(4D)_202009051109.gib..gib..gib", black: "W_003ej9", black_rank: "4d", white: "Menskit", white_rank: "4d", komi: Some(6.5), stones: "", result: "W+F", date: "2020-09-05", moves: 59, passes: 0, first: "B[pd] W[dp] B[op]", last: "B[if]" },
    Facts { file: "gib2sgf/ddt666(4D)_Menskit(4D)_202008041107.gib..gib", black: "Menskit", black_rank: "4d", white: "ddt666", white_rank: "4d", komi: Some(6.5), stones: "", result: "B+R", date: "2020-08-04", moves: 159, passes: 0, first: "B[pd] W[dp] B[qp]", last: "B[ml]" },
    Facts { file: "gib2sgf/hk100(4D)_Menskit(4D)_202008141210.gib..gib..gib", black: "Menskit", black_rank: "4d", white: "hk100", white_rank: "4d", komi: Some(6.5), stones: "", result: "B+R", date: "2020-08-14", moves: 237, passes: 0, first: "B[qd] W[dp] B[pp]", last: "B[nl]" },
    Facts { file: "gib2sgf/laoxiaoxx(3D)_Menskit(3D)_202007202214.gib..gib..gib", black: "Menskit", black_rank: "3d", white: "laoxiaoxx", white_rank: "3d", komi: Some(6.5), stones: "", result: "B+R", date: "2020-07-20", moves: 137, passes: 0, first: "B[pd] W[dd] B[qp]", last: "B[kj]" },
    Facts { file: "gib2sgf/ychenggk(4D)_Menskit(4D)_202008141429.gib..gib..gib", black: "Menskit", black_rank: "4d", white: "ychenggk", white_rank: "4d", komi: Some(6.5), stones: "", result: "B+T", date: "2020-08-14", moves: 145, passes: 0, first: "B[qd] W[dq] B[dc]", last: "B[sq]" },
    Facts { file: "gib2sgf/yoo480203(3D)_Menskit(3D)_202007211423.gib..gib..gib", black: "Menskit", black_rank: "3d", white: "yoo480203", white_rank: "3d", komi: Some(6.5), stones: "", result: "B+T", date: "2020-07-21", moves: 223, passes: 0, first: "B[qd] W[de] B[pq]", last: "B[lb]" },
    Facts { file: "rooklift/3handicap.gib", black: "Silver Star", black_rank: "8k", white: "jimmy", white_rank: "5k", komi: Some(0.0), stones: "pd dp dd", result: "B+4", date: "2017-03-16", moves: 252, passes: 0, first: "W[pp] B[mq] W[qf]", last: "B[dl]" },
    Facts { file: "rooklift/3handicap.ngf", black: "ekfshddl", black_rank: "4d", white: "wyh1207", white_rank: "7d", komi: Some(0.0), stones: "pd dp dd", result: "B+34", date: "2016-04-16", moves: 283, passes: 0, first: "W[qp] B[op] W[mq]", last: "W[kh]" },
    Facts { file: "weiqihub/tygem_19x19.gib", black: "benjito2", black_rank: "7k", white: "qys1980", white_rank: "7k", komi: Some(6.5), stones: "", result: "B+63.5", date: "2025-01-18", moves: 293, passes: 4, first: "B[pp] W[dp] B[pd]", last: "B[]" },
    Facts { file: "katrain/test.gib", black: "kim", black_rank: "2d", white: "wildsim1", white_rank: "2d", komi: Some(6.5), stones: "", result: "W+T", date: "2020-06-14", moves: 232, passes: 0, first: "B[pd] W[dp] B[qp]", last: "W[gg]" },
];

fn text(m: &GameMove) -> String {
    format!("{}[{}]", m.color.as_str(), m.mv.to_sgf())
}

fn points(s: &str) -> Vec<Point> {
    let mut v: Vec<Point> = s
        .split_whitespace()
        .map(|p| {
            let b = p.as_bytes();
            Point::new((b[1] - b'a') as usize, (b[0] - b'a') as usize).unwrap()
        })
        .collect();
    v.sort_by_key(|p| p.index());
    v
}

fn read_file(dir: &std::path::Path, name: &str) -> GameRecord {
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let file = read_document(name, &bytes, ParseLimits::default());
    assert_eq!(file.games.len(), 1, "{name}");
    file.games.into_iter().next().unwrap().unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_file_gives_the_facts_of_notes_md() {
    let Some(dir) = crate::test_data::shared("formats") else { return };
    for f in FACTS {
        let g = read_file(&dir, f.file);
        let at = f.file;
        let expected_format = Format::of_name(f.file).as_str();
        assert_eq!(g.format, expected_format, "{at}");
        assert_eq!(g.black.as_deref(), Some(f.black), "{at}: black");
        assert_eq!(g.white.as_deref(), Some(f.white), "{at}: white");
        assert_eq!(g.black_rank.as_ref().map(|r| r.raw.as_str()), Some(f.black_rank), "{at}: black rank");
        assert_eq!(g.white_rank.as_ref().map(|r| r.raw.as_str()), Some(f.white_rank), "{at}: white rank");
        assert_eq!(g.komi, f.komi, "{at}: komi");
        let stones = points(f.stones);
        assert_eq!(g.setup_black, stones, "{at}: handicap stones");
        assert_eq!(g.handicap, stones.len() as u32, "{at}: handicap");
        assert!(g.setup_white.is_empty(), "{at}");
        assert_eq!(g.result.raw.as_deref(), Some(f.result), "{at}: result");
        assert_eq!(g.result, crate::sgf::parse_result(f.result), "{at}: result");
        assert_eq!(g.date_iso.as_deref(), Some(f.date), "{at}: date");
        assert_eq!(g.moves.len(), f.moves, "{at}: moves");
        assert_eq!(g.moves.iter().filter(|m| m.mv == crate::coord::Move::Pass).count(), f.passes, "{at}: passes");
        let first: Vec<String> = g.moves.iter().take(3).map(text).collect();
        assert_eq!(first.join(" "), f.first, "{at}: first moves");
        assert_eq!(text(g.moves.last().unwrap()), f.last, "{at}: last move");
    }
}

#[test]
fn every_record_file_of_the_folder_has_its_facts() {
    let Some(dir) = crate::test_data::shared("formats") else { return };
    let mut found = Vec::new();
    for sub in std::fs::read_dir(&dir).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&sub).unwrap() {
            let p = f.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if Format::of_name(&name) != Format::Sgf {
                found.push(format!("{}/{name}", sub.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = FACTS.iter().map(|f| f.file.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
    assert_eq!(found.len(), 24, "NOTES.md counts 24 records");
}

#[test]
fn the_other_facts_of_notes_md() {
    let Some(dir) = crate::test_data::shared("formats") else { return };
    let g = read_file(&dir, "sabaki/euc-kr.gib");
    assert_eq!(g.event.as_deref(), Some("승강급 대국"));
    assert_eq!(g.place.as_deref(), Some("타이젬 바둑"));
    let g = read_file(&dir, "sabaki/GB2312_China_even.gib");
    assert_eq!((g.event.as_deref(), g.place.as_deref()), (Some("让先"), Some("弈道TYGEM对弈")));
    // DUM: komi unknown, said by a quirk; TCNT:0 is wrong.
    let g = read_file(&dir, "sabaki/utf8.gib");
    assert!(g.quirks.komi_unknown && g.quirks.move_count_mismatch);
    assert_eq!(g.result.kind, ResultKind::Void);
    // TCNT counts stones only: 260 STO + 2 SKI is no mismatch.
    let g = read_file(&dir, "gib2sgf/Menskit(1D)_zxcv2358(1D)_202006291602.gib..gib..gib");
    assert!(!g.quirks.move_count_mismatch);
    let g = read_file(&dir, "gib2sgf/Menskit(4D)_W_003ej9(4D)_202009051109.gib..gib..gib");
    assert_eq!((g.result.winner, g.result.kind), (Some(crate::sgf::Color::White), ResultKind::Forfeit));
    // The web export's mid-game passes: moves 279 and 281 (Black), 292 W, 293 B.
    let g = read_file(&dir, "weiqihub/tygem_19x19.gib");
    let passes: Vec<(usize, &str)> = g
        .moves
        .iter()
        .enumerate()
        .filter(|(_, m)| m.mv == crate::coord::Move::Pass)
        .map(|(i, m)| (i + 1, m.color.as_str()))
        .collect();
    assert_eq!(passes, vec![(279, "B"), (281, "B"), (292, "W"), (293, "B")]);
}

#[test]
fn the_weiqihub_json_gives_the_same_stones() {
    let Some(dir) = crate::test_data::shared("formats") else { return };
    let json = std::fs::read_to_string(dir.join("weiqihub/tygem_19x19_gib.json")).unwrap();
    let g = read_file(&dir, "weiqihub/tygem_19x19.gib");
    let stones: Vec<_> = g.moves.iter().filter(|m| m.mv != crate::coord::Move::Pass).collect();
    assert_eq!(stones.len(), 289);
    // Every stone's column and row appear in the JSON's move list, in order.
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let list = find_moves(&v).expect("a list of moves in the JSON");
    assert_eq!(list.len(), 289);
    for (m, j) in stones.iter().zip(list) {
        let crate::coord::Move::Play(p) = m.mv else { unreachable!() };
        assert_eq!(Some((p.col as i64, p.row as i64)), point_of(j), "{j}");
        assert_eq!(j.get("color").and_then(|c| c.as_str()), Some(m.color.as_str()), "{j}");
    }
}

/// The longest array of the JSON whose items all have a point.
fn find_moves(v: &serde_json::Value) -> Option<&Vec<serde_json::Value>> {
    let mut best: Option<&Vec<serde_json::Value>> = None;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(a) => {
                if !a.is_empty() && a.iter().all(|x| point_of(x).is_some()) && best.is_none_or(|b| b.len() < a.len()) {
                    best = Some(a);
                }
                stack.extend(a.iter());
            }
            serde_json::Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    best
}

fn point_of(v: &serde_json::Value) -> Option<(i64, i64)> {
    let o = v.as_object()?;
    Some((o.get("col")?.as_i64()?, o.get("row")?.as_i64()?))
}

#[test]
fn a_record_extension_with_sgf_or_other_content() {
    let sgf = read_document("x.gib", b"(;GM[1]SZ[19];B[pd];W[dp])", ParseLimits::default());
    let g = sgf.games[0].as_ref().unwrap();
    assert_eq!((g.format, g.moves.len()), ("sgf", 2));
    let junk = read_document("x.ngf", b"hello", ParseLimits::default());
    assert_eq!(junk.games[0].as_ref().unwrap_err().reason, RejectReason::UnknownFormat);
    let no_game = read_document("x.gib", b"\\HS\n\\[GAMETAG=W0\\]\n\\HE\n", ParseLimits::default());
    assert_eq!(no_game.games[0].as_ref().unwrap_err().reason, RejectReason::BadRecord);
    let off = read_document("x.gib", b"\\GS\nINI 0 1 0 &4\nSTO 0 2 1 19 3\n\\GE\n", ParseLimits::default());
    let e = off.games[0].as_ref().unwrap_err();
    assert_eq!((e.reason, e.move_number), (RejectReason::BadCoordinate, Some(1)));
}

#[test]
fn undecodable_names_cost_only_the_names() {
    // Bytes that fit no CJK charset: the game is kept, its names as decoded, with a quirk.
    let mut b =
        b"\\HS\n\\[GAMEBLACKNAME=\xff\xfe\x80 (3D)\\]\n\\[GAMEINFOMAIN=GRLT:3,GONGJE:65\\]\n\\HE\n\\GS\n".to_vec();
    b.extend_from_slice(b"INI 0 1 0 &4\nSTO 0 2 1 3 3\nSTO 0 3 2 15 15\n\\GE\n");
    let g = read_document("x.gib", &b, ParseLimits::default()).games.remove(0).unwrap();
    assert_eq!(g.moves.len(), 2);
    assert_eq!(g.result.raw.as_deref(), Some("B+R"));
    assert!(g.black.is_some());
    assert!(g.quirks.charset_undecided, "{:?} {}", g.black, g.charset);
}

#[test]
fn tygem_layout_puts_the_third_stone_top_left() {
    assert_eq!(tygem_handicap(3), points("pd dp dd"));
    assert_eq!(tygem_handicap(6), points("pd dp dd pp dj pj"));
    assert_eq!(tygem_handicap(9).len(), 9);
    assert!(tygem_handicap(1).is_empty());
}

#[test]
fn written_sgf_reads_back_to_the_same_record() {
    let Some(dir) = crate::test_data::shared("formats") else { return };
    for f in FACTS {
        let g = read_file(&dir, f.file);
        let sgf = write_sgf(&g);
        let back = crate::sgf::read_games(sgf.as_bytes()).games.remove(0).unwrap();
        let at = f.file;
        assert_eq!(back.moves, g.moves, "{at}");
        assert_eq!(back.setup_black, g.setup_black, "{at}");
        assert_eq!((back.komi, &back.komi_raw, back.handicap), (g.komi, &g.komi_raw, g.handicap), "{at}");
        assert_eq!(back.result, g.result, "{at}");
        assert_eq!(
            (&back.black, &back.white, &back.black_rank, &back.white_rank),
            (&g.black, &g.white, &g.black_rank, &g.white_rank),
            "{at}"
        );
        assert_eq!(
            (&back.date, &back.date_iso, &back.event, &back.place, &back.rules),
            (&g.date, &g.date_iso, &g.event, &g.place, &g.rules),
            "{at}"
        );
    }
}
