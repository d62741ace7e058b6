//! The `tengen` binary: argument parsing and error reporting at the edge; the work is in the library.

mod cli;

/// The searches allocate and free many small vectors per position (move lists, walls, readings'
/// tables); mimalloc serves them faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::edge::install_closed_stdout_hook();
    let outcome = cli::run();
    // Searches cancelled at the end still finish their last network batch; let them, quietly.
    tengen::nn::batcher::wait_until_closed(std::time::Duration::from_secs(3));
    match outcome {
        Ok(code) => code,
        // The reader of our output went away (`| head`): nothing to report to anyone.
        Err(err) if cli::edge::is_closed_stdout(&err) => cli::edge::exit_as_closed_pipe(),
        Err(err) => {
            eprintln!("tengen: {err:#}");
            std::process::ExitCode::from(2)
        }
    }
}
