use super::*;
use crate::config::SplitConfig;
use crate::coord::NN;
use crate::engine::{Board, Rules};
use crate::game::GameRow;
use crate::samples::BufMode;
use crate::samples::{capture_parts, HISTORY};

fn row(sgf: &str) -> GameRow {
    let g = crate::sgf::read_games(sgf.as_bytes()).games.remove(0).expect("the game reads");
    GameRow::from_record(&g, "t", "t.sgf", None, &[])
}

/// The board before every move of `g`, by playing it on the engine's board directly
/// (setup, mid-game setup, moves): independent of the split stage's visitor.
pub(crate) fn boards_by_replay(g: &GameRow, rules: &Rules) -> Vec<[u8; NN]> {
    let boards = game_boards(g, rules);
    boards[..g.moves.len()]
        .iter()
        .map(|b| {
            let mut cells = [0u8; NN];
            b.cells(&mut cells);
            cells
        })
        .collect()
}

/// Every sample of `g`, as positions.
fn positions(g: &GameRow, cfg: &SplitConfig) -> Vec<Position> {
    let s = crate::stages::split::game_samples(g, cfg, 1, BufMode::Full).unwrap();
    let batch = s.samples.into_batch();
    let mut v = Vec::new();
    positions_of_batch(&batch, &mut Position::default(), |p| {
        v.push(p.clone());
        Ok(())
    })
    .unwrap();
    v
}

/// The rebuilt boards of every position equal the replay's, as far back as the history goes.
fn check_rebuilt(g: &GameRow, ps: &[Position], want: &[[u8; NN]]) -> usize {
    let mut checked = 0;
    for p in ps {
        let i = p.move_number as usize - 1;
        assert_eq!(p.history_len, i.min(HISTORY));
        for k in 0..=p.history_len {
            let got = p.board_before(k).unwrap();
            assert!(got == &want[i - k], "{}: move {}, board {k} before differs", g.source_file, p.move_number);
            checked += 1;
        }
        assert!(p.board_before(p.history_len + 1).is_none());
    }
    checked
}

/// A capture, a pass, a mid-game setup (a stone added, one removed), a multi-stone
/// suicide and a recapture on the same point.
const TRICKY: &str = "(;GM[1]FF[4]SZ[19]KM[6.5]\
    ;B[aa];W[ba];B[dd];W[ab];B[];W[dp]\
    ;AB[pp]AE[dd]\
    ;B[ra];W[qa];B[sa];W[rb];B[jj];W[sc];B[sb];W[pd];B[qq];W[dq];B[jk];W[dr])";

#[test]
fn earlier_boards_are_rebuilt_through_captures_passes_setup_and_suicide() {
    let g = row(TRICKY);
    assert_eq!(g.mid_setup.len(), 1);
    let cfg = SplitConfig { allow_multi_stone_suicide: true, ..SplitConfig::default() };
    let want = boards_by_replay(&g, &Rules { multi_stone_suicide: true });
    let ps = positions(&g, &cfg);
    assert_eq!(ps.len(), g.moves.len());
    // Move 14 (W pd) follows the suicide of B ra, sa, sb (move 13): three black stones
    // come back when move 13 is undone, besides its own point.
    let p = &ps[13];
    let back: Vec<(usize, u8, u16)> = p.history_captures.iter().map(|&c| capture_parts(c)).collect();
    let (ra, sa) = (17u16, 18u16);
    assert!(back.contains(&(0, 1, ra)) && back.contains(&(0, 1, sa)), "{back:?}");
    assert!(check_rebuilt(&g, &ps, &want) > 100);
}

#[test]
fn every_row_of_the_embedded_sample_rebuilds_its_earlier_boards() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kombilo");
    let cfg = SplitConfig::default();
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let (mut games, mut checked, mut captures) = (0, 0, 0);
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        for g in crate::sgf::read_games(&bytes).games.into_iter().flatten() {
            let g = GameRow::from_record(&g, "kombilo", &f.to_string_lossy(), None, &[]);
            let Ok(s) = crate::stages::split::game_samples(&g, &cfg, 1, BufMode::Full) else { continue };
            let mut ps = Vec::new();
            positions_of_batch(&s.samples.into_batch(), &mut Position::default(), |p| {
                ps.push(p.clone());
                Ok(())
            })
            .unwrap();
            captures += ps.iter().filter(|p| !p.history_captures.is_empty()).count();
            checked += check_rebuilt(&g, &ps, &boards_by_replay(&g, &Rules::default()));
            games += 1;
        }
    }
    assert!(games >= 35 && checked > 50_000 && captures > 1_000, "{games} games, {checked} boards, {captures}");
}

/// Every board of `g` by playing it on the engine's board (setup, mid-game setup,
/// moves): `boards[t]` before move `t`, the last after the last move.
fn game_boards(g: &GameRow, rules: &Rules) -> Vec<Board> {
    let mut b = Board::new();
    for (pts, v) in [(&g.setup_black, 1), (&g.setup_white, 2)] {
        for &p in pts {
            b.set_stone(p, v).unwrap();
        }
    }
    let mut out = Vec::new();
    for (i, m) in g.moves.iter().enumerate() {
        for s in g.mid_setup.iter().filter(|s| s.before_move as usize == i) {
            for (pts, v) in [(&s.black, 1), (&s.white, 2), (&s.empty, 0)] {
                for &p in pts {
                    b.set_stone(p, v).unwrap();
                }
            }
        }
        out.push(b.clone());
        b.play(m.color, m.mv, rules).unwrap();
    }
    out.push(b);
    out
}

#[test]
fn a_game_being_played_gives_the_position_and_planes_its_samples_rows_give() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kombilo");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let (mut rows, mut kos, mut captures) = (0, 0, 0);
    let mut mine = Position::default();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        for g in crate::sgf::read_games(&bytes).games.into_iter().flatten() {
            let g = GameRow::from_record(&g, "kombilo", &f.to_string_lossy(), None, &[]);
            let Ok(s) = crate::stages::split::game_samples(&g, &SplitConfig::default(), 1, BufMode::Full) else {
                continue;
            };
            let boards = game_boards(&g, &Rules::default());
            let moves: Vec<_> = g.moves.iter().map(|m| m.mv).collect();
            positions_of_batch(&s.samples.into_batch(), &mut Position::default(), |p| {
                let i = p.move_number as usize - 1;
                let to_play = crate::color::Color::from_u8(p.to_play).unwrap();
                mine.set_game(&boards[..=i], &moves[..i], to_play).unwrap();
                (mine.komi, mine.rules, mine.handicap) = (p.komi, p.rules.clone(), p.handicap);
                let at = format!("{} move {}", g.source_file, p.move_number);
                assert_eq!((mine.board, mine.to_play, mine.ko_point), (p.board, p.to_play, p.ko_point), "{at}");
                assert_eq!(&mine.history[..mine.history_len], &p.history[..p.history_len], "{at}");
                assert_eq!(mine.history_captures, p.history_captures, "{at}");
                assert_eq!(&mine.earlier[..mine.history_len], &p.earlier[..p.history_len], "{at}");
                assert_eq!((mine.prisoners, mine.move_number), (p.prisoners, p.move_number), "{at}");
                for set in sets() {
                    let planes = |q: &Position| {
                        let (mut s, mut g) = (vec![0u8; set.spatial * NN], vec![0f32; set.global]);
                        (set.encode)(q, &mut s, &mut g);
                        (s, g)
                    };
                    assert!(planes(&mine) == planes(p), "{at}: {} planes differ", set.name);
                }
                (rows, kos, captures) =
                    (rows + 1, kos + p.ko_point.is_some() as usize, captures + !p.history_captures.is_empty() as usize);
                Ok(())
            })
            .unwrap();
        }
    }
    assert!(rows > 5_000 && kos > 10 && captures > 1_000, "{rows} rows, {kos} with a ko, {captures} with captures");
    // The boards must agree with the moves.
    assert!(mine.set_game(&[Board::new()], &[crate::coord::Move::Pass], crate::color::Color::Black).is_err());
}

#[test]
fn a_game_being_played_bans_the_ko_for_the_capturers_opponent_only() {
    use crate::color::Color::{Black, White};
    use crate::coord::{gtp_move, Move};
    // Black B19 takes White A19: the retake at A19 is banned for White, not for Black
    // (a GTP game lets either colour move next).
    let (mut boards, mut moves) = (vec![Board::new()], Vec::new());
    for (c, m) in [(Black, "A18"), (White, "A19"), (White, "C19"), (White, "B18"), (Black, "B19")] {
        let mut b = boards.last().unwrap().clone();
        let m: Move = gtp_move(m).unwrap();
        b.play(c, m, &Rules::default()).unwrap();
        boards.push(b);
        moves.push(m);
    }
    let mut p = Position::default();
    p.set_game(&boards, &moves, White).unwrap();
    assert_eq!((p.ko_point, p.history_captures.clone()), (Some(0), vec![crate::samples::capture_code(0, 2, 0)]));
    p.set_game(&boards, &moves, Black).unwrap();
    assert_eq!((p.ko_point, p.to_play, p.move_number), (None, 1, 6));
}

#[test]
fn registry_finds_each_set_by_name() {
    for s in sets() {
        assert!(std::ptr::eq(by_name(s.name).unwrap(), *s));
    }
    assert!(by_name("leela-18").is_some_and(|s| s.spatial == 18 && s.global == 0));
    assert!(by_name("no-such-set").is_none());
}

#[test]
fn leela_planes_follow_the_side_to_move_and_pad_with_zeros() {
    let g = row(TRICKY);
    let ps = positions(&g, &SplitConfig { allow_multi_stone_suicide: true, ..SplitConfig::default() });
    let set = by_name("leela-18").unwrap();
    let mut planes = vec![9u8; set.spatial * NN];
    // Move 4 (W ab): white to move; boards: now, 1, 2, 3 moves before, then zeros.
    let p = &ps[3];
    (set.encode)(p, &mut planes, &mut []);
    let at = |ch: usize, pt: usize| planes[ch * NN + pt];
    let (aa, ba, dd) = (0, 1, 3 * 19 + 3);
    assert_eq!((at(0, ba), at(8, aa), at(8, dd)), (1, 1, 1)); // own = white now
    assert_eq!((at(1, ba), at(9, aa), at(9, dd)), (1, 1, 0)); // one move before: no dd
    assert_eq!((at(2, ba), at(10, aa)), (0, 1));
    assert!(planes[3 * NN..8 * NN].iter().chain(&planes[11 * NN..16 * NN]).all(|&v| v == 0));
    assert!(planes[16 * NN..17 * NN].iter().all(|&v| v == 0) && planes[17 * NN..].iter().all(|&v| v == 1));
}

#[test]
fn alphago_planes_are_one_hot_where_defined_and_see_captures() {
    let g = row(TRICKY);
    let ps = positions(&g, &SplitConfig { allow_multi_stone_suicide: true, ..SplitConfig::default() });
    let set = by_name("alphago-48").unwrap();
    assert_eq!((set.spatial, set.global), (48, 0));
    let mut planes = vec![9u8; set.spatial * NN];
    for p in &ps {
        (set.encode)(p, &mut planes, &mut []);
        let at = |ch: usize, pt: usize| planes[ch * NN + pt];
        let block = |from: usize, pt: usize| (from..from + 8).map(|ch| at(ch, pt) as u32).sum::<u32>();
        for pt in 0..NN {
            assert_eq!(at(0, pt) + at(1, pt) + at(2, pt), 1);
            assert_eq!((at(3, pt), at(47, pt)), (1, 0));
            let stone = p.board[pt] != 0;
            assert_eq!(block(4, pt), stone as u32, "one age per stone");
            assert_eq!(block(12, pt), stone as u32, "one liberty count per stone");
            // A legal move has one capture size and one liberty count after it.
            assert_eq!(block(20, pt), block(36, pt));
            assert!(block(28, pt) <= block(36, pt) && at(46, pt) <= block(36, pt) as u8);
        }
    }
    // Move 4: white at ab captures the black stone at aa (1 stone), and is the last
    // Black's aa was played 2 moves before the last (dd), white's ba 1 before; aa has 1 liberty.
    let p = &ps[3];
    (set.encode)(p, &mut planes, &mut []);
    let at = |ch: usize, pt: usize| planes[ch * NN + pt];
    let (aa, ab, ba, dd) = (0, 19, 1, 3 * 19 + 3);
    assert_eq!((at(21, ab), at(20, ab)), (1, 0), "ab captures one stone");
    assert_eq!((at(4 + 2, aa), at(4, dd), at(4 + 1, ba)), (1, 1, 1), "ages of aa, dd, ba");
    assert_eq!(at(12, aa), 1, "aa in atari");
}

/// Three kos side by side on the top edge (columns 0-3, 6-9, 12-15), each a W stone at
/// row 1, column c + 1 that B captures at column c + 2 ("W-state"), or a B stone at
/// column c + 2 that W captures at column c + 1 ("B-state"). `RULES` is replaced by the
/// rule set. The walls: B at c + 1 (rows 0, 2) and c; W at c + 2 (rows 0, 2) and c + 3.
const KO_WALLS: &str = "AB[ba][ab][bc][ha][gb][hc][na][mb][nc]AW[ca][db][cc][ia][jb][ic][oa][pb][oc]";

/// The triple-ko cycle: from (W, B, W) with B to move, B takes ko 1, W ko 2, B ko 3, W ko
/// 1, B ko 2; at move 6 W's capture in ko 3 (nb) would give the start position again,
/// with B to move as at the start: banned under positional and situational superko.
/// W plays elsewhere.
pub(crate) fn triple_ko(rules: &str) -> String {
    format!("(;GM[1]FF[4]SZ[19]KM[7.5]RU[{rules}]{KO_WALLS}AW[bb]AB[ib]AW[nb];B[cb];W[hb];B[ob];W[bb];B[ib];W[kk])")
}

/// From (B, B, W) with W to move: W takes ko 1, B ko 3, W ko 2, B passes, W ko 3. At
/// move 6 B's capture in ko 2 (ib) gives the board after move 1 again, on which B was to
/// move (and never W): banned under positional superko, not under situational.
pub(crate) fn positional_only(rules: &str) -> String {
    format!("(;GM[1]FF[4]SZ[19]KM[7.5]RU[{rules}]{KO_WALLS}AB[cb]AB[ib]AW[nb];W[bb];B[ob];W[hb];B[];W[nb];B[kk])")
}

/// Channel 6 of `katago-v7` at move `number` of `sgf` (the rows path), as SGF points.
fn ko_channel(sgf: &str, number: u16) -> Vec<String> {
    channels(sgf, number, &[6]).remove(0)
}

#[test]
fn superko_bans_a_triple_ko_cycle_under_superko_rules_only() {
    // The simple-ko point is hb (B just took ko 2); nb repeats the start.
    for ru in ["Tromp-Taylor", "AGA", "NZ"] {
        assert_eq!(ko_channel(&triple_ko(ru), 6), ["hb", "nb"], "{ru}");
    }
    for ru in ["Japanese", "Chinese", "Korean"] {
        assert_eq!(ko_channel(&triple_ko(ru), 6), ["hb"], "{ru}");
    }
    // One move earlier only the simple-ko point (cb: W just took ko 1) is banned; B's
    // capture in ko 2 gives a new position.
    assert_eq!(ko_channel(&triple_ko("Tromp-Taylor"), 5), ["cb"]);
}

#[test]
fn superko_positional_and_situational_differ_on_the_side_to_move() {
    // ob is the simple-ko point (W just took ko 3); ib repeats the board after move 1.
    assert_eq!(ko_channel(&positional_only("Tromp-Taylor"), 6), ["ib", "ob"]);
    for ru in ["AGA", "NZ", "Japanese", "Chinese"] {
        assert_eq!(ko_channel(&positional_only(ru), 6), ["ob"], "{ru}");
    }
}

#[test]
fn superko_sees_a_multi_stone_suicide_that_repeats_a_position() {
    // B aa (one liberty, ba), W passes: B ba would remove aa and ba (a multi-stone
    // suicide, legal under Tromp-Taylor and NZ) and give the start again, on which B was
    // to move: positional superko bans it, situational (NZ) does not; the other rule
    // sets forbid the suicide itself.
    let sgf = |ru: &str| format!("(;GM[1]FF[4]SZ[19]KM[7.5]RU[{ru}]AW[ab][bb][ca];B[aa];W[];B[jj])");
    assert_eq!(ko_channel(&sgf("Tromp-Taylor"), 3), ["ba"]);
    for ru in ["NZ", "AGA", "Japanese"] {
        assert!(ko_channel(&sgf(ru), 3).is_empty(), "{ru}");
    }
}

/// Channels `chs` of `katago-v7` at move `number` of `sgf` (the rows path), each as SGF
/// points in index order.
fn channels(sgf: &str, number: u16, chs: &[usize]) -> Vec<Vec<String>> {
    let g = row(sgf);
    let p = positions(&g, &SplitConfig::default()).into_iter().find(|p| p.move_number == number).unwrap();
    let set = by_name("katago-v7").unwrap();
    let (mut spatial, mut global) = (vec![0u8; set.spatial * NN], vec![0f32; set.global]);
    (set.encode)(&p, &mut spatial, &mut global);
    let pt = |i: usize| crate::coord::Point::from_index(i as u16).unwrap().to_sgf();
    chs.iter().map(|&c| (0..NN).filter(|&i| spatial[c * NN + i] != 0).map(pt).collect()).collect()
}

/// Issue 41, item 5: three single white stones in the corner, A3 B2 A1 (SGF aq br as),
/// each in atari on A2 (ar), which White cannot fill (suicide); her one escape is to take
/// the black stone at B1 (bs) with C1 (cs), which Black retakes as a ko. In the search
/// for B2 and for A1, after W C1 the attacker meets the double-ko shape (both liberties,
/// A2 and B1, are ko captures for Black, connecting at either leaves White at most 2
/// liberties). The C++ counts the defender captured when it has **no** liberty-gaining
/// capture: A1 (no black chain next to it) is laddered, B2 (next to C2, in atari after
/// W C1) is not. features.py tests the opposite and marks B2, not A1 (A3 the same in
/// both): `tests/python/test_planes_katago.py` compares such rows with that one test
/// negated, and `tests/python/ladder_shared_copy_test.py` checks this shape and random
/// ones like it. KataGo's `iterLadders` runs every search on one shared board copy, but
/// each search undoes its moves and restores the ko point, so the search order changes
/// nothing (docs/planes.md, "The ladder channels and KataGo's shared copy").
#[test]
fn ladder_double_ko_corner_follows_the_cpp() {
    // Black B1 is there; W C1 takes it (ko at B1), two moves elsewhere, B B1 retakes (ko
    // at C1, W to move); C3 (cq) puts C2 in atari once W is at C1.
    let corner = "(;GM[1]FF[4]SZ[19]KM[7.5]RU[Japanese]AB[ap][bp][bq][cr][ds][bs]AW[aq][br][as][cq]\
        ;W[cs];B[pd];W[dd];B[bs];W[qq])";
    // Move 5, W to move after the retake: channel 14 the board now (A3, C3 and A1; C1 is
    // gone), 15/16 the boards before it (W C1 on the board: A3, A1 and D1), no working move
    // for White (features.py: B2 instead of A1 on every board).
    let now = channels(corner, 5, &[14, 15, 16, 17]);
    assert_eq!(now[0], ["aq", "cq", "as"]);
    assert_eq!(now[1], ["aq", "as", "ds"]);
    assert_eq!(now[2], ["aq", "as", "ds"]);
    assert!(now[3].is_empty());
    // Move 4, B to move (W C1 on the board, no ko): Black's working moves against the
    // 2-liberty A1 are A2 and B1 (features.py: B1 only); channel 16 is the board right
    // after W C1 took the ko.
    let before = channels(corner, 4, &[14, 15, 16, 17]);
    assert_eq!(before[..3], [["aq", "as", "ds"], ["aq", "as", "ds"], ["aq", "as", "ds"]]);
    assert_eq!(before[3], ["ar", "bs"]);
    // The same corner at the top edge, where A1 (aa) is searched first, not last. (C3, at
    // cc, escapes here: the white stone at dd breaks its ladder.)
    let top = "(;GM[1]FF[4]SZ[19]KM[7.5]RU[Japanese]AB[ad][bd][bc][cb][da][ba]AW[ac][bb][aa][cc]\
        ;W[ca];B[pd];W[dd];B[ba];W[qq])";
    let now = channels(top, 5, &[14, 15, 16, 17]);
    assert_eq!(now[..3], [&["aa", "ac"][..], &["aa", "da", "ac"], &["aa", "da", "ac"]]);
    assert!(now[3].is_empty());
    let before = channels(top, 4, &[14, 17]);
    assert_eq!(before[0], ["aa", "da", "ac"]);
    assert_eq!(before[1], ["ba", "ab"]);
}

/// The C++'s defender shortcuts read the move list's last move as the defender's lone
/// liberty (KataGo `searchIsLadderCaptured`: "the last element always is the lone
/// liberty"). When that liberty is also a capture, `findLiberties` drops it as a
/// duplicate, and the last move is another capture: here a capture that joins a strong
/// group, whose lower bound of 3 liberties declares the defender escaped although it is
/// not. On the right edge, White S13 S12 (rg rh, White to move) has 2 liberties, T13 and
/// T12. After Black T12 (sh), White takes S11 S10 with T11 (si), Black throws in at S11,
/// and White's one liberty, T13, is also the capture of T12; her list is [T13, S10]
/// (S10 takes S11), so the C++ bounds S10, which joins the white group below: escaped.
/// board.py has no such shortcut and finds the ladder (S13 S12 in channel 14). kibo follows
/// the C++ (checks/ladder_compare.py: 5 rows of a 120,000-row sample of the bench-scale
/// corpus, all equal to the C++; docs/planes.md, "Where features.py differs", item 9).
/// A position of 21 stones cut from one of those rows; `tests/python/test_planes_katago.py`
/// checks features.py on it with and without the C++'s shortcuts.
#[test]
fn ladder_defender_bounds_read_the_last_capture_as_the_cpp() {
    let edge = "(;GM[1]FF[4]SZ[19]KM[6.5]RU[Japanese]AB[rf][sf][qg][qh][ri][oj][rj][ok][pl][rl][qm]\
        AW[rg][rh][qi][pj][qj][sj][pk][qk][rk][ql];B[dd];W[dp])";
    // Move 2, White to move: the black S11 S10 (ri rj) and S8 (rl) are laddered, White's
    // working move against S8 is S7 (rm); not the white S13 S12 (features.py: rg rh too).
    let now = channels(edge, 2, &[14, 15, 16, 17]);
    assert_eq!(now[0], ["ri", "rj", "rl"]);
    assert_eq!(now[1], now[0]);
    assert_eq!(now[2], now[0]);
    assert_eq!(now[3], ["rm"]);
}

/// The `katago-v7` row of `board` alone: no history, Japanese rules, komi 6.5.
fn v7_row_of(board: &Board, to_play: crate::engine::Color) -> katago::V7Row {
    let pos = katago::V7Position {
        board,
        ko: board.ko_point(),
        prev: [None, None],
        earlier: katago::Earlier::default(),
        to_play,
        recent: &[],
        rules: &katago::KataRules::JAPANESE,
        komi: 6.5,
        placed: [0, 0],
        handicap: 0,
    };
    let mut row = katago::V7Row::default();
    katago::V7Encoder::new().encode(&pos, &mut row);
    row
}

/// The rows path cannot see how a chain grew, and item 9's shortcut can depend on it
/// (docs/planes.md, "Where features.py differs", item 9, and the encoder's memo): which
/// capture the C++ lists last follows the defender chain's stone order, KataGo's
/// `next_in_chain`, which a replay keeps and `Board::from_cells` builds its own way. On
/// this row (move 141 of a game of the bench-scale corpus, Black to move) the replayed
/// board gives KataGo's channel 17, M19 (ma) alone, as the npz export and the C++ do,
/// and the same cells through `Board::from_cells` give M19 and P18 (ob), as features.py.
#[test]
fn ladder_defender_bounds_follow_the_chain_order_of_a_replay() {
    use crate::coord::Point;
    use crate::engine::Color;
    let moves: String = [
        "Bqp Wcd Bpd Wdq Bed Wop Bcc Wdo Boq Wnq Bpq Wnp Bqn Wbc Bdc Wbe Bic Wjp Bdg Wcf Bdf Wnc Bnd Wod ",
        "Boe Woc Bpc Wpe Bqe Wpf Bmd Wqf Bmc Wre Brc Wql Bnf Wnh Blr Wmr Blq Wiq Blo Wpo Bqo Wom Bkn Win ",
        "Bkl Wlm Bjn Wim Bjl Whk Bmk Wok Bmi Wnj Bmj Wcl Bek Whi Bem Wfl Bel Wcn Bck Wcj Bbk Wdj Bej Wdk ",
        "Bcm Wbm Bbl Wdm Bdl Wcm Bbi Wbj Bdi Wal Bni Woi Boh Wph Bhg Wih Big Wkh Bmh Wfi Bgj Wfj Bfk Wgk ",
        "Bfh Wjg Bji Wjh Bei Wgi Bbb Wab Bba Wde Bbg Wee Bbf Wfe Bgd Whd Bgc Wge Bfg Wie Bjf Whc Bgb Whb ",
        "Bjc Wkc Bkb Wkd Bjb Wlb Blc Wmb Bkf Wjd Bla Wnb Bna Woa Bka Wfd Bfc Web Bec Wdb ",
    ]
    .concat();
    let mut b = Board::new();
    for m in moves.split_whitespace() {
        let c = if m.starts_with('B') { Color::Black } else { Color::White };
        b.play(c, crate::coord::sgf_move(&m[1..]).unwrap(), &Rules::default()).unwrap();
    }
    let working = |board: &Board| {
        let row = v7_row_of(board, Color::Black);
        (0..NN).filter(|&p| row.get(17, p)).map(|p| Point::from_index(p as u16).unwrap().to_sgf()).collect::<Vec<_>>()
    };
    assert_eq!(working(&b), ["ma"]);
    let mut cells = [0u8; NN];
    b.cells(&mut cells);
    assert_eq!(working(&Board::from_cells(&cells).unwrap()), ["ma", "ob"]);
}

/// KataGo's "Failing polynomial ladder due to max node budget" board
/// (cpp/tests/testboardbasic.cpp; ../shared/data/ladders), X black, O white.
const BUDGET_BOARD: [&str; 19] = [
    "X.OOOOX.OOOOX.OOOOO",
    "OXXXXOOXXXXOOXXXXXO",
    "OX..XXOX..XXOX...XO",
    "O....XOX...XOX...XO",
    "......OX....OX...XO",
    ".................XO",
    "...............XXOO",
    "...............OOOX",
    "................XX.",
    ".................XO",
    ".................XO",
    ".................XO",
    "...............XXOO",
    "...............OOOX",
    "................XX.",
    ".................XO",
    ".................XO",
    ".X...X..........X.O",
    "...............OOO.",
];

/// The one thing KataGo's shared copy carries from a ladder search to the next: in the
/// C++, a defender-first search that runs out of its 25,000-node budget unwinds its moves
/// without restoring the simple-ko point it cleared at its root, so the chains searched
/// after it (row order from the top) no longer see the board's ko ban. On
/// `BUDGET_BOARD`, Black at B16 puts the white chain at A18 in atari, and its search gives
/// up; lower down Black has just taken a ko at B5 (ko at A5, White to move) next to the
/// black A6 (liberties A7 and the ko point A5). On its own board copy White's working
/// ladder moves against A6 are A7 only; on KataGo's shared copy, after the give-up, the
/// ko retake at A5 works too (Black retakes, White A7, Black connects at A5 with one
/// liberty). Without B16, A18 has 2 liberties and gets an attacker-first search, which
/// leaks nothing even when it gives up (the C++ then undoes the attacker's first move,
/// which restores the ko point). The C++ (checks/ladder_iterladders.cpp, `shared`
/// against `fresh`) gives exactly these channels; features.py has no node budget.
#[test]
fn ladder_budget_give_up_drops_the_ko_ban_for_later_chains() {
    use crate::coord::{Move, Point};
    use crate::engine::Color;
    let at = |row: usize, col: usize| Point::new(row, col).unwrap();
    let build = |budget: bool| {
        let mut b = Board::new();
        for (r, line) in BUDGET_BOARD.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                match ch {
                    'X' => b.set_stone(at(r, c), 1).unwrap(),
                    'O' => b.set_stone(at(r, c), 2).unwrap(),
                    _ => {}
                }
            }
        }
        // The ko: White A5 between Black A6 and A4; White B6 C5 B4, A8 B7.
        for (r, c, v) in
            [(14, 0, 2), (13, 0, 1), (15, 0, 1), (13, 1, 2), (14, 2, 2), (15, 1, 2), (11, 0, 2), (12, 1, 2)]
        {
            b.set_stone(at(r, c), v).unwrap();
        }
        if budget {
            b.play(Color::Black, Move::Play(at(3, 1)), &Rules::default()).unwrap();
        }
        // Black takes the ko at B5: the ko point is A5, banned for White.
        b.play(Color::Black, Move::Play(at(14, 1)), &Rules::default()).unwrap();
        assert_eq!(b.ko_point(), Some(at(14, 0)));
        b
    };
    let ladder_planes = |b: &Board| {
        let row = v7_row_of(b, Color::White);
        let set = |ch: usize| (0..NN).filter(|&p| row.get(ch, p)).collect::<Vec<_>>();
        (set(14), set(17))
    };
    let idx = |row: usize, col: usize| row * 19 + col;
    // The white A18 chain in atari: its search gives up.
    let with = build(true);
    let mut search = crate::tactics::LadderSearch::new();
    assert!(!search.is_captured(&with, at(1, 0), true));
    assert!(search.gave_up());
    let laddered = vec![idx(13, 0), idx(14, 1), idx(15, 0)];
    // A7 and A3 (A4's other liberty) work either way; A5 only after the give-up.
    assert_eq!(ladder_planes(&with), (laddered.clone(), vec![idx(12, 0), idx(14, 0), idx(16, 0)]));
    let without = build(false);
    assert_eq!(without.chain_liberties(at(1, 0)), 2);
    assert_eq!(ladder_planes(&without), (laddered, vec![idx(12, 0), idx(16, 0)]));
}
