use super::*;
use crate::book::view::{node_table, view_of};

const BOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/katabook/7x7-tt-k9-146.katabook"
);
const PAGES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/katabook/7x7-tt-k9-146.pages.json"
);

/// Within the rounding of a number printed with `digits` decimals.
fn close(ours: f64, printed: f64, digits: i32) -> bool {
    (ours - printed).abs() <= 0.5 * 10f64.powi(-digits) + 1e-9
}

#[test]
fn every_page_of_the_katago_book_matches() {
    let (book, report) = import(Path::new(BOOK)).unwrap();
    assert_eq!(book.len(), 146);
    assert_eq!(book.edge_count(), 154);
    assert_eq!(report.unreachable, 0);
    assert_eq!(report.hash_conflicts, 0);
    let pages: Value = serde_json::from_str(&std::fs::read_to_string(PAGES).unwrap()).unwrap();
    let pages = pages["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 146);
    let mut rows_checked = 0;
    for page in pages {
        let id = match page["hash"].as_str() {
            None => book.root(),
            Some(h) => {
                let h: BookHash = h.parse().unwrap();
                NodeId(report.katago_hashes.iter().position(|k| *k == h).unwrap() as u32)
            }
        };
        let name = page["page"].as_str().unwrap();
        let table = node_table(&book, view_of(id));
        let expected = page["moves"].as_array().unwrap();
        assert_eq!(table.rows.len(), expected.len(), "{name}: number of rows");
        let to_move = if page["next_player"] == "B" {
            Color::Black
        } else {
            Color::White
        };
        assert_eq!(table.to_move, to_move, "{name}");
        for (i, (row, want)) in table.rows.iter().zip(expected).enumerate() {
            let at = format!("{name} row {i}");
            match want["move"].as_str() {
                Some("other") => assert!(row.is_other, "{at}: expected the other-moves row"),
                Some("pass") => assert_eq!(row.moves, vec![Move::Pass], "{at}"),
                _ => {
                    let mut ours: Vec<(usize, usize)> = row
                        .moves
                        .iter()
                        .filter_map(|m| m.point())
                        .map(|p| (p.x(), p.y()))
                        .collect();
                    let mut theirs: Vec<(usize, usize)> = want["xy"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|xy| {
                            (
                                xy[0].as_u64().unwrap() as usize,
                                xy[1].as_u64().unwrap() as usize,
                            )
                        })
                        .collect();
                    ours.sort();
                    theirs.sort();
                    assert_eq!(ours, theirs, "{at}: moves");
                }
            }
            let num = |k: &str| want[k].as_f64().unwrap();
            for (what, ours, key, digits) in [
                ("prior", row.prior, "p", 4),
                ("wl", row.white_win_loss, "wl", 4),
                ("ssM", row.white_score, "ssM", 2),
                ("wlRad", row.win_loss_radius, "wlRad", 4),
                ("sRad", row.score_radius, "sRad", 2),
                ("visits", row.visits, "v", 0),
                ("adjusted visits", row.adjusted_visits, "av", 0),
            ] {
                assert!(
                    close(ours, num(key), digits),
                    "{at}: {what} {ours} vs {}",
                    num(key)
                );
            }
            rows_checked += 1;
        }
    }
    assert!(rows_checked > 146);
}

#[test]
fn a_book_with_a_missing_node_line_is_refused_with_its_place() {
    let text = std::fs::read_to_string(BOOK).unwrap();
    let cut: Vec<&str> = text.lines().take(150).collect();
    let err = import_str(&cut.join("\n"), "cut.katabook")
        .unwrap_err()
        .to_string();
    assert!(err.contains("cut.katabook"), "{err}");
}
