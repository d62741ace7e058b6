//! `mcts`: PUCT search guided by a neural network (KataGo's networks, imported to ONNX), the engine
//! behind the engine spec `onnx:PATH`.
//!
//! A search runs one or more search threads over one tree (`search.rs`). Each thread descends the tree to
//! a leaf, encodes it (under a symmetry of the board picked by the position) and hands it to the shared
//! [`Evaluator`], then backs its evaluation up before the next descent, as KataGo's one-thread search
//! does. Larger batches (each leaf leaving a virtual loss on its path) and a second batch in flight while
//! the next is gathered are options for throughput; at a few hundred visits they cost strength.
//! Evaluations are cached by position (stones, ko, player, the
//! history the network sees, rules) for every search of the engine, so transpositions and repeated
//! analyses of a position cost nothing; a cached leaf still goes through the batch it was gathered in, so
//! that a single-threaded search grows the same tree whatever the cache holds. The root's network output
//! is averaged over the board's symmetries, as KataGo's book stores it, once per position; banned root
//! moves are removed with the policy renormalised over the rest (KataGo's `avoid` with rescaling).

pub mod cache;
pub mod key;
mod search;
mod shared;
pub mod tree;
pub mod utility;

use super::{Analysis, Engine, EngineError, Query};
use crate::go::{Game, Move, Setup, Symmetry};
use crate::nn::{BatchOptions, Evaluator, Features, NnEval, RawOutput, encode, postprocess};
use cache::{EVAL_CACHE_BYTES, EvalCache, ROOT_CACHE_BYTES};
pub use key::{CanonicalKey, LeafKey, canonical_key, position_key};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use tree::Edge;
pub use tree::SearchParams;

/// Visits searched when a query sets neither a visit nor a time limit.
pub const DEFAULT_VISITS: u64 = 1_000;

/// Counters of the searches an engine ran, for benchmarks.
#[derive(Debug, Default)]
pub struct SearchStats {
    pub searches: AtomicU64,
    /// Visits added by searches (a search that starts from a shared tree counts only its new ones).
    pub visits: AtomicU64,
}

/// The network-guided engine. Clones share the evaluator, the caches and the counters.
#[derive(Clone)]
pub struct MctsEngine {
    evaluator: Evaluator,
    params: SearchParams,
    cache: Arc<EvalCache>,
    root_cache: Arc<EvalCache>,
    trees: Arc<shared::SharedTrees>,
    stats: Arc<SearchStats>,
    /// The network's name as status lines show it (the model file's stem).
    network: String,
    /// The network as books record it: set by `open` from the file the user named.
    network_id: super::Network,
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
            cache: Arc::new(EvalCache::new(EVAL_CACHE_BYTES)),
            root_cache: Arc::new(EvalCache::new(ROOT_CACHE_BYTES)),
            trees: Arc::new(shared::SharedTrees::default()),
            stats: Arc::new(SearchStats::default()),
            network_id: super::Network {
                name: network.clone(),
                hash: None,
            },
            network,
        }
    }

    /// Opens a network with the session options of tengen's config: an `.onnx` file, or a KataGo model
    /// file, which is imported once into tengen's data directory.
    pub fn open(model: &Path, params: SearchParams) -> Result<MctsEngine, EngineError> {
        let network_id = super::Network::of_file(model);
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
        // Room for the leaves of several searches at once (a book grows several nodes side by side), not
        // only for this engine's own batch.
        let defaults = BatchOptions::default();
        let batch = BatchOptions {
            max_batch: defaults.max_batch.max(params.batch_size.max(1) * 2),
            ..defaults
        };
        let evaluator =
            Evaluator::open(model, &options, batch).map_err(|e| unavailable(e.to_string()))?;
        let mut engine = MctsEngine::new(evaluator, params);
        engine.network_id = network_id;
        Ok(engine)
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
        engine.network_id = super::Network::shipped();
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

    pub fn stats(&self) -> &SearchStats {
        &self.stats
    }

    /// Evaluations held by the cache.
    pub fn cached_evaluations(&self) -> usize {
        self.cache.len()
    }

    fn failure(&self, e: crate::nn::RuntimeError) -> EngineError {
        EngineError::Died {
            engine: self.name(),
            detail: e.to_string(),
        }
    }

    /// One position's evaluation, from the cache when possible.
    fn evaluate_cached(&self, game: &Game) -> Result<Arc<NnEval>, EngineError> {
        let key = LeafKey::new(game, self.params.leaf_symmetries);
        if let Some(hit) = self.cached(game, &key) {
            return Ok(hit);
        }
        let raw = self
            .evaluator
            .evaluate_features(vec![leaf_features(game, &key)])
            .map_err(|e| self.failure(e))?
            .pop()
            .ok_or_else(|| EngineError::Died {
                engine: self.name(),
                detail: "the network answered no position".into(),
            })?;
        self.store(game, &key, raw)
    }

    /// A cached evaluation, in the position's own orientation.
    fn cached(&self, game: &Game, key: &LeafKey) -> Option<Arc<NnEval>> {
        let hit = self.cache.get(key.cache)?;
        Some(if key.to_canonical == Symmetry::IDENTITY {
            hit
        } else {
            Arc::new(hit.untransformed(game.size(), key.to_canonical))
        })
    }

    /// The network's answer for `game`, post-processed in the canonical orientation and cached there, so
    /// that every symmetric variant gets exactly the same values whichever was evaluated first.
    fn store(
        &self,
        game: &Game,
        key: &LeafKey,
        raw: RawOutput,
    ) -> Result<Arc<NnEval>, EngineError> {
        let size = game.size();
        let raw = match key.pick {
            Some(s) => raw.untransformed(size, s),
            None => raw,
        };
        if key.to_canonical == Symmetry::IDENTITY {
            let eval = Arc::new(postprocess(game, &raw));
            self.cache.insert(key.cache, eval.clone());
            return Ok(eval);
        }
        let canonical = postprocess(&transformed(game, key.to_canonical)?, &raw);
        let eval = canonical.untransformed(size, key.to_canonical);
        self.cache.insert(key.cache, Arc::new(canonical));
        Ok(Arc::new(eval))
    }

    /// The root's evaluation averaged over the board's symmetries, computed once per class of symmetric
    /// positions (the average over every orientation is the same for all of them).
    pub fn root_eval(&self, game: &Game) -> Result<Arc<NnEval>, EngineError> {
        if !self.params.root_symmetries {
            return self.evaluate_cached(game);
        }
        let size = game.size();
        let key = canonical_key(game);
        if let Some(hit) = self.root_cache.get(key.key) {
            return Ok(Arc::new(hit.untransformed(size, key.to_canonical)));
        }
        // Averaged in the canonical orientation, so that every variant gets exactly the same sums.
        let canonical = match key.to_canonical {
            Symmetry::IDENTITY => self.symmetry_average(game)?,
            to => self.symmetry_average(&transformed(game, to)?)?,
        };
        let eval = canonical.untransformed(size, key.to_canonical);
        self.root_cache.insert(key.key, Arc::new(canonical));
        Ok(Arc::new(eval))
    }

    fn symmetry_average(&self, game: &Game) -> Result<NnEval, EngineError> {
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
/// The network's input for a leaf, in the orientation its key asks for.
fn leaf_features(game: &Game, key: &LeafKey) -> Features {
    match key.input() {
        Some(s) => encode(game).transformed(s),
        None => encode(game),
    }
}

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

    fn id(&self) -> super::EngineId {
        super::EngineId::onnx(self.network_id.clone())
    }

    fn network_eval(&self, game: &Game) -> Option<Result<Arc<NnEval>, EngineError>> {
        // The root evaluation the search starts from, averaged over symmetries and cached per position.
        Some(self.root_eval(game))
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
            policy: vec![Some(0.5), Some(0.2), Some(0.2), None],
            policy_pass: 0.1,
            ..NnEval::even(4, 1.0)
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
