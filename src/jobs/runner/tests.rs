use super::*;
use crate::book::dag::BookMeta;
use crate::book::{CostParams, recompute_everything};
use crate::engine::rollout::RolloutEngine;
use crate::go::{BoardSize, Komi, Rules};
use std::time::Duration;

fn small_book() -> Book {
    let rules = Rules::tromp_taylor().with_komi(Komi::from_f64(0.0).unwrap());
    let mut book = Book::new(
        BookMeta::new(BoardSize::square(3).unwrap(), rules),
        CostParams::default(),
    );
    recompute_everything(&mut book);
    book
}

fn runner(
    book: Book,
    concurrent: usize,
) -> (Runner, mpsc::UnboundedReceiver<JobEvent>, Arc<SharedBook>) {
    let shared = SharedBook::new(book, None);
    let (tx, rx) = mpsc::unbounded_channel();
    let config = RunnerConfig {
        concurrent,
        expand_visits: 60,
        analyze_visits: 60,
    };
    let runner = Runner::spawn(
        Arc::clone(&shared),
        Arc::new(RolloutEngine::new(1)),
        config,
        Instant::now(),
        tx,
    );
    (runner, rx, shared)
}

async fn next(rx: &mut mpsc::UnboundedReceiver<JobEvent>) -> JobEvent {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("an event within 30 s")
        .expect("open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expansion_grows_the_book_and_reports_each_job() {
    let (runner, mut rx, shared) = runner(small_book(), 2);
    runner.send(Request::StartExpansion);
    let mut finished = 0;
    let mut grew = false;
    while finished < 3 {
        match next(&mut rx).await {
            JobEvent::Finished { summary, .. } => {
                assert!(
                    summary.starts_with("added") || summary.starts_with("nothing"),
                    "{summary}"
                );
                finished += 1;
            }
            JobEvent::Failed { error, .. } => panic!("a job failed: {error}"),
            JobEvent::NodesChanged(nodes) => grew |= nodes.iter().any(|n| n.id.0 > 0),
            _ => {}
        }
    }
    runner.send(Request::StopExpansion);
    assert!(grew, "new nodes reached the app");
    assert!(shared.lock().len() > 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn priorities_order_the_queue_and_queued_jobs_cancel() {
    // One slot: the first job runs, the others wait and start by priority.
    let (runner, mut rx, _) = runner(small_book(), 1);
    runner.send(Request::AnalyzeLine {
        line: vec![],
        priority: Priority(0),
    });
    runner.send(Request::AnalyzeLine {
        line: vec![],
        priority: Priority(1),
    });
    runner.send(Request::AnalyzeLine {
        line: vec![],
        priority: Priority(9),
    });
    runner.send(Request::Cancel(JobId(2)));
    let mut started = Vec::new();
    let mut cancelled = Vec::new();
    while started.len() < 2 {
        match next(&mut rx).await {
            JobEvent::Started { id, .. } => started.push(id),
            JobEvent::Cancelled { id, .. } => cancelled.push(id),
            JobEvent::Failed { error, .. } => panic!("a job failed: {error}"),
            _ => {}
        }
    }
    assert_eq!(
        started,
        vec![JobId(1), JobId(3)],
        "priority 9 before priority 1"
    );
    assert_eq!(cancelled, vec![JobId(2)]);
    runner.send(Request::StopAll);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_engine_dies_fails_visibly_and_can_be_retried() {
    // The fake GTP engine of the engine fault tests dies when asked to search.
    let fake = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/fake_gtp.sh");
    let engine = crate::engine::spec::build(
        &format!("gtp:{fake} die-mid-search"),
        &crate::engine::spec::SpecOptions::default(),
    )
    .expect("the specification builds");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let config = RunnerConfig {
        concurrent: 1,
        expand_visits: 10,
        analyze_visits: 10,
    };
    let shared = SharedBook::new(small_book(), None);
    let runner = Runner::spawn(shared, Arc::from(engine), config, Instant::now(), tx);
    runner.send(Request::AnalyzeLine {
        line: vec![],
        priority: Priority(0),
    });
    let mut failures = Vec::new();
    let mut queued = Vec::new();
    while failures.len() < 2 {
        match next(&mut rx).await {
            JobEvent::Queued { id, .. } => queued.push(id),
            JobEvent::Failed { id, error, .. } => {
                assert!(error.contains("out of memory in the search"), "{error}");
                if failures.is_empty() {
                    runner.send(Request::Retry(id));
                }
                failures.push(id);
            }
            JobEvent::Finished { summary, .. } => panic!("the job cannot finish: {summary}"),
            _ => {}
        }
    }
    assert_eq!(queued, vec![JobId(1), JobId(2)], "the retry is a new job");
    assert_eq!(failures, vec![JobId(1), JobId(2)]);
    runner.send(Request::StopAll);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_reach_the_book_and_come_back() {
    let (runner, mut rx, shared) = runner(small_book(), 1);
    runner.send(Request::SetMarks {
        line: vec![],
        marks: vec![Mark::Visits(5000.0), Mark::Bonus(2.0)],
    });
    loop {
        if let JobEvent::MarksChanged { node, marks } = next(&mut rx).await {
            assert_eq!(node, NodeId(0));
            assert_eq!(marks, vec![Mark::Bonus(2.0), Mark::Visits(5000.0)]);
            break;
        }
    }
    let book = shared.lock();
    let stored = book.marks.get(&book.root()).copied().unwrap();
    assert_eq!((stored.bonus, stored.visits), (2.0, 5000.0));
    drop(book);
    runner.send(Request::StopAll);
}
