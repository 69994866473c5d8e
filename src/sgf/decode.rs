/*!
Bytes → text, before any tokenizing.

SGF structure is ASCII, but the text inside values may be in any charset. In Shift_JIS,
Big5 and GBK a two-byte character can end in `0x5C` (`\`) or `0x5D` (`]`), so a parser
that scans raw bytes ends values early. kibo therefore decodes the whole file first and
tokenizes the decoded text (as Sabaki does). [`decode`] never fails: the last resort is
windows-1252, which maps every byte, and replacement characters are used only when a
charset was chosen on strong evidence and a few bytes still do not fit it.

# Decision order

1. **UTF-16**: a BOM (`FE FF` / `FF FE`), or no BOM but the zero-byte pattern of ASCII in
   UTF-16 at the start (`00 28` / `28 00`, or generally `00 xx 00 xx` / `xx 00 xx 00` in the
   first four bytes). The BOM is dropped; a `CA` inside is reported in `declared` only.
2. **UTF-8 BOM** (`EF BB BF`): dropped, the rest is UTF-8 (lossy if damaged, `malformed`).
3. **`CA[...]`**: the first `CA[` in the raw bytes (ASCII search; the byte before `C` must not
   be a letter, the value at most 64 bytes up to `]`). The label is looked up with
   [`encoding_rs::Encoding::for_label_no_replacement`] and, failing that, in an alias table
   ([`encoding_for_label`]: `UTF8`, `ISO8859_1`, `MS_KANJI`, `GB2312`, `EUC-CN`, `CP936`,
   `SJIS`, `KSC5601`, `MacRoman`, …). The first `CA` decides for the whole file (a collection
   with different `CA` per game is decoded with the first one).
   * `CA` says **UTF-8**: valid UTF-8 → UTF-8. Damaged UTF-8 where valid multi-byte
     sequences are at least as many as broken ones (e.g. a Fox player name cut in the
     middle of a character) → UTF-8 with replacement characters, `malformed = true`.
     Otherwise the declaration is ignored (`declared_used = false`) and step 4 runs.
   * `CA` says **UTF-16** but step 1 saw no UTF-16 → the declaration cannot be right; ignored.
   * `CA` names a **legacy charset**, but the bytes are valid UTF-8 with enough multi-byte
     sequences that they cannot be an accident (≥ 1 for single-byte charsets such as
     ISO-8859-1, where valid UTF-8 pairs like `Ã©` never occur in real text; ≥ 3 for
     multi-byte CJK charsets) → UTF-8, `declared_used = false`. Files re-saved as UTF-8
     that kept their old `CA` are common; `sabaki-sgf/japanese_bad.sgf` is one.
   * otherwise decode with the declared charset. If some bytes do not fit it: valid
     UTF-8 → UTF-8 (`declared_used = false`), else keep the declared charset with
     replacement characters (`malformed = true`).
4. **No usable `CA`**: valid UTF-8 → UTF-8; mostly valid UTF-8 (at least 2 valid multi-byte
   sequences and twice as many as broken ones) → lossy UTF-8, `malformed`. Else a guess
   (`fallback_used = true`). If every run of bytes ≥ 0x80 is one byte, or two bytes next
   to an ASCII letter (`Müller`, `créé`), the text is Western: windows-1252 (CJK
   characters are byte pairs, and CJK words and names make runs of 4+ bytes, mostly
   between brackets, spaces and digits). Otherwise the candidates must decode without
   error, and:
   * EUC-KR first if its text is clearly Korean (≥ 6 Hangul syllables, ≥ 9× as many as
     ideographs and kana: Chinese text read as EUC-KR always mixes in Hanja);
   * Shift_JIS next if its text is clearly Japanese (≥ 2 full-width kana, no half-width
     katakana, no private-use characters: GB/EUC-KR text read as Shift_JIS is full of
     half-width katakana, and kana need lead bytes GB2312 never uses);
   * then GB18030, EUC-KR, Shift_JIS in that order; else windows-1252.

   Short Korean texts (a couple of names) without `CA` still come out as GB18030
   mojibake: telling them apart needs frequency statistics, which this reader does not do.

ISO-8859-1 and US-ASCII labels map to windows-1252 (the WHATWG rule encoding_rs follows),
so `charset` is `"windows-1252"` for them.
*/

use encoding_rs::{Encoding, EUC_KR, GB18030, SHIFT_JIS, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

/// A file's text after charset detection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The decoded text, BOM removed.
    pub text: String,
    /// Name (encoding_rs spelling) of the encoding actually used, e.g. `"UTF-8"`, `"GBK"`.
    pub charset: &'static str,
    /// Raw value of the first `CA` property, if any (trimmed).
    pub declared: Option<String>,
    /// The declared `CA` chose the decoder.
    pub declared_used: bool,
    /// The encoding was guessed (step 4 beyond UTF-8, see the module docs).
    pub fallback_used: bool,
    /// The input started with a UTF-8 or UTF-16 byte-order mark.
    pub had_bom: bool,
    /// Some bytes did not fit the chosen encoding and became U+FFFD.
    pub malformed: bool,
}

/// Decodes a whole SGF file; see the module docs for the order of decisions.
pub fn decode(bytes: &[u8]) -> Decoded {
    // 1. UTF-16, with or without BOM.
    if let Some((enc, skip)) = utf16_kind(bytes) {
        let (text, malformed) = enc.decode_without_bom_handling(&bytes[skip..]);
        let mut text = text.into_owned();
        if text.starts_with('\u{feff}') {
            text.drain(..3);
        }
        let declared = find_ca(text.as_bytes()).map(|v| String::from_utf8_lossy(v).into_owned());
        let declared_used =
            declared.as_deref().and_then(encoding_for_label).is_some_and(|e| e == UTF_16BE || e == UTF_16LE);
        return Decoded {
            text,
            charset: enc.name(),
            declared,
            declared_used,
            fallback_used: false,
            had_bom: skip == 2,
            malformed,
        };
    }
    // 2. UTF-8 BOM.
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        let declared = find_ca(rest).map(|v| String::from_utf8_lossy(v).into_owned());
        let declared_used = declared.as_deref().and_then(encoding_for_label) == Some(UTF_8);
        let (text, malformed) = utf8_lossy(rest);
        return Decoded {
            text,
            charset: UTF_8.name(),
            declared,
            declared_used,
            fallback_used: false,
            had_bom: true,
            malformed,
        };
    }
    // 3. Declared charset.
    let valid_utf8 = std::str::from_utf8(bytes).ok();
    let declared_raw = find_ca_in(bytes, valid_utf8);
    let declared = declared_raw.map(|v| String::from_utf8_lossy(v).into_owned());
    let mk = |text: String, enc: &'static Encoding, used: bool, fallback: bool, malformed: bool| Decoded {
        text,
        charset: enc.name(),
        declared: declared.clone(),
        declared_used: used,
        fallback_used: fallback,
        had_bom: false,
        malformed,
    };
    if let Some(enc) = declared.as_deref().and_then(encoding_for_label) {
        if enc == UTF_8 {
            if let Some(s) = valid_utf8 {
                return mk(s.to_owned(), UTF_8, true, false, false);
            }
            let (good, bad) = utf8_stats(bytes);
            if good >= bad {
                let (text, _) = utf8_lossy(bytes);
                return mk(text, UTF_8, true, false, true);
            }
            // fall through to the guess, skipping the UTF-8 checks
            return guess(bytes, declared.clone());
        } else if enc != UTF_16BE && enc != UTF_16LE {
            if let Some(s) = valid_utf8 {
                let multi = count_multibyte(s.as_bytes());
                let threshold = if enc.is_single_byte() { 1 } else { 3 };
                if multi >= threshold {
                    return mk(s.to_owned(), UTF_8, false, false, false);
                }
                if multi == 0 && enc.is_ascii_compatible() {
                    // Pure ASCII: every ASCII-compatible charset decodes it the same way.
                    return mk(s.to_owned(), enc, true, false, false);
                }
            }
            if let Some(t) = enc.decode_without_bom_handling_and_without_replacement(bytes) {
                return mk(t.into_owned(), enc, true, false, false);
            }
            if let Some(s) = valid_utf8 {
                // Valid UTF-8 that does not fit the declared charset at all.
                return mk(s.to_owned(), UTF_8, false, false, false);
            }
            let (t, _) = enc.decode_without_bom_handling(bytes);
            return mk(t.into_owned(), enc, true, false, true);
        }
        // CA[UTF-16] without UTF-16 bytes: ignore the declaration.
    }
    // 4. No usable declaration.
    if let Some(s) = valid_utf8 {
        return mk(s.to_owned(), UTF_8, false, false, false);
    }
    let (good, bad) = utf8_stats(bytes);
    if good >= 2 && good >= 2 * bad {
        let (text, _) = utf8_lossy(bytes);
        return mk(text, UTF_8, false, false, true);
    }
    guess(bytes, declared)
}

/// Step 4 beyond UTF-8: the legacy-charset guess.
fn guess(bytes: &[u8], declared: Option<String>) -> Decoded {
    let enc = guess_legacy(bytes);
    let (t, malformed) = enc.decode_without_bom_handling(bytes);
    Decoded {
        text: t.into_owned(),
        charset: enc.name(),
        declared,
        declared_used: false,
        fallback_used: true,
        had_bom: false,
        malformed,
    }
}

fn guess_legacy(bytes: &[u8]) -> &'static Encoding {
    if looks_latin(bytes) {
        return WINDOWS_1252;
    }
    let clean = |enc: &'static Encoding| enc.decode_without_bom_handling_and_without_replacement(bytes);
    if clean(EUC_KR).is_some_and(|t| looks_korean(&t)) {
        return EUC_KR;
    }
    if clean(SHIFT_JIS).is_some_and(|t| looks_japanese(&t)) {
        return SHIFT_JIS;
    }
    for enc in [GB18030, EUC_KR, SHIFT_JIS] {
        if clean(enc).is_some() {
            return enc;
        }
    }
    WINDOWS_1252
}

/// Every run of bytes ≥ 0x80 is a single byte, or two bytes touching an ASCII letter
/// (`créé`, `Müller`): accented letters inside words. Text in a double-byte charset has
/// its characters as pairs, and names and words of 2+ characters as runs of 4+ bytes,
/// usually between brackets, spaces or digits.
fn looks_latin(b: &[u8]) -> bool {
    let letter = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphabetic());
    let mut i = 0;
    while i < b.len() {
        if b[i] < 0x80 {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i] >= 0x80 {
            i += 1;
        }
        let run = i - start;
        let touches_letter = letter(start.checked_sub(1).and_then(|j| b.get(j))) || letter(b.get(i));
        if run > 2 || (run == 2 && !touches_letter) {
            return false;
        }
    }
    true
}

/// At least 6 Hangul syllables and at least 9 times as many as kana and ideographs:
/// Chinese GB2312 text read as EUC-KR mixes Hangul with Hanja.
fn looks_korean(t: &str) -> bool {
    let (mut hangul, mut other) = (0usize, 0usize);
    for c in t.chars() {
        match c as u32 {
            0xAC00..=0xD7A3 => hangul += 1,
            0x3040..=0x30FF | 0x3400..=0x9FFF | 0xF900..=0xFAFF => other += 1,
            _ => {}
        }
    }
    hangul >= 6 && hangul >= 9 * other
}

/// At least 2 full-width kana and no half-width katakana or private-use characters:
/// GB or EUC-KR text read as Shift_JIS turns its lead bytes 0xA1–0xDF into half-width
/// katakana, and full-width kana need lead bytes 0x82/0x83, which GB2312 never uses.
fn looks_japanese(t: &str) -> bool {
    let mut kana = 0usize;
    for c in t.chars() {
        match c as u32 {
            0x3040..=0x30FF => kana += 1,
            0xFF61..=0xFF9F | 0xE000..=0xF8FF => return false,
            _ => {}
        }
    }
    kana >= 2
}

/// UTF-16 detection: `(encoding, bytes to skip)`.
fn utf16_kind(b: &[u8]) -> Option<(&'static Encoding, usize)> {
    if b.starts_with(&[0xFE, 0xFF]) {
        return Some((UTF_16BE, 2));
    }
    if b.starts_with(&[0xFF, 0xFE]) {
        return Some((UTF_16LE, 2));
    }
    if b.len() >= 4 {
        if b[0] == 0 && b[1] != 0 && b[1] < 0x80 && b[2] == 0 && b[3] != 0 && b[3] < 0x80 {
            return Some((UTF_16BE, 0));
        }
        if b[0] != 0 && b[0] < 0x80 && b[1] == 0 && b[2] != 0 && b[2] < 0x80 && b[3] == 0 {
            return Some((UTF_16LE, 0));
        }
    } else if b.starts_with(&[0x00, b'(']) {
        return Some((UTF_16BE, 0));
    } else if b.starts_with(&[b'(', 0x00]) {
        return Some((UTF_16LE, 0));
    }
    None
}

/// The raw value of the first `CA[...]` in `b` (ASCII search, trimmed), if any.
pub fn find_ca(b: &[u8]) -> Option<&[u8]> {
    find_ca_in(b, std::str::from_utf8(b).ok())
}

/// [`find_ca`] with `b` already checked for UTF-8 (`utf8 = Some(b as str)`).
fn find_ca_in<'b>(b: &'b [u8], utf8: Option<&'b str>) -> Option<&'b [u8]> {
    let value = |i: usize| -> Option<&[u8]> {
        // `i` is the index of "CA["; the byte before must not be a letter.
        if i > 0 && b[i - 1].is_ascii_alphabetic() {
            return None;
        }
        let rest = &b[i + 3..];
        let end = rest.iter().take(65).position(|&c| c == b']')?;
        let v = trim_ascii(&rest[..end]);
        (!v.is_empty()).then_some(v)
    };
    if let Some(s) = utf8 {
        // Fast path: `contains` is the standard library's vectorised substring test; most
        // files have no `CA`, and those that have one have it near the start.
        if !s.contains("CA[") {
            return None;
        }
        return s.match_indices("CA[").find_map(|(i, _)| value(i));
    }
    let mut i = 0;
    while i + 3 <= b.len() {
        match b[i..].iter().position(|&c| c == b'A') {
            None => return None,
            Some(p) => i += p,
        }
        if i >= 1 && b[i - 1] == b'C' && b.get(i + 1) == Some(&b'[') {
            if let Some(v) = value(i - 1) {
                return Some(v);
            }
        }
        i += 1;
    }
    None
}

fn trim_ascii(mut v: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = v {
        if first.is_ascii_whitespace() {
            v = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = v {
        if last.is_ascii_whitespace() {
            v = rest;
        } else {
            break;
        }
    }
    v
}

/// Looks up a `CA` label: encoding_rs' WHATWG labels first, then common SGF spellings.
/// Returns `None` for unknown labels (and for labels WHATWG maps to "replacement").
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    let t = label.trim();
    if let Some(e) = Encoding::for_label_no_replacement(t.as_bytes()) {
        return Some(e);
    }
    let norm: String = t.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_uppercase()).collect();
    let mapped: String = match norm.as_str() {
        "UTF8" | "UNICODE11UTF8" => "utf-8".into(),
        "UTF16" | "UTF16LE" | "UNICODE" | "UCS2" => "utf-16le".into(),
        "UTF16BE" => "utf-16be".into(),
        "ISO88591" | "LATIN1" | "L1" | "ASCII" | "USASCII" | "ISO646US" | "ANSI" | "CP1252" => "windows-1252".into(),
        "MSKANJI" | "SJIS" | "SHIFTJIS" | "CP932" | "WINDOWS31J" | "XSJIS" | "MSCP932" => "shift_jis".into(),
        "GB2312" | "EUCCN" | "XEUCCN" | "GBK" | "CP936" | "GB18030" | "MS936" | "WINDOWS936" | "HZGB2312" => {
            "gb18030".into()
        }
        "BIG5" | "BIG5HKSCS" | "CP950" | "XXBIG5" | "CNBIG5" | "BIG5TW" => "big5".into(),
        "EUCKR" | "KSC5601" | "KSC56011987" | "KSC56011989" | "CP949" | "UHC" | "MS949" | "WINDOWS949" | "KOREAN" => {
            "euc-kr".into()
        }
        "EUCJP" | "XEUCJP" => "euc-jp".into(),
        "ISO2022JP" | "JIS" => "iso-2022-jp".into(),
        "MACINTOSH" | "MAC" | "MACROMAN" | "XMACROMAN" => "macintosh".into(),
        "KOI8R" => "koi8-r".into(),
        "KOI8U" => "koi8-u".into(),
        n if n.starts_with("ISO8859") && n.len() > 7 => format!("iso-8859-{}", &n[7..]),
        n if n.starts_with("WINDOWS") && n.len() > 7 => format!("windows-{}", &n[7..]),
        n if n.starts_with("CP125") => format!("windows-{}", &n[2..]),
        n if n.starts_with("LATIN") && n.len() > 5 => format!("latin{}", &n[5..]),
        _ => return None,
    };
    Encoding::for_label_no_replacement(mapped.as_bytes())
}

/// Lossy UTF-8: `(text, had_errors)`.
fn utf8_lossy(b: &[u8]) -> (String, bool) {
    match std::str::from_utf8(b) {
        Ok(s) => (s.to_owned(), false),
        Err(_) => (String::from_utf8_lossy(b).into_owned(), true),
    }
}

/// Multi-byte characters in valid UTF-8 (= lead bytes).
fn count_multibyte(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c >= 0xC0).count()
}

/// `(valid multi-byte sequences, invalid sequences)` of possibly broken UTF-8.
fn utf8_stats(b: &[u8]) -> (usize, usize) {
    let mut good = 0;
    let mut bad = 0;
    for chunk in b.utf8_chunks() {
        good += count_multibyte(chunk.valid().as_bytes());
        if !chunk.invalid().is_empty() {
            bad += 1;
        }
    }
    (good, bad)
}
