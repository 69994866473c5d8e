//! Tests of the SGF reader: decoding, grammar, value text, records, and the edge corpus.

use super::*;
use crate::coord::{sgf_move_sized, Move, Point};
use encoding_rs::{Encoding, BIG5, EUC_KR, GBK, SHIFT_JIS};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// Helpers

fn games(s: &str) -> Vec<Result<GameRecord, RecordError>> {
    read_games(s.as_bytes()).games
}

#[track_caller]
fn ok(s: &str) -> GameRecord {
    match games(s).into_iter().next() {
        Some(Ok(g)) => g,
        other => panic!("expected a game from {s:?}, got {other:?}"),
    }
}

#[track_caller]
fn err(s: &str) -> RecordError {
    match games(s).into_iter().next() {
        Some(Err(e)) => e,
        other => panic!("expected a reject from {s:?}, got {other:?}"),
    }
}

fn pt(sgf: &str) -> Point {
    let (r, c) = crate::coord::sgf_point(sgf, 19).unwrap();
    Point::new(r, c).unwrap()
}

fn play(sgf: &str) -> Move {
    Move::Play(pt(sgf))
}

fn outcome(g: &Result<GameRecord, RecordError>) -> &'static str {
    match g {
        Ok(_) => "ok",
        Err(e) => e.reason.as_str(),
    }
}

fn encode(enc: &'static Encoding, s: &str) -> Vec<u8> {
    let (b, _, had_errors) = enc.encode(s);
    assert!(!had_errors, "{s} not encodable in {}", enc.name());
    b.into_owned()
}

fn utf16(s: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let units = if bom { vec![0xFEFFu16] } else { vec![] };
    for u in units.into_iter().chain(s.encode_utf16()) {
        out.extend_from_slice(&if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
    }
    out
}

/// Up to `n` characters (kana and CJK) whose two-byte encoding in `enc` ends in `trail`.
fn with_trail(enc: &'static Encoding, trail: u8, n: usize) -> String {
    (0x3041u32..0x9FA5)
        .filter_map(char::from_u32)
        .filter(|c| {
            let mut buf = [0; 4];
            let (b, _, e) = enc.encode(c.encode_utf8(&mut buf));
            !e && b.len() == 2 && b[1] == trail
        })
        .take(n)
        .collect()
}

/// Runs `f` on a thread with a small stack, to prove the absence of per-node recursion.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(256 * 1024).spawn(f).unwrap().join().expect("thread panicked")
}

// ---------------------------------------------------------------------------------------
// Decoding

#[test]
fn decode_boms_and_utf16() {
    let sgf = "(;GM[1]CA[UTF-8]PB[柯洁]PW[Müller];B[pd];W[dp])";
    // (bytes, charset, had_bom)
    let mut bom8 = b"\xEF\xBB\xBF".to_vec();
    bom8.extend_from_slice(sgf.as_bytes());
    let table: Vec<(Vec<u8>, &str, bool)> = vec![
        (sgf.as_bytes().to_vec(), "UTF-8", false),
        (bom8, "UTF-8", true),
        (utf16(sgf, false, true), "UTF-16LE", true),
        (utf16(sgf, true, true), "UTF-16BE", true),
        (utf16(sgf, false, false), "UTF-16LE", false),
        (utf16(sgf, true, false), "UTF-16BE", false),
        (utf16(&format!("\n  {sgf}"), true, false), "UTF-16BE", false),
    ];
    for (bytes, charset, bom) in table {
        let d = decode(&bytes);
        assert_eq!((d.charset, d.had_bom, d.malformed), (charset, bom, false), "{charset} bom={bom}");
        assert!(d.text.trim_start().starts_with("(;GM[1]"), "{charset}: {:?}", &d.text[..10.min(d.text.len())]);
        let f = read_games(&bytes);
        let g = f.games[0].as_ref().unwrap();
        assert_eq!(g.black.as_deref(), Some("柯洁"), "{charset}");
        assert_eq!(g.white.as_deref(), Some("Müller"), "{charset}");
        assert_eq!(g.moves.len(), 2, "{charset}");
        assert_eq!(g.charset, charset);
    }
}

#[test]
fn decode_declared_charsets_with_ascii_trail_bytes() {
    // Characters whose second byte is `\` (0x5C) or `]` (0x5D): a byte-level tokenizer
    // ends values early or escapes the next byte. Decoding first keeps them whole.
    for (enc, label) in
        [(BIG5, "Big5"), (SHIFT_JIS, "Shift_JIS"), (GBK, "GB18030"), (GBK, "GB2312"), (SHIFT_JIS, "MS_KANJI")]
    {
        let bs = with_trail(enc, b'\\', 3);
        let br = with_trail(enc, b']', 3);
        assert!(bs.chars().count() == 3 && br.chars().count() == 3, "{label}: no test characters");
        let name = format!("{bs}{br}");
        let comment = format!("{br} then {bs}");
        let mut bytes = format!("(;GM[1]FF[4]CA[{label}]SZ[19]PB[").into_bytes();
        bytes.extend(encode(enc, &name));
        bytes.extend_from_slice(b"]PW[White]C[");
        bytes.extend(encode(enc, &comment));
        bytes.extend_from_slice(b"];B[pd];W[dp];B[pp])");
        let f = read_games(&bytes);
        assert!(!f.charset_fallback && f.declared_used, "{label}");
        assert_eq!(f.declared_charset.as_deref(), Some(label));
        let g = f.games[0].as_ref().unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(g.black.as_deref(), Some(name.as_str()), "{label}");
        assert_eq!(g.white.as_deref(), Some("White"), "{label}");
        assert_eq!(g.moves.len(), 3, "{label}");
        assert!(g.issues.is_empty(), "{label}: {:?}", g.issues);
    }
}

#[test]
fn decode_without_declaration_guesses() {
    // (text, encoding used to write it, expected charset, fallback_used)
    let long_zh = "黑先白后，这是从压长星定式演变而来的形。怎样攻击碰在黑壁上的白三子呢？";
    let long_ko = "바둑은 중국에서 잊혀진 기원에서 처음에는 동아시아의 나머지 지역으로 퍼진 후";
    let long_ja = "黒の中押し勝ち。ソパルコサノル世界最高棋士決定戦";
    let table: [(&str, &'static Encoding, &str, bool); 7] = [
        (long_zh, GBK, "gb18030", true),
        (long_ko, EUC_KR, "EUC-KR", true),
        (long_ja, SHIFT_JIS, "Shift_JIS", true),
        ("Müller, José, Øster", encoding_rs::WINDOWS_1252, "windows-1252", true),
        ("Fichier SGF créé par TurboGo, hörru", encoding_rs::WINDOWS_1252, "windows-1252", true),
        ("白", GBK, "gb18030", true),
        ("plain ascii", encoding_rs::WINDOWS_1252, "UTF-8", false),
    ];
    for (text, enc, charset, fallback) in table {
        let mut bytes = b"(;GM[1]C[".to_vec();
        bytes.extend(encode(enc, text));
        bytes.extend_from_slice(b"];B[aa])");
        let d = decode(&bytes);
        assert_eq!((d.charset, d.fallback_used, d.malformed), (charset, fallback, false), "{text}");
        assert!(d.text.contains(text), "{charset}: {}", d.text);
    }
}

#[test]
fn decode_damaged_and_mislabelled_utf8() {
    // Fox: CA[UTF-8], a name cut in the middle of a 3-byte character.
    let mut bytes = "(;CA[UTF-8]PW[柯洁]C[黑胜]PB[你".as_bytes().to_vec();
    bytes.extend_from_slice(b"\xe5\x9b];B[pd])");
    let f = read_games(&bytes);
    assert_eq!((f.charset, f.malformed_text, f.charset_fallback), ("UTF-8", true, false));
    let g = f.games[0].as_ref().unwrap();
    assert_eq!(g.white.as_deref(), Some("柯洁"));
    assert_eq!(g.black.as_deref(), Some("你\u{FFFD}"));
    assert_eq!(g.moves.len(), 1);

    // A legacy CA on a file that was re-saved as UTF-8.
    let d = decode("(;CA[ISO-8859-1]PB[Müller])".as_bytes());
    assert_eq!((d.charset, d.declared_used), ("UTF-8", false));
    assert!(d.text.contains("Müller"));
    let d = decode("(;CA[GB2312]PB[柯洁]PW[古力])".as_bytes());
    assert_eq!((d.charset, d.declared_used), ("UTF-8", false));
    // Pure ASCII with a legacy CA: decoded with it.
    let d = decode(b"(;CA[ISO8859_1]PB[x])");
    assert_eq!((d.charset, d.declared_used, d.declared.as_deref()), ("windows-1252", true, Some("ISO8859_1")));
    // CA[UTF-16] on 8-bit bytes cannot be right.
    let d = decode(b"(;CA[UTF-16]PB[x])");
    assert_eq!((d.charset, d.declared_used), ("UTF-8", false));
    // Unknown label.
    let d = decode(b"(;CA[foo]PB[x])");
    assert_eq!((d.charset, d.declared_used, d.declared.as_deref()), ("UTF-8", false, Some("foo")));
}

#[test]
fn charset_labels() {
    let table = [
        ("UTF-8", Some("UTF-8")),
        ("utf8", Some("UTF-8")),
        ("UTF8", Some("UTF-8")),
        ("ISO-8859-1", Some("windows-1252")),
        ("ISO8859_1", Some("windows-1252")),
        ("ISO8859-1", Some("windows-1252")),
        ("Latin1", Some("windows-1252")),
        ("ISO-8859-15", Some("ISO-8859-15")),
        ("MS_KANJI", Some("Shift_JIS")),
        ("SJIS", Some("Shift_JIS")),
        ("Shift-JIS", Some("Shift_JIS")),
        ("GB2312", Some("GBK")),
        ("GB18030", Some("gb18030")),
        ("EUC-CN", Some("gb18030")),
        ("CP936", Some("gb18030")),
        ("Big5", Some("Big5")),
        ("EUC-KR", Some("EUC-KR")),
        ("KSC5601", Some("EUC-KR")),
        ("macintosh", Some("macintosh")),
        ("MacRoman", Some("macintosh")),
        ("Windows-1251", Some("windows-1251")),
        ("CP1251", Some("windows-1251")),
        ("ISO-2022-JP", Some("ISO-2022-JP")),
        ("UTF-16BE", Some("UTF-16BE")),
        ("UTF16LE", Some("UTF-16LE")),
        ("foo", None),
        ("", None),
        ("ISO-2022-KR", None), // WHATWG "replacement": would decode to one U+FFFD
    ];
    for (label, name) in table {
        assert_eq!(decode::encoding_for_label(label).map(|e| e.name()), name, "{label}");
    }
}

#[test]
fn find_ca_rules() {
    assert_eq!(decode::find_ca(b"(;FF[4]CA[ UTF-8 ]GM[1])"), Some(&b"UTF-8"[..]));
    assert_eq!(decode::find_ca(b"(;TCA[x]CA[Big5])"), Some(&b"Big5"[..]));
    assert_eq!(decode::find_ca(b"(;CA[GBK])(;CA[UTF-8])"), Some(&b"GBK"[..]));
    assert_eq!(decode::find_ca(b"(;CA[])"), None);
    assert_eq!(decode::find_ca(b"(;GM[1])"), None);
    assert_eq!(decode::find_ca(b"\xff\xfe(;CA[Big5]"), Some(&b"Big5"[..]));
    assert_eq!(decode::find_ca(b"CA["), None);
}

// ---------------------------------------------------------------------------------------
// Grammar

fn kinds(t: &Tree<'_>) -> Vec<&'static str> {
    t.issues.iter().map(|i| i.kind.as_str()).collect()
}

#[test]
fn junk_before_and_between_trees() {
    let text = "This file (MA property) has prose.\nSee FF[4].\n(\n;GM[1]B[aa])\njunk ) (;W[bb]) trailing";
    let c = parse(text);
    assert_eq!(c.trees.len(), 2);
    assert_eq!(c.trees[0].offset, text.find("(\n;").unwrap());
    assert_eq!(c.trees[0].issues[0], ParseIssue { offset: 0, kind: IssueKind::JunkBefore });
    assert!(c.trees[1].has(IssueKind::JunkBefore));
    assert_eq!(
        c.warnings,
        vec![ParseIssue { offset: text.find("trailing").unwrap(), kind: IssueKind::TrailingGarbage }]
    );
    let g = games(text);
    assert!(g[0].as_ref().unwrap().quirks.junk_before);
}

#[test]
fn missing_semicolon_forms() {
    // No `(;` anywhere: the first `(` followed by a property is a tree (Nihon Ki-in export).
    let c = parse("(\nPB[x]\n;B[pd];W[dp])");
    assert_eq!(c.trees.len(), 1);
    assert_eq!(c.trees[0].len(), 3);
    assert_eq!(kinds(&c.trees[0]), ["missing_semicolon"]);
    assert_eq!(ok("(\nPB[x]\n;B[pd];W[dp])").moves.len(), 2);
    // With a proper tree later, a `(` + property before it is junk (SGFC's test file).
    let c = parse("(CA[UTF-8])(;FF[4]CA[ISO-8859-3])");
    assert_eq!(c.trees.len(), 1);
    // Between trees both forms start a tree.
    let c = parse("(;B[aa])(W[bb])");
    assert_eq!(c.trees.len(), 2);
    // Properties after a `)` go into a new node.
    let c = parse("(;B[aa](;W[bb])C[x];B[cc])");
    let t = &c.trees[0];
    assert!(t.has(IssueKind::MissingSemicolon));
    assert_eq!(t.children(0).count(), 2);
}

#[test]
fn missing_close_paren_and_empty_trees() {
    let c = parse("(;GM[1];B[aa];W[bb]");
    assert_eq!(kinds(&c.trees[0]), ["missing_close_paren"]);
    let g = ok("(;GM[1];B[aa];W[bb]");
    assert_eq!(g.moves.len(), 2);
    assert!(g.quirks.missing_close_paren);
    // Truncated in the middle of a variation.
    assert_eq!(ok("(;B[aa](;W[bb];B[cc]").moves.len(), 3);

    // Before the first tree `()` is junk; after it, an empty tree.
    let c = parse("() (;B[aa]()) ( )");
    assert_eq!(c.trees.len(), 1);
    assert_eq!(c.warnings, vec![ParseIssue { offset: 14, kind: IssueKind::EmptyTree }]);
    assert_eq!(kinds(&c.trees[0]), ["junk_before", "empty_variation"]);
    assert_eq!(games("()").len(), 1);
    assert_eq!(err("()").reason, RejectReason::ParseError);
}

#[test]
fn unterminated_value_fails_only_its_tree() {
    let text = "(;B[aa])(;W[bb];C[oops";
    let c = parse(text);
    assert_eq!(c.trees.len(), 2);
    assert!(c.trees[0].error.is_none());
    let e = c.trees[1].error.unwrap();
    assert_eq!(e, ParseIssue { offset: text.find("[oops").unwrap(), kind: IssueKind::UnterminatedValue });
    assert!(e.kind.is_error());
    let g = games(text);
    assert_eq!(g.iter().map(outcome).collect::<Vec<_>>(), ["ok", "parse_error"]);
    let e = g[1].as_ref().unwrap_err();
    assert_eq!(
        (e.offset, e.detail.as_str(), e.move_number),
        (Some(text.find("[oops").unwrap()), "unterminated_value", None)
    );
    // A value open at the end right after its identifier.
    assert_eq!(err("(;GM[1]PB[abc").reason, RejectReason::ParseError);
    assert_eq!(err("(;GM[1]B[").reason, RejectReason::ParseError);
}

#[test]
fn identifiers_old_style() {
    // (input, identifiers of the first node, issue kinds)
    let table: [(&str, &[&str], &[&str]); 7] = [
        ("(;AddBlack[aa]SiZe[19]PlayerBlack[x])", &["AB", "SZ", "PB"], &["lowercase_ident"]),
        ("(;b[cc]w[dd])", &["B", "W"], &["lowercase_ident"]),
        ("(;ab[cc])", &["AB"], &["lowercase_ident"]),
        ("(;illegal[x]B[aa])", &["B"], &["dropped_ident"]),
        ("(;CoPyright[x]KoMi[6.5])", &["CP", "KM"], &["lowercase_ident"]),
        ("(;XXXXXXXXXXXXXXXXXXXXXXXX[long]B[aa])", &["XXXXXXXXXXXXXXXXXXXXXXXX", "B"], &[]),
        ("(; illegal_chars FF[4])", &["FF"], &["dropped_ident", "stray_char", "dropped_ident"]),
    ];
    for (text, idents, issues) in table {
        let c = parse(text);
        let t = &c.trees[0];
        let got: Vec<&str> = t.props(0).map(|p| p.ident).collect();
        assert_eq!(got, idents, "{text}");
        assert_eq!(kinds(t), issues, "{text}");
    }
    let g = ok("(;GaMe[1]SiZe[19]PlayerBlack[Robin]KoMi[6];Black[qc];White[cp])");
    assert_eq!((g.black.as_deref(), g.komi, g.moves.len()), (Some("Robin"), Some(6.0), 2));
    assert!(g.quirks.lowercase_idents);
}

#[test]
fn values_whitespace_repeats_and_garbage() {
    let c = parse("(;AB[pd] [dp]\n\t[pp] AP[GNU Go:3.8]AP[foxwq]W[ff] W[gg] KM[6.5])");
    let t = &c.trees[0];
    assert_eq!(t.get(0, "AB").unwrap(), ["pd", "dp", "pp"]);
    assert_eq!(t.get(0, "AP").unwrap(), ["GNU Go:3.8", "foxwq"]);
    assert_eq!(t.get(0, "W").unwrap(), ["ff", "gg"]);
    assert_eq!(t.props(0).map(|p| p.ident).collect::<Vec<_>>(), ["AB", "AP", "W", "KM"]);
    assert_eq!(kinds(t), ["repeated_property", "repeated_property"]);

    // Property without value, stray value, stray characters: skipped, located.
    let text = "(;GM[1]AB;B[aa]12 *;[x]W[bb])";
    let c = parse(text);
    let t = &c.trees[0];
    assert_eq!(
        t.issues,
        vec![
            ParseIssue { offset: text.find("AB").unwrap(), kind: IssueKind::MissingValue },
            ParseIssue { offset: text.find("12").unwrap(), kind: IssueKind::StrayChar },
            ParseIssue { offset: text.find("[x]").unwrap(), kind: IssueKind::StrayValue },
        ]
    );
    let g = ok(text);
    assert_eq!(g.moves.len(), 2);
    assert_eq!(g.quirks.syntax_issues, 3);
}

#[test]
fn repeated_properties_in_a_huge_node_stay_linear() {
    // 20,000 properties in one node, half of them repeats: must not be quadratic.
    let mut text = String::from("(;GM[1]");
    for i in 0..10_000 {
        text.push_str(&format!("X{}[{}]", ["A", "B"][i % 2], i));
    }
    for i in 0..10_000 {
        let a = (b'A' + (i % 26) as u8) as char;
        let b = (b'A' + (i / 26 % 26) as u8) as char;
        let c = (b'A' + (i / 676 % 26) as u8) as char;
        text.push_str(&format!("Q{a}{b}{c}[v]"));
    }
    text.push(')');
    let t0 = std::time::Instant::now();
    let c = parse(&text);
    let t = &c.trees[0];
    assert_eq!(t.get(0, "XA").unwrap().len(), 5_000);
    assert_eq!(t.get(0, "XB").unwrap()[1], "3");
    assert!(t.has(IssueKind::RepeatedProperty));
    assert!(t0.elapsed().as_secs() < 5);
}

#[test]
fn tree_structure_and_main_line() {
    let text = "(;GM[1](;B[aa];W[bb](;B[cc])(;B[dd]))(;B[ee]))(;C[second])";
    let c = parse(text);
    assert_eq!(c.trees.len(), 2);
    let t = &c.trees[0];
    assert_eq!(t.len(), 6);
    let main: Vec<&str> = t.main_line().skip(1).map(|n| t.props(n).next().unwrap().values[0]).collect();
    assert_eq!(main, ["aa", "bb", "cc"]);
    assert_eq!(t.children(0).count(), 2);
    assert_eq!(t.nodes[5].parent(), Some(0));
    assert_eq!((t.nodes[0].parent(), t.nodes[0].first_child(), t.nodes[1].next_sibling()), (None, Some(1), Some(5)));
    assert!(t.has_variations());
    assert_eq!(c.trees[1].offset, text.find("(;C[").unwrap());
    let g = ok("(;GM[1](;B[aa];W[bb](;B[cc])(;B[dd]))(;B[ee]))");
    assert_eq!(g.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), [play("aa"), play("bb"), play("cc")]);
    assert!(g.quirks.variations);
}

#[test]
fn no_game_tree() {
    for text in ["", "   \n", "this is not an .sgf file", "(MA property)", "\u{0}\u{1}binary(", "()"] {
        let f = read_games(text.as_bytes());
        assert_eq!(f.games.len(), 1, "{text:?}");
        assert_eq!(f.games[0].as_ref().unwrap_err().reason, RejectReason::ParseError, "{text:?}");
    }
    let f = read_games(b"nothing here");
    assert_eq!(f.games[0].as_ref().unwrap_err().detail, "no SGF game found");
    assert_eq!(f.issues[0].kind, IssueKind::NoGameTree);
}

fn long_line(n: usize) -> String {
    let mut s = String::from("(;GM[1]FF[4]SZ[19]");
    for i in 0..n {
        s.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[bb]" });
    }
    s.push(')');
    s
}

fn nested_line(n: usize) -> String {
    let mut s = String::from("(;GM[1]SZ[19]");
    for i in 0..n {
        s.push_str(if i % 2 == 0 { "(;B[aa]" } else { "(;W[bb]" });
    }
    s.push_str(&")".repeat(n + 1));
    s
}

#[test]
fn deep_lines_on_a_small_stack() {
    for n in [5_000usize, 50_000] {
        let (moves, nodes) = on_small_stack(move || {
            let text = long_line(n);
            let nodes = parse(&text).trees[0].len();
            let g = read_games(text.as_bytes()).games.remove(0).unwrap();
            (g.moves.len(), nodes)
        });
        assert_eq!((moves, nodes), (n, n + 1));
        let (moves, ok_paren) = on_small_stack(move || {
            let text = nested_line(n);
            let c = parse(&text);
            let ok_paren = !c.trees[0].has(IssueKind::MissingCloseParen);
            (read_games(text.as_bytes()).games.remove(0).unwrap().moves.len(), ok_paren)
        });
        assert_eq!((moves, ok_paren), (n, true));
        // Truncated deep nesting, and a deep file of 5 trees like deep-game-tree.sgf.
        let outcome = on_small_stack(move || {
            let text = nested_line(n);
            let cut = &text[..text.len() - n / 2];
            read_games(cut.as_bytes()).games.remove(0).map(|g| (g.moves.len(), g.quirks.missing_close_paren))
        });
        assert_eq!(outcome, Ok((n, true)));
    }
}

// ---------------------------------------------------------------------------------------
// Value text

#[test]
fn value_text() {
    // (raw, text_value, simple_text)
    let table = [
        ("plain", "plain", "plain"),
        (r"a\]b", "a]b", "a]b"),
        (r"a\\b", r"a\b", r"a\b"),
        (r"a\:b\x", "a:bx", "a:bx"),
        ("soft\\\nbreak", "softbreak", "softbreak"),
        ("soft\\\r\nbreak", "softbreak", "softbreak"),
        ("soft\\\n\rbreak", "softbreak", "softbreak"),
        ("soft\\\rbreak", "softbreak", "softbreak"),
        ("hard\nbreak", "hard\nbreak", "hard break"),
        ("crlf\r\nline", "crlf\nline", "crlf line"),
        ("lfcr\n\rline", "lfcr\nline", "lfcr line"),
        ("cr\rline", "cr\nline", "cr line"),
        ("two\n\nlines", "two\n\nlines", "two  lines"),
        ("tab\there\x0bv\x0cf", "tab here v f", "tab here v f"),
        ("esc\\\tab", "esc ab", "esc ab"),
        ("trailing\\", "trailing", "trailing"),
        ("中文\\]字", "中文]字", "中文]字"),
    ];
    for (raw, text, simple) in table {
        assert_eq!(text_value(raw), text, "{raw:?}");
        assert_eq!(simple_text(raw), simple, "{raw:?}");
        assert_eq!(unescape(raw), simple, "{raw:?}");
    }
    assert!(matches!(unescape("pd"), std::borrow::Cow::Borrowed("pd")));
}

#[test]
fn compose_values() {
    assert_eq!(split_compose("aa:cc"), Some(("aa", "cc")));
    assert_eq!(split_compose(r"a\:b:c"), Some((r"a\:b", "c")));
    assert_eq!(split_compose("19"), None);
    assert_eq!(split_compose(r"x\\:y"), Some((r"x\\", "y")));
    // libsgfc++'s escaping.sgf, AP value (its expected output in escaping-output.txt).
    let raw = r"First \: SimpleText \: value \: with \: [neces\\sary\] \: escape:Second \: \u\n\n\e\c";
    let (a, b) = split_compose(raw).unwrap();
    assert_eq!(simple_text(a), r"First : SimpleText : value : with : [neces\sary] : escape");
    assert_eq!(simple_text(b), "Second : unnec");
}

// ---------------------------------------------------------------------------------------
// Records

#[test]
fn moves_passes_and_coordinates() {
    let g = ok("(;GM[1]FF[4]SZ[19];B[pd];W[];B[tt];W[ss];B[aa][bb];B[ cc ])");
    assert_eq!(
        g.moves,
        vec![
            GameMove { color: Color::Black, mv: play("pd") },
            GameMove { color: Color::White, mv: Move::Pass },
            GameMove { color: Color::Black, mv: Move::Pass },
            GameMove { color: Color::White, mv: play("ss") },
            GameMove { color: Color::Black, mv: play("aa") },
            GameMove { color: Color::Black, mv: play("bb") },
            GameMove { color: Color::Black, mv: play("cc") },
        ]
    );
    assert_eq!(g.moves[0].mv, Move::Play(Point { row: 3, col: 15 }));
    assert_eq!((g.quirks.tt_pass, g.quirks.multi_move_nodes, g.quirks.non_alternating), (1, 1, 2));
    assert_eq!(g.quirks.names(), ["tt_pass", "non_alternating", "multi_move_nodes"]);
    assert!(ok("(;B[aa])").quirks.names().is_empty());

    // `tt` is a pass only up to 19×19; on 21×21 the game is rejected for its size and
    // `tt` is never read as a pass.
    let e = err("(;SZ[21];B[tt])");
    assert_eq!((e.reason, e.detail.as_str()), (RejectReason::SizeNot19, "21"));
    assert!(sgf_move_sized("tt", 21).is_err());
    assert_eq!(sgf_move_sized("tt", 19), Ok(Move::Pass));

    // (text, move number, detail)
    let table = [
        ("(;SZ[19];B[zz])", 1, "B[zz]: off the board"),
        ("(;B[pd];W[R16])", 2, "W[R16]: malformed"),
        ("(;B[pd];W[Pass])", 2, "W[Pass]: malformed"),
        ("(;B[pd];W[dp];B[ta])", 3, "B[ta]: off the board"),
        ("(;B[PD])", 1, "B[PD]: off the board"),
        ("(;B[90])", 1, "B[90]: malformed"),
        ("(;B[c   c])", 1, "B[c   c]: malformed"),
        ("(;B[a])", 1, "B[a]: malformed"),
        ("(;B[aa][too much values])", 2, "B[too much values]: malformed"),
    ];
    for (text, n, detail) in table {
        let e = err(text);
        assert_eq!(
            (e.reason, e.move_number, e.detail.as_str()),
            (RejectReason::BadCoordinate, Some(n), detail),
            "{text}"
        );
        let ident = &detail[..detail.find('[').unwrap()];
        assert_eq!(e.offset, text.rfind(&format!("{ident}[")), "{text}");
    }
}

#[test]
fn game_type_and_size() {
    // (text, outcome, detail)
    let table = [
        ("(;B[aa])", "ok", ""),
        ("(;GM[1]SZ[19]B[aa])", "ok", ""),
        ("(;SZ[ 19 ];B[aa])", "ok", ""),
        ("(;SZ[19:19];B[aa])", "ok", ""),
        ("(;GM[2])", "not_go", "GM[2]"),
        ("(;GM[game of go])", "not_go", "GM[game of go]"),
        ("(;GM[19];B[Move])", "not_go", "GM[19]"),
        ("(;SZ[9];B[zz])", "size_not_19", "9"),
        ("(;SZ[19:13])", "size_not_19", "19:13"),
        ("(;SZ[-10])", "size_not_19", "-10"),
        ("(;SZ[abc])", "size_not_19", "abc"),
        ("(;SZ[])", "size_not_19", ""),
        ("(;AB[pp]AW[cp]SZ[9])", "size_not_19", "9"),
        ("(;AB[zz]SZ[25])", "size_not_19", "25"),
        ("(;GM[3]SZ[9])", "not_go", "GM[3]"),
        ("(;;SZ[9];B[aa])", "size_not_19", "9"),
    ];
    for (text, want, detail) in table {
        let g = &games(text)[0];
        assert_eq!(outcome(g), want, "{text}");
        if let Err(e) = g {
            assert_eq!(e.detail, detail, "{text}");
        }
    }
    let g = ok("(;SZ[19:19];B[aa])");
    assert!(g.quirks.size_compose);
    assert_eq!((g.size, g.game_type), ((19, 19), None));
    assert_eq!(ok("(;GM[1])").game_type, Some(1));
}

#[test]
fn setup_and_compressed_lists() {
    let g = ok("(;GM[1]AB[aa:cc][pd]AW[dd]AE[bb];W[qq])");
    let mut black: Vec<Point> = ["aa", "ba", "ca", "ab", "ac", "cb", "bc", "cc", "pd"].iter().map(|s| pt(s)).collect();
    black.sort();
    assert_eq!(g.setup_black, black);
    assert_eq!(g.setup_white, vec![pt("dd")]);
    assert!(g.quirks.compressed_lists && !g.quirks.reversed_rectangle);
    // Reversed corners, 1×1 rectangle, AW over AB in the same node.
    let g = ok("(;AB[cc:aa][dd:dd]AW[aa])");
    assert_eq!(g.setup_black.len(), 9);
    assert_eq!(g.setup_white, vec![pt("aa")]);
    assert!(g.quirks.reversed_rectangle);
    // Off-board setup: rejected, no move number, detail names the property.
    for (text, detail) in [
        ("(;AB[aa:zz])", "AB[aa:zz]: off the board"),
        ("(;AW[tt])", "AW[tt]: off the board"),
        ("(;B[aa];AE[a])", "AE[a]: malformed"),
    ] {
        let e = err(text);
        assert_eq!((e.reason, e.move_number, e.detail.as_str()), (RejectReason::BadCoordinate, None, detail), "{text}");
    }
    // Empty setup value skipped.
    let g = ok("(;AW[]AB[aa])");
    assert!(g.quirks.empty_setup_value);
    assert_eq!(g.setup_black.len(), 1);
}

#[test]
fn setup_before_and_after_the_first_move() {
    // Fox: handicap stones in the node after the root; KataGo's foxlike: in the first
    // move's node.
    let g = ok("(;GM[1]HA[2];AB[pd][dp];W[dc];B[ce])");
    assert_eq!((g.setup_black.len(), g.handicap, g.moves.len()), (2, 2, 2));
    assert!(g.quirks.handicap_after_root && !g.quirks.setup_after_root && !g.quirks.handicap_stones_missing);
    let g = ok("(;HA[2];AB[pd][dp]W[dc];B[ce])");
    assert_eq!((g.setup_black.len(), g.moves.len()), (2, 2));
    assert!(g.quirks.setup_in_move_node);
    // Root setup, then more before the first move, with AE.
    let g = ok("(;AB[aa][bb];AE[aa]AW[cc];PL[W];W[dd])");
    assert_eq!((g.setup_black.clone(), g.setup_white.clone()), (vec![pt("bb")], vec![pt("cc")]));
    assert_eq!(g.first_player, Some(Color::White));
    // After the first move: MidSetup.
    let g = ok("(;B[aa];W[bb];AB[cc:cd]AE[aa];PL[black];B[dd])");
    assert_eq!(
        g.mid_setup,
        vec![MidSetup { before_move: 2, black: vec![pt("cc"), pt("cd")], white: vec![], empty: vec![pt("aa")] }]
    );
    assert!(g.quirks.setup_after_root && g.quirks.pl_after_root);
    assert_eq!(g.first_player, None);
    // HA without stones: recorded, nothing invented.
    let g = ok("(;HA[3])");
    assert_eq!((g.handicap, g.setup_black.len()), (3, 0));
    assert!(g.quirks.handicap_stones_missing);
}

#[test]
fn komi_normalisation() {
    // (KM, AP, komi, fox_komi_scaled, komi_in_zi)
    let table: [(&str, &str, Option<f32>, bool, bool); 16] = [
        ("6.5", "", Some(6.5), false, false),
        ("650", "foxwq", Some(6.5), true, false),
        ("375", "foxwq", Some(7.5), true, true),
        ("325", "", Some(6.5), true, true),
        ("275", "foxwq", Some(5.5), true, true),
        ("750", "", Some(7.5), true, false),
        ("0", "foxwq", Some(6.5), false, false),
        ("11", "", Some(11.0), false, false),
        ("-1.5", "", Some(-1.5), false, false),
        ("0.500000", "", Some(0.5), false, false),
        ("7,5", "", Some(7.5), false, false),
        ("5 1/2", "", Some(5.5), false, false),
        ("3.75", "", Some(7.5), false, true),
        ("130", "", Some(130.0), false, false),
        ("abc", "", None, false, false),
        ("", "", None, false, false),
    ];
    for (km, ap, komi, fox, zi) in table {
        let ap = if ap.is_empty() { String::new() } else { format!("AP[GNU Go:3.8]AP[{ap}]") };
        let g = ok(&format!("(;GM[1]KM[{km}]{ap};B[pd])"));
        assert_eq!((g.komi, g.quirks.fox_komi_scaled, g.quirks.komi_in_zi), (komi, fox, zi), "KM[{km}] {ap}");
        assert_eq!(g.komi_raw.as_deref(), Some(km));
    }
    assert_eq!(ok("(;B[aa])").komi, None);
}

#[test]
fn fox_conventions_by_content_whatever_the_ap() {
    // (record, komi, handicap, fox_komi_zero, fox_handicap_one)
    let table: [(&str, Option<f32>, u32, bool, bool); 8] = [
        ("(;KM[0]AP[foxwq];B[pd])", Some(6.5), 0, true, false),
        ("(;KM[0]AP[YuanYu]RE[B+2.5];B[pd])", Some(6.5), 0, true, false),
        ("(;KM[0]RU[Japanese]RE[W+0.5];B[pd])", Some(6.5), 0, true, false),
        // A whole-point margin or none: a genuine no-komi game (GNU Go's, KGS's).
        ("(;KM[0]RU[Japanese]RE[W+11.0];B[pd])", Some(0.0), 0, false, false),
        ("(;KM[0]RE[B+R];B[pd])", Some(0.0), 0, false, false),
        // Handicap games keep their 0.
        ("(;KM[0]HA[2]AB[pd][dp]AP[foxwq]RE[W+3.5];W[pp])", Some(0.0), 2, false, false),
        // HA[1]: an even game without komi.
        ("(;KM[0]HA[1]AP[foxwq]RE[B+R];B[pd])", Some(0.0), 0, false, true),
        ("(;KM[0]HA[1]RE[B+7.50];B[pd])", Some(0.0), 0, false, true),
    ];
    for (sgf, komi, handicap, zero, one) in table {
        let g = ok(sgf);
        assert_eq!(
            (g.komi, g.handicap, g.quirks.fox_komi_zero, g.quirks.fox_handicap_one),
            (komi, handicap, zero, one),
            "{sgf}"
        );
        assert_eq!(g.komi_raw.as_deref(), Some("0"), "{sgf}");
    }
}

#[test]
fn a_fox_record_is_told_by_what_it_holds() {
    // (record, komi, fox_by_content): Fox's KM[0] in an even game is 6.5 whatever the
    // result when the record is Fox's by two of: AP[YuanYu], TC and TT, a 段/级 rank.
    let fox = "(;KM[0]HA[0]RU[Japanese]AP[YuanYu]BR[9段]WR[8段]TM[1200]TC[3]TT[30]RE[B+R];B[pd])";
    let table: [(&str, Option<f32>, bool); 9] = [
        (fox, Some(6.5), true),
        ("(;KM[0]AP[YuanYu]TC[3]TT[30]RE[W+T];B[pd])", Some(6.5), true),
        ("(;KM[0]BR[15级]WR[14级]TC[3]TT[30];B[pd])", Some(6.5), true),
        ("(;KM[0]AP[YuanYu]BR[1段]RE[B+R];B[pd])", Some(6.5), true),
        // One piece of evidence alone is not enough.
        ("(;KM[0]AP[YuanYu]RE[B+R];B[pd])", Some(0.0), false),
        ("(;KM[0]TC[3]TT[30]RE[B+R];B[pd])", Some(0.0), false),
        ("(;KM[0]BR[3段]RE[B+R];B[pd])", Some(0.0), false),
        // KGS's and GNU Go's genuine no-komi games stay at 0.
        ("(;KM[0]RU[Japanese]BR[5d]WR[3k]TM[1800]OT[5x30 byo-yomi]AP[CGoban:3]RE[B+R];B[pd])", Some(0.0), false),
        ("(;KM[0]RU[Japanese]AP[GNU Go:3.8]RE[W+11];B[pd])", Some(0.0), false),
    ];
    for (sgf, komi, by_content) in table {
        let g = ok(sgf);
        assert_eq!((g.komi, g.quirks.fox_by_content), (komi, by_content), "{sgf}");
        assert_eq!(g.quirks.fox_komi_zero, komi == Some(6.5), "{sgf}");
        assert_eq!(g.komi_raw.as_deref(), Some("0"), "{sgf}: komi_raw keeps the evidence");
    }
    // AP[foxwq] alone decides, and is not "by content".
    let g = ok("(;KM[0]AP[foxwq]RE[B+R];B[pd])");
    assert_eq!((g.komi, g.quirks.fox_by_content, g.quirks.fox_komi_zero), (Some(6.5), false, true));
    // A Fox handicap game keeps its 0.
    let g = ok("(;KM[0]HA[2]AB[pd][dp]AP[YuanYu]TC[3]TT[30];W[pp])");
    assert_eq!(g.komi, Some(0.0));
    // TC/TT in a later node are another application's (GNU Go's TC[-153]): no evidence,
    // and not game info found after the root.
    let g = ok("(;KM[0]AP[YuanYu]RE[B+R];B[pd]TC[-153]TT[];W[dp])");
    assert_eq!((g.komi, g.quirks.fox_by_content, g.quirks.game_info_after_root), (Some(0.0), false, false));
}

#[test]
fn results() {
    use ResultKind::*;
    // (RE, winner, kind, margin)
    let table: [(&str, Option<Color>, ResultKind, Option<f32>); 31] = [
        ("B+R", Some(Color::Black), Resign, None),
        ("b+resign", Some(Color::Black), Resign, None),
        ("W+Resign", Some(Color::White), Resign, None),
        ("W+3.5", Some(Color::White), Score, Some(3.5)),
        ("B+0.50", Some(Color::Black), Score, Some(0.5)),
        ("W+12,5", Some(Color::White), Score, Some(12.5)),
        ("B+3.5 points", Some(Color::Black), Score, Some(3.5)),
        ("W+", Some(Color::White), Unknown, None),
        ("B+T", Some(Color::Black), Time, None),
        ("W+Time", Some(Color::White), Time, None),
        ("B+F", Some(Color::Black), Forfeit, None),
        ("W+Forfeit", Some(Color::White), Forfeit, None),
        ("Black+R", Some(Color::Black), Resign, None),
        ("White+2.5", Some(Color::White), Score, Some(2.5)),
        (" B+R ", Some(Color::Black), Resign, None),
        ("B+something", Some(Color::Black), Unknown, None),
        ("0", None, Draw, None),
        ("Draw", None, Draw, None),
        ("draw", None, Draw, None),
        ("Jigo", None, Draw, None),
        ("Void", None, Void, None),
        ("?", None, Unknown, None),
        ("", None, Unknown, None),
        ("black wins by 5 3/4 points", None, Unknown, None),
        ("john wins", None, Unknown, None),
        ("257手完, 黒中押し勝ち", Some(Color::Black), Resign, None),
        ("白中盘胜", Some(Color::White), Resign, None),
        ("黒1目半勝ち", Some(Color::Black), Score, Some(1.5)),
        ("흑 불계승", Some(Color::Black), Resign, None),
        ("백 3집반승", Some(Color::White), Score, Some(3.5)),
        ("和棋", None, Draw, None),
    ];
    for (re, winner, kind, margin) in table {
        let r = parse_result(re);
        assert_eq!((r.winner, r.kind, r.margin), (winner, kind, margin), "RE[{re}]");
        assert_eq!(r.raw.as_deref(), Some(re.trim()));
    }
    let g = ok("(;RE[W+3.5];B[aa])");
    assert_eq!((g.result.kind.as_str(), g.result.winner, g.result.margin), ("score", Some(Color::White), Some(3.5)));
    assert_eq!(ok("(;B[aa])").result, GameResult::none());
    let names: Vec<&str> = [Score, Resign, Time, Forfeit, Draw, Void, Unknown].iter().map(|k| k.as_str()).collect();
    assert_eq!(names, ["score", "resign", "time", "forfeit", "draw", "void", "unknown"]);
}

#[test]
fn ranks() {
    use RankKind::*;
    // (BR, kind, value, numeric)
    let table = [
        ("5d", Some((Dan, 5, 5))),
        ("5 dan", Some((Dan, 5, 5))),
        ("5D", Some((Dan, 5, 5))),
        ("3k", Some((Kyu, 3, -2))),
        ("1k", Some((Kyu, 1, 0))),
        ("30k", Some((Kyu, 30, -29))),
        ("15kyu", Some((Kyu, 15, -14))),
        ("2 kyu", Some((Kyu, 2, -1))),
        ("1p", Some((Pro, 1, 10))),
        ("9p", Some((Pro, 9, 18))),
        ("5d?", Some((Dan, 5, 5))),
        ("9d*", Some((Dan, 9, 9))),
        ("[4k]", Some((Kyu, 4, -3))),
        ("3段", Some((Dan, 3, 3))),
        ("9段", Some((Dan, 9, 9))),
        ("10段", Some((Dan, 10, 10))),
        ("九段", Some((Dan, 9, 9))),
        ("初段", Some((Dan, 1, 1))),
        ("P5段", Some((Pro, 5, 14))),
        ("プロ9段", Some((Pro, 9, 18))),
        ("5級", Some((Kyu, 5, -4))),
        ("15级", Some((Kyu, 15, -14))),
        ("2급", Some((Kyu, 2, -1))),
        ("5단", Some((Dan, 5, 5))),
        ("프로 9단", Some((Pro, 9, 18))),
        ("1 dan pro", Some((Pro, 1, 10))),
        ("프로", None),
        ("NR", None),
        ("Insei", None),
        ("?", None),
        ("0k", None),
        ("", None),
    ];
    for (raw, want) in table {
        let got = parse_rank(raw).map(|r| (r.kind, r.value, r.numeric));
        assert_eq!(got, want, "{raw:?}");
    }
    assert_eq!(parse_rank(" 3k ").unwrap().raw, "3k");
    let g = ok("(;BR[5d]WR[2급];B[aa])");
    assert_eq!(g.black_rank.map(|r| r.numeric), Some(5));
    assert_eq!(g.white_rank.map(|r| r.kind), Some(Kyu));
}

#[test]
fn dates() {
    let table = [
        ("2020-08-27", Some("2020-08-27")),
        ("1993-07-18,19", Some("1993-07-18")),
        ("1999/5/3", Some("1999-05-03")),
        ("2020年8月27日", Some("2020-08-27")),
        ("20200827", Some("2020-08-27")),
        ("2004-05", Some("2004-05")),
        ("1846", Some("1846")),
        ("[1846-09-11]", Some("1846-09-11")),
        ("18.03.2001", Some("2001-03-18")),
        ("13/5/1995", Some("1995-05-13")),
        ("5/13/1995", Some("1995-05-13")),
        ("5/6/1995", Some("1995")),
        ("Played on 2003-06-18 at 12:00", Some("2003-06-18")),
        ("13/5/95", None),
        ("12th and 13th march 94", None),
        ("a sunny afternoon last summer", None),
    ];
    for (dt, want) in table {
        assert_eq!(iso_date(dt).as_deref(), want, "{dt}");
    }
    let g = ok("(;DT[2020-08-27];B[aa])");
    assert_eq!((g.date.as_deref(), g.date_iso.as_deref()), (Some("2020-08-27"), Some("2020-08-27")));
}

#[test]
fn game_info_fields() {
    let text = "(;GM[1]FF[4]PB[ Lee\\]  Sedol ]PW[Hong\nJansik]BR[9p]WR[]EV[Event]RO[2 (final)]PC[Seoul]GN[Game]\
                AP[CGoban:3]SO[Go4Go]CP[(c) someone]RU[Japanese]HA[0]DT[2003-04-23];B[pd])";
    let g = ok(text);
    assert_eq!(g.black.as_deref(), Some("Lee]  Sedol"));
    assert_eq!(g.white.as_deref(), Some("Hong Jansik"));
    assert_eq!(g.black_rank.as_ref().map(|r| r.raw.as_str()), Some("9p"));
    assert_eq!(g.white_rank, None);
    assert_eq!(
        (g.event.as_deref(), g.round.as_deref(), g.place.as_deref(), g.game_name.as_deref()),
        (Some("Event"), Some("2 (final)"), Some("Seoul"), Some("Game"))
    );
    assert_eq!((g.application.as_deref(), g.rules.as_deref()), (Some("CGoban:3"), Some("Japanese")));
    assert_eq!(g.source_copyright.as_deref(), Some("Go4Go; (c) someone"));
    assert_eq!((g.index, g.offset, g.charset), (0, 0, "UTF-8"));
    // Game info outside the root (ff4_ex.sgf game 2).
    let g = ok("(;GM[1];B[pd](;PW[W. Hite]RE[W+3.5]W[dp])(;PW[T. Suji]W[cp]))");
    assert_eq!((g.white.as_deref(), g.moves.len()), (Some("W. Hite"), 2));
    assert!(g.quirks.game_info_after_root);
}

#[test]
fn collections_and_indices() {
    let text = "(;GM[1];B[aa])\n(;GM[2])\n(;SZ[9])\n(;B[zz])\n(;W[bb];B[cc])(;C[unterminated";
    let g = games(text);
    assert_eq!(
        g.iter().map(outcome).collect::<Vec<_>>(),
        ["ok", "not_go", "size_not_19", "bad_coordinate", "ok", "parse_error"]
    );
    let offsets: Vec<usize> = text.match_indices("(;").map(|(i, _)| i).collect();
    assert_eq!(g[4].as_ref().unwrap().index, 4);
    assert_eq!(g[4].as_ref().unwrap().offset, offsets[4]);
    assert_eq!(g[1].as_ref().unwrap_err().offset, Some(offsets[1] + 2));
    let e = g[3].as_ref().unwrap_err();
    assert_eq!((e.move_number, e.offset), (Some(1), Some(offsets[3] + 2)));
    assert_eq!(e.to_string(), format!("bad_coordinate: B[zz]: off the board (move 1) (at byte {})", offsets[3] + 2));
}

/// Deterministic mutations of real-looking input: read_games must never panic.
#[test]
fn never_panics_on_mutations() {
    let seeds: [&[u8]; 5] = [
        b"(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]HA[2]AB[pd][dp]PB[a\\]b]RE[W+R];W[dc](;B[aa:cc];W[tt])(;B[]C[x\\\ny]))",
        b"junk(;SZ[19:19]AB[aa:ss]AE[cc]PL[W];W[pp];AW[qq];B[R16])()",
        b"(;CA[Big5]PB[\xb3\\\xa5\\]C[\xa5]];B[pd])",
        b"\xff\xfe(\x00;\x00B\x00[\x00a\x00a\x00]\x00)\x00",
        b"(;AddBlack[aa]b[cc]illegal[x]B[aa]B[bb]\r\n;W[zz])",
    ];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let specials = b"()[];\\:\n\r \xe5\x9b\x00ABWtz";
    for round in 0..3000 {
        let mut b = seeds[round % seeds.len()].to_vec();
        for _ in 0..(next() % 6 + 1) {
            let r = next();
            let i = (r >> 8) as usize % (b.len() + 1);
            match r % 4 {
                0 if i < b.len() => {
                    b.remove(i);
                }
                1 => b.insert(i, specials[(r >> 32) as usize % specials.len()]),
                2 if i < b.len() => b[i] = (r >> 40) as u8,
                _ => b.truncate(i),
            }
        }
        let f = read_games(&b);
        assert!(!f.games.is_empty());
        for (i, g) in f.games.iter().enumerate() {
            if let Ok(g) = g {
                assert_eq!(g.index, i);
            }
        }
    }
    for len in 0..300 {
        let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        assert!(!read_games(&b).games.is_empty());
    }
}

// ---------------------------------------------------------------------------------------
// Edge corpus

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn edge_corpus() {
    let Some(dir) = crate::test_data::shared("edge") else { return };
    let mut files = Vec::new();
    walk(&dir, &mut files);
    assert!(files.len() > 50, "only {} files under {}", files.len(), dir.display());
    let mut read = std::collections::HashMap::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let name = f.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/");
        let fg = read_games(&bytes);
        assert!(!fg.games.is_empty(), "{name}");
        for (i, g) in fg.games.iter().enumerate() {
            if let Ok(g) = g {
                assert_eq!(g.index, i, "{name}");
                assert_eq!(g.size, (19, 19), "{name}");
            }
        }
        read.insert(name, fg);
    }
    let get = |name: &str| read.get(name).unwrap_or_else(|| panic!("{name} missing from the edge corpus"));
    // (file, outcome of every game)
    let table: [(&str, &[&str]); 21] = [
        ("kombilo-0.8.4/contlist.sgf", &["ok"; 7]),
        ("libsgfcplusplus/deep-game-tree.sgf", &["size_not_19"; 5]),
        ("littlego/Illegal games/not-an-sgf-file.sgf", &["parse_error"]),
        ("littlego/sgfc/ff4_ex.sgf", &["ok", "ok"]),
        ("gogui/sgf__ff4_ex.sgf", &["ok", "ok"]),
        ("littlego/sgfc/test.sgf", &["bad_coordinate", "not_go", "not_go", "parse_error"]),
        ("littlego/sgfc/test-strict.sgf", &["ok"; 11]),
        ("libsgfcplusplus/compressed-point-list.sgf", &["ok", "not_go"]),
        ("libsgfcplusplus/escaping.sgf", &["not_go"]),
        ("gogui/sgf__human-readable.sgf", &["bad_coordinate"]),
        ("gogui/sgf__invalidmove.sgf", &["size_not_19"]),
        ("gogui/sgf__size-after-invalid-points.sgf", &["size_not_19"]),
        ("littlego/Illegal games/encoding-detection-fails.sgf", &["ok"]),
        ("littlego/Illegal games/encoding-multiple.sgf", &["ok", "ok"]),
        ("littlego/Illegal games/encoding-unsupported.sgf", &["ok"]),
        ("littlego/25x25/25x25_single_black_move.sgf", &["size_not_19"]),
        ("sabaki-sgf/encoding/nihon-kiin.sgf", &["ok"]),
        ("sabaki-sgf/utf16le.sgf", &["ok"]),
        ("pysgf-1.0.0/test.gib", &["parse_error"]),
        ("pysgf-1.0.0/handicap2.ngf", &["parse_error"]),
        ("pysgf-1.0.0/xmgt97.sgf", &["size_not_19"]),
    ];
    for (name, want) in table {
        let got: Vec<&str> = get(name).games.iter().map(outcome).collect();
        assert_eq!(got, want, "{name}");
    }
    let game = |name: &str, i: usize| -> &GameRecord {
        get(name).games[i].as_ref().unwrap_or_else(|e| panic!("{name} #{i}: {e}"))
    };

    // FF[4] example: tt pass, variations; game 2's info in a later node.
    let g = game("littlego/sgfc/ff4_ex.sgf", 0);
    assert_eq!((g.moves.len(), g.quirks.tt_pass, g.quirks.variations), (13, 1, true));
    assert_eq!(game("littlego/sgfc/ff4_ex.sgf", 1).white.as_deref(), Some("W. Hite"));
    // SGFC's evil file: the first game fails at its second B value.
    let e = get("littlego/sgfc/test.sgf").games[0].as_ref().unwrap_err();
    assert_eq!((e.move_number, e.detail.as_str()), (Some(2), "B[too much values]: malformed"));
    assert_eq!(get("gogui/sgf__human-readable.sgf").games[0].as_ref().unwrap_err().move_number, Some(1));
    // Compressed AB[cc:dd] in the node after the root.
    let g = game("libsgfcplusplus/compressed-point-list.sgf", 0);
    assert_eq!(g.setup_black.len(), 4);
    assert!(g.quirks.junk_before && g.quirks.compressed_lists && g.quirks.handicap_after_root);

    // Charsets and names.
    let cases = [
        ("sabaki-sgf/chinese.sgf", "GBK", "古力"),
        ("sabaki-sgf/korean.sgf", "EUC-KR", "이세돌"),
        ("sabaki-sgf/japanese.sgf", "Shift_JIS", "井山 裕太"),
        ("sabaki-sgf/utf16le.sgf", "UTF-16LE", "Kitani Minoru"),
        ("sabaki-sgf/utf8bom.sgf", "UTF-8", "Kitani Minoru"),
        ("sabaki-sgf/encoding/nihon-kiin.sgf", "Shift_JIS", "申眞ソ"),
        ("pysgf-1.0.0/fox sgf works.sgf", "UTF-8", "whatiskale"),
    ];
    for (name, charset, black) in cases {
        assert_eq!(get(name).charset, charset, "{name}");
        assert_eq!(game(name, 0).black.as_deref(), Some(black), "{name}");
    }
    assert_eq!(game("pysgf-1.0.0/fox sgf works.sgf", 0).white.as_deref(), Some("注号用名"));
    let g = game("sabaki-sgf/utf16le.sgf", 0);
    assert_eq!(g.moves.len(), 164);
    assert_eq!(g.moves, game("sabaki-sgf/utf8bom.sgf", 0).moves);
    assert!(get("sabaki-sgf/utf16le.sgf").had_bom);
    // Comments that only decode right with the declared charset.
    let texts = [
        ("libsgfcplusplus/encoding-traditionalchinese-big5.sgf", "Big5", "圍棋是一種古老的遊戲"),
        ("libsgfcplusplus/encoding-traditionalchinese-macos.sgf", "Big5", "圍棋"),
        ("libsgfcplusplus/encoding-chinese-gb18030.sgf", "gb18030", "围棋是一种古老的游戏"),
        ("libsgfcplusplus/encoding-simplifiedchinese-gb2312.sgf", "gb18030", "围棋"),
        ("libsgfcplusplus/encoding-japanese-shiftjis.sgf", "Shift_JIS", "Goは古代のゲームであり"),
        ("libsgfcplusplus/encoding-japanese-iso2022jp.sgf", "ISO-2022-JP", "Goは古代のゲームであり"),
        ("libsgfcplusplus/encoding-korean-macos.sgf", "EUC-KR", "바둑은"),
        ("libsgfcplusplus/encoding-cyrillic-windows.sgf", "windows-1251", "Го - древняя игра"),
        ("libsgfcplusplus/encoding-western-isolatin1.sgf", "windows-1252", "Ää Àà"),
        ("libsgfcplusplus/encoding-western-isolatin9.sgf", "ISO-8859-15", "Ää Àà"),
        ("libsgfcplusplus/encoding-western-macosroman.sgf", "macintosh", "Ää Àà"),
        ("libsgfcplusplus/encoding-utf16-nobom.sgf", "UTF-16BE", "Го - древняя игра"),
        ("libsgfcplusplus/encoding-utf16-withbom.sgf", "UTF-16BE", "Го - древняя игра"),
        ("libsgfcplusplus/encoding-utf8-withbom.sgf", "UTF-8", "Го - древняя игра"),
        ("sabaki-sgf/no-ca.sgf", "gb18030", "这是从压长星定式演变而来的形"),
    ];
    for (name, charset, needle) in texts {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let d = decode(&bytes);
        assert_eq!(d.charset, charset, "{name}");
        assert!(d.text.contains(needle), "{name}: {}", d.text);
        assert!(!d.malformed, "{name}");
    }

    // Fox komi and handicap.
    let komi = |name: &str| {
        let g = game(name, 0);
        (g.komi, g.quirks.fox_komi_scaled)
    };
    assert_eq!(komi("sabaki-sgf/pr-426e704/fox_go_server_komi.sgf"), (Some(7.5), true));
    assert_eq!(komi("sabaki-sgf/pr-426e704/fox_go_server_japanese.sgf"), (Some(6.5), true));
    assert_eq!(komi("sabaki-sgf/pr-426e704/non_fox_game.sgf"), (Some(11.0), false));
    assert_eq!(komi("sabaki-sgf/pr-426e704/fox_go_server_handicap.sgf"), (Some(0.0), false));
    let g = game("katago/foxlike.sgf", 0);
    assert_eq!((g.komi, g.handicap, g.setup_black.len(), g.result.kind), (Some(6.5), 2, 2, ResultKind::Draw));
    assert_eq!(g.black_rank.as_ref().map(|r| (r.kind, r.value)), Some((RankKind::Dan, 3)));
    assert_eq!(g.quirks.names(), ["fox_komi_scaled", "komi_in_zi", "handicap_after_root", "repeated_props"]);
    let g = game("sabaki-sgf/pr-426e704/fox_go_server_japanese.sgf", 0);
    assert_eq!(g.black_rank.as_ref().map(|r| r.kind), Some(RankKind::Pro));
    // KGS `AB[pd] [dp]`, old files.
    assert_eq!(game("pysgf-1.0.0/kgs.sgf", 0).setup_black.len(), 2);
    let g = game("gogui/sgf__verbose-property-names.sgf", 0);
    assert_eq!((g.moves.len(), g.black.as_deref()), (184, Some("Robin Upton")));
    assert!(g.quirks.lowercase_idents);
    assert_eq!(game("pysgf-1.0.0/panda1.sgf", 0).quirks.tt_pass, 4);
    assert!(game("littlego/19x19/Fuego vs. Fuego.sgf", 0).quirks.missing_close_paren);
    let g = game("sabaki-sgf/encoding/nihon-kiin.sgf", 0);
    assert_eq!((g.moves.len(), g.result.winner, g.result.kind), (8, Some(Color::Black), ResultKind::Resign));
    assert_eq!(game("littlego/19x19/maximum-number-of-moves.sgf", 0).moves.len(), 1394);
    assert_eq!(game("littlego/Illegal games/too-many-moves.sgf", 0).moves.len(), 1395);
    assert!(game("littlego/Illegal games/setup-after-first-move.sgf", 0).quirks.setup_after_root);
    assert!(game("littlego/Illegal games/setup-player-after-first-move.sgf", 0).quirks.pl_after_root);
    assert!(game("littlego/Illegal games/not-enough-handicap-stones.sgf", 0).quirks.handicap_stones_missing);
}

#[test]
fn trees_over_the_limits_are_too_large_and_later_trees_still_read() {
    use crate::sgf::{read_games_with, ParseLimits};
    let limits = ParseLimits { max_nodes: 1000, max_depth: 100 };
    // A tree of 2,000 nodes with a `]` and `)` inside a comment, then a good game.
    let big = long_line(1999).replace(";B[aa];W[bb];B[aa]", ";B[aa]C[x)y\\]z(];W[bb];B[aa]");
    let text = format!("{big}\n(;GM[1]SZ[19];B[pd];W[dp])");
    let f = read_games_with(text.as_bytes(), limits);
    assert_eq!(f.games.len(), 2);
    let e = f.games[0].as_ref().unwrap_err();
    assert_eq!(e.reason, RejectReason::TooLarge);
    assert_eq!(e.detail, "more than 1000 nodes in the game tree (limits.max_nodes)");
    assert!(e.offset.unwrap() > 0);
    assert_eq!(f.games[1].as_ref().unwrap().moves.len(), 2);
    // The same tree is fine with the default limits.
    assert_eq!(read_games(text.as_bytes()).games[0].as_ref().unwrap().moves.len(), 1999);
    // Exactly at the limit is accepted: 1,000 nodes = root + 999 moves.
    let at = read_games_with(long_line(999).as_bytes(), limits);
    assert_eq!(at.games[0].as_ref().unwrap().moves.len(), 999);

    // Nesting: 101 levels is too deep; 100 is fine; the next tree is read.
    let deep = format!("{}\n(;GM[1]SZ[19];B[pd])", nested_line(101));
    let f = read_games_with(deep.as_bytes(), limits);
    let e = f.games[0].as_ref().unwrap_err();
    assert_eq!(
        (e.reason, e.detail.as_str()),
        (RejectReason::TooLarge, "variations nested more than 100 deep (limits.max_variation_depth)")
    );
    assert_eq!(f.games[1].as_ref().unwrap().moves.len(), 1);
    assert_eq!(read_games_with(nested_line(100).as_bytes(), limits).games[0].as_ref().unwrap().moves.len(), 100);
    // Missing `;` nodes count too, and an over-limit tree that never closes ends the file.
    let f = read_games_with(format!("(;GM[1]{}", "(B[aa]".repeat(3000)).as_bytes(), limits);
    assert_eq!(f.games.len(), 1);
    assert_eq!(f.games[0].as_ref().unwrap_err().reason, RejectReason::TooLarge);
    let f = read_games_with(b"(;GM[1](B[aa]W[bb])(;B[cc]))", ParseLimits { max_nodes: 2, max_depth: 10 });
    assert_eq!(f.games[0].as_ref().unwrap_err().reason, RejectReason::TooLarge);
}
