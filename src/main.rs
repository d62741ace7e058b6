//! The `tengen` binary: argument parsing and error reporting at the edge; the work is in the library.

mod cli;

fn main() -> std::process::ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tengen: {err:#}");
            std::process::ExitCode::from(2)
        }
    }
}
