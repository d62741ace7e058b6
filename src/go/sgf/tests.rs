use super::*;

fn parse(text: &str) -> SgfGame {
    parse_str(text, Path::new("test.sgf")).unwrap().remove(0)
}

#[test]
fn reads_moves_passes_setup_and_markup() {
    let g = parse(
        "(;GM[1]FF[4]SZ[9]KM[7.50]RU[koSIMPLEscoreAREAtaxSEKIsui0]AB[cc][dd]AW[ee]PL[W]C[a \\] b]\n;W[ef]SQ[aa][ab]LB[cc:x];B[];W[tt])",
    );
    assert_eq!(g.size, BoardSize::square(9).unwrap());
    assert_eq!(g.komi(), Some(7.5));
    assert_eq!(g.root.comment(), Some("a ] b"));
    let line = g.main_line();
    assert_eq!(line.len(), 4);
    assert_eq!(line[2].get_move(), Some((Color::Black, Move::Pass)));
    assert_eq!(line[3].get_move(), Some((Color::White, Move::Pass)));
    assert_eq!(line[1].markup(Markup::Square).len(), 2);
    let game = g
        .replay(
            &line,
            g.rules_or(Rules::tromp_taylor()),
            true,
            Path::new("t"),
        )
        .unwrap();
    assert_eq!(game.board().color_at(Point::new(2, 2)), Some(Color::Black));
    assert!(game.is_over());
    assert_eq!(game.rules().ko, super::super::rules::KoRule::Simple);
}

#[test]
fn rectangular_sizes_and_round_trip() {
    let text = "(;GM[1]SZ[7:5]PB[x\\]y];B[aa](;W[bb]C[one])(;W[cc];B[dd]))";
    let g = parse(text);
    assert_eq!(g.size, BoardSize::new(7, 5).unwrap());
    let written = g.to_sgf();
    let again = parse(&written);
    assert_eq!(g, again);
    assert_eq!(written, again.to_sgf());
}

/// Found by the fuzz smoke test: values with `]` or `\\` must be escaped again when written, and a
/// lower-case FF[3] identifier (empty in FF[4]) must not swallow the next property's values.
#[test]
fn escapes_and_odd_identifiers_round_trip() {
    let g = parse(
        "(;GM[1]SZ[9]C[back\\\\slash \\] bracket]BM[3d\\]: x]PB[a\\:b]ab[cc]AW[dd];B[ee]LB[ee:x\\:y])",
    );
    assert_eq!(g.root.comment(), Some("back\\slash ] bracket"));
    assert!(
        g.root
            .props
            .iter()
            .all(|p| !matches!(p, Property::Other(id, _) if id.is_empty()))
    );
    let again = parse(&g.to_sgf());
    assert_eq!(again, g);
}

#[test]
fn malformed_input_names_the_place() {
    let err = parse_str("(;GM[1]SZ[9]\n;B[aa];W[bb\n", Path::new("bad.sgf")).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("bad.sgf:2:"), "{msg}");
    let deep = format!(
        "(;GM[1]{}{})",
        "(;B[aa]".repeat(300_000),
        ")".repeat(300_000)
    );
    let err = parse_str(&deep, Path::new("deep.sgf")).unwrap_err();
    assert!(err.to_string().contains("at most 4000"), "{err}");
    let err = parse_str("(;GM[1]SZ[5];B[hh])", Path::new("off.sgf")).unwrap_err();
    assert!(err.to_string().contains("off the 5x5 board"), "{err}");
}

#[test]
fn malformed_values_of_read_properties_are_errors_at_their_node() {
    for (text, node, words) in [
        ("(;SZ[9:400])", 0, "SZ[9:400] is not a board size"),
        ("(;SZ[-5])", 0, "SZ[-5] is not a board size"),
        ("(;SZ[9]KM[NaN])", 0, "KM[NaN] is not a komi"),
        ("(;SZ[9]KM[1e300])", 0, "is not a komi"),
        ("(;SZ[9]KM[seven])", 0, "KM[seven] is not a valid komi"),
        ("(;SZ[9];B[dd];W[a])", 2, "W[a] is not a valid move"),
        ("(;SZ[9]PL[X])", 0, "PL[X] is not a valid colour"),
    ] {
        let err = parse_str(text, Path::new("v.sgf")).unwrap_err().to_string();
        assert!(
            err.contains(&format!("v.sgf: node {node}: ")) && err.contains(words),
            "{text}: {err}"
        );
    }
    // Properties tengen does not read keep their text, whatever it is.
    let game = parse("(;SZ[9]HA[many]TB[zz])");
    assert_eq!(game.root.other("HA"), Some(&["many".to_string()][..]));
}
