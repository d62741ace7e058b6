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

/// The 7x7 katabook stored as `b.tengenbook` in a fresh temporary folder (kept while the folder lives).
fn stored_katabook() -> (tempfile::TempDir, PathBuf, Book, BookStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tengenbook");
    let (book, _) = katabook::import(Path::new(KATABOOK)).unwrap();
    let store = BookStore::create(&path, &book).unwrap();
    (dir, path, book, store)
}

/// Sets node `id`'s visits in `book` and appends the node to the store's log.
fn append_visits(store: &mut BookStore, book: &mut Book, id: u32, visits: f64) {
    book.node_mut(NodeId(id)).not_in_book.visits = visits;
    store.append_nodes(book, &[NodeId(id)]).unwrap();
}

#[test]
fn snapshot_and_log_round_trip() {
    let (_dir, path, book, mut store) = stored_katabook();
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
    let (_dir, path, book, mut store) = stored_katabook();
    let mut changed = book.clone();
    append_visits(&mut store, &mut changed, 7, 999.0);
    let good_len = store.log_len();
    append_visits(&mut store, &mut changed, 8, 555.0);
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
    let (_dir, path, book, mut store) = stored_katabook();
    let mut changed = book.clone();
    append_visits(&mut store, &mut changed, 2, 4242.0);
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

/// [`marked_book`] written as a snapshot in a fresh temporary folder (kept while the folder lives).
fn marked_snapshot() -> (tempfile::TempDir, Book, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let book = marked_book();
    let path = write_snapshot(dir.path(), &book);
    (dir, book, path)
}

/// The katabook with values, costs and a few marks: every field a snapshot holds is non-trivial.
fn marked_book() -> Book {
    let (mut book, _) = katabook::import(Path::new(KATABOOK)).unwrap();
    for (id, bonus, branch) in [(0, 1.5, 0), (3, 0.0, 2), (40, -0.5, 1)] {
        book.marks.insert(
            NodeId(id),
            Marks {
                bonus,
                expand: 0.25,
                visits: 300.0,
                branch,
            },
        );
    }
    book.node_mut(NodeId(7)).can_expand = false;
    crate::book::recompute_everything(&mut book);
    book
}

/// Everything stored and cached comes back bit for bit.
fn identical(a: &Book, b: &Book) {
    assert_eq!(a.meta, b.meta);
    assert_eq!(a.params, b.params);
    assert_eq!(a.marks, b.marks);
    assert_eq!(a.len(), b.len());
    for ((id, x), (_, y)) in a.nodes().zip(b.nodes()) {
        assert_eq!(StoredNode::from_node(x), StoredNode::from_node(y), "{id:?}");
        assert_eq!(x.values, y.values, "{id:?}");
        assert_eq!(x.cost, y.cost, "{id:?}");
        assert_eq!(x.edges, y.edges, "{id:?}");
        assert_eq!(b.find(&x.hash), Some(id));
    }
}

fn write_snapshot(dir: &Path, book: &Book) -> PathBuf {
    let path = dir.join("s.tengenbook");
    std::fs::write(&path, snapshot_bytes(book, 3).unwrap()).unwrap();
    path
}

/// Where each section's header starts, read from the file itself: (tag, offset, payload length).
fn sections(bytes: &[u8]) -> Vec<([u8; 4], usize, usize)> {
    let mut out = Vec::new();
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        let tag: [u8; 4] = bytes[at..at + 4].try_into().unwrap();
        let len = u64::from_le_bytes(bytes[at + 16..at + 24].try_into().unwrap()) as usize;
        out.push((tag, at, len));
        at += 24 + len;
    }
    out
}

/// Recomputes a section's checksum after a test edited its payload on purpose.
fn reseal(bytes: &mut [u8], section_at: usize) {
    let len = u64::from_le_bytes(bytes[section_at + 16..section_at + 24].try_into().unwrap());
    let body = section_at + 24;
    let crc = crc32fast::hash(&bytes[body..body + len as usize]);
    bytes[section_at + 4..section_at + 8].copy_from_slice(&crc.to_le_bytes());
}

fn corrupt_at(result: Result<(Book, LoadReport), StoreError>) -> (u64, String) {
    match result {
        Err(StoreError::Corrupt {
            file,
            offset,
            detail,
        }) => {
            assert!(file.ends_with("s.tengenbook"), "{file}");
            (offset, detail)
        }
        Err(e) => panic!("expected a corrupt-file error, got {e}"),
        Ok(_) => panic!("a damaged snapshot loaded"),
    }
}

#[test]
fn a_format_2_snapshot_holds_every_field_and_the_cache_equals_a_recompute() {
    let (_dir, book, path) = marked_snapshot();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[8..12], &FORMAT_VERSION.to_le_bytes());
    let tags: Vec<[u8; 4]> = sections(&bytes).iter().map(|s| s.0).collect();
    assert_eq!(
        tags,
        [
            *b"META", *b"NODE", *b"EDGE", *b"PRNT", *b"VALS", *b"ECST", *b"MARK", *b"NPRV",
            *b"EPRV", *b"SUPR"
        ]
    );
    let (loaded, report) = load(&path).unwrap();
    assert!(report.snapshot_cached);
    assert_eq!(report.generation, 3);
    identical(&loaded, &book);
    // Without the cache, KataGo's way (recompute everything) gives the very same numbers.
    let (mut bare, report) = load_without_recompute(&path).unwrap();
    assert!(!report.snapshot_cached);
    assert_eq!(bare.node(NodeId(0)).values, RecursiveValues::default());
    crate::book::recompute_everything(&mut bare);
    identical(&bare, &book);
}

/// The synthetic book `tengen bench book` measures round-trips too (transpositions, many leaves).
#[test]
fn a_synthetic_book_round_trips_through_format_2() {
    let dir = tempfile::tempdir().unwrap();
    let mut book = crate::book::synthetic::build(3000, 9);
    crate::book::recompute_everything(&mut book);
    let path = write_snapshot(dir.path(), &book);
    identical(&load(&path).unwrap().0, &book);
}

/// The shipped book was written in format 1; it opens, and the next compaction rewrites it as format 2.
#[test]
fn a_format_1_book_still_opens_and_compacts_to_format_2() {
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/7x7-format-1.tengenbook"
    );
    let bytes = std::fs::read(shipped).unwrap();
    assert_eq!(&bytes[8..12], &1u32.to_le_bytes(), "a format-1 file");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.tengenbook");
    std::fs::write(&path, &bytes).unwrap();
    let (old, report) = load(&path).unwrap();
    assert!(report.snapshot_cached);
    assert!(old.len() > 4000);
    let (mut bare, _) = load_without_recompute(&path).unwrap();
    crate::book::recompute_everything(&mut bare);
    identical(&old, &bare);
    let (mut store, book, _) = BookStore::open(&path).unwrap();
    store.compact(&book).unwrap();
    drop(store);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[8..12], &FORMAT_VERSION.to_le_bytes());
    identical(&load(&path).unwrap().0, &old);
}

#[test]
fn a_damaged_snapshot_is_refused_with_the_file_and_the_offset() {
    let (_dir, _, path) = marked_snapshot();
    let good = std::fs::read(&path).unwrap();
    // A flipped bit anywhere in a payload fails that section's checksum, reported at the payload.
    let mut rng = crate::go::playout::FastRng::new(11);
    for (tag, at, len) in sections(&good) {
        if len == 0 {
            continue;
        }
        for _ in 0..5 {
            let mut bad = good.clone();
            let k = at + 24 + rng.below(len);
            bad[k] ^= 1 << rng.below(8);
            std::fs::write(&path, &bad).unwrap();
            let (offset, detail) = corrupt_at(load(&path));
            assert_eq!(offset, (at + 24) as u64, "{detail}");
            assert!(
                detail.contains("checksum") && detail.contains(&*String::from_utf8_lossy(&tag)),
                "{detail}"
            );
        }
        // So does any change to a section's header (tag, checksum, count or length).
        for k in at..at + 24 {
            let mut bad = good.clone();
            bad[k] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            corrupt_at(load(&path));
        }
    }
    // A snapshot cut anywhere after its header is reported as cut short, at the section it cuts.
    for cut in [
        HEADER_LEN,
        HEADER_LEN + 10,
        good.len() / 3,
        good.len() / 2,
        good.len() - 1,
    ] {
        std::fs::write(&path, &good[..cut]).unwrap();
        let (offset, detail) = corrupt_at(load(&path));
        assert!(detail.contains("cut short"), "{detail}");
        let section = sections(&good).into_iter().rfind(|s| s.1 <= cut).unwrap();
        assert_eq!(offset, section.1 as u64, "cut at {cut}: {detail}");
    }
    // Bytes after the last section are not silently ignored.
    let mut long = good.clone();
    long.extend_from_slice(b"junk");
    std::fs::write(&path, &long).unwrap();
    let (offset, detail) = corrupt_at(load(&path));
    assert_eq!(offset, good.len() as u64, "{detail}");
}

/// Contents that pass their checksums but contradict each other are refused before they are used.
#[test]
fn inconsistent_sections_are_refused() {
    let (_dir, book, path) = marked_snapshot();
    let good = std::fs::read(&path).unwrap();
    let find = |tag: &[u8; 4]| sections(&good).into_iter().find(|s| &s.0 == tag).unwrap();
    // The root lists one move more than the EDGE section holds.
    let (_, nodes_at, _) = find(b"NODE");
    let mut bad = good.clone();
    let count_at = nodes_at + 24 + 36;
    let count = u32::from_le_bytes(bad[count_at..count_at + 4].try_into().unwrap());
    bad[count_at..count_at + 4].copy_from_slice(&(count + 1).to_le_bytes());
    reseal(&mut bad, nodes_at);
    std::fs::write(&path, &bad).unwrap();
    let (offset, detail) = corrupt_at(load(&path));
    assert_eq!(offset, (nodes_at + 24) as u64);
    assert!(detail.contains("moves"), "{detail}");
    // A move leads to a node that does not exist: reported at that move's child field.
    let (_, edges_at, _) = find(b"EDGE");
    let mut bad = good.clone();
    let child_at = edges_at + 24 + 12 + 4;
    bad[child_at..child_at + 4].copy_from_slice(&(book.len() as u32).to_le_bytes());
    reseal(&mut bad, edges_at);
    std::fs::write(&path, &bad).unwrap();
    let (offset, detail) = corrupt_at(load(&path));
    assert_eq!(offset, child_at as u64, "{detail}");
    // A bad symmetry id in a node.
    let mut bad = good.clone();
    bad[nodes_at + 24 + 34] = 9;
    reseal(&mut bad, nodes_at);
    std::fs::write(&path, &bad).unwrap();
    let (offset, detail) = corrupt_at(load(&path));
    assert_eq!(offset, (nodes_at + 24 + 34) as u64, "{detail}");
}

/// Counts in a file are checked against the bytes that are there before anything is reserved for them:
/// claiming a billion nodes costs an error message, not a billion nodes' memory.
#[test]
fn a_huge_claimed_size_allocates_nothing() {
    let (_dir, book, path) = marked_snapshot();
    let good = std::fs::read(&path).unwrap();
    let (_, nodes_at, _) = sections(&good)[1];
    for (count, len) in [
        (1_000_000_000u64, 1_000_000_000u64 * 116),
        (u64::MAX / 2, 116),
        (1_000_000_000, 116),
    ] {
        let mut bad = good.clone();
        bad[nodes_at + 8..nodes_at + 16].copy_from_slice(&count.to_le_bytes());
        bad[nodes_at + 16..nodes_at + 24].copy_from_slice(&len.to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        let (offset, detail) = corrupt_at(load(&path));
        assert_eq!(offset, nodes_at as u64, "{detail}");
    }
    // Format 1 sized its arena from its metadata record: now bounded by the file's length.
    let mut v1 = header(KIND_SNAPSHOT, 1)[..header::HEADER_LEN_V2].to_vec();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    frame(
        &Record::Meta {
            meta: book.meta.clone(),
            params: book.params.clone(),
            nodes: 1 << 40,
        },
        &mut v1,
    )
    .unwrap();
    std::fs::write(&path, &v1).unwrap();
    let (_, detail) = corrupt_at(load(&path));
    assert!(detail.contains("end record"), "{detail}");
}

/// Decodes a format-2 snapshot from memory through `chunk`-byte reads (the loader reads 1 MiB ones).
fn decode_in_chunks(bytes: &[u8], chunk: usize) -> Result<(Book, bool), StoreError> {
    snapshot::decode(
        &bytes[HEADER_LEN..],
        HEADER_LEN,
        bytes.len(),
        "s.tengenbook",
        true,
        chunk,
        FORMAT_VERSION,
    )
}

/// The reader streams the file through a small buffer: move lists, parent lists and cached move costs
/// that straddle two reads come back whole, whatever the read size.
#[test]
fn a_snapshot_read_in_small_chunks_comes_back_whole() {
    let mut synthetic = crate::book::synthetic::build(3000, 4);
    crate::book::recompute_everything(&mut synthetic);
    for book in [marked_book(), synthetic] {
        let bytes = snapshot_bytes(&book, 3).unwrap();
        for chunk in [1, 7, 13, 100, 4096, snapshot::CHUNK_BYTES] {
            let (loaded, cached) = decode_in_chunks(&bytes, chunk).unwrap();
            assert!(cached, "chunk {chunk}");
            identical(&loaded, &book);
        }
    }
}

/// A file that ends before the length it had when it was opened (another process shrank it) is
/// reported as cut short at the section it cuts, whatever the read size.
#[test]
fn a_file_that_shrinks_while_read_is_cut_short() {
    let bytes = snapshot_bytes(&marked_book(), 3).unwrap();
    // (A section without payload cannot be cut inside it.)
    for (tag, at, len) in sections(&bytes).into_iter().filter(|s| s.2 > 0) {
        let cut = at + 24 + len / 2;
        for chunk in [7, snapshot::CHUNK_BYTES] {
            let result = snapshot::decode(
                &bytes[HEADER_LEN..cut],
                HEADER_LEN,
                bytes.len(),
                "s.tengenbook",
                true,
                chunk,
                FORMAT_VERSION,
            );
            let Err(StoreError::Corrupt { offset, detail, .. }) = result else {
                panic!("a shrunk file loaded or failed otherwise");
            };
            let name = String::from_utf8_lossy(&tag).into_owned();
            assert_eq!(offset, at as u64, "{name}: {detail}");
            assert!(
                detail.contains("cut short") && detail.contains(&name),
                "{detail}"
            );
        }
    }
}

/// A damaged record that would decode to nonsense (a player to move of 7) is reported as what it is, a
/// checksum failure, even though the reader meets the nonsense before the end of the section; the same
/// value with a valid checksum is reported as the bad value it is, at its offset.
#[test]
fn a_checksum_failure_is_reported_before_what_the_damage_decodes_to() {
    let book = marked_book();
    let good = snapshot_bytes(&book, 3).unwrap();
    let (_, nodes_at, _) = sections(&good)[1];
    let to_move_at = nodes_at + 24 + 3 * snapshot::NODE_WIDTH + 32;
    let mut bad = good.clone();
    bad[to_move_at] = 7;
    for chunk in [snapshot::NODE_WIDTH, snapshot::CHUNK_BYTES] {
        let Err(StoreError::Corrupt { offset, detail, .. }) = decode_in_chunks(&bad, chunk) else {
            panic!("a damaged snapshot loaded");
        };
        assert_eq!(offset, (nodes_at + 24) as u64, "{detail}");
        assert!(
            detail.contains("NODE section fails its checksum"),
            "{detail}"
        );
    }
    reseal(&mut bad, nodes_at);
    let Err(StoreError::Corrupt { offset, detail, .. }) =
        decode_in_chunks(&bad, snapshot::NODE_WIDTH)
    else {
        panic!("a bad player to move loaded");
    };
    assert_eq!(offset, to_move_at as u64, "{detail}");
    assert!(detail.contains("node 3: player to move 7"), "{detail}");
}

/// The snapshot reader checks every link as it reads; what a log adds is still checked after it.
#[test]
fn a_log_node_linking_to_a_missing_node_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.tengenbook");
    let book = marked_book();
    let store = BookStore::create(&path, &book).unwrap();
    drop(store);
    let mut store = BookStore::open(&path).unwrap().0;
    let mut node = StoredNode::from_node(book.node(NodeId(5)));
    node.edges.push((0, 0, book.len() as u32 + 10, 0.5));
    node.edges_by.push(0);
    store.append(&[Record::Nodes(vec![(5, node)])]).unwrap();
    drop(store);
    let (_, detail) = corrupt_at(load(&path));
    assert!(
        detail.contains("node 5 links to a node that does not exist"),
        "{detail}"
    );
}

/// Nodes whose different hashes share an index key (the index keeps 64 bits of a hash) are all found
/// after loading: the loader fills the index in table order, the rare collision goes to the overflow.
#[test]
fn nodes_whose_index_keys_collide_are_all_found_after_loading() {
    let mut book = crate::book::synthetic::build(50, 2);
    let mut rng = crate::go::playout::FastRng::new(5);
    let children = crate::book::synthetic::expand_randomly(&mut book, NodeId(0), 4, &mut rng);
    // The key is state (low half) ^ state (high half) <<< 17 ^ history (low half) <<< 31: these
    // hashes all have key 1.
    let colliding = [
        (1, 0),
        (0, 1 << 33),
        (1 << 64 | (1 << 17) ^ 1, 0),
        (1, 1 << 64),
    ];
    for (&id, (state, history)) in children[1..].iter().zip(colliding) {
        let mut node = book.node(id).clone();
        node.hash = BookHash { state, history };
        book.replace_node(id, node);
    }
    for &id in &children[1..] {
        assert_eq!(book.find(&book.node(id).hash), Some(id));
    }
    crate::book::recompute_everything(&mut book);
    let dir = tempfile::tempdir().unwrap();
    let path = write_snapshot(dir.path(), &book);
    let (loaded, _) = load(&path).unwrap();
    identical(&book, &loaded);
}
