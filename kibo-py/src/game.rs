//! [`Game`]: a game being played, on kibo's rules engine, for a GTP engine written in
//! Python (`examples/gtp_policy.py`): moves played with kibo's legality (occupied,
//! suicide, simple ko, superko by [`SuperkoHistory`]), taken back from a stack of boards,
//! the moves a player may choose (legal, not filling its own one-point eye: the test of
//! kibo's playouts, [`Board::is_eye_at`]), and the network inputs of the position in a
//! feature set by name, from the same [`Position`] a samples row gives
//! ([`Position::set_game`]). GTP text converts through [`kibo::coord`] only.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use kibo::color::Color;
use kibo::coord::{gtp_move, Move, Point, NN};
use kibo::engine::{Board, Rules, SuperkoHistory, SuperkoMode};
use kibo::features::{by_name, names, Position};

/// A GTP colour (`b`, `black`, `w`, `white`, any case).
fn color_of(text: &str) -> PyResult<Color> {
    match text.trim().to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(PyValueError::new_err(format!("not a colour: {text:?} (b, black, w or white)"))),
    }
}

/// A superko mode by name (`off`, `positional`, `situational`).
fn superko_of(name: &str) -> PyResult<SuperkoMode> {
    [SuperkoMode::Off, SuperkoMode::Positional, SuperkoMode::Situational]
        .into_iter()
        .find(|m| m.as_str() == name)
        .ok_or_else(|| PyValueError::new_err(format!("no superko mode {name:?} (off, positional, situational)")))
}

/// The move of point index `index` (0..361, row-major from the top-left; 361 = pass).
fn move_of(index: u16) -> PyResult<Move> {
    Move::from_index(index).ok_or_else(|| PyValueError::new_err(format!("{index} is not a move index (0..=361)")))
}

/// GTP text (`"Q16"`, `"pass"`) of move index `index` (`kibo.coord`).
#[pyfunction]
pub fn gtp_text(index: u16) -> PyResult<String> {
    Ok(move_of(index)?.to_gtp())
}

/// SGF text (`"pd"`, `""` for a pass) of move index `index` (`kibo.coord`).
#[pyfunction]
pub fn sgf_text(index: u16) -> PyResult<String> {
    Ok(move_of(index)?.to_sgf())
}

/// The move index (0..361, 361 = pass) of GTP text, `None` when it is not a move of a
/// 19×19 board (`kibo.coord`).
#[pyfunction]
pub fn gtp_index(text: &str) -> Option<u16> {
    gtp_move(text).map(Move::index)
}

/// A 19×19 game on kibo's rules (see the module docs). Any colour may move at any time,
/// as GTP allows.
#[pyclass(module = "kibo._kibo")]
pub struct Game {
    /// `boards[t]`: the board before move `t`; the last one is the board now.
    boards: Vec<Board>,
    /// The moves played.
    moves: Vec<Move>,
    /// Their colours.
    colors: Vec<Color>,
    /// The positions seen, for superko (rebuilt on undo).
    seen: SuperkoHistory,
    /// Komi given to White (the planes of `katago-v7` read it).
    #[pyo3(get, set)]
    komi: f32,
    /// `RU` of the game, as a samples row holds it (`katago-v7` reads it).
    #[pyo3(get, set)]
    rules: Option<String>,
    /// Black's handicap stones set before the first move ([`Game::place_handicap`]).
    #[pyo3(get)]
    handicap: u8,
    /// The position the planes are encoded from, reused.
    pos: Position,
}

impl Game {
    /// The board now.
    fn now(&self) -> &Board {
        self.boards.last().expect("invariant: a game has its starting board")
    }

    /// Forgets the positions seen and records every board of the game again.
    fn reseen(&mut self) {
        self.seen.reset(&self.boards[0], self.colors.first().copied().unwrap_or(Color::Black));
        for (b, c) in self.boards[1..].iter().zip(&self.colors) {
            self.seen.push(b, c.opponent());
        }
    }

    /// Whether `c` may play at `p`: legal on the board and under superko.
    fn legal_at(&self, c: Color, p: Point) -> bool {
        let m = Move::Play(p);
        let now = self.now();
        now.is_legal(c, m, &Rules::default()).is_ok() && !self.seen.would_repeat(now, c, m)
    }
}

#[pymethods]
impl Game {
    /// An empty board; `superko`: `positional` (default), `situational` or `off` (simple
    /// ko only).
    #[new]
    #[pyo3(signature = (komi=7.5, rules=None, superko="positional"))]
    fn new(komi: f32, rules: Option<String>, superko: &str) -> PyResult<Game> {
        let board = Board::new();
        let seen = SuperkoHistory::with_start(superko_of(superko)?, &board, Color::Black);
        Ok(Game {
            boards: vec![board],
            moves: Vec::new(),
            colors: Vec::new(),
            seen,
            komi,
            rules,
            handicap: 0,
            pos: Position::default(),
        })
    }

    /// Empties the board, handicap stones included (komi and rules stay).
    fn clear(&mut self) {
        self.boards = vec![Board::new()];
        self.moves.clear();
        self.colors.clear();
        self.handicap = 0;
        self.reseen();
    }

    /// Sets Black's handicap stones (GTP text, distinct points) on the empty board before
    /// the first move, as a game's setup (`AB`, `HA` = their number): the planes see them
    /// as a samples row of such a game does, on the board with no history.
    fn place_handicap(&mut self, vertices: Vec<String>) -> PyResult<()> {
        if !self.moves.is_empty() || self.now().stone_count(Color::Black) + self.now().stone_count(Color::White) > 0 {
            return Err(PyValueError::new_err("the board is not empty"));
        }
        let mut board = Board::new();
        for v in &vertices {
            let p = match gtp_move(v) {
                Some(Move::Play(p)) if board.get(p) == 0 => p,
                _ => return Err(PyValueError::new_err(format!("bad vertex list: {v:?} is not a free point"))),
            };
            board.set_stone(p, Color::Black.as_u8()).map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        self.handicap = u8::try_from(vertices.len()).map_err(|_| PyValueError::new_err("too many stones"))?;
        self.boards = vec![board];
        self.reseen();
        Ok(())
    }

    /// Plays `mv` (GTP text: `"Q16"`, `"pass"`) for `color`; returns its move index. A
    /// `ValueError` says why a move is refused: `not a move`, or kibo's reason
    /// (`occupied_point`, `suicide`, `ko_violation`, `superko_violation`).
    fn play(&mut self, color: &str, mv: &str) -> PyResult<u16> {
        let c = color_of(color)?;
        let m = gtp_move(mv).ok_or_else(|| PyValueError::new_err(format!("not a move: {mv:?}")))?;
        let mut board = self.now().clone();
        self.seen
            .play(&mut board, c, m, &Rules::default())
            .map_err(|e| PyValueError::new_err(format!("illegal move {mv}: {}", e.as_str())))?;
        self.boards.push(board);
        self.moves.push(m);
        self.colors.push(c);
        Ok(m.index())
    }

    /// Takes the last move back; `False` when there is none.
    fn undo(&mut self) -> bool {
        if self.moves.pop().is_none() {
            return false;
        }
        self.colors.pop();
        self.boards.pop();
        self.reseen();
        true
    }

    /// The point indices (row-major from the top-left, as the planes and the policy
    /// number them) where `color` may play: legal (occupied, suicide, ko, superko) and
    /// not its own one-point eye. A pass is always possible and not listed.
    fn candidates(&self, color: &str) -> PyResult<Vec<u16>> {
        let c = color_of(color)?;
        let now = self.now();
        let mut empty = Vec::with_capacity(NN);
        now.empty_points(&mut empty);
        let own_eye = |p: Point| now.loc(p).is_some_and(|l| now.is_eye_at(c, l));
        Ok(empty.into_iter().filter(|&p| self.legal_at(c, p) && !own_eye(p)).map(Point::index).collect())
    }

    /// Whether `color` may play `mv` (GTP text) now; a pass always may.
    fn is_legal(&self, color: &str, mv: &str) -> PyResult<bool> {
        let c = color_of(color)?;
        Ok(match gtp_move(mv) {
            Some(Move::Pass) => true,
            Some(Move::Play(p)) => self.legal_at(c, p),
            None => false,
        })
    }

    /// The network inputs of the position with `color` to move in the feature set `name`
    /// (`leela-18`, …): `(spatial, global)`, `spatial` the bytes of a uint8 array
    /// `[channels, 19, 19]` (kibo's frame, row 0 the top edge), `global` the set's global
    /// values: what a samples row of this game before `color`'s move gives.
    fn planes<'py>(&mut self, py: Python<'py>, name: &str, color: &str) -> PyResult<(Bound<'py, PyBytes>, Vec<f32>)> {
        let set = by_name(name)
            .ok_or_else(|| PyValueError::new_err(format!("no feature set {name:?}; known: {}", names().join(", "))))?;
        let c = color_of(color)?;
        self.pos.set_game(&self.boards, &self.moves, c).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
        (self.pos.komi, self.pos.rules, self.pos.handicap) = (Some(self.komi), self.rules.clone(), self.handicap);
        let (mut spatial, mut global) = (vec![0u8; set.spatial * NN], vec![0f32; set.global]);
        (set.encode)(&self.pos, &mut spatial, &mut global);
        Ok((PyBytes::new(py, &spatial), global))
    }

    /// The moves played: `(colour, GTP text)`, colour `B` or `W`.
    #[getter]
    fn moves(&self) -> Vec<(&'static str, String)> {
        self.colors.iter().zip(&self.moves).map(|(c, m)| (c.as_str(), m.to_gtp())).collect()
    }

    /// The board now: 361 bytes, 0 empty, 1 black, 2 white, row-major from the top-left.
    fn cells<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut cells = [0u8; NN];
        self.now().cells(&mut cells);
        PyBytes::new(py, &cells)
    }

    /// Moves played.
    fn __len__(&self) -> usize {
        self.moves.len()
    }
}
