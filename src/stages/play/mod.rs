//! `kibo match` (issue 55, being built): models and engines playing each other.
//! [`player`]: what a player is; [`elo`]: the Elo difference with its 95% interval, the
//! likelihood of superiority and the SPRT that stops a match early, as cutechess-cli
//! computes them.
pub mod elo;
pub mod player;
