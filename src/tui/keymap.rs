//! Key bindings from TOML in yazi's shape: entries `on` / `run` / `desc`; the defaults are embedded from
//! `keymaps/default.toml`, and the user's `keymap.toml` is merged over them (`prepend_keymap` wins,
//! `append_keymap` fills free keys, `keymap` replaces the section).

use super::action::{Command, Key};
use serde::Deserialize;

pub const DEFAULT_KEYMAP: &str = include_str!("../../keymaps/default.toml");

/// One binding as the help overlay shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub on: Key,
    pub run: String,
    pub command: Command,
    pub desc: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    /// In lookup order: the first entry for a key wins.
    pub normal: Vec<Binding>,
    /// The endgame pane's keys: looked up first while it is open, then `normal`.
    pub endgame: Vec<Binding>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    normal: Option<Section>,
    #[serde(default)]
    endgame: Option<Section>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Section {
    keymap: Option<Vec<Entry>>,
    #[serde(default)]
    prepend_keymap: Vec<Entry>,
    #[serde(default)]
    append_keymap: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    on: String,
    run: String,
    #[serde(default)]
    desc: String,
}

impl Keymap {
    /// The embedded defaults.
    pub fn defaults() -> Keymap {
        match Keymap::from_toml(DEFAULT_KEYMAP, None) {
            Ok(k) => k,
            // The embedded file is checked by a unit test; an empty map keeps the app usable through `:`.
            Err(_) => Keymap {
                normal: Vec::new(),
                endgame: Vec::new(),
            },
        }
    }

    /// The defaults with a user file (its text and where it came from) merged over them.
    pub fn with_user(user: &str, origin: &str) -> Result<Keymap, String> {
        Keymap::from_toml(DEFAULT_KEYMAP, Some((user, origin)))
    }

    fn from_toml(defaults: &str, user: Option<(&str, &str)>) -> Result<Keymap, String> {
        let base: File = toml::from_str(defaults).map_err(|e| format!("default keymap: {e}"))?;
        let user_file = match user {
            Some((text, origin)) => Some((
                toml::from_str::<File>(text).map_err(|e| format!("{origin}: {}", e.message()))?,
                origin,
            )),
            None => None,
        };
        let origin = user.map_or("default keymap", |(_, o)| o);
        let (user_normal, user_endgame) = match user_file {
            Some((f, _)) => (f.normal, f.endgame),
            None => (None, None),
        };
        Ok(Keymap {
            normal: to_bindings(merge(base.normal, user_normal), origin)?,
            endgame: to_bindings(merge(base.endgame, user_endgame), origin)?,
        })
    }

    /// The binding for a key: the endgame pane's first while it is open.
    pub fn lookup_in(&self, endgame_open: bool, key: &Key) -> Option<&Binding> {
        let pane = if endgame_open {
            self.endgame.iter().find(|b| &b.on == key)
        } else {
            None
        };
        pane.or_else(|| self.lookup(key))
    }

    pub fn lookup(&self, key: &Key) -> Option<&Binding> {
        self.normal.iter().find(|b| &b.on == key)
    }

    /// The bindings to list in help: one row per command, with every key that runs it; the endgame
    /// pane's keys follow under a heading row.
    pub fn help_rows(&self) -> Vec<(String, String, String)> {
        let mut rows = section_rows(&self.normal);
        if !self.endgame.is_empty() {
            rows.push((
                String::new(),
                String::new(),
                "── endgame pane (E or :endgame opens it; other keys work as above) ──".into(),
            ));
            rows.extend(section_rows(&self.endgame));
        }
        rows
    }
}

/// A section's help rows: one per command, with every key that runs it.
fn section_rows(bindings: &[Binding]) -> Vec<(String, String, String)> {
    let lookup = |key: &Key| bindings.iter().find(|b| &b.on == key);
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for b in bindings {
        // A key shadowed by an earlier entry does nothing; don't advertise it.
        if lookup(&b.on)
            .map(|first| first.run != b.run)
            .unwrap_or(true)
        {
            continue;
        }
        if let Some(row) = rows.iter_mut().find(|r| r.1 == b.run) {
            if !row.0.split(' ').any(|k| k == b.on.0) {
                row.0.push(' ');
                row.0.push_str(&b.on.0);
            }
        } else {
            rows.push((b.on.0.clone(), b.run.clone(), b.desc.clone()));
        }
    }
    rows
}

/// The defaults' section with the user's merged over it: `keymap` replaces, `prepend_keymap` wins,
/// `append_keymap` fills free keys.
fn merge(base: Option<Section>, user: Option<Section>) -> Vec<Entry> {
    let mut entries = base.and_then(|s| s.keymap).unwrap_or_default();
    if let Some(section) = user {
        if let Some(replacement) = section.keymap {
            entries = replacement;
        }
        let mut merged = section.prepend_keymap;
        merged.append(&mut entries);
        merged.extend(section.append_keymap);
        entries = merged;
    }
    entries
}

fn to_bindings(entries: Vec<Entry>, origin: &str) -> Result<Vec<Binding>, String> {
    entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let on = normalize_key(&e.on)
                .map_err(|m| format!("{origin}: entry {} (on = {:?}): {m}", i + 1, e.on))?;
            let command = Command::parse(&e.run)
                .map_err(|m| format!("{origin}: entry {} (run = {:?}): {m}", i + 1, e.run))?;
            Ok(Binding {
                on,
                run: e.run,
                command,
                desc: e.desc,
            })
        })
        .collect()
}

const NAMED_KEYS: &[&str] = &[
    "enter",
    "esc",
    "tab",
    "backtab",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "pageup",
    "pagedown",
    "up",
    "down",
    "left",
    "right",
    "space",
];

/// Checks a key written by a user and puts it in the form key events produce (`Ctrl-R` → `ctrl-r`).
pub fn normalize_key(text: &str) -> Result<Key, String> {
    let parts: Vec<&str> = if text.len() > 1 && text.contains('-') && !text.ends_with("--") {
        text.split('-').collect()
    } else {
        vec![text]
    };
    let (base, mods) = parts.split_last().ok_or("empty key")?;
    let base = if base.is_empty() { "-" } else { base };
    let mut out = String::new();
    let mut shift = false;
    for m in mods {
        match m.to_ascii_lowercase().as_str() {
            "ctrl" | "c" => out.push_str("ctrl-"),
            "alt" | "a" | "meta" | "m" => out.push_str("alt-"),
            "shift" | "s" => shift = true,
            other => return Err(format!("unknown modifier `{other}` (use ctrl, alt, shift)")),
        }
    }
    let lower = base.to_ascii_lowercase();
    let base = if base.chars().count() == 1 {
        let c = base.chars().next().unwrap_or(' ');
        if out.starts_with("ctrl-") {
            // Terminals report Ctrl with the lower-case letter.
            c.to_ascii_lowercase().to_string()
        } else if shift && c.is_ascii_lowercase() {
            shift = false;
            c.to_ascii_uppercase().to_string()
        } else {
            c.to_string()
        }
    } else if NAMED_KEYS.contains(&lower.as_str())
        || (lower.starts_with('f')
            && lower[1..]
                .parse::<u8>()
                .is_ok_and(|n| (1..=24).contains(&n)))
    {
        lower
    } else {
        return Err(format!("unknown key `{base}`"));
    };
    let prefix = if shift { "shift-" } else { "" };
    Ok(Key(format!("{out}{prefix}{base}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_load_with_arrows_and_vim_keys() {
        let keymap = Keymap::from_toml(DEFAULT_KEYMAP, None).unwrap();
        for (key, cmd) in [
            ("right", Command::Into),
            ("l", Command::Into),
            ("j", Command::CursorDown),
            ("q", Command::Quit),
        ] {
            assert_eq!(
                keymap.lookup(&Key(key.into())).unwrap().command,
                cmd,
                "{key}"
            );
        }
    }

    #[test]
    fn user_entries_prepend_append_and_replace() {
        let user = r#"
            [normal]
            prepend_keymap = [ { on = "j", run = "into", desc = "mine" } ]
            append_keymap = [ { on = "Ctrl-X", run = "quit" }, { on = "q", run = "help" } ]
        "#;
        let keymap = Keymap::with_user(user, "keymap.toml").unwrap();
        assert_eq!(
            keymap.lookup(&Key("j".into())).unwrap().command,
            Command::Into
        );
        assert_eq!(
            keymap.lookup(&Key("ctrl-x".into())).unwrap().command,
            Command::Quit
        );
        // `q` is taken by a default, so the appended entry never fires and help does not list it.
        assert_eq!(
            keymap.lookup(&Key("q".into())).unwrap().command,
            Command::Quit
        );
        assert!(
            !keymap
                .help_rows()
                .iter()
                .any(|r| r.0.contains('q') && r.1 == "help")
        );
        let replaced =
            Keymap::with_user("[normal]\nkeymap = [ { on = \"x\", run = \"quit\" } ]", "k")
                .unwrap();
        assert_eq!(replaced.normal.len(), 1);
    }

    #[test]
    fn broken_user_files_say_where() {
        let err = Keymap::with_user(
            "[normal]\nprepend_keymap = [ { on = \"j\", run = \"fly\" } ]",
            "keymap.toml",
        )
        .unwrap_err();
        assert!(
            err.contains("keymap.toml: entry 1") && err.contains("unknown command `fly`"),
            "{err}"
        );
        let err = Keymap::with_user("[normal\n", "keymap.toml").unwrap_err();
        assert!(err.starts_with("keymap.toml:"), "{err}");
        assert!(normalize_key("hyper-x").is_err());
        assert_eq!(normalize_key("shift-j").unwrap(), Key("J".into()));
        assert_eq!(normalize_key("Alt-Left").unwrap(), Key("alt-left".into()));
        assert_eq!(normalize_key("-").unwrap(), Key("-".into()));
    }
}
