//! Colours from TOML: built-in themes (dark, light, high-contrast, colorblind, ascii) embedded from `themes/`,
//! and user themes in the config directory that override any subset of keys of the dark theme.

use ratatui::style::Color;
use std::str::FromStr;

pub const BUILT_IN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("colorblind", include_str!("../../themes/colorblind.toml")),
    ("ascii", include_str!("../../themes/ascii.toml")),
];

/// The characters the board is drawn with. Black and White differ in shape, not only in colour, so that
/// a text capture or a terminal without colours still tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glyphs {
    /// `●` Black, `○` White, box-drawing grid.
    Round,
    /// `X` Black, `O` White, `+` and `-` grid.
    Ascii,
}

impl Glyphs {
    pub fn stone(self, black: bool) -> &'static str {
        match (self, black) {
            (Glyphs::Round, true) => "●",
            (Glyphs::Round, false) => "○",
            (Glyphs::Ascii, true) => "X",
            (Glyphs::Ascii, false) => "O",
        }
    }

    /// An empty point the network expects `black` (or White) to own: a filled square where it is sure,
    /// a small one where it leans (`x`/`o` in ASCII, where the style says how sure).
    pub fn territory(self, black: bool, sure: bool) -> &'static str {
        match (self, black, sure) {
            (Glyphs::Round, true, true) => "■",
            (Glyphs::Round, true, false) => "▪",
            (Glyphs::Round, false, true) => "□",
            (Glyphs::Round, false, false) => "▫",
            (Glyphs::Ascii, true, _) => "x",
            (Glyphs::Ascii, false, _) => "o",
        }
    }

    /// The horizontal grid line between two points.
    pub fn connector(self) -> &'static str {
        match self {
            Glyphs::Round => "─",
            Glyphs::Ascii => "-",
        }
    }
}

macro_rules! theme_struct {
    ($($field:ident),* $(,)?) => {
        /// Named colours; every pane takes its styles from here.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            pub name: String,
            /// How stones and the grid are drawn (`glyphs = "round"` or `"ascii"`).
            pub glyphs: Glyphs,
            $(pub $field: Color,)*
        }

        const KEYS: &[&str] = &[$(stringify!($field)),*];

        impl Theme {
            fn set(&mut self, key: &str, color: Color) -> bool {
                match key {
                    $(stringify!($field) => self.$field = color,)*
                    _ => return false,
                }
                true
            }
        }
    };
}

theme_struct!(
    text,
    dim,
    border,
    title,
    board_bg,
    grid,
    coordinates,
    black_stone,
    white_stone,
    last_move,
    rank_best,
    rank_good,
    rank_fair,
    rank_poor,
    rank_bad,
    points_lost_0,
    points_lost_0_5,
    points_lost_1_5,
    points_lost_3,
    points_lost_6,
    points_lost_12,
    ownership_black,
    ownership_white,
    policy,
    pv,
    highlight_bg,
    mark,
    transposition,
    progress,
    status_fg,
    status_bg,
    error,
);

impl Theme {
    /// The dark theme, which every other theme starts from.
    pub fn dark() -> Theme {
        let mut theme = Theme::blank("dark");
        // The embedded file is checked by a unit test; should it break, the blank theme still draws.
        let _ = theme.apply(BUILT_IN[0].1, "themes/dark.toml");
        theme
    }

    fn blank(name: &str) -> Theme {
        let mut theme = Theme {
            name: name.to_string(),
            glyphs: Glyphs::Round,
            text: Color::Reset,
            dim: Color::Reset,
            border: Color::Reset,
            title: Color::Reset,
            board_bg: Color::Reset,
            grid: Color::Reset,
            coordinates: Color::Reset,
            black_stone: Color::Reset,
            white_stone: Color::Reset,
            last_move: Color::Reset,
            rank_best: Color::Reset,
            rank_good: Color::Reset,
            rank_fair: Color::Reset,
            rank_poor: Color::Reset,
            rank_bad: Color::Reset,
            points_lost_0: Color::Reset,
            points_lost_0_5: Color::Reset,
            points_lost_1_5: Color::Reset,
            points_lost_3: Color::Reset,
            points_lost_6: Color::Reset,
            points_lost_12: Color::Reset,
            ownership_black: Color::Reset,
            ownership_white: Color::Reset,
            policy: Color::Reset,
            pv: Color::Reset,
            highlight_bg: Color::Reset,
            mark: Color::Reset,
            transposition: Color::Reset,
            progress: Color::Reset,
            status_fg: Color::Reset,
            status_bg: Color::Reset,
            error: Color::Reset,
        };
        theme.name = name.to_string();
        theme
    }

    /// The dark theme with `text` (a theme file named `name`) applied over it.
    pub fn parse(name: &str, text: &str, origin: &str) -> Result<Theme, String> {
        let mut theme = Theme::dark();
        theme.name = name.to_string();
        theme.apply(text, origin)?;
        Ok(theme)
    }

    fn apply(&mut self, text: &str, origin: &str) -> Result<(), String> {
        let table: toml::Table =
            toml::from_str(text).map_err(|e| format!("{origin}: {}", e.message()))?;
        for (key, value) in table {
            if key == "glyphs" {
                self.glyphs = match value.as_str() {
                    Some("round") => Glyphs::Round,
                    Some("ascii") => Glyphs::Ascii,
                    _ => {
                        return Err(format!(
                            "{origin}: `glyphs` must be \"round\" or \"ascii\" (got {value})"
                        ));
                    }
                };
                continue;
            }
            let Some(s) = value.as_str() else {
                return Err(format!(
                    "{origin}: `{key}` must be a colour string such as \"cyan\" or \"#00afaf\""
                ));
            };
            let color = Color::from_str(s)
                .map_err(|_| format!("{origin}: `{key} = {s:?}` is not a colour"))?;
            if !self.set(&key, color) {
                return Err(format!(
                    "{origin}: unknown key `{key}` (known: {})",
                    KEYS.join(", ")
                ));
            }
        }
        Ok(())
    }

    pub fn built_in(name: &str) -> Option<&'static str> {
        BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }
}

/// A theme is named, not located: `NAME.toml` in the themes folder. Letters, digits, `-` and `_` only,
/// so that no name reaches outside that folder (`../../x`, `/etc/x`).
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{}` is not a name (letters, digits, `-` and `_`, as in `high-contrast`)",
            name.escape_debug()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_theme_sets_every_key() {
        for (name, text) in BUILT_IN {
            let table: toml::Table = toml::from_str(text).unwrap();
            for key in KEYS {
                assert!(table.contains_key(*key), "{name} lacks {key}");
            }
            let theme = Theme::parse(name, text, name).unwrap();
            assert_eq!(theme.name, *name);
        }
        assert_eq!(Theme::dark().rank_best, Color::Cyan);
    }

    #[test]
    fn partial_user_theme_overrides_and_errors_name_the_key() {
        let theme = Theme::parse("mine", "rank_best = \"#123456\"", "mine.toml").unwrap();
        assert_eq!(theme.rank_best, Color::Rgb(0x12, 0x34, 0x56));
        assert_eq!(theme.rank_bad, Theme::dark().rank_bad);
        let err = Theme::parse("mine", "rank_best = \"sparkly\"", "mine.toml").unwrap_err();
        assert!(
            err.contains("mine.toml") && err.contains("rank_best"),
            "{err}"
        );
        let err = Theme::parse("mine", "glyphs = \"square\"", "mine.toml").unwrap_err();
        assert!(err.contains("`glyphs` must be"), "{err}");
        assert_eq!(
            Theme::parse("mine", "glyphs = \"ascii\"", "mine.toml")
                .unwrap()
                .glyphs,
            Glyphs::Ascii
        );
        let err = Theme::parse("mine", "stone = \"red\"", "mine.toml").unwrap_err();
        assert!(err.contains("unknown key `stone`"), "{err}");
    }

    #[test]
    fn theme_names_are_names_not_paths() {
        for name in ["dark", "high-contrast", "my_theme2"] {
            assert_eq!(check_name(name), Ok(()));
        }
        for name in ["", "../../..", "/etc/passwd", "a/b", "a.b", "dark\n"] {
            assert!(check_name(name).is_err(), "{name:?}");
        }
        // The `:theme` command (and a keymap's `run`) refuses a path before any file is looked for.
        let err = crate::tui::action::Command::parse("theme ../../..").unwrap_err();
        assert!(err.contains("`../../..` is not a name"), "{err}");
    }
}
