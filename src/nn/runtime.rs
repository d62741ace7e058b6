//! Finding and loading ONNX Runtime, and opening sessions on it.
//!
//! tengen is built with `ort`'s `load-dynamic`: the build never downloads anything, and the
//! `libonnxruntime.so` is opened at run time. It is looked for, in order, at `ORT_DYLIB_PATH`, at the
//! path in tengen's config (`[onnxruntime] library = "…"`), in the `onnxruntime` Python package of a
//! `.venv/` in the current directory and of the venv `tengen setup` makes in tengen's data directory,
//! then on the system library path. A missing library is an error that says how to fix it, never a
//! panic, and everything that does not need a network keeps working.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The ONNX Runtime release tengen is built against (`ort`'s `api-31` feature: 1.31 or newer).
pub const ORT_VERSION: &str = "1.31.1";

#[derive(Debug, Clone, thiserror::Error)]
pub enum RuntimeError {
    #[error(
        "ONNX Runtime was not found (looked at {looked}); run `tengen setup` to install it, or set \
         ORT_DYLIB_PATH to a libonnxruntime.so ({ORT_VERSION} or newer)"
    )]
    NotFound { looked: String },
    #[error(
        "ONNX Runtime at {path} could not be loaded: {detail}; run `tengen setup` or point ORT_DYLIB_PATH at \
         a libonnxruntime.so {ORT_VERSION} or newer"
    )]
    Load { path: PathBuf, detail: String },
    #[error("cannot open the network {path}: {detail}")]
    Session { path: PathBuf, detail: String },
    #[error("the network evaluation failed: {0}")]
    Run(String),
    #[error("tengen's config {path} is not valid: {detail}")]
    Config { path: PathBuf, detail: String },
    #[error(
        "installing ONNX Runtime into {dir} failed: {detail}; install it yourself and set ORT_DYLIB_PATH"
    )]
    Install { dir: PathBuf, detail: String },
}

/// Where the computation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Device {
    #[default]
    Cpu,
    /// CUDA execution provider on this GPU; needs the `onnxruntime-gpu` library and the `cuda` feature.
    Cuda(i32),
}

impl Device {
    /// `cpu`, `cuda` or `cuda:N`.
    pub fn parse(text: &str) -> Option<Device> {
        match text.trim() {
            "cpu" => Some(Device::Cpu),
            "cuda" | "gpu" => Some(Device::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(Device::Cuda),
        }
    }
}

/// How sessions use the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOptions {
    /// Sessions of one network, each on its own thread, all fed by the one batcher; 0 picks one per core on
    /// the CPU (ORT's intra-op threads do not scale on the small convolutions of a Go network, separate
    /// sessions do) and one on a GPU.
    pub sessions: usize,
    /// ORT's intra-op threads per session.
    pub intra_threads: usize,
    /// Whether idle intra-op workers spin-wait. Off by default: on a small busy machine spinning steals the
    /// cores the search and the interface need, and measured slower with 2 threads than 1.
    pub spinning: bool,
    pub device: Device,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            sessions: 0,
            intra_threads: 1,
            spinning: false,
            device: Device::Cpu,
        }
    }
}

impl SessionOptions {
    /// The number of sessions to open: as set, or one per available core on the CPU and one on a GPU.
    pub fn session_count(&self) -> usize {
        match (self.sessions, self.device) {
            (0, Device::Cpu) => std::thread::available_parallelism()
                .map_or(1, usize::from)
                .clamp(1, MAX_AUTO_SESSIONS),
            (0, Device::Cuda(_)) => 1,
            (n, _) => n,
        }
    }
}

/// The most sessions "one per core" opens: beyond this a Go network's batches are too small to keep more
/// cores busy, and each session holds its own copy of the weights.
const MAX_AUTO_SESSIONS: usize = 8;

/// The `[onnxruntime]` section of tengen's `config.toml`.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeConfig {
    /// Path of `libonnxruntime.so`.
    pub library: Option<PathBuf>,
    /// Sessions per network (0 or absent: one per core on the CPU).
    pub sessions: Option<usize>,
    pub intra_threads: Option<usize>,
    pub spinning: Option<bool>,
    /// `cpu`, `cuda` or `cuda:N`.
    pub device: Option<String>,
}

impl RuntimeConfig {
    /// Reads the section from tengen's config file, if there is one.
    pub fn load() -> Result<RuntimeConfig, RuntimeError> {
        let Some(path) = config_file() else {
            return Ok(RuntimeConfig::default());
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(RuntimeConfig::default());
        };
        RuntimeConfig::parse(&text, &path)
    }

    /// Reads the `[onnxruntime]` section of a config file's text; other sections belong to other parts
    /// of tengen and are left alone.
    pub fn parse(text: &str, path: &Path) -> Result<RuntimeConfig, RuntimeError> {
        let invalid = |detail: String| RuntimeError::Config {
            path: path.to_path_buf(),
            detail,
        };
        let table: toml::Table = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        match table.get("onnxruntime") {
            None => Ok(RuntimeConfig::default()),
            Some(section) => section
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| invalid(format!("[onnxruntime]: {e}"))),
        }
    }

    /// Session options from the config, defaults where it is silent.
    pub fn session_options(&self) -> Result<SessionOptions, RuntimeError> {
        let mut options = SessionOptions::default();
        if let Some(n) = self.sessions {
            options.sessions = n;
        }
        if let Some(n) = self.intra_threads {
            options.intra_threads = n.max(1);
        }
        if let Some(spin) = self.spinning {
            options.spinning = spin;
        }
        if let Some(device) = &self.device {
            options.device = Device::parse(device).ok_or_else(|| RuntimeError::Config {
                path: config_file().unwrap_or_default(),
                detail: format!("onnxruntime.device `{device}`: expected cpu, cuda or cuda:N"),
            })?;
        }
        Ok(options)
    }
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "tengen")
}

/// tengen's `config.toml`.
pub fn config_file() -> Option<PathBuf> {
    project_dirs().map(|d| d.config_dir().join("config.toml"))
}

/// Where `tengen setup` installs ONNX Runtime: a Python venv in tengen's data directory.
pub fn setup_venv_dir() -> Option<PathBuf> {
    project_dirs().map(|d| d.data_dir().join("onnxruntime-venv"))
}

/// The `libonnxruntime.so*` inside a venv's `onnxruntime` package, if installed.
pub fn library_in_venv(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&lib)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .filter_map(|e| {
            let capi = e.path().join("site-packages/onnxruntime/capi");
            std::fs::read_dir(capi).ok()
        })
        .flat_map(|dir| dir.flatten().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libonnxruntime.so"))
        })
        .collect();
    found.sort();
    found.pop()
}

/// Where the library was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LibrarySource {
    Environment,
    Config,
    LocalVenv,
    SetupVenv,
    System,
}

/// Finds `libonnxruntime.so` in the documented order.
pub fn find_library(config: &RuntimeConfig) -> Result<(PathBuf, LibrarySource), RuntimeError> {
    let mut looked = Vec::new();
    if let Some(path) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        // An explicit choice is used even if it turns out to be wrong: the load error then names it.
        return Ok((PathBuf::from(path), LibrarySource::Environment));
    }
    looked.push("ORT_DYLIB_PATH (unset)".to_string());
    if let Some(path) = &config.library {
        return Ok((path.clone(), LibrarySource::Config));
    }
    looked.push(format!(
        "{} [onnxruntime] library",
        config_file().unwrap_or_default().display()
    ));
    let local = PathBuf::from(".venv");
    if let Some(path) = library_in_venv(&local) {
        return Ok((path, LibrarySource::LocalVenv));
    }
    looked.push("./.venv".to_string());
    if let Some(venv) = setup_venv_dir() {
        if let Some(path) = library_in_venv(&venv) {
            return Ok((path, LibrarySource::SetupVenv));
        }
        looked.push(venv.display().to_string());
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    dirs.extend(
        [
            "/usr/local/lib",
            "/usr/lib",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu",
        ]
        .map(PathBuf::from),
    );
    for dir in dirs {
        for name in ["libonnxruntime.so", "libonnxruntime.so.1"] {
            let candidate = dir.join(name);
            if candidate.exists() {
                return Ok((candidate, LibrarySource::System));
            }
        }
    }
    looked.push("the system library path".to_string());
    Err(RuntimeError::NotFound {
        looked: looked.join(", "),
    })
}

/// Installs the `onnxruntime` (or `onnxruntime-gpu`) wheel from PyPI into a venv in tengen's data
/// directory and returns the library's path. Needs `python3` with `venv` and access to PyPI.
pub fn install(gpu: bool, python: &str) -> Result<PathBuf, RuntimeError> {
    let venv = setup_venv_dir().ok_or_else(|| RuntimeError::Install {
        dir: PathBuf::from("~"),
        detail: "there is no home directory to put tengen's data in".into(),
    })?;
    let fail = |detail: String| RuntimeError::Install {
        dir: venv.clone(),
        detail,
    };
    let package = if gpu {
        "onnxruntime-gpu"
    } else {
        "onnxruntime"
    };
    // The tools' own output is kept for the error message, so that a failure is one line.
    let last_line = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| format!(": {}", l.trim()))
            .unwrap_or_default()
    };
    if !venv.join("bin/pip").exists() {
        let out = std::process::Command::new(python)
            .args(["-m", "venv"])
            .arg(&venv)
            .output()
            .map_err(|e| fail(format!("cannot run {python} ({e})")))?;
        if !out.status.success() {
            return Err(fail(format!(
                "`{python} -m venv` failed{} (on Debian: apt-get install python3-venv)",
                last_line(&out)
            )));
        }
    }
    let out = std::process::Command::new(venv.join("bin/pip"))
        .args(["install", "--disable-pip-version-check", "-q"])
        .arg(format!("{package}=={ORT_VERSION}"))
        .output()
        .map_err(|e| fail(format!("cannot run pip ({e})")))?;
    if !out.status.success() {
        return Err(fail(format!(
            "pip could not install {package}=={ORT_VERSION}{}",
            last_line(&out)
        )));
    }
    library_in_venv(&venv).ok_or_else(|| {
        fail(format!(
            "{package} installed but it has no libonnxruntime.so"
        ))
    })
}

/// Whether a missing runtime is installed on first use (`TENGEN_AUTO_SETUP=0` turns that off).
fn auto_setup_enabled() -> bool {
    std::env::var("TENGEN_AUTO_SETUP").map_or(true, |v| v != "0")
}

/// The process-wide ONNX Runtime environment, loaded on first use (ORT allows one per process). When no
/// library is found anywhere, it is installed into tengen's data directory first (as `tengen setup`
/// does), so that the first use of a network on a fresh machine just works.
pub fn environment() -> Result<&'static ort::environment::Environment, RuntimeError> {
    static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, RuntimeError>> =
        OnceLock::new();
    ENVIRONMENT
        .get_or_init(|| {
            let config = RuntimeConfig::load()?;
            let path = match find_library(&config) {
                Ok((path, _)) => path,
                Err(RuntimeError::NotFound { .. }) if auto_setup_enabled() => {
                    eprintln!(
                        "tengen: ONNX Runtime not found; installing onnxruntime=={ORT_VERSION} from \
                         PyPI into tengen's data directory (TENGEN_AUTO_SETUP=0 turns this off)"
                    );
                    install(false, "python3")?
                }
                Err(e) => return Err(e),
            };
            // Never build an `ort::Error` before the library is loaded: that would call into it.
            let builder = ort::init_from(&path).map_err(|e| RuntimeError::Load {
                path: path.clone(),
                detail: e.to_string(),
            })?;
            builder
                .with_name("tengen")
                .with_telemetry(false)
                .build()
                .map_err(|e| RuntimeError::Load {
                    path,
                    detail: e.to_string(),
                })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Whether ONNX Runtime can be loaded here: `Ok` with nothing to say, or the error a user should read.
pub fn check() -> Result<(), RuntimeError> {
    environment().map(|_| ())
}

/// An opened network with where it actually runs.
pub struct OpenedSession {
    pub session: ort::session::Session,
    pub device: Device,
    /// Why the requested device was not used, reported once when the session opens.
    pub fallback: Option<String>,
}

/// Opens `model` with `options`. A CUDA request that cannot be honoured falls back to the CPU, and says why.
pub fn open_session(model: &Path, options: &SessionOptions) -> Result<OpenedSession, RuntimeError> {
    let env = environment()?;
    let fail = |detail: String| RuntimeError::Session {
        path: model.to_path_buf(),
        detail,
    };
    let base = || -> ort::Result<ort::session::builder::SessionBuilder> {
        Ok(ort::session::Session::builder(env)?
            .with_optimization_level(ort::session::builder::GraphOptimizationLevel::All)?
            .with_intra_threads(options.intra_threads.max(1))?
            .with_inter_threads(1)?
            .with_config_entry(
                "session.intra_op.allow_spinning",
                if options.spinning { "1" } else { "0" },
            )?
            .with_config_entry("session.inter_op.allow_spinning", "0")?)
    };
    let builder = base().map_err(|e| fail(e.to_string()))?;
    let (mut builder, device, fallback) = match options.device {
        Device::Cpu => (builder, Device::Cpu, None),
        Device::Cuda(id) => match register_cuda(builder, id) {
            (builder, Ok(())) => (builder, Device::Cuda(id), None),
            (builder, Err(reason)) => (
                builder,
                Device::Cpu,
                Some(format!(
                    "CUDA device {id} unavailable ({reason}); running on the CPU"
                )),
            ),
        },
    };
    let session = builder
        .commit_from_file(model)
        .map_err(|e| fail(e.to_string()))?;
    Ok(OpenedSession {
        session,
        device,
        fallback,
    })
}

type Builder = ort::session::builder::SessionBuilder;

/// Registers the CUDA execution provider so that a failure is an error (ORT's default would silently
/// run on the CPU), handing the builder back with the reason when it fails.
#[cfg(feature = "cuda")]
fn register_cuda(builder: Builder, device_id: i32) -> (Builder, Result<(), String>) {
    let cuda = ort::ep::CUDA::default()
        .with_device_id(device_id)
        .build()
        .error_on_failure();
    match builder.with_execution_providers([cuda]) {
        Ok(builder) => (builder, Ok(())),
        Err(e) => {
            let reason = e.message().to_string();
            (e.recover(), Err(reason))
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn register_cuda(builder: Builder, _device_id: i32) -> (Builder, Result<(), String>) {
    (
        builder,
        Err("this tengen was built without the `cuda` feature".to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_section_sets_threads_spinning_and_device() {
        let path = Path::new("config.toml");
        let text = "[tui]\ntheme = \"dark\"\n[onnxruntime]\nsessions = 3\nintra_threads = 2\nspinning = true\ndevice = \"cuda:1\"\n";
        let options = RuntimeConfig::parse(text, path)
            .unwrap()
            .session_options()
            .unwrap();
        assert_eq!(
            options,
            SessionOptions {
                sessions: 3,
                intra_threads: 2,
                spinning: true,
                device: Device::Cuda(1)
            }
        );
        assert_eq!(options.session_count(), 3);
        // Silence means the defaults: one session per core, one thread each, no spinning, the CPU.
        let options = RuntimeConfig::parse("", path)
            .unwrap()
            .session_options()
            .unwrap();
        assert_eq!(options, SessionOptions::default());
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(options.session_count(), cores.clamp(1, MAX_AUTO_SESSIONS));
        let gpu = SessionOptions {
            device: Device::Cuda(0),
            ..SessionOptions::default()
        };
        assert_eq!(gpu.session_count(), 1, "one GPU, one session");
        let err = RuntimeConfig::parse("[onnxruntime]\nthreads = 2\n", path)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("config.toml") && err.contains("threads"),
            "{err}"
        );
    }

    #[test]
    fn devices_parse() {
        assert_eq!(Device::parse("cpu"), Some(Device::Cpu));
        assert_eq!(Device::parse("cuda"), Some(Device::Cuda(0)));
        assert_eq!(Device::parse("cuda:3"), Some(Device::Cuda(3)));
        assert_eq!(Device::parse("tpu"), None);
    }

    #[test]
    fn finds_the_library_in_a_venv_layout() {
        let dir = tempfile::tempdir().unwrap();
        let capi = dir
            .path()
            .join("lib/python3.11/site-packages/onnxruntime/capi");
        std::fs::create_dir_all(&capi).unwrap();
        assert_eq!(library_in_venv(dir.path()), None);
        std::fs::write(capi.join("libonnxruntime.so.1.31.1"), b"").unwrap();
        assert_eq!(
            library_in_venv(dir.path()),
            Some(capi.join("libonnxruntime.so.1.31.1"))
        );
    }
}
