//! The evaluator: one queue that every search sends its requests to, and one or more threads that each own
//! an ONNX Runtime session, take requests off the queue in batches (up to a maximum size, or until a short
//! deadline passes) and answer each request on its own channel. Searches never touch a session, and
//! nothing runs on tokio's workers.
//!
//! Several sessions of one network (one per core on the CPU) run batches side by side: a Go network's
//! convolutions are too small for ORT's intra-op threads to share one batch well, while separate sessions
//! each keep a core busy. A thread that has a batch ready does not wait for more while another session is
//! idle, so one search with two batches in flight keeps two sessions busy.

use super::features::{Features, GLOBAL_FEATURES, SPATIAL_PLANES};
use super::import::names;
use super::output::{NnEval, RawOutput, postprocess};
use super::runtime::{Device, RuntimeError, SessionOptions, open_session};
use crate::go::{BoardSize, Game};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How requests are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    pub max_batch: usize,
    /// How long a partial batch waits for more requests.
    pub deadline: Duration,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            max_batch: 16,
            deadline: Duration::from_micros(300),
        }
    }
}

type Reply = Sender<Result<Vec<RawOutput>, RuntimeError>>;

/// A group of positions sent together (one search's leaves); answered together.
struct Request {
    items: Vec<Features>,
    reply: Reply,
}

/// A handle to the evaluator threads of one network; cheap to clone and share between searches.
#[derive(Clone)]
pub struct Evaluator {
    requests: Sender<Request>,
    model: Arc<PathBuf>,
    device: Device,
    fallback: Option<Arc<str>>,
    sessions: usize,
    stats: Arc<Stats>,
    /// Last, so that the last handle's request sender is gone (and the threads told to stop) first.
    _threads: Arc<SessionThreads>,
}

/// The session threads, joined when the last handle goes: a process must not exit while ONNX Runtime
/// is still running a batch (its teardown then fails the batch with errors on stderr).
struct SessionThreads(Mutex<Vec<std::thread::JoinHandle<()>>>);

impl Drop for SessionThreads {
    fn drop(&mut self) {
        let handles = std::mem::take(self.0.get_mut().unwrap_or_else(|e| e.into_inner()));
        for handle in handles {
            let _ = handle.join();
        }
        OPEN_EVALUATORS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Evaluators whose session threads have not been joined yet.
static OPEN_EVALUATORS: AtomicUsize = AtomicUsize::new(0);

/// Waits (at most `within`) until every evaluator's session threads have stopped: searches cancelled just
/// before the program ends still hold the network for a few milliseconds, and a process that exits under
/// a running batch makes ONNX Runtime print errors while it tears down.
pub fn wait_until_closed(within: Duration) {
    let deadline = Instant::now() + within;
    while OPEN_EVALUATORS.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Counters for benchmarks and status lines.
#[derive(Debug, Default)]
pub struct Stats {
    pub positions: AtomicU64,
    pub batches: AtomicU64,
}

impl Evaluator {
    /// Loads ONNX Runtime if needed, opens `model` in as many sessions as `session` asks for, each on its
    /// own thread, and returns once all are ready.
    pub fn open(
        model: &Path,
        session: &SessionOptions,
        batch: BatchOptions,
    ) -> Result<Evaluator, RuntimeError> {
        let (requests, incoming) = mpsc::channel::<Request>();
        let queue = Arc::new(Queue {
            incoming: Mutex::new(incoming),
            idle: AtomicUsize::new(0),
        });
        let count = session.session_count().max(1);
        let stats = Arc::new(Stats::default());
        let (ready_tx, ready_rx) = mpsc::channel();
        let spawn_failed = |e: std::io::Error| RuntimeError::Session {
            path: model.to_path_buf(),
            detail: e.to_string(),
        };
        let mut handles = Vec::with_capacity(count);
        for i in 0..count {
            let (path, options, queue) = (model.to_path_buf(), session.clone(), queue.clone());
            let (ready_tx, stats) = (ready_tx.clone(), stats.clone());
            let handle = std::thread::Builder::new()
                .name(format!("tengen-nn-{i}"))
                .spawn(move || match open_session(&path, &options) {
                    Ok(opened) => {
                        let _ = ready_tx.send(Ok((opened.device, opened.fallback)));
                        serve(opened.session, &queue, batch, &stats);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                })
                .map_err(spawn_failed)?;
            handles.push(handle);
        }
        drop(ready_tx);
        let mut opened = None;
        for _ in 0..count {
            // On an error the sender is dropped on return, and the threads already serving stop.
            let ready = ready_rx.recv().map_err(|_| RuntimeError::Session {
                path: model.to_path_buf(),
                detail: "an evaluator thread stopped while opening the network".into(),
            })??;
            opened.get_or_insert(ready);
        }
        let (device, fallback) = opened.unwrap_or((Device::Cpu, None));
        Ok(Evaluator {
            requests,
            model: Arc::new(model.to_path_buf()),
            device,
            fallback: fallback.map(Into::into),
            sessions: count,
            stats,
            _threads: {
                OPEN_EVALUATORS.fetch_add(1, Ordering::SeqCst);
                Arc::new(SessionThreads(Mutex::new(handles)))
            },
        })
    }

    /// How many sessions run this network's batches.
    pub fn sessions(&self) -> usize {
        self.sessions
    }

    pub fn model(&self) -> &Path {
        &self.model
    }

    /// Where the network actually runs.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Why the configured device was not used, if it was not.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Queues several positions for evaluation and returns at once; [`Pending::wait`] gets the answers.
    /// A search keeps two groups in flight this way, preparing one while the other runs.
    pub fn submit(&self, items: Vec<Features>) -> Result<Pending, RuntimeError> {
        let (reply, answer) = mpsc::channel();
        if items.is_empty() {
            let _ = reply.send(Ok(Vec::new()));
            return Ok(Pending(answer));
        }
        self.requests
            .send(Request { items, reply })
            .map_err(|_| RuntimeError::Run("the evaluator thread has stopped".into()))?;
        Ok(Pending(answer))
    }

    /// Evaluates several positions, blocking until all are done.
    pub fn evaluate_features(&self, items: Vec<Features>) -> Result<Vec<RawOutput>, RuntimeError> {
        self.submit(items)?.wait()
    }

    /// Evaluates one position and post-processes it.
    pub fn evaluate(&self, game: &Game) -> Result<NnEval, RuntimeError> {
        let raw = self.evaluate_features(vec![super::features::encode(game)])?;
        let raw = raw
            .into_iter()
            .next()
            .ok_or_else(|| RuntimeError::Run("no output".into()))?;
        Ok(postprocess(game, &raw))
    }
}

/// Answers to a submitted group, in the order submitted.
pub struct Pending(Receiver<Result<Vec<RawOutput>, RuntimeError>>);

impl Pending {
    pub fn wait(self) -> Result<Vec<RawOutput>, RuntimeError> {
        self.0
            .recv()
            .map_err(|_| RuntimeError::Run("the evaluator thread has stopped".into()))?
    }
}

/// The requests of every search, shared by the session threads.
struct Queue {
    incoming: Mutex<Receiver<Request>>,
    /// Session threads not running a batch (waiting for the queue or for requests).
    idle: AtomicUsize,
}

fn serve(mut session: ort::session::Session, queue: &Queue, options: BatchOptions, stats: &Stats) {
    let max_batch = options.max_batch.max(1);
    queue.idle.fetch_add(1, Ordering::SeqCst);
    loop {
        let pending = {
            let Ok(incoming) = queue.incoming.lock() else {
                return;
            };
            let Ok(first) = incoming.recv() else {
                return;
            };
            queue.idle.fetch_sub(1, Ordering::SeqCst);
            gather(&incoming, first, &queue.idle, options.deadline, max_batch)
        };
        run_pending(&mut session, pending, max_batch, stats);
        queue.idle.fetch_add(1, Ordering::SeqCst);
    }
}

/// The batch that starts with `first`: whatever is queued, up to `max_batch` positions; then, unless another
/// session is idle and could run the next requests at once, more as they come until the deadline.
fn gather(
    incoming: &Receiver<Request>,
    first: Request,
    idle: &AtomicUsize,
    deadline: Duration,
    max_batch: usize,
) -> Vec<Request> {
    let mut count = first.items.len();
    let mut pending = vec![first];
    let deadline = Instant::now() + deadline;
    while count < max_batch {
        let next = match incoming.try_recv() {
            Ok(r) => Ok(r),
            Err(_) if idle.load(Ordering::SeqCst) > 0 => break,
            Err(_) => {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                incoming.recv_timeout(deadline - now)
            }
        };
        match next {
            Ok(r) => {
                count += r.items.len();
                pending.push(r);
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    pending
}

/// Runs every pending request, in batches of one board size and at most `max_batch` positions.
fn run_pending(
    session: &mut ort::session::Session,
    pending: Vec<Request>,
    max_batch: usize,
    stats: &Stats,
) {
    let mut results: Vec<Vec<Option<Result<RawOutput, RuntimeError>>>> =
        pending.iter().map(|r| vec![None; r.items.len()]).collect();
    let mut queue: Vec<(usize, usize, &Features)> = pending
        .iter()
        .enumerate()
        .flat_map(|(r, req)| req.items.iter().enumerate().map(move |(i, f)| (r, i, f)))
        .collect();
    while !queue.is_empty() {
        let size = queue[0].2.size;
        let (group, rest): (Vec<_>, Vec<_>) =
            queue.into_iter().partition(|(_, _, f)| f.size == size);
        queue = rest;
        for chunk in group.chunks(max_batch) {
            let features: Vec<&Features> = chunk.iter().map(|(_, _, f)| *f).collect();
            let outcome = run_batch(session, size, &features);
            stats.batches.fetch_add(1, Ordering::Relaxed);
            stats
                .positions
                .fetch_add(chunk.len() as u64, Ordering::Relaxed);
            match outcome {
                Ok(outputs) => {
                    for ((r, i, _), out) in chunk.iter().zip(outputs) {
                        results[*r][*i] = Some(Ok(out));
                    }
                }
                Err(e) => {
                    for (r, i, _) in chunk {
                        results[*r][*i] = Some(Err(e.clone()));
                    }
                }
            }
        }
    }
    for (request, answers) in pending.into_iter().zip(results) {
        let answer: Result<Vec<RawOutput>, RuntimeError> = answers
            .into_iter()
            .map(|a| {
                a.unwrap_or_else(|| Err(RuntimeError::Run("a position was not evaluated".into())))
            })
            .collect();
        // A search that gave up waiting is not an error here.
        let _ = request.reply.send(answer);
    }
}

/// One `session.run` over positions of the same board size.
pub fn run_batch(
    session: &mut ort::session::Session,
    size: BoardSize,
    features: &[&Features],
) -> Result<Vec<RawOutput>, RuntimeError> {
    let n = features.len();
    let (h, w) = (size.height(), size.width());
    let area = h * w;
    let mut spatial = Vec::with_capacity(n * SPATIAL_PLANES * area);
    let mut global = Vec::with_capacity(n * GLOBAL_FEATURES);
    for f in features {
        spatial.extend_from_slice(&f.spatial);
        global.extend_from_slice(&f.global);
    }
    let run_error = |e: ort::Error| RuntimeError::Run(e.to_string());
    let spatial_tensor =
        ort::value::TensorRef::from_array_view(([n, SPATIAL_PLANES, h, w], &spatial[..]))
            .map_err(run_error)?;
    let global_tensor = ort::value::TensorRef::from_array_view(([n, GLOBAL_FEATURES], &global[..]))
        .map_err(run_error)?;
    let outputs = session
        .run(ort::inputs![names::SPATIAL => spatial_tensor, names::GLOBAL => global_tensor])
        .map_err(run_error)?;
    let extract = |name: &str, per_item: usize| -> Result<Vec<f32>, RuntimeError> {
        let value = outputs.get(name).ok_or_else(|| {
            RuntimeError::Run(format!(
                "the network has no output `{name}`; re-import it with `tengen model import`"
            ))
        })?;
        let (_, data) = value.try_extract_tensor::<f32>().map_err(run_error)?;
        if data.len() != n * per_item {
            return Err(RuntimeError::Run(format!(
                "output `{name}` has {} values for {n} positions, expected {per_item} each",
                data.len()
            )));
        }
        Ok(data.to_vec())
    };
    let policy = extract(names::POLICY, area)?;
    let pass = extract(names::POLICY_PASS, 1)?;
    let value = extract(names::VALUE, 3)?;
    let score = extract(names::SCORE, 4)?;
    let ownership = extract(names::OWNERSHIP, area)?;
    Ok((0..n)
        .map(|i| RawOutput {
            policy: policy[i * area..(i + 1) * area].to_vec(),
            policy_pass: pass[i],
            value: [value[i * 3], value[i * 3 + 1], value[i * 3 + 2]],
            score: [
                score[i * 4],
                score[i * 4 + 1],
                score[i * 4 + 2],
                score[i * 4 + 3],
            ],
            ownership: ownership[i * area..(i + 1) * area].to_vec(),
        })
        .collect())
}
