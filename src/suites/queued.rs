//! The queued engine of a benchmark's asynchronous form (IOzone's `-H`,
//! the survey's depth-32 row): io_uring, or libaio where the kernel
//! refuses io_uring (`kernel.io_uring_disabled`, a container's seccomp
//! filter). Whether an engine works is only known by making one, so each
//! is made once, small, and dropped.

use crate::engine::{Choice, EngineSpec};
use crate::runner::Io;

/// The engines tried, in order.
const QUEUED: [&str; 2] = ["io_uring", "libaio"];

/// The first of io_uring and libaio that this kernel lets keep `depth`
/// requests in flight (O_DIRECT when `direct`); else why neither can,
/// in one line.
pub fn pick(direct: bool, depth: u16) -> Result<Choice, String> {
    let mut why = Vec::new();
    for name in QUEUED {
        let choice = Choice::parse(name)?;
        let spec = EngineSpec::new(choice).direct(direct).depth(depth);
        match Io::new(&spec, depth, 4096, 0) {
            Ok(_) => return Ok(choice),
            Err(e) => why.push(e.to_string()),
        }
    }
    Err(format!(
        "neither io_uring nor libaio works here: {}",
        why.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a kernel that has either engine the one picked holds the depth;
    /// with neither, the reason names both.
    #[test]
    fn the_pick_is_a_queued_engine_or_says_why_none_is() {
        match pick(false, 32) {
            Ok(c) => {
                assert!(QUEUED.contains(&c.name()));
                assert!(c.caps().queued);
            }
            Err(e) => assert!(e.contains("io_uring") && e.contains("libaio"), "{e}"),
        }
    }
}
