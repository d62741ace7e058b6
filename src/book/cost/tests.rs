//! The cost model checked against the formulas of `facts/katago-book.md` §5, worked out by hand.
use super::*;
use crate::book::dag::{BookMeta, SearchValues};
use crate::book::expand::add_move;
use crate::book::expand::{ExpandSettings, grow};
use crate::book::provenance::EngineRef;
use crate::book::recompute_everything;
use crate::engine::{Analysis, CancelToken, Engine, MoveInfo, Query, Report, RootInfo};
use crate::go::{BoardSize, Komi, Move, Point, Rules};

fn values(wl: f64, score: f64, max_policy: f64, visits: f64) -> SearchValues {
    SearchValues {
        win_loss: wl,
        score_mean: score,
        sharp_score: score,
        win_loss_error: -1.0,
        score_error: -1.0,
        score_stdev: 5.0,
        max_policy,
        weight: visits,
        visits,
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} vs {b}");
}

/// An empty 7x7 book with komi 9 under Tromp-Taylor rules, the example of `facts/katago-book.md`.
fn seven_by_seven() -> Book {
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(9.0).unwrap());
    Book::new(
        BookMeta::new(BoardSize::square(7).unwrap(), rules),
        CostParams::default(),
    )
}

/// Adds the root's move at `point` with `prior` and returns the child.
fn add_child(book: &mut Book, point: Point, prior: f32) -> NodeId {
    let root = book.root();
    let game = book.meta.initial_game();
    add_move(
        book,
        root,
        &game,
        Move::Play(point),
        prior,
        EngineRef::UNKNOWN,
    )
    .unwrap()
    .0
}

/// A root (Black to move) with two children whose values are set by hand, and every cost worked out
/// from the formulas of `facts/katago-book.md` §5 with the 7x7 example parameters.
#[test]
fn costs_and_selection_match_the_formulas_by_hand() {
    let mut book = seven_by_seven();
    let root = book.root();
    let a = add_child(&mut book, Point::new(3, 3), 0.6);
    let b = add_child(&mut book, Point::new(2, 4), 0.3);
    book.node_mut(root).not_in_book = values(0.2, 1.0, 0.1, 100.0);
    book.node_mut(a).not_in_book = values(-0.1, -0.5, 0.5, 200.0);
    book.node_mut(b).not_in_book = values(0.3, 2.0, 0.4, 100.0);
    recompute_everything(&mut book);
    check_by_hand(&book, a, b, 1e-9);
}

/// The costs and selection of a 7x7 komi-9 root with children `a` (prior 0.6, values
/// `(-0.1, -0.5, 0.5, 200)`) and `b` (prior 0.3, `(0.3, 2.0, 0.4, 100)`), root remainder
/// `(0.2, 1.0, 0.1, 100)`, from the formulas by hand, to within `tolerance`.
fn check_by_hand(book: &Book, a: NodeId, b: NodeId, tolerance: f64) {
    let close = |x: f64, y: f64| assert!((x - y).abs() < tolerance, "{x} vs {y}");
    let root = book.root();
    let p = CostParams::default();

    // Black minimises each statistic: the root's win/loss and score are child a's.
    close(book.node(root).values.win_loss, -0.1);
    close(book.node(root).values.score_lcb, -0.5);

    // Edge a: no loss, highest prior, so only costPerMove and the log policy; then the WL-PV bonus.
    // Priors are stored as f32.
    let (pa, pb) = (0.6f32 as f64, 0.3f32 as f64);
    let raw_a = p.cost_per_move - pa.ln() * p.cost_per_log_policy;
    let tanh_a =
        (0.99 * p.bonus_for_wlpv1 + 4.0 * (0.25f64 - 0.4 * 0.4) * p.bonus_for_wlpv2).tanh();
    let edge_a = raw_a - raw_a * (1.0 - p.bonus_for_wlpv_final_prop) * tanh_a;
    // Edge b: win/loss loss 0.4 (with cube and 7th power terms), 20% forgiven above the path's largest
    // WL cost (0), score loss 2.5, and its own log policy (a has more prior but is better for Black).
    let wl_b = 0.4 * p.cost_per_ucb_win_loss_loss
        + (0.3f64.powi(3) - (-0.1f64).powi(3)) * p.cost_per_ucb_win_loss_loss_pow3
        + (0.3f64.powi(7) - (-0.1f64).powi(7)) * p.cost_per_ucb_win_loss_loss_pow7;
    let wl_b = wl_b * (1.0 - p.bonus_for_biggest_wl_cost);
    let edge_b =
        p.cost_per_move + wl_b + 2.5 * p.cost_per_ucb_score_loss - pb.ln() * p.cost_per_log_policy;
    // Expanding the root: loss 0.3 / score 1.5 for the remainder, its log policy boosted toward b's (b has
    // more prior and worse utility for Black), and two moves already expanded.
    let wl_x = (0.3 * p.cost_per_ucb_win_loss_loss
        + (0.2f64.powi(3) - (-0.1f64).powi(3)) * p.cost_per_ucb_win_loss_loss_pow3
        + (0.2f64.powi(7) - (-0.1f64).powi(7)) * p.cost_per_ucb_win_loss_loss_pow7)
        * (1.0 - p.bonus_for_biggest_wl_cost);
    let gain = 0.5 - 0.3; // utility of b minus the remainder's, for Black
    let factor =
        0.1 + 0.9 * (2.0 / (1.0 + (-gain / p.policy_boost_soft_utility_scale).exp()) - 1.0);
    let boosted = 0.1f64.ln() + factor * (pb.ln() - 0.1f64.ln());
    let expand_root = p.cost_per_move + wl_x + 1.5 * p.cost_per_ucb_score_loss
        - boosted * p.cost_per_log_policy
        + 2.0 * p.cost_per_moves_expanded
        + 4.0 * p.cost_per_squared_moves_expanded;

    let edge = |child: NodeId| {
        book.node(root)
            .edges
            .iter()
            .find(|e| e.child == child)
            .unwrap()
            .cost_from_root
    };
    close(edge(a), edge_a);
    close(edge(b), edge_b);
    close(book.node(root).cost.expansion_cost, expand_root);

    // Leaves: path cost is the edge's; expansion is costPerMove plus the log policy, less the WL-PV bonus
    // of an expansion that is its node's best option (scaled up by the path's distance from the WL-PV).
    let leaf = |policy: f64, wl: f64, path: f64, path_wl_pv: f64| {
        let x = p.cost_per_move - policy.ln() * p.cost_per_log_policy;
        let f1 = 1.0 - wl * wl;
        let f2 = 4.0 * (0.25 - (0.5 - wl.abs()).powi(2)).max(0.0);
        let scale = x + (path - path_wl_pv).max(0.0) * p.bonus_for_wlpv_final_prop;
        x - scale * (f1 * p.bonus_for_wlpv1 + f2 * p.bonus_for_wlpv2).tanh()
    };
    close(book.node(a).cost.min_cost_from_root, edge_a);
    close(
        book.node(a).cost.expansion_cost,
        leaf(0.5, -0.1, edge_a, 0.0),
    );
    close(
        book.node(b).cost.expansion_cost,
        leaf(0.4, 0.3, edge_b, edge_b),
    );

    // Selection: a (cheap, on the WL-PV) before the root before b.
    assert!(edge_a + leaf(0.5, -0.1, edge_a, 0.0) < expand_root && expand_root < edge_b);
    assert_eq!(cheapest(book, 3), vec![a, root, b]);
    assert_eq!(cheapest(book, 1), vec![a]);
    assert_eq!(
        (1..=6).map(|i| batch_size(i - 1, 64)).collect::<Vec<_>>(),
        vec![1, 3, 5, 7, 9, 12]
    );
}

#[test]
fn marks_move_costs_as_katago_does() {
    let mut book = seven_by_seven();
    let root = book.root();
    let a = add_child(&mut book, Point::new(3, 3), 0.6);
    book.node_mut(root).not_in_book = values(0.2, 1.0, 0.1, 100.0);
    book.node_mut(a).not_in_book = values(-0.1, -0.5, 0.5, 200.0);
    recompute_everything(&mut book);
    let before = book.node(a).cost;
    book.marks.insert(
        a,
        Marks {
            bonus: 2.0,
            ..Marks::default()
        },
    );
    recompute_everything(&mut book);
    close(
        book.node(a).cost.min_cost_from_root,
        before.min_cost_from_root - 2.0,
    );
    book.marks.insert(
        a,
        Marks {
            expand: 0.5,
            ..Marks::default()
        },
    );
    recompute_everything(&mut book);
    close(
        book.node(a).cost.min_cost_from_root,
        before.min_cost_from_root,
    );
    close(
        book.node(a).cost.expansion_cost,
        before.expansion_cost - 0.5,
    );
    book.marks.insert(
        a,
        Marks {
            visits: 10_000.0,
            ..Marks::default()
        },
    );
    recompute_everything(&mut book);
    close(
        book.node(a).cost.min_cost_from_root,
        before.min_cost_from_root - 500.0,
    );
    book.marks.insert(
        root,
        Marks {
            branch: 3,
            ..Marks::default()
        },
    );
    book.marks.remove(&a);
    let without = book.node(root).cost.expansion_cost;
    recompute_everything(&mut book);
    close(book.node(root).cost.expansion_cost, without - 700.0);
}

/// An engine that answers from a script: the position of [`check_by_hand`]. `with_policy` sends a policy
/// and the root's visits, as KataGo does; without it only the candidate moves with their priors and
/// visits come back, as from a GTP engine.
struct Scripted {
    with_policy: bool,
}

/// A Black-view candidate: move, visits, Black's winrate, Black's lead, prior.
fn candidate(mv: Move, visits: u64, winrate: f64, lead: f64, prior: f64) -> MoveInfo {
    MoveInfo {
        mv,
        visits,
        winrate,
        score_lead: lead,
        prior,
        pv: vec![mv],
        lcb: None,
        proven: false,
        score_mean: None,
    }
}

const A: Point = Point::new(3, 3);
const B: Point = Point::new(2, 4);
const C: Point = Point::new(0, 0);

impl Engine for Scripted {
    fn name(&self) -> String {
        format!("scripted (policy: {})", self.with_policy)
    }

    fn id(&self) -> crate::engine::EngineId {
        crate::engine::EngineId::program(crate::engine::EngineKind::Gtp, "scripted", None)
    }

    fn analyze(&self, query: Query) -> Analysis {
        let size = query.size;
        // White-view values (win/loss, score) as Black-view winrate and lead.
        let black = |wl: f64, score: f64| ((1.0 - wl) / 2.0, -score);
        let (moves, visits, max_policy, policy_of): (Vec<MoveInfo>, u64, f64, Vec<(Point, f32)>) =
            match query.moves.first() {
                None if query.avoid.is_empty() => {
                    // The full search (and the one-visit prior query): a first, b above the leaf
                    // threshold.
                    let (wa, la) = black(-0.1, -0.5);
                    let (wb, lb) = black(0.3, 2.0);
                    let moves = vec![
                        candidate(Move::Play(A), 600, wa, la, 0.6),
                        candidate(Move::Play(B), 300, wb, lb, 0.3),
                        candidate(Move::Play(C), 100, 0.4, -1.0, 0.1),
                    ];
                    (moves, 1000, 0.1, vec![(A, 0.6), (B, 0.3)])
                }
                // The quick re-search with a and b banned: the remainder.
                None => {
                    let (w, l) = black(0.2, 1.0);
                    (
                        vec![candidate(Move::Play(C), 100, w, l, 0.1)],
                        100,
                        0.1,
                        vec![],
                    )
                }
                // The children's own searches.
                Some(&(_, mv)) => {
                    let (wl, score, max_policy, visits) = if mv == Move::Play(A) {
                        (-0.1, -0.5, 0.5, 200)
                    } else {
                        (0.3, 2.0, 0.4, 100)
                    };
                    let (w, l) = black(wl, score);
                    let reply = candidate(Move::Play(C), visits, w, l, max_policy);
                    (
                        vec![reply],
                        visits,
                        max_policy,
                        vec![(C, max_policy as f32)],
                    )
                }
            };
        let policy = self.with_policy.then(|| {
            let mut p = vec![(max_policy as f32).min(0.1); size.area() + 1];
            for (pt, v) in policy_of {
                p[size.row_major(pt)] = v;
            }
            p
        });
        let report = Report {
            moves,
            root: RootInfo {
                // Without a root count, the book sums the candidates' visits.
                visits: if self.with_policy { visits } else { 0 },
                score_stdev: 5.0,
                ..RootInfo::default()
            },
            policy,
            ownership: None,
            is_final: true,
        };
        let (analysis, tx, _) = Analysis::channel();
        let _ = tx.try_send(Ok(report));
        analysis
    }
}

/// The same position booked twice, through one expansion with each of two engines that report
/// differently: both books get the values of [`check_by_hand`], so the same costs and selection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_engines_book_a_position_with_the_hand_computed_costs() {
    for with_policy in [true, false] {
        let mut book = seven_by_seven();
        recompute_everything(&mut book);
        let settings = ExpandSettings {
            max_visits: 1000,
            quick_visits: 250,
            seed: 1,
        };
        let engine = Scripted { with_policy };
        let expanded = grow(
            &mut book,
            None,
            &engine,
            settings,
            1,
            1,
            &CancelToken::default(),
            |_| {},
        )
        .await
        .unwrap();
        assert_eq!((expanded, book.len()), (1, 3), "{}", engine.name());
        let child = |pt: Point| {
            let root = book.node(book.root());
            let (i, _) = book.edge_by_move(book.root(), Move::Play(pt)).unwrap();
            (root.edges[i].child, root.edges[i].prior)
        };
        let ((a, prior_a), (b, prior_b)) = (child(A), child(B));
        assert_eq!((prior_a, prior_b), (0.6, 0.3), "{}", engine.name());
        // Policies travel as f32 (as in KataGo), so a max policy of 0.1 arrives as 0.100000001.
        check_by_hand(&book, a, b, 1e-6);
    }
}
