//! Short combinatorial games whose leaves are exact numbers: construction with simplification (numbers by
//! the simplicity rule, dominated options dropped, reversible options bypassed), comparison, negation, sums,
//! and the text form `{a,b|c}` with `||`, `|||` for the separators of deeper levels.
//!
//! Leaves are rationals rather than only dyadics because Go's kos produce thirds. A number leaf is treated
//! as atomic: games are compared with numbers through the translation principle (a number never needs to
//! be moved in while a hot or tepid component remains), which is exact whenever the other game is not
//! itself a number in disguise. Simplification keeps every game it returns in that state: a node whose
//! options are all numbers with every Left option below every Right option becomes the simplest number
//! between them.

use super::fast_hash::{FastMap, fast_map};
use super::rational::Rational;
use super::thermograph::Thermograph;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A game: a number, or Left's (Black's) and Right's (White's) options.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Game {
    Number(Rational),
    Options(Arc<Options>),
}

#[derive(Clone)]
pub struct Options {
    pub left: Vec<Game>,
    pub right: Vec<Game>,
    /// Nodes in this game tree, counted once at construction.
    size: usize,
    /// The thermograph, computed on first use: solver trees ask for it again and again.
    thermograph: OnceLock<Thermograph>,
}

impl Options {
    pub fn new(left: Vec<Game>, right: Vec<Game>) -> Options {
        let size = left
            .iter()
            .chain(&right)
            .fold(1usize, |total, g| total.saturating_add(g.size()));
        Options {
            left,
            right,
            size,
            thermograph: OnceLock::new(),
        }
    }

    pub(crate) fn cached_thermograph(&self, compute: impl FnOnce() -> Thermograph) -> &Thermograph {
        self.thermograph.get_or_init(compute)
    }
}

impl PartialEq for Options {
    fn eq(&self, other: &Options) -> bool {
        self.left == other.left && self.right == other.right
    }
}

impl Eq for Options {}

impl std::hash::Hash for Options {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.left.hash(state);
        self.right.hash(state);
    }
}

/// Why a text is not a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the game `{text}` at character {position}: {reason}")]
pub struct GameParseError {
    pub text: String,
    pub position: usize,
    pub reason: String,
}

impl Game {
    pub fn number(value: impl Into<Rational>) -> Game {
        Game::Number(value.into())
    }

    /// `*`, the simplest infinitesimal: `{0|0}`.
    pub fn star() -> Game {
        Game::new(vec![Game::number(0)], vec![Game::number(0)])
    }

    /// The game `{left | right}`, simplified.
    pub fn new(left: Vec<Game>, right: Vec<Game>) -> Game {
        simplify(left, right)
    }

    pub fn as_number(&self) -> Option<Rational> {
        match self {
            Game::Number(x) => Some(*x),
            Game::Options(_) => None,
        }
    }

    pub fn is_number(&self) -> bool {
        self.as_number().is_some()
    }

    pub fn left(&self) -> &[Game] {
        match self {
            Game::Number(_) => &[],
            Game::Options(o) => &o.left,
        }
    }

    pub fn right(&self) -> &[Game] {
        match self {
            Game::Number(_) => &[],
            Game::Options(o) => &o.right,
        }
    }

    /// Whether `self ≤ other` (Right, moving second in `other − self`, does not lose).
    pub fn le(&self, other: &Game) -> bool {
        le_memo(self, other, &mut fast_map())
    }

    /// Game equality (not structural equality).
    pub fn equals(&self, other: &Game) -> bool {
        self.le(other) && other.le(self)
    }

    /// The left stop: where alternating play with Black first ends.
    pub fn left_stop(&self) -> Rational {
        match self {
            Game::Number(x) => *x,
            Game::Options(o) => o
                .left
                .iter()
                .map(Game::right_stop)
                .max()
                .unwrap_or_else(|| self.right_stop_or_default()),
        }
    }

    /// The right stop: where alternating play with White first ends.
    pub fn right_stop(&self) -> Rational {
        match self {
            Game::Number(x) => *x,
            Game::Options(o) => o
                .right
                .iter()
                .map(Game::left_stop)
                .min()
                .unwrap_or_else(|| self.left_stop_or_default()),
        }
    }

    // A side without options stops where the other side's play would: one-sided games do not arise from
    // Go positions (the solver gives both sides options or none), so this only keeps the functions total.
    fn right_stop_or_default(&self) -> Rational {
        self.right()
            .iter()
            .map(Game::left_stop)
            .min()
            .unwrap_or(Rational::ZERO)
    }

    fn left_stop_or_default(&self) -> Rational {
        self.left()
            .iter()
            .map(Game::right_stop)
            .max()
            .unwrap_or(Rational::ZERO)
    }

    /// The sum of two games (translation by numbers, the disjunctive sum otherwise). Sums of
    /// subpositions are memoised: `G^L + H^L` is reached both through `G^L + H` and `G + H^L`, and
    /// without the memo the work grows exponentially with depth.
    pub fn add(&self, other: &Game) -> Game {
        add_memo(self, other, &mut fast_map())
    }

    /// The game with the players' roles exchanged.
    pub fn neg(&self) -> Game {
        match self {
            Game::Number(x) => Game::Number(-*x),
            Game::Options(o) => Game::Options(Arc::new(Options::new(
                o.right.iter().map(Game::neg).collect(),
                o.left.iter().map(Game::neg).collect(),
            ))),
        }
    }

    /// Number of nodes in the game tree (for reporting sizes).
    pub fn size(&self) -> usize {
        match self {
            Game::Number(_) => 1,
            Game::Options(o) => o.size,
        }
    }

    /// How many bars the separator of this node needs in the text form: one more than any option uses.
    fn depth(&self) -> usize {
        match self {
            Game::Number(_) => 0,
            Game::Options(o) => {
                if is_star_form(o) {
                    return 1;
                }
                1 + o
                    .left
                    .iter()
                    .chain(&o.right)
                    .map(Game::depth)
                    .max()
                    .unwrap_or(0)
            }
        }
    }
}

/// A subgame's identity while summing: its value for numbers, its node's address otherwise (the games
/// being summed are borrowed for the whole sum, so addresses are stable).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum GameId {
    Number(Rational),
    Node(usize),
}

fn game_id(game: &Game) -> GameId {
    match game {
        Game::Number(x) => GameId::Number(*x),
        Game::Options(o) => GameId::Node(Arc::as_ptr(o) as usize),
    }
}

fn add_memo(g: &Game, h: &Game, memo: &mut FastMap<(GameId, GameId), Game>) -> Game {
    match (g, h) {
        (Game::Number(x), Game::Number(y)) => return Game::Number(*x + *y),
        (Game::Options(o), Game::Number(x)) | (Game::Number(x), Game::Options(o))
            if x.is_dyadic() =>
        {
            return translate(o, *x, &mut fast_map());
        }
        _ => {}
    }
    let key = (game_id(g), game_id(h));
    if let Some(sum) = memo.get(&key) {
        return sum.clone();
    }
    let mut left = Vec::with_capacity(g.left().len() + h.left().len());
    let mut right = Vec::with_capacity(g.right().len() + h.right().len());
    for gl in g.left() {
        left.push(add_memo(gl, h, memo));
    }
    for hl in h.left() {
        left.push(add_memo(g, hl, memo));
    }
    for gr in g.right() {
        right.push(add_memo(gr, h, memo));
    }
    for hr in h.right() {
        right.push(add_memo(g, hr, memo));
    }
    let sum = Game::new(left, right);
    memo.insert(key, sum.clone());
    sum
}

/// `G + x` for a simplified game `G` that is not a number and a dyadic number `x`: every leaf moved by
/// `x`, the shape kept. By the translation principle the sum is `{G^L + x | G^R + x}`, and simplifying it
/// again would change nothing: dominance and reversibility do not depend on `x`, and a dyadic `x` keeps
/// every dyadic number dyadic (and every other one not), so the same reversals are taken or skipped.
/// Shifting instead of re-simplifying makes adding prisoners to a solved position linear in its size, and
/// the thermograph, when known, moves with it.
fn translate(o: &Arc<Options>, x: Rational, memo: &mut FastMap<usize, Game>) -> Game {
    let key = Arc::as_ptr(o) as usize;
    if let Some(known) = memo.get(&key) {
        return known.clone();
    }
    let mut shift = |side: &[Game]| -> Vec<Game> {
        side.iter()
            .map(|option| match option {
                Game::Number(y) => Game::Number(*y + x),
                Game::Options(inner) => translate(inner, x, memo),
            })
            .collect()
    };
    let shifted = Options::new(shift(&o.left), shift(&o.right));
    if let Some(thermograph) = o.thermograph.get() {
        let _ = shifted.thermograph.set(thermograph.shifted(x));
    }
    let game = Game::Options(Arc::new(shifted));
    memo.insert(key, game.clone());
    game
}

/// `g ≤ h`, memoising the comparisons of subgames: the same pairs are met again and again through
/// different lines, and without the memo the work grows exponentially with depth. Every game compared
/// while `memo` lives must stay alive (the memo is keyed by node addresses).
fn le_memo(g: &Game, h: &Game, memo: &mut FastMap<(GameId, GameId), bool>) -> bool {
    let (g_options, h_options) = match (g, h) {
        (Game::Number(x), Game::Number(y)) => return x <= y,
        (Game::Number(_), Game::Options(ho)) => (None, Some(ho)),
        (Game::Options(go), Game::Number(_)) => (Some(go), None),
        (Game::Options(go), Game::Options(ho)) => {
            if Arc::ptr_eq(go, ho) {
                return true;
            }
            (Some(go), Some(ho))
        }
    };
    let key = (game_id(g), game_id(h));
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let left_ok = g_options.is_none_or(|o| o.left.iter().all(|gl| !le_memo(h, gl, memo)));
    let result =
        left_ok && h_options.is_none_or(|o| o.right.iter().all(|hr| !le_memo(hr, g, memo)));
    memo.insert(key, result);
    result
}

/// `{x|x}` is printed `x*` (and `{0|0}` as `*`).
fn is_star_form(o: &Options) -> bool {
    matches!((o.left.as_slice(), o.right.as_slice()), ([Game::Number(a)], [Game::Number(b)]) if a == b)
}

/// Bottom-up simplification of `{left | right}` whose options are already simplified. Comparisons are
/// memoised (one memo per stage, while the games it names are alive), so every game is simplified
/// whatever its size: the solver's games stay as small as their canonical forms.
fn simplify(mut left: Vec<Game>, mut right: Vec<Game>) -> Game {
    loop {
        if let Some(number) = number_value(&left, &right) {
            return Game::Number(number);
        }
        let mut memo = fast_map();
        drop_dominated(&mut left, |a, b| le_memo(a, b, &mut memo));
        drop_dominated(&mut right, |a, b| le_memo(b, a, &mut memo));
        if let Some(number) = number_value(&left, &right) {
            return Game::Number(number);
        }
        let candidate = Game::Options(Arc::new(Options::new(left.clone(), right.clone())));
        let mut memo = fast_map();
        let mut changed = false;
        // A Left option A is reversible through A^R when A^R ≤ G: Right's answer undoes Left's move, so
        // Left may as well move straight to A^R's Left options.
        let mut new_left = Vec::with_capacity(left.len());
        for a in &left {
            let reversal = a
                .right()
                .iter()
                .find(|ar| le_memo(ar, &candidate, &mut memo))
                .and_then(|ar| canonical_options(ar, Side::Left));
            match reversal {
                Some(replacement) => {
                    new_left.extend(replacement);
                    changed = true;
                }
                _ => new_left.push(a.clone()),
            }
        }
        let mut new_right = Vec::with_capacity(right.len());
        for b in &right {
            let reversal = b
                .left()
                .iter()
                .find(|bl| le_memo(&candidate, bl, &mut memo))
                .and_then(|bl| canonical_options(bl, Side::Right));
            match reversal {
                Some(replacement) => {
                    new_right.extend(replacement);
                    changed = true;
                }
                _ => new_right.push(b.clone()),
            }
        }
        if !changed {
            return one_sided_number(&left, &right)
                .map(Game::Number)
                .unwrap_or(candidate);
        }
        left = new_left;
        right = new_right;
    }
}

#[derive(Clone, Copy)]
enum Side {
    Left,
    Right,
}

/// One side's options of a game in canonical form. A dyadic number `m/2^k` has `(m∓1)/2^k`, an integer
/// `n > 0` has Left option `n − 1` only (and `n < 0` Right option `n + 1`); other rationals are not finite
/// games, so `None` (a reversal through them is skipped: keeping a reversible option never changes the value).
fn canonical_options(game: &Game, side: Side) -> Option<Vec<Game>> {
    let x = match game {
        Game::Options(o) => {
            return Some(match side {
                Side::Left => o.left.clone(),
                Side::Right => o.right.clone(),
            });
        }
        Game::Number(x) => *x,
    };
    if !x.is_dyadic() {
        return None;
    }
    let one = Rational::ONE;
    Some(if x.is_integer() {
        match side {
            Side::Left if x > Rational::ZERO => vec![Game::Number(x - one)],
            Side::Right if x < Rational::ZERO => vec![Game::Number(x + one)],
            _ => vec![],
        }
    } else {
        let step = Rational::new(1, x.denominator());
        match side {
            Side::Left => vec![Game::Number(x - step)],
            Side::Right => vec![Game::Number(x + step)],
        }
    })
}

/// A game with options on one side only is a number. Reversals find it when they pass through dyadic
/// numbers, but one through a ko's non-dyadic number is skipped (it has no canonical options), and the
/// game would stay a number in disguise, which the comparisons with numbers (by translation) get wrong:
/// `5 ≤ {{2|8/9}|}` held, since Right has no move. Each option is reversed by Right's answer, and a
/// non-dyadic number's Left options lie just below it, so the game is the simplest number beyond the
/// stops its options reach (`{{2|8/9}|}` = 1, as `{{2|1/2}|}` = `{0|}` = 1).
fn one_sided_number(left: &[Game], right: &[Game]) -> Option<Rational> {
    match (left.is_empty(), right.is_empty()) {
        (false, true) => Some(Rational::simplest_between(
            left.iter().map(Game::right_stop).max(),
            None,
        )),
        (true, false) => Some(Rational::simplest_between(
            None,
            right.iter().map(Game::left_stop).min(),
        )),
        _ => None,
    }
}

/// If every option is a number and Left's all lie below Right's, the game is the simplest number between.
fn number_value(left: &[Game], right: &[Game]) -> Option<Rational> {
    let numbers = |side: &[Game]| side.iter().map(Game::as_number).collect::<Option<Vec<_>>>();
    let (l, r) = (numbers(left)?, numbers(right)?);
    let max_left = l.iter().copied().max();
    let min_right = r.iter().copied().min();
    match (max_left, min_right) {
        (Some(a), Some(b)) if a >= b => None,
        _ => Some(Rational::simplest_between(max_left, min_right)),
    }
}

/// Removes every option that is worse than or equal to another one (keeping the first of equals).
fn drop_dominated(options: &mut Vec<Game>, mut worse_or_equal: impl FnMut(&Game, &Game) -> bool) {
    let mut i = 0;
    while i < options.len() {
        let dominated = (0..options.len()).any(|j| {
            j != i
                && worse_or_equal(&options[i], &options[j])
                && (!worse_or_equal(&options[j], &options[i]) || j < i)
        });
        if dominated {
            options.remove(i);
        } else {
            i += 1;
        }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Number(x) => write!(f, "{x}"),
            Game::Options(o) => {
                if is_star_form(o) {
                    return match o.left[0].as_number() {
                        Some(x) if x == Rational::ZERO => write!(f, "*"),
                        Some(x) => write!(f, "{x}*"),
                        None => Ok(()),
                    };
                }
                let bars = "|".repeat(self.depth());
                let side = |games: &[Game]| {
                    games
                        .iter()
                        .map(|g| g.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                write!(f, "{{{}{}{}}}", side(&o.left), bars, side(&o.right))
            }
        }
    }
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl std::str::FromStr for Game {
    type Err = GameParseError;

    /// Reads `3`, `-1/2`, `*`, `1*`, `{a,b|c}` (any run of bars separates a node's sides).
    fn from_str(text: &str) -> Result<Game, GameParseError> {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut parser = Parser {
            text,
            chars: &chars,
            pos: 0,
        };
        let game = parser.game()?;
        if parser.pos != chars.len() {
            return Err(parser.error("unexpected text after the game"));
        }
        Ok(game)
    }
}

struct Parser<'a> {
    text: &'a str,
    chars: &'a [char],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, reason: &str) -> GameParseError {
        GameParseError {
            text: self.text.to_string(),
            position: self.pos,
            reason: reason.to_string(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn game(&mut self) -> Result<Game, GameParseError> {
        match self.peek() {
            Some('{') => {
                self.pos += 1;
                let left = self.side()?;
                if self.peek() != Some('|') {
                    return Err(self.error("expected `|`"));
                }
                while self.peek() == Some('|') {
                    self.pos += 1;
                }
                let right = self.side()?;
                if self.peek() != Some('}') {
                    return Err(self.error("expected `}`"));
                }
                self.pos += 1;
                Ok(Game::new(left, right))
            }
            Some('*') => {
                self.pos += 1;
                Ok(Game::star())
            }
            Some(_) => {
                let start = self.pos;
                while matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '-' || c == '/') {
                    self.pos += 1;
                }
                let literal: String = self.chars[start..self.pos].iter().collect();
                let value: Rational = literal
                    .parse()
                    .map_err(|_| self.error("expected a number, `*` or `{`"))?;
                if self.peek() == Some('*') {
                    self.pos += 1;
                    return Ok(Game::new(
                        vec![Game::Number(value)],
                        vec![Game::Number(value)],
                    ));
                }
                Ok(Game::Number(value))
            }
            None => Err(self.error("unexpected end")),
        }
    }

    fn side(&mut self) -> Result<Vec<Game>, GameParseError> {
        let mut games = Vec::new();
        if matches!(self.peek(), Some('|') | Some('}')) {
            return Ok(games);
        }
        loop {
            games.push(self.game()?);
            if self.peek() == Some(',') {
                self.pos += 1;
            } else {
                return Ok(games);
            }
        }
    }
}
