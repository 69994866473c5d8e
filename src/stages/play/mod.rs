//! `kibo match` (docs/match.md): models and engines playing each other, every game
//! counted and kept, the strength with its interval.
//!
//! * [`player`]: what a player is; [`players`]: the `--player NAME=SPEC` specs and how each
//!   is made ([`gtp`]: any GTP engine; [`random`]; [`openai`]: an OpenAI-compatible
//!   endpoint shown `kibo export vlm`'s picture and prompt); [`openings`]: `--openings`.
//! * [`game`]: one game (the rules, invalid answers, the end); [`count`]: how it is counted.
//! * [`record`]: a game as the match keeps it (its record and SGF); [`run`]: the schedule,
//!   concurrency, resume and the SPRT stop; [`report`]: match.json; [`elo`]: the Elo
//!   difference with its 95% interval, LOS and the SPRT, as cutechess-cli computes them;
//!   [`html`]: match.html and the games' review pages.
pub mod count;
pub mod elo;
pub mod game;
pub mod gtp;
pub mod html;
pub mod openai;
pub mod openings;
pub mod player;
pub mod players;
pub mod random;
pub mod record;
pub mod report;
pub mod run;
