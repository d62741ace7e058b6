//! Arguments several subcommands share: a position given as size, rules, komi and GTP moves.

use anyhow::Result;
use clap::Args;
use tengen::go::{BoardSize, Game, Komi, Rules};

#[derive(Args, Clone, Debug)]
pub struct PositionSpec {
    /// Board size: 9, 9x9, 7x5
    #[arg(long, default_value = "9x9")]
    pub size: String,
    /// Rules by KataGo's names: tromp-taylor, chinese, japanese, aga, new-zealand, … or koSIMPLEscoreAREA…
    #[arg(long, default_value = "tromp-taylor")]
    pub rules: String,
    /// Komi, an integer or half-integer (default: the rules' usual komi)
    #[arg(long, allow_hyphen_values = true)]
    pub komi: Option<f64>,
    /// Moves played from the empty board, alternately from Black, in GTP form: "D4 D5 pass"
    #[arg(long, default_value = "")]
    pub moves: String,
}

impl PositionSpec {
    /// The rules with `--komi` applied.
    pub fn rules(&self) -> Result<Rules> {
        let rules = Rules::parse(&self.rules)?;
        Ok(match self.komi {
            Some(k) => rules.with_komi(Komi::from_f64(k)?),
            None => rules,
        })
    }

    pub fn size(&self) -> Result<BoardSize> {
        Ok(BoardSize::parse(&self.size)?)
    }

    /// The game after `--moves`, each checked under the rules.
    pub fn game(&self) -> Result<Game> {
        Ok(Game::from_gtp_moves(
            self.size()?,
            self.rules()?,
            &self.moves,
        )?)
    }
}
