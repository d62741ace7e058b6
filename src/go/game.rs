//! A game: the board under a set of rules, the player to move, the whole history, superko and game end.
//!
//! `Game` is the one representation of a position that everything above `go` passes around. It keeps the
//! setup (so a history can be replayed under a symmetry) and every earlier board for superko.

use super::board::{Board, IllegalMove, neighbours};
use super::coord::{BoardSize, Color, Move, Point};
use super::rules::{KoRule, Rules};
use super::zobrist;
use std::collections::HashSet;

/// Setup stones and the first player: what a history is replayed from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Setup {
    pub black: Vec<Point>,
    pub white: Vec<Point>,
    pub first_player: Option<Color>,
}

#[derive(Clone)]
pub struct Game {
    rules: Rules,
    setup: Setup,
    board: Board,
    to_move: Color,
    moves: Vec<(Color, Move)>,
    consecutive_passes: u8,
    /// Stone hashes of every board so far (positional superko).
    seen_boards: HashSet<u128>,
    /// Stone hash XOR player-to-move of every position so far (situational superko).
    seen_situations: HashSet<u128>,
}

impl Game {
    pub fn new(size: BoardSize, rules: Rules) -> Game {
        Game::with_setup(size, rules, Setup::default())
    }

    pub fn with_setup(size: BoardSize, rules: Rules, setup: Setup) -> Game {
        let mut board = Board::new(size);
        for &p in &setup.black {
            board.setup_stone(Color::Black, p);
        }
        for &p in &setup.white {
            board.setup_stone(Color::White, p);
        }
        let to_move = setup.first_player.unwrap_or(Color::Black);
        let mut game = Game {
            rules,
            setup,
            board,
            to_move,
            moves: Vec::new(),
            consecutive_passes: 0,
            seen_boards: HashSet::new(),
            seen_situations: HashSet::new(),
        };
        game.remember();
        game
    }

    /// Builds a game from GTP moves played alternately from the empty board.
    pub fn from_gtp_moves(size: BoardSize, rules: Rules, moves: &str) -> Result<Game, GameError> {
        let mut game = Game::new(size, rules);
        for (i, mv) in Move::parse_list(moves, size)
            .map_err(GameError::Coord)?
            .into_iter()
            .enumerate()
        {
            game.play(mv).map_err(|reason| GameError::Illegal {
                number: i + 1,
                mv: mv.to_gtp(size),
                reason,
            })?;
        }
        Ok(game)
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    pub fn size(&self) -> BoardSize {
        self.board.size()
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Sets the player to move (SGF `PL`, or a setup position). Forgets nothing.
    pub fn set_to_move(&mut self, color: Color) {
        self.to_move = color;
    }

    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }

    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().map(|&(_, m)| m)
    }

    pub fn consecutive_passes(&self) -> u8 {
        self.consecutive_passes
    }

    /// Two consecutive passes end the game under every rule set tengen knows.
    pub fn is_over(&self) -> bool {
        self.consecutive_passes >= 2
    }

    /// Continues a game that two passes had ended, as servers do after a dispute and KataGo's territory
    /// rules do in their encore: the pass count starts again.
    pub fn resume(&mut self) {
        self.consecutive_passes = 0;
    }

    /// Checks a move for the player to move under the full rules, superko included.
    pub fn check(&self, mv: Move) -> Result<(), IllegalMove> {
        self.check_as(self.to_move, mv)
    }

    pub fn check_as(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        let Move::Play(p) = mv else { return Ok(()) };
        self.board.check(color, p, self.rules.multi_stone_suicide)?;
        if self.rules.ko == KoRule::Simple {
            return Ok(());
        }
        let after = self.board.hash_after(color, p);
        let repeats = match self.rules.ko {
            KoRule::Simple => false,
            KoRule::Positional => self.seen_boards.contains(&after),
            KoRule::Situational => self
                .seen_situations
                .contains(&situation_key(after, color.opponent())),
        };
        if repeats {
            Err(IllegalMove::Superko)
        } else {
            Ok(())
        }
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(mv).is_ok()
    }

    /// Every legal move for the player to move, pass last.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out: Vec<Move> = self
            .size()
            .points()
            .map(Move::Play)
            .filter(|&m| self.is_legal(m))
            .collect();
        if !self.is_over() {
            out.push(Move::Pass);
        }
        out
    }

    /// Plays a move for the player to move.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.play_as(self.to_move, mv)
    }

    /// Plays a move for `color` (SGF files may have a player move twice).
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.check_as(color, mv)?;
        self.play_unchecked(color, mv);
        Ok(())
    }

    /// Plays without the superko check but with the board's own rules (occupied points are refused):
    /// for replaying records that break a rule on purpose.
    pub fn play_tolerant(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if let Move::Play(p) = mv {
            match self.board.check(color, p, true) {
                Ok(()) | Err(IllegalMove::Ko) => {}
                Err(e) => return Err(e),
            }
        }
        self.play_unchecked(color, mv);
        Ok(())
    }

    fn play_unchecked(&mut self, color: Color, mv: Move) {
        self.board.play(color, mv);
        self.consecutive_passes = if mv == Move::Pass {
            self.consecutive_passes + 1
        } else {
            0
        };
        self.moves.push((color, mv));
        self.to_move = color.opponent();
        self.remember();
    }

    fn remember(&mut self) {
        self.seen_boards.insert(self.board.stone_hash());
        self.seen_situations
            .insert(situation_key(self.board.stone_hash(), self.to_move));
    }

    /// Points where the player to move may not play only because of ko or superko.
    pub fn ko_banned_points(&self) -> Vec<Point> {
        let color = self.to_move;
        let mut banned: Vec<Point> = self.board.ko_point().into_iter().collect();
        if self.rules.ko != KoRule::Simple && !self.is_over() {
            for &i in self.board.empty_points() {
                let p = Point::from_index(i as usize);
                if self
                    .board
                    .check(color, p, self.rules.multi_stone_suicide)
                    .is_ok()
                    && self.check_as(color, Move::Play(p)) == Err(IllegalMove::Superko)
                {
                    banned.push(p);
                }
            }
        }
        banned.sort();
        banned.dedup();
        banned
    }

    /// The situation hash: stones, player to move, ko and superko bans, pending pass and game end.
    pub fn situation_hash(&self) -> u128 {
        let mut h = self.board.stone_hash();
        if self.to_move == Color::White {
            h ^= zobrist::MISC[zobrist::WHITE_TO_MOVE];
        }
        for p in self.ko_banned_points() {
            h ^= zobrist::KO_BAN[p.index()];
        }
        if self.consecutive_passes == 1 {
            h ^= zobrist::MISC[zobrist::ONE_PASS];
        }
        if self.is_over() {
            h ^= zobrist::MISC[zobrist::GAME_OVER];
        }
        h
    }

    /// Whether the stone just played at `p`, with its chain and the empty regions it touches, spans more
    /// than `bound` points: such a move cannot belong to a short repetition cycle (KataGo's `repBound`).
    pub fn move_exceeds_rep_bound(&self, p: Point, bound: usize) -> bool {
        let board = &self.board;
        if board.color_at(p).is_none() {
            return true; // the stone was captured at once (suicide): the board changed a lot
        }
        let mut total = board.chain_size(p);
        if total > bound {
            return true;
        }
        let mut seen: HashSet<Point> = HashSet::new();
        for s in board.chain_stones(p) {
            for n in neighbours(s) {
                if board.cell(n) == super::board::Cell::Empty && !seen.contains(&n) {
                    total += empty_region(board, n, &mut seen, bound + 1 - total.min(bound + 1));
                    if total > bound {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Floods the empty region through `start`, marking it in `seen`, stopping after `limit` points.
fn empty_region(board: &Board, start: Point, seen: &mut HashSet<Point>, limit: usize) -> usize {
    let mut stack = vec![start];
    seen.insert(start);
    let mut count = 0;
    while let Some(p) = stack.pop() {
        count += 1;
        if count >= limit {
            return count;
        }
        for n in neighbours(p) {
            if board.cell(n) == super::board::Cell::Empty && seen.insert(n) {
                stack.push(n);
            }
        }
    }
    count
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let size = self.size();
        let moves: Vec<String> = self
            .moves
            .iter()
            .map(|(c, m)| format!("{c} {}", m.to_gtp(size)))
            .collect();
        write!(
            f,
            "Game({size}, {}, {} to move, moves [{}])\n{:?}",
            self.rules,
            self.to_move,
            moves.join(", "),
            self.board
        )
    }
}

fn situation_key(stone_hash: u128, to_move: Color) -> u128 {
    if to_move == Color::White {
        stone_hash ^ zobrist::MISC[zobrist::WHITE_TO_MOVE]
    } else {
        stone_hash
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Coord(#[from] super::coord::CoordError),
    #[error("move {number} ({mv}) is illegal: {reason}")]
    Illegal {
        number: usize,
        mv: String,
        reason: IllegalMove,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Komi;

    fn size(n: usize) -> BoardSize {
        BoardSize::square(n).unwrap()
    }

    fn rules(ko: KoRule) -> Rules {
        Rules {
            ko,
            ..Rules::tromp_taylor()
        }
        .with_komi(Komi::from_f64(0.0).unwrap())
    }

    #[test]
    fn two_passes_end_the_game() {
        let mut g = Game::new(size(5), Rules::tromp_taylor());
        g.play(Move::Pass).unwrap();
        assert!(!g.is_over());
        g.play(Move::Pass).unwrap();
        assert!(g.is_over());
        assert_eq!(g.play(Move::Pass), Err(IllegalMove::GameOver));
        assert_eq!(g.legal_moves(), Vec::<Move>::new());
    }

    #[test]
    fn pass_then_move_resets_the_count() {
        let g = Game::from_gtp_moves(size(5), Rules::tromp_taylor(), "pass C3 pass").unwrap();
        assert_eq!(g.consecutive_passes(), 1);
        assert!(!g.is_over());
    }

    /// Builds a position on 5x5 and returns the game after the given alternating moves.
    fn ko_fight(ko: KoRule, moves: &str) -> Result<Game, GameError> {
        Game::from_gtp_moves(size(5), rules(ko), moves)
    }

    #[test]
    fn simple_ko_recapture_is_illegal_under_every_rule() {
        // Black: B4 C5 C3 D4? Build the usual ko shape at C4/D4.
        let setup = "B4 D5 C5 E4 C3 D3 pass C4"; // White C4 is not a capture yet
        for ko in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
            let mut g = ko_fight(ko, setup).unwrap();
            g.play(Move::parse_gtp("D4", size(5)).unwrap()).unwrap(); // Black takes at D4
            assert_eq!(
                g.board().ko_point(),
                Some(Point::parse_gtp("C4", size(5)).unwrap())
            );
            assert!(
                g.check(Move::parse_gtp("C4", size(5)).unwrap()).is_err(),
                "{ko:?}"
            );
        }
    }

    #[test]
    fn positional_superko_forbids_a_cycle_simple_ko_allows() {
        // A 2x2 board cycles quickly: with simple ko the repetition is allowed, with superko it is not.
        let s = size(2);
        let moves = "A1 B2 B1 A2";
        let mut simple = Game::from_gtp_moves(s, rules(KoRule::Simple), moves).unwrap();
        let mut positional = Game::from_gtp_moves(s, rules(KoRule::Positional), moves).unwrap();
        // After W A2 captures A1+B1? check the board is consistent under both rules.
        assert_eq!(simple.board().stone_hash(), positional.board().stone_hash());
        let legal_simple = simple.legal_moves();
        let legal_positional = positional.legal_moves();
        assert!(legal_positional.len() <= legal_simple.len());
        // Play the same legal sequence until superko bites.
        let mut banned_seen = false;
        for _ in 0..12 {
            let Some(&mv) = simple.legal_moves().iter().find(|m| m.point().is_some()) else {
                break;
            };
            if positional.check(mv) == Err(IllegalMove::Superko) {
                banned_seen = true;
                break;
            }
            simple.play(mv).unwrap();
            positional.play(mv).unwrap();
        }
        assert!(banned_seen, "a 2x2 cycle must hit positional superko");
    }

    /// Triple ko: three kos on one board. Black holds the first and third, White the second; six
    /// captures bring the board back, which only simple ko allows.
    #[test]
    fn triple_ko_under_each_rule() {
        let s = BoardSize::new(12, 3).unwrap();
        let rows = ["X.XOXO.OX.XO", "XXO.XXO.XXO.", "............"];
        let mut setup = Setup {
            first_player: Some(Color::White),
            ..Setup::default()
        };
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                match c {
                    'X' => setup.black.push(Point::new(x, y)),
                    'O' => setup.white.push(Point::new(x, y)),
                    _ => {}
                }
            }
        }
        let cycle = ["B3", "G3", "K3", "C3", "F3", "L3"];
        for ko in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
            let mut g = Game::with_setup(s, rules(ko), setup.clone());
            let mut illegal_at = None;
            'outer: for round in 0..3 {
                for (i, m) in cycle.iter().enumerate() {
                    let mv = Move::parse_gtp(m, s).unwrap();
                    if let Err(e) = g.play(mv) {
                        illegal_at = Some((round * cycle.len() + i, e));
                        break 'outer;
                    }
                }
            }
            match ko {
                KoRule::Simple => assert_eq!(illegal_at, None, "simple ko allows the cycle"),
                _ => assert_eq!(illegal_at, Some((5, IllegalMove::Superko)), "{ko:?}"),
            }
        }
    }

    #[test]
    fn suicide_under_each_rule_set() {
        // 3x3: Black holds the middle row; White's stones on the bottom row would lose their last liberty.
        let s = size(3);
        let setup = Setup {
            black: vec![Point::new(0, 1), Point::new(1, 1), Point::new(2, 1)],
            white: vec![Point::new(0, 2)],
            first_player: Some(Color::White),
        };
        let fill = Move::Play(Point::new(1, 2)); // B1: White's A1-B1 keeps one liberty, C1
        let last = Move::Play(Point::new(2, 2)); // C1
        for (name, rules, multi_legal) in [
            ("tromp-taylor", Rules::tromp_taylor(), true),
            ("new-zealand", Rules::parse("new-zealand").unwrap(), true),
            ("chinese", Rules::chinese(), false),
            ("japanese", Rules::japanese(), false),
        ] {
            let mut g = Game::with_setup(s, rules, setup.clone());
            g.play(fill).unwrap();
            g.play(Move::Pass).unwrap();
            // White C1 joins A1-B1 and fills the chain's last liberty: multi-stone suicide.
            assert_eq!(g.check(last).is_ok(), multi_legal, "{name}");
            if multi_legal {
                g.play(last).unwrap();
                assert_eq!(
                    g.board().captures(Color::Black),
                    3,
                    "{name}: the suicided stones are Black's prisoners"
                );
            }
            // A lone stone with no liberty is suicide under every rule set.
            let lone = Game::with_setup(
                s,
                rules,
                Setup {
                    black: vec![Point::new(1, 0), Point::new(0, 1)],
                    white: vec![],
                    first_player: Some(Color::White),
                },
            );
            assert_eq!(
                lone.check(Move::Play(Point::new(0, 0))),
                Err(IllegalMove::Suicide),
                "{name}"
            );
        }
    }

    #[test]
    fn rep_bound_detects_small_moves() {
        let g = Game::from_gtp_moves(size(9), Rules::tromp_taylor(), "E5").unwrap();
        assert!(g.move_exceeds_rep_bound(Point::parse_gtp("E5", size(9)).unwrap(), 9));
        let g =
            Game::from_gtp_moves(size(3), Rules::tromp_taylor(), "A1 B2 B1 C2 pass C1").unwrap();
        let p = Point::parse_gtp("C1", size(3)).unwrap();
        assert!(!g.move_exceeds_rep_bound(p, 9));
    }
}
