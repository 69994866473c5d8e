/*!
`kibo export <format>`: training data for other tools' trainers, written from the sample
shards of an output folder (through [`crate::features`]); one module per format. The
train and val splits are written, each in its own folder; test is never written.
*/

pub mod katago;
pub mod leela;
pub mod vlm;

/// The policy target of an export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// The corpus's move distribution from this position (dedup's counts, normalised).
    #[default]
    Dist,
    /// The move played, alone.
    Played,
}

/// The splits an export writes, in order.
pub const SPLITS: [&str; 2] = ["train", "val"];

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Policy, String> {
        match s {
            "dist" => Ok(Policy::Dist),
            "played" => Ok(Policy::Played),
            _ => Err(format!("{s:?}: expected dist or played")),
        }
    }
}
