//! Pipeline stages. Each has a `run` that reads its inputs from the output folder
//! (or the archives) and writes its tables atomically.
pub mod card;
pub mod convert;
pub mod draw;
pub mod eval;
pub mod export;
pub mod filter;
pub mod inspect;
pub mod label;
pub mod part;
pub mod play;
pub mod report;
pub mod sample;
pub mod score;
pub mod split;
