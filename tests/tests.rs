//! The single integration-test binary (ripgrep style): each module covers one topic.
mod util;

mod dedup;
mod dumps;
mod features;
mod filter;
mod formats;
mod house;
mod match_openai;
mod parts;
mod reliability;
mod sample;
mod scoring;
mod split;
mod tags;
