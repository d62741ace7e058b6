//! `mcts`: PUCT search guided by a neural network (KataGo's networks, imported to ONNX), the engine
//! behind the engine spec `onnx:PATH`.
//!
//! One search thread per analysis descends the tree, gathers a batch of leaves (each leaving a virtual
//! loss on its path), encodes them and hands them to the shared [`Evaluator`] while it gathers the next
//! batch: two batches are in flight, so the network thread never waits for the tree. Evaluations are
//! cached by position (stones, ko, player, the history the network sees, rules), so transpositions and
//! repeated analyses of a position cost nothing. The root's network output is averaged over the board's
//! symmetries, as KataGo's book stores it, and banned root moves are removed with the policy renormalised
//! over the rest (KataGo's `avoid` with rescaling).

pub mod tree;

use super::{Analysis, CancelToken, Engine, EngineError, MoveInfo, Query, Report, RootInfo};
use crate::go::{Color, Game, Move, Setup, Symmetry, score};
use crate::nn::{
    BatchOptions, Evaluator, Features, NnEval, Pending, RawOutput, encode, postprocess,
};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
pub use tree::SearchParams;
use tree::{Edge, NodeId, Tree, Utility, sign};

/// Visits searched when a query sets neither a visit nor a time limit.
pub const DEFAULT_VISITS: u64 = 1_000;
/// Cached evaluations kept before the cache starts over.
const CACHE_CAPACITY: usize = 200_000;

/// Network evaluations by position key, shared by every search of one engine.
#[derive(Default)]
struct NnCache {
    entries: Mutex<HashMap<u128, Arc<NnEval>>>,
}

impl NnCache {
    fn get(&self, key: u128) -> Option<Arc<NnEval>> {
        self.entries.lock().ok()?.get(&key).cloned()
    }

    fn insert(&self, key: u128, eval: Arc<NnEval>) {
        if let Ok(mut map) = self.entries.lock() {
            if map.len() >= CACHE_CAPACITY {
                map.clear();
            }
            map.insert(key, eval);
        }
    }
}

fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What the network's answer depends on: the situation (stones, player, ko and superko bans, passes), the
/// last five moves (history planes), the rules and komi, and the move balance territory scoring counts.
pub fn position_key(game: &Game) -> u128 {
    let mut key = game.situation_hash();
    for (back, &(color, mv)) in game.moves().iter().rev().take(5).enumerate() {
        let point = match mv {
            Move::Pass => 0xffff,
            Move::Play(p) => p.index() as u64,
        };
        let code = mix(point | (color.index() as u64) << 16 | (back as u64) << 20);
        key ^= (code as u128) << 64 | mix(code) as u128;
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    game.rules().hash(&mut hasher);
    let balance: i64 = game
        .moves()
        .iter()
        .filter(|(_, m)| *m != Move::Pass)
        .map(|(c, _)| if *c == Color::Black { 1 } else { -1 })
        .sum();
    balance.hash(&mut hasher);
    let h = mix(hasher.finish());
    key ^ ((h as u128) << 32 | mix(h ^ 0x5555) as u128)
}

/// The network-guided engine.
#[derive(Clone)]
pub struct MctsEngine {
    evaluator: Evaluator,
    params: SearchParams,
    cache: Arc<NnCache>,
    /// The network's name as status lines show it (the model file's stem).
    network: String,
}

impl MctsEngine {
    pub fn new(evaluator: Evaluator, params: SearchParams) -> MctsEngine {
        let network = evaluator
            .model()
            .file_stem()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        MctsEngine {
            evaluator,
            params,
            cache: Arc::new(NnCache::default()),
            network,
        }
    }

    /// Opens a network with the session options of tengen's config: an `.onnx` file, or a KataGo model
    /// file, which is imported once into tengen's data directory.
    pub fn open(model: &Path, params: SearchParams) -> Result<MctsEngine, EngineError> {
        let model = &crate::nn::import::onnx_for(model).map_err(|e| EngineError::Unavailable {
            engine: format!("onnx:{}", model.display()),
            detail: e.to_string(),
        })?;
        let unavailable = |detail: String| EngineError::Unavailable {
            engine: format!("onnx:{}", model.display()),
            detail,
        };
        let config =
            crate::nn::runtime::RuntimeConfig::load().map_err(|e| unavailable(e.to_string()))?;
        let options = config
            .session_options()
            .map_err(|e| unavailable(e.to_string()))?;
        let batch = BatchOptions {
            max_batch: params.batch_size.max(1) * 2,
            ..BatchOptions::default()
        };
        let evaluator =
            Evaluator::open(model, &options, batch).map_err(|e| unavailable(e.to_string()))?;
        Ok(MctsEngine::new(evaluator, params))
    }

    /// Opens the network built into tengen ([`crate::nn::shipped`]), importing it into the data directory on
    /// first use.
    pub fn open_shipped(params: SearchParams) -> Result<MctsEngine, EngineError> {
        let onnx = crate::nn::shipped::onnx_path().map_err(|e| EngineError::Unavailable {
            engine: format!("onnx ({})", crate::nn::shipped::NAME),
            detail: e.to_string(),
        })?;
        let mut engine = MctsEngine::open(&onnx, params)?;
        engine.network = crate::nn::shipped::NAME.to_string();
        Ok(engine)
    }

    /// The engine for a spec `onnx:PATH`, or `None` when the spec names another kind of engine.
    pub fn from_spec(spec: &str) -> Option<Result<MctsEngine, EngineError>> {
        let path = spec.strip_prefix("onnx:")?;
        Some(MctsEngine::open(Path::new(path), SearchParams::default()))
    }

    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    pub fn params(&self) -> SearchParams {
        self.params
    }

    fn failure(&self, e: crate::nn::RuntimeError) -> EngineError {
        EngineError::Died {
            engine: self.name(),
            detail: e.to_string(),
        }
    }

    /// One position's evaluation, from the cache when possible.
    fn evaluate_cached(&self, game: &Game) -> Result<Arc<NnEval>, EngineError> {
        let key = position_key(game);
        if let Some(hit) = self.cache.get(key) {
            return Ok(hit);
        }
        let eval = Arc::new(self.evaluator.evaluate(game).map_err(|e| self.failure(e))?);
        self.cache.insert(key, eval.clone());
        Ok(eval)
    }

    /// The root's evaluation averaged over the board's symmetries.
    pub fn root_eval(&self, game: &Game) -> Result<NnEval, EngineError> {
        if !self.params.root_symmetries {
            return self.evaluate_cached(game).map(|e| (*e).clone());
        }
        let size = game.size();
        let symmetries = Symmetry::group(size);
        let games: Vec<Game> = symmetries
            .iter()
            .map(|&s| transformed(game, s))
            .collect::<Result<_, _>>()?;
        let raw = self
            .evaluator
            .evaluate_features(games.iter().map(encode).collect())
            .map_err(|e| self.failure(e))?;
        let evals: Vec<NnEval> = games
            .iter()
            .zip(&raw)
            .map(|(g, r)| postprocess(g, r))
            .collect();
        let n = evals.len() as f32;
        let mut avg = evals[0].clone();
        for (i, p) in size.points().enumerate() {
            let (mut policy, mut own) = (0.0f32, 0.0f32);
            for (&s, e) in symmetries.iter().zip(&evals) {
                let j = size.row_major(s.apply(size, p));
                policy += e.policy[j].unwrap_or(0.0);
                own += e.white_ownership[j];
            }
            avg.policy[i] = avg.policy[i].map(|_| policy / n);
            avg.white_ownership[i] = own / n;
        }
        let mean = |f: fn(&NnEval) -> f32| evals.iter().map(f).sum::<f32>() / n;
        avg.policy_pass = mean(|e| e.policy_pass);
        avg.white_win = mean(|e| e.white_win);
        avg.white_loss = mean(|e| e.white_loss);
        avg.no_result = mean(|e| e.no_result);
        avg.white_lead = mean(|e| e.white_lead);
        avg.white_score_mean = mean(|e| e.white_score_mean);
        avg.white_score_stdev = mean(|e| e.white_score_stdev);
        Ok(avg)
    }

    /// Runs a whole search on the calling thread, sending reports during the search to `progress` when the
    /// query asks for them. Returns the final report.
    pub fn search(
        &self,
        query: &Query,
        cancel: &CancelToken,
        progress: Option<&mpsc::Sender<Result<Report, EngineError>>>,
    ) -> Result<Report, EngineError> {
        let root_game = query.game()?;
        if root_game.is_over() {
            return Err(EngineError::BadQuery(
                "the game is over: two passes ended it".into(),
            ));
        }
        let root_eval = self.root_eval(&root_game)?;
        let size = root_game.size();
        let utility = Utility {
            static_factor: self.params.static_score_utility_factor,
            dynamic_factor: self.params.dynamic_score_utility_factor,
            center: root_eval.white_score_mean as f64,
            scale: (0.75 * (size.area() as f64).sqrt()).max(1.0),
        };
        let mut search = Search {
            engine: self,
            tree: Tree::new(self.params, root_game.to_move()),
            utility,
            root_game,
            ownership_sum: vec![0.0; size.area()],
            ownership_count: 0,
        };
        search.expand(
            Tree::ROOT,
            &search.root_game.clone(),
            &root_eval,
            &query.avoid,
        )?;
        if search.tree.node(Tree::ROOT).edges.is_empty() {
            return Err(EngineError::BadQuery(
                "every legal move is in the avoid list: nothing to search".into(),
            ));
        }
        search.record(Tree::ROOT, &[Tree::ROOT], &root_eval, false);

        let visit_limit = match (query.max_visits, query.max_time) {
            (None, None) => Some(DEFAULT_VISITS),
            (v, _) => v,
        };
        let deadline = query.max_time.map(|t| Instant::now() + t);
        let mut next_report = query
            .report_every
            .map(|e| Instant::now() + e.max(Duration::from_millis(10)));
        let mut in_flight: Option<(Pending, Vec<Leaf>)> = None;
        loop {
            let visits = search.tree.node(Tree::ROOT).visits;
            let pending = in_flight.as_ref().map_or(0, |(_, l)| l.len() as u64);
            let stop = cancel.is_cancelled()
                || deadline.is_some_and(|d| Instant::now() >= d)
                || visit_limit.is_some_and(|v| visits + pending >= v);
            let budget = visit_limit.map_or(u64::MAX, |v| v.saturating_sub(visits + pending));
            let next = if stop {
                None
            } else {
                let leaves = search.gather(self.params.batch_size.max(1).min(budget as usize))?;
                if leaves.is_empty() {
                    None
                } else {
                    let features: Vec<Features> = leaves.iter().map(|l| encode(&l.game)).collect();
                    Some((
                        self.evaluator
                            .submit(features)
                            .map_err(|e| self.failure(e))?,
                        leaves,
                    ))
                }
            };
            if let Some((answers, leaves)) = in_flight.take() {
                let outputs = answers.wait().map_err(|e| self.failure(e))?;
                search.absorb(leaves, outputs)?;
            }
            in_flight = next;
            if stop && in_flight.is_none() {
                break;
            }
            if let (Some(tx), Some(at)) = (progress, next_report)
                && Instant::now() >= at
            {
                next_report = query
                    .report_every
                    .map(|e| Instant::now() + e.max(Duration::from_millis(10)));
                // A slow reader loses intermediate reports, never the final one.
                let _ = tx.try_send(Ok(search.report(query, &root_eval, false)));
            }
        }
        Ok(search.report(query, &root_eval, true))
    }
}

/// A leaf waiting for its evaluation.
struct Leaf {
    path: Vec<NodeId>,
    game: Game,
}

/// The state of one search.
struct Search<'e> {
    engine: &'e MctsEngine,
    tree: Tree,
    utility: Utility,
    root_game: Game,
    /// White's ownership summed over every evaluation backed up to the root.
    ownership_sum: Vec<f64>,
    ownership_count: u64,
}

enum Descent {
    Leaf(Box<Leaf>),
    /// Reached a leaf already waiting for its evaluation: the batch is as wide as the tree allows now.
    Busy,
    /// Backed up at once (a finished game or a cached evaluation).
    Done,
}

impl Search<'_> {
    /// Descends up to `count` times, returning the leaves that need the network.
    fn gather(&mut self, count: usize) -> Result<Vec<Leaf>, EngineError> {
        let mut leaves = Vec::new();
        let mut attempts = 0;
        while leaves.len() < count && attempts < count * 4 {
            attempts += 1;
            match self.descend()? {
                Descent::Leaf(leaf) => leaves.push(*leaf),
                Descent::Busy => break,
                Descent::Done => {}
            }
        }
        Ok(leaves)
    }

    fn descend(&mut self) -> Result<Descent, EngineError> {
        let mut id = Tree::ROOT;
        let mut game = self.root_game.clone();
        let mut path = vec![Tree::ROOT];
        loop {
            let node = self.tree.node(id);
            if node.pending {
                return Ok(Descent::Busy);
            }
            if !node.expanded {
                break;
            }
            let Some(edge) = self.tree.select_edge(id) else {
                // No legal move left here (cannot happen while passing is legal): score the board.
                self.tree.backup(
                    &path,
                    self.utility.terminal(-score::final_score(&game)),
                    false,
                );
                return Ok(Descent::Done);
            };
            let mv = self.tree.node(id).edges[edge].mv;
            if game.play(mv).is_err() {
                // The policy only offers legal moves, so this is a superko the history makes illegal
                // along this path only: drop the edge here.
                self.tree.node_mut(id).edges.remove(edge);
                continue;
            }
            id = self.tree.child(id, edge);
            path.push(id);
            if game.is_over() {
                self.tree.backup(
                    &path,
                    self.utility.terminal(-score::final_score(&game)),
                    false,
                );
                return Ok(Descent::Done);
            }
        }
        if let Some(eval) = self.engine.cache.get(position_key(&game)) {
            self.expand(id, &game, &eval, &[])?;
            self.record(id, &path, &eval, false);
            return Ok(Descent::Done);
        }
        for &n in &path {
            self.tree.node_mut(n).virtual_losses += 1;
        }
        self.tree.node_mut(id).pending = true;
        Ok(Descent::Leaf(Box::new(Leaf { path, game })))
    }

    /// Expands and backs up a batch of evaluated leaves.
    fn absorb(&mut self, leaves: Vec<Leaf>, outputs: Vec<RawOutput>) -> Result<(), EngineError> {
        for (leaf, raw) in leaves.into_iter().zip(outputs) {
            let eval = Arc::new(postprocess(&leaf.game, &raw));
            self.engine
                .cache
                .insert(position_key(&leaf.game), eval.clone());
            let id = *leaf.path.last().unwrap_or(&Tree::ROOT);
            self.tree.node_mut(id).pending = false;
            self.expand(id, &leaf.game, &eval, &[])?;
            self.record(id, &leaf.path, &eval, true);
        }
        Ok(())
    }

    /// Gives `id` an edge for every legal move the policy allows, minus `avoid`, renormalised.
    fn expand(
        &mut self,
        id: NodeId,
        game: &Game,
        eval: &NnEval,
        avoid: &[Move],
    ) -> Result<(), EngineError> {
        let node = self.tree.node_mut(id);
        node.edges = edges_for(game, eval, avoid);
        node.expanded = true;
        Ok(())
    }

    fn record(&mut self, _id: NodeId, path: &[NodeId], eval: &NnEval, had_virtual_loss: bool) {
        self.tree
            .backup(path, self.utility.sample(eval), had_virtual_loss);
        for (sum, &o) in self.ownership_sum.iter_mut().zip(&eval.white_ownership) {
            *sum += o as f64;
        }
        self.ownership_count += 1;
    }

    fn report(&self, query: &Query, root_eval: &NnEval, is_final: bool) -> Report {
        let tree = &self.tree;
        let root = tree.node(Tree::ROOT);
        let to_move = self.root_game.to_move();
        let chooser = sign(to_move);
        let size = self.root_game.size();
        let moves = tree
            .ranked_root_edges()
            .into_iter()
            .filter_map(|(i, lcb)| {
                let edge = &root.edges[i];
                let child = tree.node(edge.child?);
                let n = child.visits as f64;
                let white_win = child.win_sum / n;
                let mover_win = if to_move == Color::White {
                    white_win
                } else {
                    1.0 - white_win
                };
                let mean_utility = chooser * child.utility_sum / n;
                let mut pv = vec![edge.mv];
                pv.extend(tree.principal_variation(edge.child?, 12));
                Some(MoveInfo {
                    mv: edge.mv,
                    visits: child.visits,
                    winrate: 1.0 - white_win,
                    score_lead: -child.lead_sum / n,
                    // The network's prior as KataGo reports it: before banned moves are removed (the search
                    // itself uses the renormalised one).
                    prior: root_eval.prior(size, edge.mv) as f64,
                    pv,
                    // The utility's confidence radius, in win-chance units (utility spans twice as much).
                    lcb: lcb.map(|l| (mover_win - (mean_utility - l) / 2.0).clamp(0.0, 1.0)),
                    proven: false,
                    score_mean: Some(-child.score_mean_sum / n),
                })
            })
            .collect();
        let n = root.visits.max(1) as f64;
        let score_mean = -root.score_mean_sum / n;
        let score_stdev = (root.score_sq_sum / n - score_mean * score_mean)
            .max(0.0)
            .sqrt();
        let policy = query.include_policy.then(|| {
            let mut p: Vec<f32> = root_eval
                .policy
                .iter()
                .map(|v| v.unwrap_or(f32::NAN))
                .collect();
            p.push(root_eval.policy_pass);
            p
        });
        let ownership = query.include_ownership.then(|| {
            let count = self.ownership_count.max(1) as f64;
            self.ownership_sum
                .iter()
                .map(|s| (-s / count) as f32)
                .collect()
        });
        Report {
            moves,
            root: RootInfo {
                winrate: 1.0 - root.win_sum / n,
                score_lead: -root.lead_sum / n,
                score_mean,
                score_stdev,
                visits: root.visits,
            },
            policy,
            ownership,
            is_final,
        }
    }
}

/// An edge for every legal move the policy allows, minus `avoid`, with the priors renormalised over the
/// rest (KataGo's avoid with rescaling).
fn edges_for(game: &Game, eval: &NnEval, avoid: &[Move]) -> Vec<Edge> {
    let size = game.size();
    let mut edges: Vec<Edge> = size
        .points()
        .filter_map(|p| {
            eval.policy[size.row_major(p)].map(|prior| Edge {
                mv: Move::Play(p),
                prior,
                child: None,
            })
        })
        .collect();
    if !game.is_over() {
        edges.push(Edge {
            mv: Move::Pass,
            prior: eval.policy_pass,
            child: None,
        });
    }
    edges.retain(|e| !avoid.contains(&e.mv));
    let total: f32 = edges.iter().map(|e| e.prior).sum();
    if total > 0.0 {
        for e in &mut edges {
            e.prior /= total;
        }
    }
    edges
}

/// The game replayed under a symmetry (same size: only square boards have transposing symmetries).
fn transformed(game: &Game, symmetry: Symmetry) -> Result<Game, EngineError> {
    let size = game.size();
    let setup = game.setup();
    let mapped = Setup {
        black: setup
            .black
            .iter()
            .map(|&p| symmetry.apply(size, p))
            .collect(),
        white: setup
            .white
            .iter()
            .map(|&p| symmetry.apply(size, p))
            .collect(),
        first_player: setup.first_player,
    };
    let mut out = Game::with_setup(size, game.rules(), mapped);
    for &(color, mv) in game.moves() {
        out.play_as(color, symmetry.apply_move(size, mv))
            .map_err(|e| {
                EngineError::BadQuery(format!("the history does not replay under {symmetry}: {e}"))
            })?;
    }
    if out.to_move() != game.to_move() {
        out.set_to_move(game.to_move());
    }
    Ok(out)
}

impl Engine for MctsEngine {
    fn name(&self) -> String {
        format!("mcts ({})", self.network)
    }

    fn analyze(&self, query: Query) -> Analysis {
        let (analysis, tx, cancel) = Analysis::channel();
        let engine = self.clone();
        let spawned = std::thread::Builder::new()
            .name("tengen-mcts".into())
            .spawn(move || {
                let progress = query.report_every.is_some().then_some(&tx);
                let result = engine.search(&query, &cancel, progress);
                let _ = tx.blocking_send(result);
            });
        match spawned {
            Ok(_) => analysis,
            Err(e) => Analysis::failed(EngineError::Died {
                engine: self.name(),
                detail: e.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::{BoardSize, Komi, Rules};

    fn game(rules: Rules, moves: &str) -> Game {
        Game::from_gtp_moves(BoardSize::square(9).unwrap(), rules, moves).unwrap()
    }

    #[test]
    fn banned_moves_leave_the_rest_renormalised() {
        let size = BoardSize::square(2).unwrap();
        let g = Game::new(size, Rules::tromp_taylor());
        let eval = NnEval {
            white_win: 0.5,
            white_loss: 0.5,
            no_result: 0.0,
            white_lead: 0.0,
            white_score_mean: 0.0,
            white_score_stdev: 1.0,
            policy: vec![Some(0.5), Some(0.2), Some(0.2), None],
            policy_pass: 0.1,
            white_ownership: vec![0.0; 4],
        };
        let a2 = Move::Play(crate::go::Point::parse_gtp("A2", size).unwrap());
        let edges = edges_for(&g, &eval, &[a2]);
        assert_eq!(
            edges.len(),
            3,
            "A2 banned, B1 marked illegal: B2, A1 and pass"
        );
        assert!(edges.iter().all(|e| e.mv != a2));
        let total: f32 = edges.iter().map(|e| e.prior).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert!((edges[0].prior - 0.4).abs() < 1e-6, "0.2 of the 0.5 left");
    }

    #[test]
    fn the_cache_key_tells_apart_what_the_network_sees() {
        let tt = Rules::tromp_taylor();
        // The same stones reached in a different order: different history planes, different keys.
        assert_ne!(
            position_key(&game(tt, "E5 C5 D4 F6")),
            position_key(&game(tt, "D4 F6 E5 C5"))
        );
        // Same moves, different komi or rules.
        let komi8 = tt.with_komi(Komi::from_f64(8.0).unwrap());
        assert_ne!(
            position_key(&game(tt, "E5 C5")),
            position_key(&game(komi8, "E5 C5"))
        );
        assert_ne!(
            position_key(&game(tt, "E5 C5")),
            position_key(&game(Rules::japanese(), "E5 C5"))
        );
        // And equal positions agree.
        assert_eq!(
            position_key(&game(tt, "E5 C5")),
            position_key(&game(tt, "E5 C5"))
        );
    }
}
