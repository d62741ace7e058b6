//! Pass-alive stones and territory (Benson's algorithm), as KataGo's V7 planes 18-19 use them.
//!
//! For each colour: the regions are the connected areas of empty-or-enemy points that contain an empty
//! point. A region is vital to one of the colour's chains when every empty point of it (every point, if
//! multi-stone suicide is legal) touches that chain. Chains with fewer than two vital regions that are
//! bordered only by surviving chains are removed until nothing changes; the rest are pass-alive. A region
//! is then the colour's territory when it is bordered only by pass-alive chains and either has at most one
//! point touching none of the colour's stones, or contains no enemy stones ("safe big territories").
//!
//! [`AreaOptions`] widens this the way KataGo's area count does: "unsafe big territories" mark every
//! empty region that reaches only one colour, and "non-pass-alive stones" give every remaining stone to
//! its owner. With both on this is Tromp-Taylor area, except that pass-alive territory wins over it.

use crate::go::board::{Board, neighbours};
use crate::go::coord::GRID;
use crate::go::{Color, Point};

/// Which points beyond the strictly pass-alive ones count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AreaOptions {
    pub non_pass_alive_stones: bool,
    pub safe_big_territories: bool,
    pub unsafe_big_territories: bool,
    pub multi_stone_suicide: bool,
}

impl AreaOptions {
    /// Pass-alive stones and territory, with KataGo's "safe big territories".
    pub fn pass_alive(multi_stone_suicide: bool) -> AreaOptions {
        AreaOptions {
            non_pass_alive_stones: false,
            safe_big_territories: true,
            unsafe_big_territories: false,
            multi_stone_suicide,
        }
    }

    /// The area count of area scoring (what V7 features show under area scoring without tax).
    pub fn area_scoring(multi_stone_suicide: bool) -> AreaOptions {
        AreaOptions {
            non_pass_alive_stones: true,
            safe_big_territories: true,
            unsafe_big_territories: true,
            multi_stone_suicide,
        }
    }
}

/// For every point index of the padded grid: the colour the point counts for, if any.
pub fn area(board: &Board, options: AreaOptions) -> Vec<Option<Color>> {
    let mut result = vec![None; GRID];
    for color in [Color::Black, Color::White] {
        mark_for(board, color, options, &mut result);
    }
    if options.non_pass_alive_stones {
        for p in board.size().points() {
            if result[p.index()].is_none() {
                result[p.index()] = board.color_at(p);
            }
        }
    }
    result
}

/// For every point index of the padded grid: the colour that owns it pass-alively, if any.
pub fn pass_alive_area(board: &Board, multi_stone_suicide: bool) -> Vec<Option<Color>> {
    area(board, AreaOptions::pass_alive(multi_stone_suicide))
}

struct Region {
    points: Vec<Point>,
    vital_for: Vec<Point>,
    internal_points: usize,
    borders_color: bool,
    contains_enemy: bool,
    borders_dead_chain: bool,
}

fn mark_for(board: &Board, color: Color, options: AreaOptions, result: &mut [Option<Color>]) {
    let multi_stone_suicide = options.multi_stone_suicide;
    let enemy = color.opponent();
    let size = board.size();
    let touches_chain = |p: Point, head: Point| {
        neighbours(p)
            .into_iter()
            .any(|n| board.color_at(n) == Some(color) && board.chain_head(n) == head)
    };
    let mut region_of: Vec<Option<usize>> = vec![None; GRID];
    let mut regions: Vec<Region> = Vec::new();
    for seed in size.points() {
        if region_of[seed.index()].is_some() || board.color_at(seed).is_some() {
            continue;
        }
        let id = regions.len();
        let mut vital_for: Vec<Point> = Vec::new();
        for n in neighbours(seed) {
            if board.color_at(n) == Some(color) {
                let head = board.chain_head(n);
                if !vital_for.contains(&head) {
                    vital_for.push(head);
                }
            }
        }
        let mut region = Region {
            points: Vec::new(),
            vital_for,
            internal_points: 0,
            borders_color: false,
            contains_enemy: false,
            borders_dead_chain: false,
        };
        let mut stack = vec![seed];
        region_of[seed.index()] = Some(id);
        while let Some(p) = stack.pop() {
            region.points.push(p);
            let occupant = board.color_at(p);
            if multi_stone_suicide || occupant.is_none() {
                region.vital_for.retain(|&head| touches_chain(p, head));
            }
            let touches_color = neighbours(p)
                .into_iter()
                .any(|n| board.color_at(n) == Some(color));
            if touches_color {
                region.borders_color = true;
            } else {
                region.internal_points += 1;
            }
            if occupant == Some(enemy) {
                region.contains_enemy = true;
            }
            for n in neighbours(p) {
                let open = board.is_on_board(n) && board.color_at(n) != Some(color);
                if open && region_of[n.index()].is_none() {
                    region_of[n.index()] = Some(id);
                    stack.push(n);
                }
            }
        }
        regions.push(region);
    }

    let mut heads: Vec<Point> = size
        .points()
        .filter(|&p| board.color_at(p) == Some(color))
        .map(|p| board.chain_head(p))
        .collect();
    heads.sort();
    heads.dedup();
    let mut alive = vec![true; heads.len()];
    loop {
        let mut vital_count = vec![0usize; heads.len()];
        for region in regions.iter().filter(|r| !r.borders_dead_chain) {
            for head in &region.vital_for {
                if let Ok(i) = heads.binary_search(head) {
                    vital_count[i] += 1;
                }
            }
        }
        let mut killed = false;
        for i in 0..heads.len() {
            if alive[i] && vital_count[i] < 2 {
                alive[i] = false;
                killed = true;
                for s in board.chain_stones(heads[i]) {
                    for n in neighbours(s) {
                        if let Some(r) = region_of[n.index()] {
                            regions[r].borders_dead_chain = true;
                        }
                    }
                }
            }
        }
        if !killed {
            break;
        }
    }
    for (i, &head) in heads.iter().enumerate() {
        if alive[i] {
            for s in board.chain_stones(head) {
                result[s.index()] = Some(color);
            }
        }
    }
    for region in &regions {
        let small =
            region.internal_points <= 1 && region.borders_color && !region.borders_dead_chain;
        let safe_big = options.safe_big_territories
            && region.borders_color
            && !region.contains_enemy
            && !region.borders_dead_chain;
        let unsafe_big =
            options.unsafe_big_territories && region.borders_color && !region.contains_enemy;
        if small || safe_big || unsafe_big {
            for p in &region.points {
                result[p.index()] = Some(color);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{BoardSize, Game, Rules};

    #[test]
    fn two_eyes_are_pass_alive_and_one_is_not() {
        // 5x5: Black walls off the left two columns with eyes at A5 and A3 (two eyes) ...
        let size = BoardSize::square(5).unwrap();
        let moves = "B5 pass B4 pass A4 pass B3 pass B2 pass A2 pass B1 pass";
        let g = Game::from_gtp_moves(size, Rules::tromp_taylor(), moves).unwrap();
        let area = pass_alive_area(g.board(), true);
        let at = |t: &str| area[Point::parse_gtp(t, size).unwrap().index()];
        assert_eq!(at("B3"), Some(Color::Black));
        assert_eq!(at("A5"), Some(Color::Black));
        assert_eq!(at("A3"), Some(Color::Black));
        // The open right side touches only pass-alive Black stones and holds no White stone: KataGo's
        // "safe big territory", Black's too.
        assert_eq!(at("E3"), Some(Color::Black));

        // ... but a wall with a single eye is not.
        let moves = "B5 pass B4 pass A4 pass";
        let g = Game::from_gtp_moves(size, Rules::tromp_taylor(), moves).unwrap();
        let area = pass_alive_area(g.board(), true);
        assert_eq!(area[Point::parse_gtp("B5", size).unwrap().index()], None);
    }
}
