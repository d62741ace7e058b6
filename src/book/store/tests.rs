//! Tests of the book store: round trips, torn and corrupted tails, interrupted compaction.

use super::*;
use crate::book::interop::katabook;

const KATABOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/katabook/7x7-tt-k9-146.katabook"
);

fn same_structure(a: &Book, b: &Book) {
    assert_eq!(a.len(), b.len());
    for ((_, x), (_, y)) in a.nodes().zip(b.nodes()) {
        assert_eq!(StoredNode::from_node(x), StoredNode::from_node(y));
        // Cached values plus the incremental update equal a full recompute.
        assert_eq!(x.values, y.values);
        assert!(
            (x.cost.total() - y.cost.total()).abs() < 1e-6,
            "{:?} vs {:?}",
            x.cost,
            y.cost
        );
        for (a, b) in x.edges.iter().zip(y.edges.iter()) {
            assert!((a.cost_from_root - b.cost_from_root).abs() < 1e-6);
        }
    }
}

#[test]
fn snapshot_and_log_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tengenbook");
    let (book, _) = katabook::import(Path::new(KATABOOK)).unwrap();
    let mut store = BookStore::create(&path, &book).unwrap();
    let mut changed = book.clone();
    changed.node_mut(NodeId(5)).not_in_book.visits += 17.0;
    changed.marks.insert(
        NodeId(3),
        Marks {
            bonus: 2.0,
            ..Marks::default()
        },
    );
    store.append_nodes(&changed, &[NodeId(5)]).unwrap();
    store
        .append(&[Record::Marks(vec![(3, changed.marks[&NodeId(3)])])])
        .unwrap();
    crate::book::recompute_everything(&mut changed);
    let (loaded, report) = load(&path).unwrap();
    assert_eq!(report.log_records, 2);
    same_structure(&loaded, &changed);
    assert_eq!(loaded.marks, changed.marks);
    // After compaction the log is empty and the snapshot holds everything.
    drop(store);
    let mut store = BookStore::open(&path).unwrap().0;
    store.compact(&loaded).unwrap();
    let (again, report) = load(&path).unwrap();
    assert_eq!(report.log_records, 0);
    assert_eq!(report.generation, 2);
    same_structure(&again, &changed);
}

#[test]
fn a_torn_tail_is_cut_and_never_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tengenbook");
    let (book, _) = katabook::import(Path::new(KATABOOK)).unwrap();
    let mut store = BookStore::create(&path, &book).unwrap();
    let mut changed = book.clone();
    changed.node_mut(NodeId(7)).not_in_book.visits = 999.0;
    store.append_nodes(&changed, &[NodeId(7)]).unwrap();
    let good_len = store.log_len();
    changed.node_mut(NodeId(8)).not_in_book.visits = 555.0;
    store.append_nodes(&changed, &[NodeId(8)]).unwrap();
    drop(store);
    // Tear the last record in half, and separately flip a byte inside it.
    let lpath = log_path(&path);
    let full = std::fs::read(&lpath).unwrap();
    let torn = &full[..(good_len as usize + full.len()) / 2];
    std::fs::write(&lpath, torn).unwrap();
    let (loaded, report) = load(&path).unwrap();
    assert_eq!(report.log_records, 1);
    assert!(report.torn_bytes > 0);
    assert_eq!(loaded.node(NodeId(7)).not_in_book.visits, 999.0);
    assert_ne!(loaded.node(NodeId(8)).not_in_book.visits, 555.0);
    let mut flipped = full.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x40;
    std::fs::write(&lpath, &flipped).unwrap();
    let (_, report) = load(&path).unwrap();
    assert_eq!(
        report.torn_reason.as_deref(),
        Some("a record fails its checksum")
    );
    // Opening for growth cuts the bad tail so later appends follow the last good record.
    let (mut store, book2, _) = BookStore::open(&path).unwrap();
    assert_eq!(store.log_len(), good_len);
    store.append_nodes(&book2, &[NodeId(9)]).unwrap();
    let (_, report) = load(&path).unwrap();
    assert_eq!((report.log_records, report.torn_bytes), (2, 0));
}

#[test]
fn a_stale_log_after_an_interrupted_compaction_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tengenbook");
    let (book, _) = katabook::import(Path::new(KATABOOK)).unwrap();
    let mut store = BookStore::create(&path, &book).unwrap();
    let mut changed = book.clone();
    changed.node_mut(NodeId(2)).not_in_book.visits = 4242.0;
    store.append_nodes(&changed, &[NodeId(2)]).unwrap();
    let old_log = std::fs::read(log_path(&path)).unwrap();
    store.compact(&changed).unwrap();
    // Simulate a crash between the snapshot rename and the new log: the old log is still there.
    std::fs::write(log_path(&path), old_log).unwrap();
    let (loaded, report) = load(&path).unwrap();
    assert!(report.stale_log);
    assert_eq!(loaded.node(NodeId(2)).not_in_book.visits, 4242.0);
}

#[test]
fn garbage_is_refused_with_the_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk");
    std::fs::write(&path, b"hello").unwrap();
    let err = load(&path).unwrap_err().to_string();
    assert!(
        err.contains("junk") && err.contains("not a tengen book"),
        "{err}"
    );
}
