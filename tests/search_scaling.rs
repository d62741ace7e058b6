//! The speed work on the `mcts` engine changes no answer: several network sessions answer exactly as one,
//! a single-threaded search is the same whatever the evaluation cache holds, a re-search that shares a
//! tree starts from it, several search threads search what was asked, a book grown twice with one
//! search thread is the same book, and a mirrored position is searched as a mirror image from the cache. Needs ONNX Runtime (`ORT_DYLIB_PATH`, set by `.ci/test`).

use std::path::{Path, PathBuf};
use tengen::book::expand::{ExpandSettings, grow};
use tengen::book::{Book, BookMeta, CostParams, recompute_everything};
use tengen::engine::mcts::{MctsEngine, SearchParams};
use tengen::engine::{CancelToken, Query, Report};
use tengen::go::playout::{FastRng, random_move};
use tengen::go::{BoardSize, Game, Komi, Move, Point, Rules};
use tengen::nn::{BatchOptions, Evaluator, Features, SessionOptions, encode};

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/models/g170-b6c96-s175395328-d26788732.bin.gz"
);

fn onnx(dir: &Path) -> PathBuf {
    if let Err(e) = tengen::nn::runtime::check() {
        panic!("this test needs ONNX Runtime: {e}");
    }
    let onnx = dir.join("b6c96.onnx");
    tengen::nn::import::import(Path::new(MODEL), &onnx).unwrap();
    onnx
}

fn evaluator(model: &Path, sessions: usize, max_batch: usize) -> Evaluator {
    let options = SessionOptions {
        sessions,
        ..SessionOptions::default()
    };
    let batch = BatchOptions {
        max_batch,
        ..BatchOptions::default()
    };
    let evaluator = Evaluator::open(model, &options, batch).unwrap();
    assert_eq!(evaluator.sessions(), sessions);
    evaluator
}

fn engine(model: &Path, sessions: usize, threads: usize) -> MctsEngine {
    let params = SearchParams {
        threads,
        ..SearchParams::default()
    };
    MctsEngine::new(evaluator(model, sessions, params.batch_size * 2), params)
}

fn rules(komi: f64) -> Rules {
    Rules::tromp_taylor().with_komi(Komi::from_f64(komi).unwrap())
}

/// Positions of random games of varied length.
fn positions(size: BoardSize, count: usize) -> Vec<Features> {
    let mut rng = FastRng::new(11);
    (0..count)
        .map(|i| {
            let mut game = Game::new(size, rules(7.0));
            for _ in 0..(i * 5) % (size.area() / 2) {
                let Some(p) = random_move(game.board(), game.to_move(), &mut rng) else {
                    break;
                };
                if game.play(Move::Play(p)).is_err() {
                    break;
                }
            }
            encode(&game)
        })
        .collect()
}

#[test]
fn sessions_and_batches_change_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let model = onnx(dir.path());
    let size = BoardSize::square(9).unwrap();
    let items = positions(size, 24);
    // One at a time on one session: the reference.
    let one = evaluator(&model, 1, 1);
    let alone: Vec<_> = items
        .iter()
        .map(|f| one.evaluate_features(vec![f.clone()]).unwrap().remove(0))
        .collect();
    // Three sessions, groups of varied sizes all in flight at once, merged into batches as they come.
    let three = evaluator(&model, 3, 16);
    let mut pending = Vec::new();
    let mut at = 0;
    for width in [1, 5, 2, 7, 3, 6] {
        pending.push((at, three.submit(items[at..at + width].to_vec()).unwrap()));
        at += width;
    }
    assert_eq!(at, items.len());
    for (start, answers) in pending {
        for (i, out) in answers.wait().unwrap().into_iter().enumerate() {
            assert_eq!(out, alone[start + i], "position {}", start + i);
        }
    }
    let stats = three.stats();
    assert_eq!(
        stats.positions.load(std::sync::atomic::Ordering::Relaxed),
        24
    );
}

fn game_after(moves: &str) -> Game {
    Game::from_gtp_moves(BoardSize::square(9).unwrap(), rules(7.0), moves).unwrap()
}

/// Visits the engine's searches have added so far.
fn visits(engine: &MctsEngine) -> u64 {
    engine
        .stats()
        .visits
        .load(std::sync::atomic::Ordering::Relaxed)
}

fn search(engine: &MctsEngine, query: &Query) -> Report {
    engine.search(query, &CancelToken::default(), None).unwrap()
}

#[test]
fn one_search_thread_gives_the_same_search_whatever_the_cache_holds() {
    let dir = tempfile::tempdir().unwrap();
    let model = onnx(dir.path());
    let position = game_after("E5 C5 D4");
    let query = Query::from_game(&position).with_visits(300);
    let fresh = search(&engine(&model, 1, 1), &query);
    // Another engine, two sessions, whose cache already holds much of the tree: the parent searched first.
    let warm = engine(&model, 2, 1);
    search(
        &warm,
        &Query::from_game(&game_after("E5 C5")).with_visits(600),
    );
    assert!(warm.cached_evaluations() > 300);
    let again = search(&warm, &query);
    assert_eq!(again, fresh);
}

#[test]
fn a_re_search_with_more_bans_starts_from_the_shared_tree() {
    let dir = tempfile::tempdir().unwrap();
    let model = onnx(dir.path());
    let engine = engine(&model, 1, 1);
    let size = BoardSize::square(9).unwrap();
    let position = game_after("E5 C5");
    let mut full = Query::from_game(&position).with_visits(400);
    full.share_tree = Some(77);
    let first = search(&engine, &full);
    let best = first.moves[0].mv;
    // The tree's visits to every move but the best stay with the re-search.
    let kept = first.root.visits - first.moves[0].visits;
    let mut quick = Query::from_game(&position)
        .with_visits(kept + 50)
        .avoiding(&[best]);
    quick.share_tree = Some(77);
    let before = visits(&engine);
    let resumed = search(&engine, &quick);
    let added = visits(&engine) - before;
    assert_eq!(resumed.root.visits, kept + 50);
    assert_eq!(
        added, 50,
        "only the visits beyond the kept ones are searched"
    );
    assert!(resumed.moves.iter().all(|m| m.mv != best));
    for m in &resumed.moves {
        let before = first.moves.iter().find(|f| f.mv == m.mv);
        assert!(
            before.is_none_or(|b| m.visits >= b.visits),
            "{} lost visits",
            m.mv.to_gtp(size)
        );
    }
    // A kept tree is copied, not taken, and a resumed search keeps nothing of its own: the same query
    // again starts from the full search's tree too and answers exactly as the first re-search did.
    let before = visits(&engine);
    let again = search(&engine, &quick);
    assert_eq!(visits(&engine) - before, 50);
    assert_eq!(again, resumed);
    // The position after the best move starts from its subtree: the visits the full search gave it count.
    let mut after_best = position.clone();
    after_best.play(best).unwrap();
    let mut below = Query::from_game(&after_best).with_visits(first.moves[0].visits + 20);
    below.share_tree = Some(77);
    let before = visits(&engine);
    let child = search(&engine, &below);
    assert_eq!(
        visits(&engine) - before,
        20,
        "only the visits beyond the subtree's"
    );
    assert_eq!(child.root.visits, first.moves[0].visits + 20);
    let mut fresh = below.clone();
    fresh.share_tree = None;
    let before = visits(&engine);
    search(&engine, &fresh);
    assert_eq!(visits(&engine) - before, first.moves[0].visits + 19);
    // A search that allows a move the kept tree banned, or that carries another key, starts afresh.
    for (key, avoid) in [(77, vec![]), (79, vec![best])] {
        let mut q = Query::from_game(&position)
            .with_visits(100)
            .avoiding(&avoid);
        q.share_tree = Some(key);
        let before = visits(&engine);
        let r = search(&engine, &q);
        assert_eq!(r.root.visits, 100);
        assert_eq!(
            visits(&engine) - before,
            99,
            "a fresh search: all but the root's own visit"
        );
    }
}

#[test]
fn two_search_threads_search_what_was_asked() {
    let dir = tempfile::tempdir().unwrap();
    let model = onnx(dir.path());
    let engine = engine(&model, 2, 2);
    let size = BoardSize::square(7).unwrap();
    let query = Query::from_game(&Game::new(size, rules(9.0))).with_visits(1200);
    let report = search(&engine, &query);
    assert_eq!(report.root.visits, 1200);
    let d4 = Move::Play(Point::parse_gtp("D4", size).unwrap());
    assert_eq!(report.moves[0].mv, d4);
    let visits: u64 = report.moves.iter().map(|m| m.visits).sum();
    assert_eq!(visits + 1, report.root.visits);
    // A time limit ends every thread, and the report counts what they backed up.
    let mut timed = Query::from_game(&Game::new(size, rules(9.0)));
    timed.max_time = Some(std::time::Duration::from_millis(300));
    let report = search(&engine, &timed);
    let visits: u64 = report.moves.iter().map(|m| m.visits).sum();
    assert!(report.root.visits > 1 && visits + 1 == report.root.visits);
}

/// Every node of a book as text (Debug prints floats exactly).
fn nodes(book: &Book) -> Vec<String> {
    (0..book.len())
        .map(|i| format!("{:?}", book.node(tengen::book::NodeId(i as u32))))
        .collect()
}

fn grown(engine: &MctsEngine) -> Book {
    let mut book = Book::new(
        BookMeta::new(BoardSize::square(7).unwrap(), rules(9.0)),
        CostParams::default(),
    );
    recompute_everything(&mut book);
    let settings = ExpandSettings {
        max_visits: 64,
        quick_visits: 32,
        seed: 5,
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime
        .block_on(grow(
            &mut book,
            None,
            engine,
            settings,
            5,
            4,
            &CancelToken::default(),
            |_| {},
        ))
        .unwrap();
    book
}

#[test]
fn a_book_grown_twice_with_one_search_thread_is_the_same_book() {
    let dir = tempfile::tempdir().unwrap();
    let model = onnx(dir.path());
    let first = grown(&engine(&model, 1, 1));
    assert!(first.len() > 8, "{} nodes", first.len());
    // Another engine with two sessions grows the book again, then once more with everything the first
    // growth left in its caches and kept trees.
    let other = engine(&model, 2, 1);
    assert_eq!(nodes(&grown(&other)), nodes(&first));
    assert!(other.cached_evaluations() > 100);
    assert_eq!(nodes(&grown(&other)), nodes(&first));
}

#[test]
fn a_mirrored_position_is_searched_from_the_cache_as_a_mirror_image() {
    let dir = tempfile::tempdir().unwrap();
    let model = onnx(dir.path());
    let engine = engine(&model, 1, 1);
    let size = BoardSize::square(9).unwrap();
    let moves = ["E5", "C4", "F3", "D7"];
    let flip = tengen::go::Symmetry::group(size)[1];
    let mirrored: Vec<String> = moves
        .iter()
        .map(|m| {
            flip.apply(size, Point::parse_gtp(m, size).unwrap())
                .to_gtp(size)
        })
        .collect();
    assert_ne!(moves.join(" "), mirrored.join(" "));
    let query = |line: &str| Query::from_game(&game_after(line)).with_visits(200);
    let first = search(&engine, &query(&moves.join(" ")));
    let evaluated = engine
        .evaluator()
        .stats()
        .positions
        .load(std::sync::atomic::Ordering::Relaxed);
    let second = search(&engine, &query(&mirrored.join(" ")));
    assert_eq!(
        engine
            .evaluator()
            .stats()
            .positions
            .load(std::sync::atomic::Ordering::Relaxed),
        evaluated,
        "every position of the mirrored search is a cached mirror image"
    );
    assert_eq!(first.root.visits, second.root.visits);
    assert_eq!(first.root.winrate, second.root.winrate);
    assert_eq!(flip.apply_move(size, first.moves[0].mv), second.moves[0].mv);
    assert_eq!(first.moves.len(), second.moves.len());
    // Moves of equal visits may be listed in another order: compare each with its mirror image.
    for a in &first.moves {
        let b = second
            .moves
            .iter()
            .find(|b| b.mv == flip.apply_move(size, a.mv))
            .expect("the mirror image of every move");
        assert_eq!(
            (a.visits, a.winrate, a.prior),
            (b.visits, b.winrate, b.prior)
        );
    }
}
