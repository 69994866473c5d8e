//! `kibo match` (issue 55, being built): models and engines playing each other.
//! [`player`]: what a player is; [`elo`]: the Elo difference with its 95% interval, the
//! likelihood of superiority and the SPRT that stops a match early, as cutechess-cli
//! computes them; [`openai`]: the `openai:URL` player (a model behind a chat-completions
//! endpoint, shown `kibo export vlm`'s picture).
pub mod elo;
pub mod openai;
pub mod player;
