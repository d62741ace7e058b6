//! What the binary does at its edge with the world: a closed standard output and termination signals.
//!
//! A reader that stops early (`tengen book show B | head -1`) closes the pipe; the next write to it fails
//! with EPIPE. tengen ignores SIGPIPE (Rust's runtime does, and it must: a dead engine's stdin gives EPIPE
//! too, and that is an error to report, not a reason to die), so `println!` panics instead. Rather than
//! change every print, the panic hook recognises that one panic, checks that standard output really is a
//! closed pipe, and ends the process as a C program would: killed by SIGPIPE (exit status 141 in a shell),
//! with nothing written to stderr. An error carrying EPIPE up to `main` ends the same way, again only when
//! standard output is the closed pipe.

use std::io::Write;

/// Installs the panic hook that turns a failed print to a closed stdout into a quiet SIGPIPE exit;
/// every other panic goes to the default hook.
pub fn install_closed_stdout_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && stdout_is_closed() {
            exit_as_closed_pipe();
        }
        default(info);
    }));
}

/// Whether an error that reached `main` is a write to the closed stdout (and not, say, to an engine's
/// closed stdin, which also reads "broken pipe").
pub fn is_closed_stdout(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    }) && stdout_is_closed()
}

/// Whether file descriptor 1 is a pipe or socket whose reading end is gone.
pub fn stdout_is_closed() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a count of one, no waiting; poll only writes `revents`.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready == 1 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// Ends the process the way a closed pipe ends a program that does not ignore SIGPIPE.
pub fn exit_as_closed_pipe() -> ! {
    // SAFETY: restoring a signal's default disposition and raising it; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    std::process::exit(128 + libc::SIGPIPE)
}

/// Writes one line to stdout; an error (a closed pipe, a full disk behind a redirection) is returned
/// rather than panicking, for commands that stop cleanly when nobody reads their output.
pub fn print_line(line: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}

/// Resolves at the first SIGINT or SIGTERM, with the signal's name: a command that stops cleanly on
/// Ctrl-C stops the same way when a service manager or `kill` asks it to.
pub async fn interrupted() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        // No signal handling (not expected on Unix): never resolve, the default action stays.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    }
}
