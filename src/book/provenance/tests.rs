use super::*;
use crate::book::dag::BookMeta;
use crate::book::expand::{ExpandSettings, grow};
use crate::book::store::{self, BookStore};
use crate::book::trim::trim;
use crate::book::{CostParams, recompute_everything};
use crate::engine::exact::ExactEngine;
use crate::engine::rollout::RolloutEngine;
use crate::engine::{Analysis, CancelToken, Engine, EngineKind, Network, Query};
use crate::go::{BoardSize, Komi, Rules};
use std::sync::Arc;

/// `rollout` with exact endings, as the `rollout` spec builds it, under another identity: two real
/// searches that a book must tell apart.
struct Labelled {
    inner: ExactEngine,
    id: EngineId,
}

impl Labelled {
    fn new(network: &str) -> Labelled {
        Labelled {
            inner: ExactEngine::new(Arc::new(RolloutEngine::new(1))),
            id: EngineId::onnx(Network {
                name: network.into(),
                hash: Some(network.len() as u64),
            }),
        }
    }
}

impl Engine for Labelled {
    fn name(&self) -> String {
        self.id.to_string()
    }

    fn id(&self) -> EngineId {
        self.id.clone()
    }

    fn analyze(&self, query: Query) -> Analysis {
        self.inner.analyze(query)
    }
}

fn new_book(side: usize) -> Book {
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(0.0).unwrap());
    let meta = BookMeta::new(BoardSize::square(side).unwrap(), rules);
    let mut book = Book::new(meta, CostParams::default());
    recompute_everything(&mut book);
    book
}

async fn grow_with(
    book: &mut Book,
    store: Option<&mut BookStore>,
    engine: &dyn Engine,
    seed: u64,
    iterations: u64,
) {
    let settings = ExpandSettings {
        max_visits: 60,
        quick_visits: 30,
        seed,
    };
    let cancel = CancelToken::default();
    grow(
        book,
        store,
        engine,
        settings,
        iterations,
        4,
        &cancel,
        |_| {},
    )
    .await
    .unwrap();
}

/// Every node's and move's provenance, and the superseded values, by hash.
fn provenance_of(book: &Book) -> Vec<(String, String, String, Vec<String>, usize)> {
    let name = |r: EngineRef| book.engine(r).to_string();
    book.nodes()
        .map(|(id, n)| {
            (
                n.hash.to_string(),
                name(n.created_by),
                name(n.values_by),
                n.edges.iter().map(|e| name(e.added_by)).collect(),
                book.superseded.get(&id).map_or(0, Vec::len),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provenance_survives_the_log_a_reload_and_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.tengenbook");
    let mut book = new_book(3);
    let mut store = BookStore::create(&path, &book).unwrap();
    let (net, other) = (Labelled::new("net-a"), Labelled::new("net-bb"));
    grow_with(&mut book, Some(&mut store), &net, 1, 3).await;
    grow_with(&mut book, Some(&mut store), &other, 2, 3).await;
    let used: Vec<String> = book
        .grown_by()
        .iter()
        .map(|&r| book.engine(r).to_string())
        .collect();
    assert_eq!(used.len(), 2, "{used:?}");
    assert!(
        !book.superseded.is_empty(),
        "the second engine re-searched nodes"
    );
    assert!(book.mixing(&net.id()).unwrap().contains("net-bb"));
    let expected = provenance_of(&book);
    // From the log.
    let (logged, _) = store::load(&path).unwrap();
    assert_eq!(provenance_of(&logged), expected);
    assert_eq!(logged.superseded, book.superseded);
    // From a snapshot.
    store.compact(&book).unwrap();
    drop(store);
    let (compacted, report) = store::load(&path).unwrap();
    assert_eq!(report.log_records, 0);
    assert_eq!(provenance_of(&compacted), expected);
    assert_eq!(compacted.superseded, book.superseded);
    assert_eq!(compacted.engines, book.engines);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trimming_the_second_engine_gives_the_first_engines_book_back() {
    let mut book = new_book(3);
    let (net, other) = (Labelled::new("net-a"), Labelled::new("net-bb"));
    grow_with(&mut book, None, &net, 1, 4).await;
    let first = book.clone();
    grow_with(&mut book, None, &other, 7, 4).await;
    assert!(book.len() > first.len());
    let gone: Vec<EngineRef> = (0..book.engines.len() as u16)
        .map(EngineRef)
        .filter(|&r| book.engine(r).agrees_with(&other.id()))
        .collect();
    let (trimmed, report) = trim(&book, &gone);
    assert_eq!(report.nodes_removed, book.len() - first.len());
    assert_eq!(trimmed.len(), first.len());
    assert_eq!(trimmed.edge_count(), first.edge_count());
    for ((_, a), (_, b)) in trimmed.nodes().zip(first.nodes()) {
        assert_eq!(a.hash, b.hash);
        assert_eq!(a.not_in_book, b.not_in_book, "{}", a.hash);
        assert_eq!(a.values_by, b.values_by);
        let moves = |n: &crate::book::Node| n.edges.iter().map(|e| e.mv).collect::<Vec<_>>();
        assert_eq!(moves(a), moves(b));
    }
    let (a, b) = (trimmed.node(trimmed.root()), first.node(first.root()));
    assert!((a.values.win_loss - b.values.win_loss).abs() < 1e-12);
    assert!((a.values.score_mean - b.values.score_mean).abs() < 1e-12);
    assert!(trimmed.mixing(&net.id()).is_none());
    assert!(trimmed.superseded.is_empty());
    // Trimming the first engine leaves nothing it searched.
    let first_ref = book.register_engine(&net.id()).unwrap();
    let (rest, _) = trim(&book, &[first_ref]);
    assert!(!rest.grown_by().contains(&first_ref));
}

#[test]
fn books_of_earlier_formats_read_as_of_unknown_origin() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/7x7-format-1.tengenbook"
    );
    let (book, report) = store::load(std::path::Path::new(path)).unwrap();
    assert_eq!(report.version, 1);
    assert_eq!(book.engines, vec![EngineId::unknown()]);
    assert_eq!(book.grown_by(), vec![EngineRef::UNKNOWN]);
    assert!(book.mixing(&EngineId::new(EngineKind::Rollout)).is_none());
    // Format 2: the format-3 snapshot without its provenance sections, under a version-2 header.
    // A format-2 header is 24 bytes (magic, version, kind 0, generation), without the checksum of format 3.
    let mut bytes = store::snapshot_bytes(&book, 1).unwrap();
    let at = bytes.windows(4).position(|w| w == b"NPRV").unwrap();
    bytes.truncate(at);
    let mut format_2 = bytes[..8].to_vec();
    format_2.extend_from_slice(&2u32.to_le_bytes());
    format_2.extend_from_slice(&0u32.to_le_bytes());
    format_2.extend_from_slice(&1u64.to_le_bytes());
    format_2.extend_from_slice(&bytes[32..]);
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("format-2.tengenbook");
    std::fs::write(&old, &format_2).unwrap();
    let (loaded, report) = store::load(&old).unwrap();
    assert_eq!(report.version, 2);
    assert_eq!(loaded.len(), book.len());
    assert_eq!(loaded.grown_by(), vec![EngineRef::UNKNOWN]);
    // Opening it for growing upgrades the pair to the current format first.
    drop(BookStore::open(&old).unwrap());
    let (_, report) = store::load(&old).unwrap();
    assert_eq!(report.version, store::FORMAT_VERSION);
    // A format-3 snapshot cut before its provenance is damaged, not an old book.
    std::fs::write(&old, &bytes).unwrap();
    std::fs::remove_file(store::log_path(&old)).unwrap();
    let err = store::load(&old).unwrap_err().to_string();
    assert!(err.contains("NPRV"), "{err}");
}

#[test]
fn a_katabook_import_records_katago() {
    let text = include_str!("../../../books/7x7-tt-k9.katabook");
    let (book, _) = crate::book::interop::katabook::import_str(text, "7x7.katabook").unwrap();
    let used = book.grown_by();
    assert_eq!(used.len(), 1);
    assert_eq!(book.engine(used[0]).kind, EngineKind::KataGo);
    assert_eq!(book.provenance(book.root()).engine, "katago");
    assert!(
        book.mixing(&EngineId::new(EngineKind::Rollout).with_exact())
            .unwrap()
            .contains("`katago`")
    );
    // Saved and read back, it still says so.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.tengenbook");
    drop(BookStore::create(&path, &book).unwrap());
    let (loaded, _) = store::load(&path).unwrap();
    assert_eq!(provenance_of(&loaded), provenance_of(&book));
}
