/*!
Game results (`RE`).

Parsed case-insensitively after SimpleText decoding and trimming:

| input | winner | kind | margin |
|---|---|---|---|
| `B+R`, `B+Resign`, `W+Res`, `Black+R` | B / W | resign | – |
| `W+3.5`, `B+0.50`, `W+12,5`, `B+3.5 points` | | score | 3.5 … |
| `B+T`, `B+Time`, `W+Timeout` | | time | – |
| `B+F`, `B+Forfeit` | | forfeit | – |
| `B+`, `W+` (no detail), `B+anything else` | B / W | unknown | – |
| `0`, `Draw`, `Jigo`, `D`, `=` | – | draw | – |
| `Void`, `No result` | – | void | – |
| `?`, empty, free text (`black wins by 5 3/4 points`) | – | unknown | – |

Chinese / Japanese / Korean result strings that contain a win or draw word are also read:
the winner from `黑`/`黒`/`흑` or `白`/`백`; resignation from `中盘`/`中盤`/`中押`/`불계`;
time from `超时`/`時間切れ`/`시간`; a margin from the first number (plus `半`/`반` = ½);
draws from `和棋`/`持碁`/`무승부`; void from `無勝負`/`无胜负`.
The raw text is always kept.
*/

use crate::color::Color;

/// How a game ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultKind {
    /// Counted; `margin` holds the score difference when given.
    Score,
    /// Resignation.
    Resign,
    /// Loss on time.
    Time,
    /// Forfeit.
    Forfeit,
    /// Draw (jigo).
    Draw,
    /// No result.
    Void,
    /// Not given, `?`, free text, or `B+` / `W+` without detail.
    #[default]
    Unknown,
}

impl ResultKind {
    /// Every kind, in the order of the docs.
    pub const ALL: [ResultKind; 7] = [
        ResultKind::Score,
        ResultKind::Resign,
        ResultKind::Time,
        ResultKind::Forfeit,
        ResultKind::Draw,
        ResultKind::Void,
        ResultKind::Unknown,
    ];
    /// The kind named by [`ResultKind::as_str`].
    pub fn from_name(s: &str) -> Option<ResultKind> {
        ResultKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
    /// `"score"`, `"resign"`, `"time"`, `"forfeit"`, `"draw"`, `"void"`, `"unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultKind::Score => "score",
            ResultKind::Resign => "resign",
            ResultKind::Time => "time",
            ResultKind::Forfeit => "forfeit",
            ResultKind::Draw => "draw",
            ResultKind::Void => "void",
            ResultKind::Unknown => "unknown",
        }
    }
}

/// A parsed `RE` value.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// The text as found (SimpleText-decoded, trimmed); `None` when there is no `RE`.
    pub raw: Option<String>,
    /// Winner, when known.
    pub winner: Option<Color>,
    /// How the game ended.
    pub kind: ResultKind,
    /// Score difference for [`ResultKind::Score`].
    pub margin: Option<f32>,
}

impl GameResult {
    /// The result of a game without `RE`.
    pub fn none() -> GameResult {
        GameResult { raw: None, winner: None, kind: ResultKind::Unknown, margin: None }
    }
}

/// Leading decimal number of `s` (`,` accepted as the decimal point).
fn leading_number(s: &str) -> Option<f32> {
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || ((c == '.' || c == ',') && i > 0)))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num = s[..end].trim_end_matches(['.', ',']).replace(',', ".");
    if num.is_empty() {
        return None;
    }
    num.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// Parses an `RE` value (raw, still escaped).
pub fn parse_result(raw_value: &str) -> GameResult {
    let text = super::parse::simple_text(raw_value);
    let text = text.trim();
    let mut r = GameResult { raw: Some(text.to_string()), winner: None, kind: ResultKind::Unknown, margin: None };
    let lower = text.to_lowercase();
    match lower.as_str() {
        "0" | "draw" | "jigo" | "d" | "=" | "0.0" | "tie" => {
            r.kind = ResultKind::Draw;
            return r;
        }
        "void" | "no result" | "noresult" | "none" => {
            r.kind = ResultKind::Void;
            return r;
        }
        "" | "?" | "unknown" => return r,
        _ => {}
    }
    let prefixes: [(&str, Color); 4] =
        [("black", Color::Black), ("white", Color::White), ("b", Color::Black), ("w", Color::White)];
    for (p, color) in prefixes {
        if let Some(rest) = lower.strip_prefix(p) {
            let rest = rest.trim_start();
            if let Some(detail) = rest.strip_prefix('+') {
                r.winner = Some(color);
                let d = detail.trim();
                if d.is_empty() {
                    // Winner known, how not said.
                } else if d.starts_with('r') {
                    r.kind = ResultKind::Resign;
                } else if d.starts_with('t') {
                    r.kind = ResultKind::Time;
                } else if d.starts_with('f') {
                    r.kind = ResultKind::Forfeit;
                } else if let Some(m) = leading_number(d) {
                    r.kind = ResultKind::Score;
                    r.margin = Some(m);
                }
                return r;
            }
        }
    }
    parse_cjk(text, &mut r);
    r
}

fn parse_cjk(text: &str, r: &mut GameResult) {
    let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if has(&["無勝負", "无胜负"]) {
        r.kind = ResultKind::Void;
        return;
    }
    if has(&["和棋", "持碁", "무승부", "和局"]) {
        r.kind = ResultKind::Draw;
        return;
    }
    if !has(&["胜", "勝", "승"]) {
        return;
    }
    let black = text.find(['黑', '黒', '흑']);
    let white = text.find(['白', '백']);
    r.winner = match (black, white) {
        (Some(b), Some(w)) => Some(if b < w { Color::Black } else { Color::White }),
        (Some(_), None) => Some(Color::Black),
        (None, Some(_)) => Some(Color::White),
        (None, None) => None,
    };
    if r.winner.is_none() {
        return;
    }
    if has(&["中盘", "中盤", "中押", "불계"]) {
        r.kind = ResultKind::Resign;
    } else if has(&["超时", "時間切れ", "超時", "시간"]) {
        r.kind = ResultKind::Time;
    } else if let Some(from) = {
        // A move count like "257手完" is not a margin: take the first number after the winner.
        let after = if r.winner == Some(Color::Black) { black } else { white }.unwrap_or(0);
        text[after..].find(|c: char| c.is_ascii_digit()).map(|i| i + after)
    } {
        if let Some(mut m) = leading_number(&text[from..]) {
            let tail = &text[from..];
            let num_len = tail.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(tail.len());
            if tail[num_len..].chars().take(3).any(|c| c == '半' || c == '반') {
                m += 0.5;
            }
            r.kind = ResultKind::Score;
            r.margin = Some(m);
        }
    } else if text.contains('半') || text.contains('반') {
        r.kind = ResultKind::Score;
        r.margin = Some(0.5);
    }
}
