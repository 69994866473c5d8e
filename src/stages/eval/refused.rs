//! A usage or setup error of `kibo eval` (exit 2 in `cli`): the message says what and how many.

/// A usage or setup error of `kibo eval`.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}
