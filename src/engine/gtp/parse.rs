//! Reading what a GTP engine writes: answers (`=`/`?`, ids, several lines), final scores, and the
//! `kata-analyze` / `lz-analyze` lines of engines that analyse.

use crate::engine::{MoveInfo, Report};
use crate::go::{BoardSize, Color, Move};

/// One GTP answer, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `=`: the text after the marker and the optional id, lines joined.
    Success(String),
    /// `?`: the engine's message.
    Failure(String),
    /// Something else: the first line, shortened, for the error message.
    NotAnswer(String),
}

/// Classifies an answer from its lines (the first non-blank line up to, not including, the blank line).
pub fn parse_answer(lines: &[String]) -> Answer {
    let Some(start) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return Answer::NotAnswer(String::new());
    };
    let first = &lines[start];
    let mut chars = first.chars();
    let marker = chars.next();
    let mut body = vec![
        chars
            .as_str()
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string(),
    ];
    body.extend(lines[start + 1..].iter().cloned());
    let text = body.join("\n").trim().to_string();
    match marker {
        Some('=') => Answer::Success(text),
        Some('?') => Answer::Failure(text),
        _ => Answer::NotAnswer(first.chars().take(200).collect()),
    }
}

/// Parses `B+3.5`, `W+2.0`, `0` (Black's lead).
pub fn parse_score(text: &str) -> Option<f64> {
    let t = text.split_whitespace().next()?;
    if t == "0" {
        return Some(0.0);
    }
    let (sign, rest) = match t.get(..2)? {
        "B+" => (1.0, &t[2..]),
        "W+" => (-1.0, &t[2..]),
        _ => return None,
    };
    match rest {
        "R" | "Resign" | "T" | "Time" => Some(sign * f64::INFINITY),
        _ => rest.parse::<f64>().ok().map(|v| sign * v),
    }
}

/// Parses one `kata-analyze` (or `lz-analyze`, values ×10000 and no scores) line into a report from
/// Black's point of view; values in those lines are the player to move's.
pub fn parse_analysis(line: &str, size: BoardSize, to_move: Color, kata: bool) -> Option<Report> {
    const MARKERS: [&str; 4] = ["info", "rootInfo", "ownership", "ownershipStdev"];
    const PV_ENDS: [&str; 8] = [
        "info",
        "rootInfo",
        "ownership",
        "ownershipStdev",
        "pvVisits",
        "pvEdgeVisits",
        "movesOwnership",
        "movesOwnershipStdev",
    ];
    let scale = if kata { 1.0 } else { 10_000.0 };
    let black = |wr: f64| {
        if to_move == Color::Black {
            wr
        } else {
            1.0 - wr
        }
    };
    let lead = |s: f64| if to_move == Color::Black { s } else { -s };
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut report = Report::default();
    let mut i = 0;
    let mut root_seen = false;
    while i < tokens.len() {
        match tokens[i] {
            "info" => {
                i += 1;
                let mut info = MoveInfo {
                    mv: Move::Pass,
                    visits: 0,
                    winrate: 0.5,
                    score_lead: 0.0,
                    prior: 0.0,
                    pv: vec![],
                    lcb: None,
                    proven: false,
                    score_mean: None,
                };
                let mut has_move = false;
                while i < tokens.len() && !MARKERS.contains(&tokens[i]) {
                    let key = tokens[i];
                    if key == "pv" {
                        i += 1;
                        while i < tokens.len() && !PV_ENDS.contains(&tokens[i]) {
                            info.pv.push(Move::parse_gtp(tokens[i], size).ok()?);
                            i += 1;
                        }
                        continue;
                    }
                    let value = *tokens.get(i + 1)?;
                    let num = || value.parse::<f64>().ok();
                    match key {
                        "move" => {
                            info.mv = Move::parse_gtp(value, size).ok()?;
                            has_move = true;
                        }
                        "visits" => info.visits = value.parse().ok()?,
                        "winrate" => info.winrate = black(num()? / scale),
                        "scoreLead" => info.score_lead = lead(num()?),
                        "scoreSelfplay" => info.score_mean = Some(lead(num()?)),
                        "prior" => info.prior = num()? / scale,
                        "lcb" => info.lcb = Some(num()? / scale),
                        _ => {}
                    }
                    i += 2;
                }
                if has_move {
                    report.moves.push(info);
                }
            }
            "rootInfo" => {
                i += 1;
                root_seen = true;
                while i + 1 < tokens.len() && !MARKERS.contains(&tokens[i]) {
                    let value = tokens[i + 1].parse::<f64>().ok()?;
                    match tokens[i] {
                        "visits" => report.root.visits = value as u64,
                        "winrate" => report.root.winrate = black(value),
                        "scoreLead" => report.root.score_lead = lead(value),
                        "scoreSelfplay" => report.root.score_mean = lead(value),
                        "scoreStdev" => report.root.score_stdev = value,
                        _ => {}
                    }
                    i += 2;
                }
            }
            "ownership" => {
                i += 1;
                let n = size.area();
                let values: Option<Vec<f32>> = tokens
                    .get(i..i + n)?
                    .iter()
                    .map(|t| t.parse::<f32>().ok().map(|v| lead(v as f64) as f32))
                    .collect();
                report.ownership = Some(values?);
                i += n;
            }
            _ => i += 1,
        }
    }
    if !root_seen {
        // lz-analyze has no root info: the visits are the children's, the value the most visited move's.
        report.root.visits = report.moves.iter().map(|m| m.visits).sum();
        if let Some(best) = report.moves.iter().max_by_key(|m| m.visits) {
            report.root.winrate = best.winrate;
            report.root.score_lead = best.score_lead;
        }
    }
    (!report.moves.is_empty()).then_some(report)
}
