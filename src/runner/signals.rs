//! Ctrl-C and SIGTERM: the first asks the run to stop (it winds down within a
//! second, cleans up and writes a partial result); a second one ends the
//! process at once with exit code 130.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The handlers that end the process at a second signal.
static HARD: std::sync::Mutex<Vec<signal_hook::SigId>> = std::sync::Mutex::new(Vec::new());

/// Install the handlers (once per process; later calls do nothing).
pub fn install() {
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let mut hard = HARD.lock().unwrap_or_else(|p| p.into_inner());
        for sig in [SIGINT, SIGTERM] {
            // a second signal while the flag is set exits at once
            if let Ok(id) =
                signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&flag))
            {
                hard.push(id);
            }
            let _ = signal_hook::flag::register(sig, Arc::clone(&flag));
        }
        flag
    });
}

/// A second signal only asks again: for an MPI rank, which mpirun signals
/// twice (Ctrl-C forwarded, then SIGTERM when another rank has ended) and
/// which must still hand over what it measured; mpirun's SIGKILL a second
/// later is the hard stop.
pub fn soft_second_signal() {
    for id in HARD.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        signal_hook::low_level::unregister(id);
    }
}

/// Whether Ctrl-C or SIGTERM has arrived.
pub fn interrupted() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}

/// The flag itself, once [`install`] has run: a worker running on the main
/// thread polls it as its stop flag.
pub(crate) fn flag() -> Option<&'static AtomicBool> {
    FLAG.get().map(|f| &**f)
}
