//! The exit codes of `kibo` (README, "Command line"; `kibo --help` lists them).

/// The exit codes (README "Command line"; scripts depend on them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Exit {
    /// Every input read, every stage finished.
    Ok = 0,
    /// Finished, but some inputs could not be read (each a `rejects` row, `unreadable_file`).
    SomeUnreadable = 1,
    /// Usage or setup error, found before anything was written.
    Setup = 2,
    /// A stage failed while running (a full disk, a damaged table): the error names the
    /// file; that stage's outputs were not replaced and no temporaries are left.
    Failed = 3,
}

impl Exit {
    /// The code of an error: [`Exit::Setup`] for a [`SetupError`], else [`Exit::Failed`].
    pub fn of_error(e: &anyhow::Error) -> Exit {
        if crate::error::is_setup(e) {
            Exit::Setup
        } else {
            Exit::Failed
        }
    }
}
