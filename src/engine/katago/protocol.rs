//! KataGo's analysis protocol: queries written as JSON lines, replies read back into tengen's [`Report`].
//!
//! Conversions happen here and nowhere else: GTP vertices to [`Move`], KataGo's reporting perspective to
//! Black's, `-1` policy entries to `NaN`, `order` to tengen's best-first order.

use crate::engine::{MoveInfo, Query, Report, RootInfo};
use crate::go::{BoardSize, Color, Move, Rules};
use serde_json::{Value, json};

/// Whose point of view KataGo reports values from (its config key `reportAnalysisWinratesAs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perspective {
    Black,
    White,
    SideToMove,
}

impl Perspective {
    /// The player whose values KataGo reports for a position with `to_move` to play.
    fn reports_for(self, to_move: Color) -> Color {
        match self {
            Perspective::Black => Color::Black,
            Perspective::White => Color::White,
            Perspective::SideToMove => to_move,
        }
    }

    /// Whether values for a position with `to_move` to play must be flipped to be Black's.
    fn flips(self, to_move: Color) -> bool {
        self.reports_for(to_move) == Color::White
    }
}

/// KataGo's name for the rules when they are one of its presets, else the full rules object.
pub fn rules_value(rules: Rules) -> Value {
    let base = |r: Rules| r.with_komi(rules.komi) == rules;
    if base(Rules::tromp_taylor()) {
        json!("tromp-taylor")
    } else if base(Rules::japanese()) {
        json!("japanese")
    } else if base(Rules::chinese()) {
        json!("chinese")
    } else {
        rules.to_katago_json()
    }
}

/// The JSON query for `query` under the given id. Only the keys that differ from KataGo's defaults are
/// written, so that a query reads like one a person would write.
pub fn query_json(
    id: &str,
    query: &Query,
    turns: Option<&[usize]>,
    priority: Option<i64>,
) -> Value {
    let size = query.size;
    let gtp = |mv: Move| mv.to_gtp(size);
    let moves: Vec<Value> = query
        .moves
        .iter()
        .map(|&(c, mv)| json!([c.letter().to_string(), gtp(mv)]))
        .collect();
    let mut q = json!({
        "id": id,
        "moves": moves,
        "rules": rules_value(query.rules),
        "komi": query.rules.komi.value(),
        "boardXSize": size.width(),
        "boardYSize": size.height(),
    });
    let obj = q.as_object_mut().expect("a JSON object literal");
    let mut stones: Vec<Value> = Vec::new();
    stones.extend(
        query
            .setup
            .black
            .iter()
            .map(|p| json!(["B", p.to_gtp(size)])),
    );
    stones.extend(
        query
            .setup
            .white
            .iter()
            .map(|p| json!(["W", p.to_gtp(size)])),
    );
    if !stones.is_empty() {
        obj.insert("initialStones".into(), Value::Array(stones));
    }
    if let Some(first) = query.setup.first_player {
        obj.insert("initialPlayer".into(), json!(first.letter().to_string()));
    }
    if let Some(v) = query.max_visits {
        obj.insert("maxVisits".into(), json!(v));
    }
    if let Some(t) = query.max_time {
        obj.insert(
            "overrideSettings".into(),
            json!({ "maxTime": t.as_secs_f64() }),
        );
    }
    if !query.avoid.is_empty() {
        let player = query.to_move().letter().to_string();
        let banned: Vec<String> = query.avoid.iter().map(|&m| gtp(m)).collect();
        obj.insert(
            "avoidMoves".into(),
            json!([{ "player": player, "moves": banned, "untilDepth": 1 }]),
        );
    }
    if query.include_ownership {
        obj.insert("includeOwnership".into(), json!(true));
    }
    if query.include_policy {
        obj.insert("includePolicy".into(), json!(true));
    }
    if let Some(every) = query.report_every {
        obj.insert("reportDuringSearchEvery".into(), json!(every.as_secs_f64()));
    }
    if let Some(turns) = turns {
        obj.insert("analyzeTurns".into(), json!(turns));
    }
    if let Some(p) = priority {
        obj.insert("priority".into(), json!(p));
    }
    q
}

/// What a reply line is.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Results for one turn of a query (during the search, or final).
    Analysis {
        id: String,
        turn: Option<usize>,
        value: Value,
    },
    /// The echo of an action (`query_version`, `terminate`, …).
    Action {
        id: String,
        action: String,
        value: Value,
    },
    /// A query was rejected.
    Error {
        id: Option<String>,
        message: String,
        field: Option<String>,
    },
    /// The query runs, but KataGo has a remark about it.
    Warning {
        id: Option<String>,
        message: String,
        field: Option<String>,
    },
}

/// Classifies one stdout line; `None` for text that is not a JSON object.
pub fn classify(line: &str) -> Option<Reply> {
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    let obj = value.as_object()?;
    let id = obj.get("id").and_then(Value::as_str).map(str::to_string);
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(message) = text("error") {
        return Some(Reply::Error {
            id,
            message,
            field: text("field"),
        });
    }
    if let Some(message) = text("warning") {
        return Some(Reply::Warning {
            id,
            message,
            field: text("field"),
        });
    }
    if let Some(action) = text("action") {
        return Some(Reply::Action {
            id: id?,
            action,
            value,
        });
    }
    let turn = obj
        .get("turnNumber")
        .and_then(Value::as_u64)
        .map(|t| t as usize);
    Some(Reply::Analysis {
        id: id?,
        turn,
        value,
    })
}

/// Converts an analysis reply into a report from Black's point of view. `Err` names what was malformed.
pub fn report_from(
    value: &Value,
    size: BoardSize,
    perspective: Perspective,
    fallback_to_move: Color,
) -> Result<Report, String> {
    let is_final = !value
        .get("isDuringSearch")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if value.get("noResults").and_then(Value::as_bool) == Some(true) {
        return Ok(Report {
            is_final,
            ..Report::default()
        });
    }
    let root = value.get("rootInfo").ok_or("no rootInfo")?;
    let to_move = match root.get("currentPlayer").and_then(Value::as_str) {
        Some("W") => Color::White,
        Some("B") => Color::Black,
        _ => fallback_to_move,
    };
    let flip = perspective.flips(to_move);
    let rate = |v: f64| if flip { 1.0 - v } else { v };
    let score = |v: f64| if flip { -v } else { v };
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    let parse_move = |t: &str| Move::parse_gtp(t, size).map_err(|e| e.to_string());

    let mut infos: Vec<(i64, MoveInfo)> = Vec::new();
    for m in value
        .get("moveInfos")
        .and_then(Value::as_array)
        .map_or(&[][..], |a| a.as_slice())
    {
        let mv = parse_move(
            m.get("move")
                .and_then(Value::as_str)
                .ok_or("moveInfo without move")?,
        )?;
        let pv = m
            .get("pv")
            .and_then(Value::as_array)
            .map(|pv| {
                pv.iter()
                    .filter_map(Value::as_str)
                    .map(parse_move)
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_else(|| vec![mv]);
        // KataGo's lcb bounds the reported winrate; tengen's is for the player to move. Keep KataGo's
        // margin and move it to the player to move's winrate.
        let lcb = match (num(m, "lcb"), num(m, "winrate")) {
            (Some(l), Some(w)) => {
                let reported_is_to_move = perspective.reports_for(to_move) == to_move;
                Some(if reported_is_to_move { w } else { 1.0 - w } - (w - l))
            }
            _ => None,
        };
        let info = MoveInfo {
            mv,
            visits: m.get("visits").and_then(Value::as_u64).unwrap_or(0),
            winrate: rate(num(m, "winrate").ok_or("moveInfo without winrate")?),
            score_lead: score(
                num(m, "scoreLead")
                    .or_else(|| num(m, "scoreMean"))
                    .unwrap_or(0.0),
            ),
            prior: num(m, "prior").unwrap_or(0.0),
            pv,
            lcb,
            proven: false,
            score_mean: num(m, "scoreSelfplay").map(score),
        };
        let order = m.get("order").and_then(Value::as_i64).unwrap_or(i64::MAX);
        infos.push((order, info));
    }
    infos.sort_by_key(|(order, _)| *order);

    let root_info = RootInfo {
        winrate: rate(num(root, "winrate").ok_or("rootInfo without winrate")?),
        score_lead: score(num(root, "scoreLead").unwrap_or(0.0)),
        score_mean: score(
            num(root, "scoreSelfplay")
                .or_else(|| num(root, "scoreLead"))
                .unwrap_or(0.0),
        ),
        score_stdev: num(root, "scoreStdev").unwrap_or(0.0),
        visits: root.get("visits").and_then(Value::as_u64).unwrap_or(0),
    };
    let floats = |k: &str| -> Option<Vec<f64>> {
        value
            .get(k)?
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
    };
    let policy = floats("policy").map(|p| {
        p.into_iter()
            .map(|x| if x < 0.0 { f32::NAN } else { x as f32 })
            .collect()
    });
    let ownership = floats("ownership").map(|o| o.into_iter().map(|x| score(x) as f32).collect());
    Ok(Report {
        moves: infos.into_iter().map(|(_, i)| i).collect(),
        root: root_info,
        policy,
        ownership,
        is_final,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{Game, Komi};

    #[test]
    fn queries_name_preset_rules_and_ban_root_moves_for_the_player_to_move() {
        let size = BoardSize::square(9).unwrap();
        let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(7.0).unwrap());
        let game = Game::from_gtp_moves(size, rules, "E5 C5").unwrap();
        let avoid = Move::parse_list("D4 D6", size).unwrap();
        let q = Query::from_game(&game).with_visits(200).avoiding(&avoid);
        let json = query_json("x", &q, None, None);
        assert_eq!(json["rules"], "tromp-taylor");
        assert_eq!(json["moves"], json!([["B", "E5"], ["W", "C5"]]));
        assert_eq!(
            json["avoidMoves"],
            json!([{"player": "B", "moves": ["D4", "D6"], "untilDepth": 1}])
        );
        assert_eq!(json["komi"], 7.0);
        let odd = Rules {
            multi_stone_suicide: false,
            ..rules
        };
        assert_eq!(rules_value(odd)["ko"], "POSITIONAL");
    }

    #[test]
    fn side_to_move_values_are_flipped_for_white() {
        let size = BoardSize::square(3).unwrap();
        let reply = json!({"id": "a", "isDuringSearch": false, "turnNumber": 1,
            "moveInfos": [{"move": "A1", "order": 0, "visits": 3, "winrate": 0.25, "scoreLead": -2.0,
                           "prior": 0.5, "lcb": 0.2, "pv": ["A1", "pass"]}],
            "rootInfo": {"currentPlayer": "W", "winrate": 0.3, "scoreLead": -1.5, "visits": 4},
            "ownership": [0.5, 0, 0, 0, 0, 0, 0, 0, -1], "policy": [-1, 0.5, 0, 0, 0, 0, 0, 0, 0, 0.5]});
        let r = report_from(&reply, size, Perspective::SideToMove, Color::Black).unwrap();
        assert!(r.is_final);
        assert_eq!(r.moves[0].winrate, 0.75);
        assert_eq!(r.moves[0].score_lead, 2.0);
        assert_eq!(r.moves[0].lcb, Some(0.2));
        assert_eq!(
            r.moves[0].pv,
            vec![Move::parse_gtp("A1", size).unwrap(), Move::Pass]
        );
        assert_eq!(r.root.winrate, 0.7);
        assert_eq!(r.ownership.as_ref().unwrap()[0], -0.5);
        assert!(r.policy.as_ref().unwrap()[0].is_nan());
        let black = report_from(&reply, size, Perspective::Black, Color::Black).unwrap();
        assert_eq!(black.moves[0].winrate, 0.25);
        // In Black's perspective with White to move, KataGo's margin (0.05) is moved to White's winrate.
        assert!((black.moves[0].lcb.unwrap() - 0.70).abs() < 1e-12);
    }

    #[test]
    fn errors_warnings_and_actions_are_told_apart() {
        assert_eq!(
            classify(r#"{"error":"Illegal move 1: E5","field":"moves","id":"bad3"}"#),
            Some(Reply::Error {
                id: Some("bad3".into()),
                message: "Illegal move 1: E5".into(),
                field: Some("moves".into())
            })
        );
        assert!(matches!(
            classify(r#"{"error":"bad line"}"#),
            Some(Reply::Error { id: None, .. })
        ));
        assert!(matches!(
            classify(r#"{"warning":"unused","field":"foo","id":"q"}"#),
            Some(Reply::Warning { .. })
        ));
        assert!(matches!(
            classify(r#"{"action":"terminate","id":"t","terminateId":"q"}"#),
            Some(Reply::Action { .. })
        ));
        assert_eq!(classify("KataGo v1.17.2"), None);
    }
}
