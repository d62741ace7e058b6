//! Rules as a small value type with KataGo's names and meanings.
//!
//! The presets follow KataGo's analysis engine (`tromp-taylor`, `chinese`, `japanese`, …); SGF `RU` values in
//! KataGo's compact form (`koSIMPLEscoreAREAtaxSEKIsui0`) and the usual human names are understood too.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RulesError {
    #[error(
        "unknown rules `{0}` (try tromp-taylor, chinese, japanese, korean, aga, new-zealand, or koSIMPLEscoreAREA…)"
    )]
    Unknown(String),
    #[error("komi {0} is not an integer or half-integer")]
    BadKomi(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KoRule {
    /// Only the immediate recapture of a single-stone ko is forbidden.
    Simple,
    /// A move may not recreate any earlier board (stones only).
    Positional,
    /// A move may not recreate an earlier board with the same player to move.
    Situational,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scoring {
    Area,
    Territory,
}

/// KataGo's "tax": which points are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tax {
    None,
    Seki,
    All,
}

/// Komi in half points, so that it is always exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Komi(i32);

impl Komi {
    pub fn from_f64(komi: f64) -> Result<Komi, RulesError> {
        let halves = komi * 2.0;
        if halves.fract() != 0.0 || !(-800.0..=800.0).contains(&halves) {
            return Err(RulesError::BadKomi(komi));
        }
        Ok(Komi(halves as i32))
    }

    pub fn halves(self) -> i32 {
        self.0
    }

    pub fn value(self) -> f64 {
        self.0 as f64 / 2.0
    }
}

impl fmt::Display for Komi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    pub ko: KoRule,
    pub scoring: Scoring,
    pub tax: Tax,
    /// Whether a move that leaves its own group of several stones without liberties is legal.
    pub multi_stone_suicide: bool,
    pub has_button: bool,
    pub komi: Komi,
}

impl Rules {
    pub fn tromp_taylor() -> Rules {
        Rules {
            ko: KoRule::Positional,
            scoring: Scoring::Area,
            tax: Tax::None,
            multi_stone_suicide: true,
            has_button: false,
            komi: Komi(15),
        }
    }

    pub fn chinese() -> Rules {
        Rules {
            ko: KoRule::Simple,
            multi_stone_suicide: false,
            ..Rules::tromp_taylor()
        }
    }

    pub fn japanese() -> Rules {
        Rules {
            ko: KoRule::Simple,
            scoring: Scoring::Territory,
            tax: Tax::Seki,
            multi_stone_suicide: false,
            has_button: false,
            komi: Komi(13),
        }
    }

    pub fn with_komi(self, komi: Komi) -> Rules {
        Rules { komi, ..self }
    }

    /// Parses a KataGo preset name, a common human name, or KataGo's compact SGF form.
    /// The komi is the preset's default; callers set their own with [`Rules::with_komi`].
    pub fn parse(text: &str) -> Result<Rules, RulesError> {
        let name = text.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let rules = match name.as_str() {
            "tromp-taylor" | "trompt-taylor" | "tt" => Rules::tromp_taylor(),
            "chinese" | "cn" => Rules::chinese(),
            "chinese-ogs" | "chinese-kgs" => Rules {
                ko: KoRule::Positional,
                ..Rules::chinese()
            },
            "japanese" | "jp" | "korean" | "ko" => Rules::japanese(),
            "stone-scoring" => Rules {
                tax: Tax::All,
                ..Rules::chinese()
            },
            "aga" | "bga" | "french" => Rules {
                ko: KoRule::Situational,
                ..Rules::chinese()
            },
            "aga-button" => Rules {
                ko: KoRule::Situational,
                has_button: true,
                ..Rules::chinese()
            },
            "new-zealand" | "nz" => Rules {
                ko: KoRule::Situational,
                multi_stone_suicide: true,
                ..Rules::chinese()
            },
            _ => {
                return Rules::parse_compact(text.trim())
                    .ok_or_else(|| RulesError::Unknown(text.to_string()));
            }
        };
        Ok(rules)
    }

    /// KataGo's compact form, e.g. `koPOSITIONALscoreAREAtaxNONEsui1button0`.
    fn parse_compact(text: &str) -> Option<Rules> {
        let mut rules = Rules::tromp_taylor();
        let mut rest = text;
        let mut seen_any = false;
        while !rest.is_empty() {
            let key_len =
                rest.find(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')?;
            let (key, tail) = rest.split_at(key_len);
            let value_len = tail
                .find(|c: char| c.is_ascii_lowercase())
                .unwrap_or(tail.len());
            let (value, tail) = tail.split_at(value_len);
            match (key, value) {
                ("ko", "SIMPLE") => rules.ko = KoRule::Simple,
                ("ko", "POSITIONAL") => rules.ko = KoRule::Positional,
                ("ko", "SITUATIONAL" | "SPIGHT") => rules.ko = KoRule::Situational,
                ("score", "AREA") => rules.scoring = Scoring::Area,
                ("score", "TERRITORY") => rules.scoring = Scoring::Territory,
                ("tax", "NONE") => rules.tax = Tax::None,
                ("tax", "SEKI") => rules.tax = Tax::Seki,
                ("tax", "ALL") => rules.tax = Tax::All,
                ("sui", v) => rules.multi_stone_suicide = v == "1",
                ("button", v) => rules.has_button = v == "1",
                ("fpok" | "whb" | "komi", _) => {}
                _ => return None,
            }
            seen_any = true;
            rest = tail;
        }
        seen_any.then_some(rules)
    }

    /// KataGo's upper-case names of the ko rule, the scoring and the tax (as in its rules JSON).
    fn katago_names(self) -> (&'static str, &'static str, &'static str) {
        let ko = match self.ko {
            KoRule::Simple => "SIMPLE",
            KoRule::Positional => "POSITIONAL",
            KoRule::Situational => "SITUATIONAL",
        };
        let scoring = match self.scoring {
            Scoring::Area => "AREA",
            Scoring::Territory => "TERRITORY",
        };
        let tax = match self.tax {
            Tax::None => "NONE",
            Tax::Seki => "SEKI",
            Tax::All => "ALL",
        };
        (ko, scoring, tax)
    }

    /// KataGo's compact form, as written into SGF `RU`.
    pub fn to_compact(self) -> String {
        let (ko, score, tax) = self.katago_names();
        let sui = u8::from(self.multi_stone_suicide);
        let button = if self.has_button { "button1" } else { "" };
        format!("ko{ko}score{score}tax{tax}sui{sui}{button}")
    }

    /// The rules object of KataGo's analysis protocol.
    pub fn to_katago_json(self) -> serde_json::Value {
        let (ko, scoring, tax) = self.katago_names();
        serde_json::json!({
            "ko": ko, "scoring": scoring, "tax": tax, "suicide": self.multi_stone_suicide,
            "hasButton": self.has_button, "whiteHandicapBonus": "0", "friendlyPassOk": false,
        })
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = Rules {
            komi: self.komi,
            ..*self
        };
        let name = [
            ("tromp-taylor", Rules::tromp_taylor()),
            ("chinese", Rules::chinese()),
            ("japanese", Rules::japanese()),
        ]
        .into_iter()
        .find(|(_, r)| r.with_komi(self.komi) == base)
        .map(|(n, _)| n.to_string())
        .unwrap_or_else(|| self.to_compact());
        write!(f, "{name} komi {}", self.komi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_katago() {
        let tt = Rules::parse("tromp-taylor").unwrap();
        assert_eq!(
            (tt.ko, tt.scoring, tt.multi_stone_suicide),
            (KoRule::Positional, Scoring::Area, true)
        );
        let jp = Rules::parse("Japanese").unwrap();
        assert_eq!(
            (jp.ko, jp.scoring, jp.tax),
            (KoRule::Simple, Scoring::Territory, Tax::Seki)
        );
        assert_eq!(Rules::parse("new-zealand").unwrap().ko, KoRule::Situational);
    }

    #[test]
    fn compact_round_trip() {
        let r = Rules::parse("koSIMPLEscoreAREAtaxSEKIsui0").unwrap();
        assert_eq!(
            (r.ko, r.scoring, r.tax, r.multi_stone_suicide),
            (KoRule::Simple, Scoring::Area, Tax::Seki, false)
        );
        for preset in [Rules::tromp_taylor(), Rules::japanese(), Rules::chinese()] {
            assert_eq!(
                Rules::parse(&preset.to_compact())
                    .unwrap()
                    .with_komi(preset.komi),
                preset
            );
        }
        assert!(Rules::parse("koBOGUS").is_err());
        assert!(Rules::parse("").is_err());
    }

    #[test]
    fn komi_must_be_half_integer() {
        assert_eq!(Komi::from_f64(7.5).unwrap().halves(), 15);
        assert!(Komi::from_f64(7.25).is_err());
    }
}
