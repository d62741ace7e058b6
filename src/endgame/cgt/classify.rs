//! What a Go player calls a local position, read from its thermograph: settled, gote, sente for one side
//! (the other side's move is then reverse sente), double sente, or ko (set by the solver, which sees kos).
//!
//! A move is sente when the position it leaves is hotter than the one it was played in: the opponent must
//! answer the follow-up threat before anything of the current temperature elsewhere.

use super::game::Game;
use super::rational::Rational;
use super::thermograph::Thermograph;
use crate::go::Color;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    /// A number: no move changes the count by more than it costs.
    Settled,
    /// Temperature zero or below but not a number (dame, infinitesimals).
    Tepid,
    Gote,
    /// Sente for this colour; the other colour's move is reverse sente.
    Sente(Color),
    DoubleSente,
    Ko,
}

impl Kind {
    /// The snake-case name used in JSON output.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Settled => "settled",
            Kind::Tepid => "tepid",
            Kind::Gote => "gote",
            Kind::Sente(Color::Black) => "black_sente",
            Kind::Sente(Color::White) => "white_sente",
            Kind::DoubleSente => "double_sente",
            Kind::Ko => "ko",
        }
    }

    /// The short name a narrow pane shows.
    pub fn short(self) -> &'static str {
        match self {
            Kind::Settled => "settled",
            Kind::Tepid => "tepid",
            Kind::Gote => "gote",
            Kind::Sente(Color::Black) => "Black sente / White reverse sente",
            Kind::Sente(Color::White) => "White sente / Black reverse sente",
            Kind::DoubleSente => "double sente",
            Kind::Ko => "ko",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Kind::Settled => "settled (a number)",
            Kind::Tepid => "tepid (temperature at most 0: dame or an infinitesimal)",
            Kind::Gote => "gote for both",
            Kind::Sente(Color::Black) => "Black's sente (White's move is reverse sente)",
            Kind::Sente(Color::White) => "White's sente (Black's move is reverse sente)",
            Kind::DoubleSente => "double sente",
            Kind::Ko => "ko",
        };
        f.write_str(text)
    }
}

/// The index of the Left (`Color::Black`) or Right option that attains the wall at the game's temperature
/// (the first of equals), with that option's thermograph.
pub fn best_option(game: &Game, color: Color) -> Option<(usize, Thermograph)> {
    let thermograph = Thermograph::of(game);
    let t = thermograph.temperature;
    let options = match color {
        Color::Black => game.left(),
        Color::White => game.right(),
    };
    let mut best: Option<(usize, Thermograph, Rational)> = None;
    for (i, option) in options.iter().enumerate() {
        let th = Thermograph::of(option);
        let value = match color {
            Color::Black => th.right.at(t) - t,
            Color::White => -(th.left.at(t) + t),
        };
        if best.as_ref().is_none_or(|b| value > b.2) {
            best = Some((i, th, value));
        }
    }
    best.map(|(i, th, _)| (i, th))
}

/// Classifies a game from its thermograph and its best options' temperatures.
pub fn classify(game: &Game) -> Kind {
    if game.is_number() {
        return Kind::Settled;
    }
    let t = Thermograph::of(game).temperature;
    if t <= Rational::ZERO {
        return Kind::Tepid;
    }
    let hotter = |color| best_option(game, color).is_some_and(|(_, th)| th.temperature > t);
    match (hotter(Color::Black), hotter(Color::White)) {
        (true, true) => Kind::DoubleSente,
        (true, false) => Kind::Sente(Color::Black),
        (false, true) => Kind::Sente(Color::White),
        (false, false) => Kind::Gote,
    }
}
