//! The single integration-test binary (ripgrep style): each module covers one topic.
mod util;

mod dedup;
mod filter;
mod reliability;
mod sample;
mod split;
mod tags;
