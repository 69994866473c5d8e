//! The `kibo` binary: a thin wrapper over [`kibo::cli`].
fn main() {
    std::process::exit(kibo::cli::main_with_args());
}
