/*!
Player ranks (`BR`, `WR`).

# Numeric scale

One integer per rank so that ranks sort and subtract: kyu `k` → `1 − k` (1k = 0,
30k = −29), amateur dan `d` → `d` (1d = 1, Fox's 10段 = 10), professional dan `p` → `9 + p`
(1p = 10, 9p = 18). Amateur 9d and 1p are one step apart on purpose; the scale is for
ordering and filtering, not for Elo.

# Accepted forms

A number (ASCII or full-width digits; or `初`/`초` = 1, `一`…`十` = 1…10) followed by a
unit, anywhere in the string, case-insensitive, with decorations ignored (`?` uncertain
and `*` established on KGS, `+`, `-`, spaces, brackets):

* kyu: `k`, `kyu`, `級` (Japanese), `级` (Chinese), `급` (Korean);
* dan: `d`, `dan`, `段`, `단`;
* pro: `p`, `pro`, or a dan unit with a professional marker elsewhere in the string:
  `pro`, `プロ`, `프로`, `职业`, `職業`, or a `P` right before the number (Fox `P5段`).

A string that says `段` alone is an amateur dan (`9段` → 9d): kibo cannot know whether
a bare `段` came from a professional database. Kyu 1–50, dan 1–10 and pro 1–10 are
accepted; anything else (`NR`, `Insei`, `?`, `0k`, `-`) gives `None`.
*/

/// Kind of rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RankKind {
    /// Amateur kyu (lower is stronger).
    Kyu,
    /// Amateur dan.
    Dan,
    /// Professional dan.
    Pro,
}

impl RankKind {
    /// `"kyu"`, `"dan"`, `"pro"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RankKind::Kyu => "kyu",
            RankKind::Dan => "dan",
            RankKind::Pro => "pro",
        }
    }
}

/// A parsed rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rank {
    /// The text as found (SimpleText-decoded, trimmed).
    pub raw: String,
    /// Kyu, dan or pro.
    pub kind: RankKind,
    /// The number (5 for 5k, 5d or 5p).
    pub value: u8,
    /// Position on the single scale described in the module docs.
    pub numeric: i16,
}

fn cjk_numeral(c: char) -> Option<u32> {
    Some(match c {
        '初' | '초' | '一' => 1,
        '二' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        '十' => 10,
        _ => return None,
    })
}

fn digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

/// Parses a rank string; `None` when it is not a recognisable rank.
pub fn parse_rank(raw: &str) -> Option<Rank> {
    let raw = raw.trim();
    let lower = raw.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    // Find the first number.
    let mut i = 0;
    let (value, num_start, num_end) = loop {
        let c = *chars.get(i)?;
        if let Some(d) = digit(c) {
            let start = i;
            let mut v = d;
            i += 1;
            while let Some(d) = chars.get(i).copied().and_then(digit) {
                v = v.saturating_mul(10).saturating_add(d);
                i += 1;
            }
            break (v, start, i);
        }
        if let Some(v) = cjk_numeral(c) {
            // Only a numeral when a rank unit follows, so `十` in a name is not a rank.
            let next = chars.get(i + 1).copied();
            if matches!(next, Some('段' | '단' | '級' | '级' | '급')) {
                break (v, i, i + 1);
            }
        }
        i += 1;
    };
    let rest: String = chars[num_end..].iter().collect();
    let rest = rest.trim_start();
    let unit = if rest.starts_with("kyu") || rest.starts_with('k') || rest.starts_with(['級', '级', '급']) {
        RankKind::Kyu
    } else if rest.starts_with("dan") || rest.starts_with('d') || rest.starts_with(['段', '단']) {
        RankKind::Dan
    } else if rest.starts_with("pro") || rest.starts_with('p') {
        RankKind::Pro
    } else {
        return None;
    };
    let pro_marker = lower.contains("pro")
        || lower.contains("プロ")
        || lower.contains("프로")
        || lower.contains("职业")
        || lower.contains("職業")
        || (num_start > 0 && chars[num_start - 1] == 'p');
    let kind = if unit == RankKind::Dan && pro_marker { RankKind::Pro } else { unit };
    let ok = match kind {
        RankKind::Kyu => (1..=50).contains(&value),
        RankKind::Dan | RankKind::Pro => (1..=10).contains(&value),
    };
    if !ok {
        return None;
    }
    let v = value as i16;
    let numeric = match kind {
        RankKind::Kyu => 1 - v,
        RankKind::Dan => v,
        RankKind::Pro => 9 + v,
    };
    Some(Rank { raw: raw.to_string(), kind, value: value as u8, numeric })
}

impl std::str::FromStr for Rank {
    type Err = String;
    /// [`parse_rank`], with a message that says how to write a rank.
    fn from_str(s: &str) -> Result<Rank, String> {
        parse_rank(s).ok_or_else(|| format!("cannot read rank {s:?} (write e.g. \"5k\", \"1d\", \"3p\")"))
    }
}

/// Pipeline files and flags name ranks as text (`"5k"`, `"1d"`, `"3p"`); an unreadable
/// rank is an error there, never a silently missing bound.
impl<'de> serde::Deserialize<'de> for Rank {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rank, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Rank {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}
