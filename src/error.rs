//! The error kinds the command line turns into exit codes (README, "Command line"): a
//! [`SetupError`] is a usage, setup or input problem found before anything was written
//! (exit 2); any other error is a stage that failed while running (exit 3). Any layer may
//! return one, so a stage that finds its input unusable says so in the type, not in a
//! string the command line would have to recognise.

/// A usage, setup or input problem: exit code 2. The message names the file, row or flag.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub String);

/// `Err(SetupError(msg))`.
pub fn setup<T>(msg: impl Into<String>) -> anyhow::Result<T> {
    Err(SetupError(msg.into()).into())
}

/// Whether `e` (or an error it wraps) is a [`SetupError`].
pub fn is_setup(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<SetupError>().is_some())
}
