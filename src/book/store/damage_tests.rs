//! Tests of damaged books: checksummed headers, generation mismatches, damage inside the log versus a
//! torn tail, and repairs. Each damaged book must give an error naming the file and the place, or load
//! exactly as before; no later write may lose what the damaged files hold.

use super::log::record_at;
use super::*;
use crate::book::synthetic;
use crate::go::playout::FastRng;
use proptest::prelude::*;

/// A small book grown through the store: a snapshot of 20 nodes and a log of 8 expansions (2 new nodes
/// each) and a marks record.
struct Grown {
    _dir: tempfile::TempDir,
    path: PathBuf,
    snapshot: Vec<u8>,
    log: Vec<u8>,
    /// Where each log record starts.
    records: Vec<usize>,
}

impl Grown {
    fn new(seed: u64) -> Grown {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.tengenbook");
        let mut book = synthetic::build(20, seed);
        let mut store = BookStore::create(&path, &book).unwrap();
        let mut rng = FastRng::new(seed);
        for k in 0..8 {
            let parent = NodeId((k * 7 % book.len()) as u32);
            let changed = synthetic::expand_randomly(&mut book, parent, 2, &mut rng);
            store.append_nodes(&book, &changed).unwrap();
        }
        let marks = Marks {
            bonus: 1.5,
            ..Marks::default()
        };
        store.append(&[Record::Marks(vec![(3, marks)])]).unwrap();
        drop(store);
        let log = std::fs::read(log_path(&path)).unwrap();
        let mut records = Vec::new();
        let mut at = HEADER_LEN;
        while at < log.len() {
            records.push(at);
            at = record_at(&log, at).unwrap().1;
        }
        assert_eq!(records.len(), 9);
        let snapshot = std::fs::read(&path).unwrap();
        Grown {
            _dir: dir,
            path,
            snapshot,
            log,
            records,
        }
    }

    fn log_path(&self) -> PathBuf {
        log_path(&self.path)
    }

    /// Writes the pair, the snapshot and the log as given.
    fn write(&self, snapshot: &[u8], log: &[u8]) {
        std::fs::write(&self.path, snapshot).unwrap();
        std::fs::write(self.log_path(), log).unwrap();
    }

    fn restore(&self) {
        self.write(&self.snapshot, &self.log);
    }

    /// The files as they are on disk.
    fn on_disk(&self) -> (Vec<u8>, Vec<u8>) {
        (
            std::fs::read(&self.path).unwrap(),
            std::fs::read(self.log_path()).unwrap(),
        )
    }
}

/// Two loads hold the same book: nodes, marks and parameters.
fn same(a: &Book, b: &Book) -> bool {
    a.len() == b.len()
        && a.nodes()
            .zip(b.nodes())
            .all(|((_, x), (_, y))| StoredNode::from_node(x) == StoredNode::from_node(y))
        && a.marks == b.marks
        && a.params == b.params
}

/// The book is refused for reading and for writing, the refusal names `file` (and, for damage, gives
/// the offset), and the files on disk stay exactly as they were.
fn refused(g: &Grown, file: &Path) -> String {
    let before = g.on_disk();
    let Err(err) = load(&g.path) else {
        panic!("a damaged book loaded");
    };
    let message = err.to_string();
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(message.contains(name), "{message}");
    assert!(BookStore::open(&g.path).is_err(), "opened for writing");
    assert!(g.on_disk() == before, "a refused open changed the files");
    message
}

fn offset_of(message: &str) -> Option<u64> {
    let rest = message.split("is damaged at byte ").nth(1)?;
    rest.split(':').next()?.parse().ok()
}

#[test]
fn a_flipped_generation_or_kind_byte_is_an_error_and_no_write_loses_data() {
    let g = Grown::new(1);
    let (whole, _) = load(&g.path).unwrap();
    assert_eq!(whole.len(), 36);
    for (in_log, byte) in [(false, 16), (true, 16), (true, 12)] {
        let (mut snapshot, mut log) = (g.snapshot.clone(), g.log.clone());
        let target = if in_log { &mut log } else { &mut snapshot };
        target[byte] ^= 0x01;
        g.write(&snapshot, &log);
        let file = if in_log { g.log_path() } else { g.path.clone() };
        let message = refused(&g, &file);
        assert!(message.contains("header"), "{message}");
        assert_eq!(offset_of(&message), Some(0), "{message}");
        g.restore();
        let (again, _) = load(&g.path).unwrap();
        assert!(same(&again, &whole));
    }
}

/// A log header of another generation with a valid checksum (as a restored backup would have).
fn log_of_generation(log: &[u8], generation: u64) -> Vec<u8> {
    let mut log = log.to_vec();
    log[..HEADER_LEN].copy_from_slice(&header(KIND_LOG, generation));
    log
}

#[test]
fn a_log_of_another_generation_is_an_error_naming_both_files_and_generations() {
    let g = Grown::new(2);
    // The snapshot is generation 1. Higher, and lower (not folded into the snapshot).
    for generation in [2, 7, 0] {
        g.write(&g.snapshot, &log_of_generation(&g.log, generation));
        let message = refused(&g, &g.log_path());
        assert!(
            message.contains("b.tengenbook has generation 1"),
            "{message}"
        );
        assert!(
            message.contains(&format!("has generation {generation}")),
            "{message}"
        );
    }
    // The generation before, right after a compaction: the log is folded into the snapshot.
    let (whole, _) = {
        g.restore();
        load(&g.path).unwrap()
    };
    let mut store = BookStore::open(&g.path).unwrap().0;
    store.compact(&whole).unwrap();
    drop(store);
    std::fs::write(g.log_path(), &g.log).unwrap();
    let (loaded, report) = load(&g.path).unwrap();
    assert!(report.stale_log && same(&loaded, &whole));
    // The generation before, but holding what the snapshot does not: not stale, an error.
    let snapshot = std::fs::read(&g.path).unwrap();
    let mut log = g.log.clone();
    log.truncate(g.records[8]);
    let unfolded = Marks {
        expand: 4.0,
        ..Marks::default()
    };
    frame(&Record::Marks(vec![(5, unfolded)]), &mut log).unwrap();
    g.write(&snapshot, &log);
    let message = refused(&g, &g.log_path());
    assert!(
        message.contains("not folded into the snapshot"),
        "{message}"
    );
}

#[test]
fn damage_followed_by_valid_records_is_refused_with_the_offset_and_repaired_beside() {
    let g = Grown::new(3);
    let (whole, _) = load(&g.path).unwrap();
    let r2 = g.records[1];
    let r3 = g.records[2];
    let damages: [(usize, &[u8]); 3] = [
        // One bit flipped in record 2's payload.
        (r2 + 20, &[g.log[r2 + 20] ^ 0x08]),
        // Record 3's length set to 0, and to 0xFFFFFFFF.
        (r3, &[0, 0, 0, 0]),
        (r3, &[0xFF, 0xFF, 0xFF, 0xFF]),
    ];
    for (at, bytes) in damages {
        let mut log = g.log.clone();
        log[at..at + bytes.len()].copy_from_slice(bytes);
        g.write(&g.snapshot, &log);
        let message = refused(&g, &g.log_path());
        let record = if at == r3 { r3 } else { r2 };
        assert_eq!(offset_of(&message), Some(record as u64), "{message}");
        assert!(message.contains("not an interrupted write"), "{message}");

        let repaired = repair::repair(&g.path).unwrap();
        assert!(g.on_disk() == (g.snapshot.clone(), log.clone()));
        assert!(
            repaired.dropped[0].contains(&format!("bytes {record}..")),
            "{:?}",
            repaired.dropped
        );
        let (fixed, report) = load(&repaired.output).unwrap();
        assert_eq!(report.log_records, 0);
        // The records before the damage are all there; so is every node the damage did not cut off.
        assert!(fixed.len() >= 20 + 2 * (if at == r3 { 2 } else { 1 }));
        assert!(fixed.len() < whole.len());
        for (id, node) in fixed.nodes() {
            assert_eq!(node.hash, whole.node(id).hash);
        }
        assert_eq!(
            fixed.marks, whole.marks,
            "the marks record after the damage is kept"
        );
        std::fs::remove_file(&repaired.output).unwrap();
        std::fs::remove_file(log_path(&repaired.output)).unwrap();
    }
}

#[test]
fn a_header_flip_is_repaired_without_losing_anything() {
    let g = Grown::new(4);
    let (whole, _) = load(&g.path).unwrap();
    let mut log = g.log.clone();
    log[16] ^= 0x01;
    g.write(&g.snapshot, &log);
    let repaired = repair::repair(&g.path).unwrap();
    assert!(repaired.dropped.is_empty(), "{:?}", repaired.dropped);
    assert!(
        repaired.notes[0].contains("checksum"),
        "{:?}",
        repaired.notes
    );
    let (fixed, _) = load(&repaired.output).unwrap();
    assert!(same(&fixed, &whole));
    // Never over an existing book.
    assert!(matches!(
        repair::repair(&g.path),
        Err(StoreError::Exists { .. })
    ));
}

#[test]
fn only_a_bad_last_record_is_a_torn_tail() {
    let g = Grown::new(5);
    let (whole, _) = load(&g.path).unwrap();
    // Zeros where the last append's data never reached the disk.
    let mut log = g.log.clone();
    log.extend_from_slice(&[0; 100]);
    g.write(&g.snapshot, &log);
    let (loaded, report) = load(&g.path).unwrap();
    assert!(same(&loaded, &whole));
    assert_eq!(report.torn_at(), Some(g.log.len() as u64));
    // A damaged last record is cut at its start, and reported there.
    let last = g.records[8];
    let mut log = g.log.clone();
    log[last + 10] ^= 0x20;
    g.write(&g.snapshot, &log);
    let (loaded, report) = load(&g.path).unwrap();
    assert_eq!(report.torn_at(), Some(last as u64));
    assert_eq!(report.log_records, 8);
    assert!(loaded.marks.is_empty());
    let (store, _, _) = BookStore::open(&g.path).unwrap();
    assert_eq!(store.log_len(), last as u64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any byte of the log, or of the snapshot's header, changed: an error naming the file and the
    /// place, or the same book; the only load with less is a cut last record, reported at its start.
    #[test]
    fn a_changed_byte_is_an_error_or_the_same_book(
        seed in 0u64..4,
        in_log in prop::bool::weighted(0.8),
        pick in any::<usize>(),
        change in 1u8..=255,
    ) {
        let g = Grown::new(seed);
        let (whole, _) = load(&g.path).unwrap();
        let (mut snapshot, mut log) = (g.snapshot.clone(), g.log.clone());
        let at = if in_log { pick % log.len() } else { pick % HEADER_LEN };
        let target = if in_log { &mut log } else { &mut snapshot };
        target[at] ^= change;
        g.write(&snapshot, &log);
        match load(&g.path) {
            Err(e) => {
                let message = e.to_string();
                let file = if in_log { "b.tengenbook.log" } else { "b.tengenbook" };
                prop_assert!(message.contains(file), "{}", message);
                let named = offset_of(&message).is_some() || message.contains("byte ");
                prop_assert!(named, "{}", message);
                prop_assert!(BookStore::open(&g.path).is_err());
                prop_assert!(g.on_disk() == (snapshot, log));
            }
            Ok((loaded, report)) => match report.torn_at() {
                None => prop_assert!(same(&loaded, &whole)),
                Some(cut) => {
                    let last = g.records[8];
                    prop_assert_eq!(cut, last as u64);
                    prop_assert!(in_log && at >= last);
                    prop_assert_eq!(report.log_records, 8);
                    // Exactly the book without the last record, which `book verify` reports.
                    std::fs::write(g.log_path(), &g.log[..last]).unwrap();
                    let (without_last, _) = load(&g.path).unwrap();
                    prop_assert!(same(&loaded, &without_last));
                }
            },
        }
    }
}
