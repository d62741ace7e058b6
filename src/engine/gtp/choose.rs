//! GTP engines without analysis commands (GNU Go): one move, valued by the engine's own score estimate.
//!
//! Moves: `restricted_genmove` over the allowed moves when some are banned and the engine has it (GNU Go
//! does), else `reg_genmove` or `genmove`; an engine that picks a banned move anyway is refused, since it
//! cannot be told to avoid it. A pass answered when pass is banned means the engine sees nothing worth
//! playing among the allowed moves: the report then lists no move.
//!
//! Values: the chosen move is played and the engine's `estimate_score` (or `final_score`) of the position
//! after it is Black's lead. Such an engine gives no winning probability, so the winrate is a fixed
//! monotone map of that lead, `0.5 + atan(lead / s) / π` with `s = max(1, 0.75·√(points))` (the score
//! scale of `engine::mcts`'s utility): a book orders the moves by the engine's own judgement, and reads
//! its 50% as "even by the engine's count", never as a probability the engine gave. Each such report
//! counts as one visit. An engine with neither score command gives moves only: its report has no
//! visits, and a book refuses to grow with it.

use super::{GenMove, GtpClient};
use crate::engine::{EngineError, MoveInfo, Query, Report, RootInfo};
use crate::go::{BoardSize, Move};

/// Black's winrate as the documented map of Black's estimated lead on a board of `size`.
pub fn winrate_of_lead(lead: f64, size: BoardSize) -> f64 {
    let scale = (0.75 * (size.area() as f64).sqrt()).max(1.0);
    0.5 + (lead / scale).atan() / std::f64::consts::PI
}

impl GtpClient {
    /// The engine's one choice and its value, for engines without analysis commands.
    pub(super) async fn choose(&mut self, query: &Query) -> Result<Report, EngineError> {
        let to_move = query.to_move();
        let size = query.size;
        let restricted = !query.avoid.is_empty() && self.knows("restricted_genmove");
        let (answer, played) = if restricted {
            let game = query.game()?;
            let allowed: Vec<String> = game
                .legal_moves()
                .into_iter()
                .filter(|m| *m != Move::Pass && !query.avoid.contains(m))
                .map(|m| m.to_gtp(size))
                .collect();
            if allowed.is_empty() {
                return self.no_move(size).await;
            }
            let command = format!(
                "restricted_genmove {} {}",
                to_move.letter(),
                allowed.join(" ")
            );
            (self.command(&command).await?, false)
        } else if self.knows("reg_genmove") {
            let command = format!("reg_genmove {}", to_move.letter());
            (self.command(&command).await?, false)
        } else {
            let command = format!("genmove {}", to_move.letter());
            (self.command(&command).await?, true)
        };
        let chosen = self.parse_genmove(&answer, size)?;
        if played && chosen != GenMove::Resign {
            self.command("undo").await?;
        }
        let GenMove::Play(mv) = chosen else {
            return self.no_move(size).await;
        };
        if query.avoid.contains(&mv) {
            if restricted && mv == Move::Pass {
                return self.no_move(size).await;
            }
            return Err(EngineError::Refused {
                engine: self.name.clone(),
                message: format!(
                    "it chose the banned move {} and cannot be told to avoid it",
                    mv.to_gtp(size)
                ),
            });
        }
        let lead = self.lead_after(query, mv).await?;
        let (winrate, score_lead, visits) = match lead {
            Some(lead) => (winrate_of_lead(lead, size), lead, 1),
            None => (0.5, 0.0, 0),
        };
        let info = MoveInfo {
            mv,
            visits,
            winrate,
            score_lead,
            prior: 1.0,
            pv: vec![mv],
            lcb: None,
            proven: false,
            score_mean: None,
        };
        Ok(Report {
            moves: vec![info],
            root: RootInfo {
                winrate,
                score_lead,
                score_mean: score_lead,
                visits,
                ..RootInfo::default()
            },
            policy: None,
            ownership: None,
            is_final: true,
        })
    }

    /// Black's lead after `mv` by the engine's own count, when it has a score command.
    async fn lead_after(&mut self, query: &Query, mv: Move) -> Result<Option<f64>, EngineError> {
        if self.score_command().is_none() {
            return Ok(None);
        }
        self.play(query.to_move(), mv, query.size).await?;
        let lead = self.lead().await?;
        // The next query sets its position up from scratch; undoing keeps this one tidy meanwhile.
        if self.knows("undo") {
            self.command("undo").await?;
        }
        Ok(lead)
    }

    fn score_command(&self) -> Option<&'static str> {
        ["estimate_score", "final_score"]
            .into_iter()
            .find(|c| self.knows(c))
    }

    /// Black's lead in the position as it stands, by the engine's own count.
    async fn lead(&mut self) -> Result<Option<f64>, EngineError> {
        let Some(command) = self.score_command() else {
            return Ok(None);
        };
        let answer = self.command(command).await?;
        super::parse_score(&answer)
            .filter(|lead| lead.is_finite())
            .map(Some)
            .ok_or_else(|| EngineError::Refused {
                engine: self.name.clone(),
                message: format!("`{command}` answered `{answer}`"),
            })
    }

    /// A final report without moves (the engine resigned, or wants only a banned pass), valued by the
    /// engine's count of the position as it stands when it has one.
    async fn no_move(&mut self, size: BoardSize) -> Result<Report, EngineError> {
        let mut report = Report {
            is_final: true,
            ..Report::default()
        };
        if let Some(lead) = self.lead().await? {
            report.root = RootInfo {
                winrate: winrate_of_lead(lead, size),
                score_lead: lead,
                score_mean: lead,
                visits: 1,
                ..RootInfo::default()
            };
        }
        Ok(report)
    }
}
