//! Sdet's scripts: the command mix, the drawing of a script from it, and
//! the CPU a command burns.
//!
//! SPEC's scripts are not public; this is iogauge's model of them. The
//! mix follows the paper's list of what a software-development user does
//! (editing, text formatting, compiling, creating and deleting files,
//! miscellaneous UNIX utilities), weighted towards the edit-compile cycle.

use crate::measure::clock::thread_cpu_ns;
use crate::workload::{Prng, unit_f64};
use serde::{Deserialize, Serialize};

/// One user command of a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    /// Read a source, change a few bytes, write it back whole (an editor).
    Edit,
    /// Read one to three sources, burn CPU per byte read, write an object.
    Compile,
    /// Read a source, burn a quarter of the compile CPU per byte, write a
    /// derived file of the same size (nroff-like).
    Format,
    /// Read a source, write a copy under a new name.
    Copy,
    /// Create a new file and write 1–8 KiB to it.
    Create,
    /// Remove a file the script made (by create or copy).
    Delete,
    /// Read the directory and stat each entry (`ls -l`).
    List,
    /// Small utilities: stat a source, read it and count its lines (`wc`, `grep`).
    Misc,
}

impl Command {
    pub const ALL: [Command; 8] = [
        Command::Edit,
        Command::Compile,
        Command::Format,
        Command::Copy,
        Command::Create,
        Command::Delete,
        Command::List,
        Command::Misc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Command::Edit => "edit",
            Command::Compile => "compile",
            Command::Format => "format",
            Command::Copy => "copy",
            Command::Create => "create",
            Command::Delete => "delete",
            Command::List => "list",
            Command::Misc => "misc",
        }
    }

    pub fn index(self) -> usize {
        Command::ALL
            .iter()
            .position(|&c| c == self)
            .expect("every command is in ALL")
    }

    /// Whether the command makes a new file a later delete may remove.
    pub fn makes_file(self) -> bool {
        matches!(self, Command::Copy | Command::Create)
    }
}

/// The command mix: each command's share of a script, in percent (they
/// sum to 100). The edit-compile cycle dominates, as in a programmer's
/// day; deletes never outnumber the creates and copies they remove.
pub const MIX: [(Command, u32); 8] = [
    (Command::Edit, 20),
    (Command::Compile, 15),
    (Command::Format, 10),
    (Command::Copy, 10),
    (Command::Create, 10),
    (Command::Delete, 10),
    (Command::List, 10),
    (Command::Misc, 15),
];

/// Commands in a script by default.
pub const DEFAULT_COMMANDS: usize = 30;
/// Fewest commands in a script: enough for one delete to follow a create
/// or copy of its own.
pub const MIN_COMMANDS: usize = 10;
/// Most commands in a script.
pub const MAX_COMMANDS: usize = 10_000;

/// The share of `c` in [`MIX`], as a fraction.
pub fn share(c: Command) -> f64 {
    MIX.iter()
        .find(|(k, _)| *k == c)
        .map_or(0.0, |(_, p)| f64::from(*p) / 100.0)
}

/// How many of each command a script of `k` commands holds: each
/// command's whole part of `k × share` for sure, the fractional parts
/// shared out by systematic sampling (one uniform draw), so that each
/// command's expected count is exactly `k × share` and the total is `k`.
pub fn allot(k: usize, rng: &mut Prng) -> [usize; 8] {
    let mut counts = [0usize; 8];
    let mut fracs = [0f64; 8];
    for (i, (_, p)) in MIX.iter().enumerate() {
        let want = k as f64 * f64::from(*p) / 100.0;
        counts[i] = want.floor() as usize;
        fracs[i] = want - want.floor();
    }
    let left = k - counts.iter().sum::<usize>();
    if left > 0 {
        // points u, u+1, …, u+left−1 over the fractional parts laid end to end
        let u = unit_f64(rng);
        let mut edge = 0.0;
        let mut next = u;
        let mut picked = 0;
        for (i, f) in fracs.iter().enumerate() {
            edge += f;
            while picked < left && next < edge {
                counts[i] += 1;
                picked += 1;
                next += 1.0;
            }
        }
        // rounding at the very end of the line: the last command with a fraction
        while picked < left {
            let i = fracs.iter().rposition(|&f| f > 0.0).unwrap_or(0);
            counts[i] += 1;
            picked += 1;
        }
    }
    counts
}

/// One script of `k` commands (at least [`MIN_COMMANDS`]): the commands
/// [`allot`] gives, in a random order (Fisher–Yates), then each delete
/// that would come before any file of the script's own exists swapped
/// with the next create or copy after it.
pub fn script(k: usize, rng: &mut Prng) -> Vec<Command> {
    let counts = allot(k, rng);
    let mut v: Vec<Command> = Vec::with_capacity(k);
    for (i, n) in counts.iter().enumerate() {
        v.extend(std::iter::repeat_n(MIX[i].0, *n));
    }
    for i in (1..v.len()).rev() {
        let j = crate::workload::below(rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
    let mut live = 0usize;
    for i in 0..v.len() {
        if v[i] == Command::Delete
            && live == 0
            && let Some(j) = (i + 1..v.len()).find(|&j| v[j].makes_file())
        {
            v.swap(i, j);
        }
        match v[i] {
            c if c.makes_file() => live += 1,
            Command::Delete => live = live.saturating_sub(1),
            _ => {}
        }
    }
    v
}

/// Burn `ns` of this thread's CPU time, as a compiler would: spin until
/// the thread's CPU clock has advanced by `ns`, or `hurry()` says to stop.
/// Returns the CPU ns consumed.
pub fn burn(ns: u64, hurry: &dyn Fn() -> bool) -> u64 {
    let start = thread_cpu_ns();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut spins = 0u32;
    loop {
        for _ in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        std::hint::black_box(x);
        let used = thread_cpu_ns().saturating_sub(start);
        if used >= ns {
            return used;
        }
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(256) && hurry() {
            return used;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::worker_rng;

    #[test]
    fn the_mix_sums_to_a_hundred_and_names_every_command_once() {
        assert_eq!(MIX.iter().map(|(_, p)| p).sum::<u32>(), 100);
        for c in Command::ALL {
            assert_eq!(MIX.iter().filter(|(k, _)| *k == c).count(), 1, "{c:?}");
            assert_eq!(Command::ALL[c.index()], c);
        }
    }

    #[test]
    fn a_thousand_scripts_keep_the_mix_within_two_percent() {
        for k in [DEFAULT_COMMANDS, 13, 37] {
            let mut rng = worker_rng(7, 0);
            let mut counts = [0usize; 8];
            for _ in 0..1000 {
                for c in script(k, &mut rng) {
                    counts[c.index()] += 1;
                }
            }
            let total = counts.iter().sum::<usize>();
            assert_eq!(total, 1000 * k);
            for c in Command::ALL {
                let got = counts[c.index()] as f64 / total as f64;
                let want = share(c);
                assert!(
                    (got - want).abs() <= 0.02 * want,
                    "k {k}: {c:?} {got:.4} against {want:.4}"
                );
            }
        }
    }

    #[test]
    fn a_script_is_a_permutation_of_its_allotment_and_deletes_what_it_made() {
        let mut rng = worker_rng(3, 1);
        for k in [MIN_COMMANDS, 11, DEFAULT_COMMANDS, 40, 101] {
            for _ in 0..200 {
                let s = script(k, &mut rng);
                assert_eq!(s.len(), k);
                let mut counts = [0usize; 8];
                for c in &s {
                    counts[c.index()] += 1;
                }
                // each command's count is its share of k, rounded down or up
                for c in Command::ALL {
                    let want = k as f64 * share(c);
                    let n = counts[c.index()] as f64;
                    assert!(
                        n == want.floor() || n == want.ceil(),
                        "k {k}: {c:?} {n} for {want}"
                    );
                }
                // every delete has a file of the script's own to remove
                let mut live = 0i64;
                for c in &s {
                    if c.makes_file() {
                        live += 1;
                    } else if *c == Command::Delete {
                        live -= 1;
                        assert!(live >= 0, "k {k}: {s:?}");
                    }
                }
            }
        }
        // seeded: the same stream gives the same scripts
        let a = script(30, &mut worker_rng(9, 0));
        let b = script(30, &mut worker_rng(9, 0));
        assert_eq!(a, b);
        assert_ne!(a, script(30, &mut worker_rng(9, 1)));
    }

    #[test]
    fn the_burn_takes_the_cpu_time_asked_within_ten_percent() {
        for ms in [5u64, 20] {
            let ns = ms * 1_000_000;
            let before = thread_cpu_ns();
            let used = burn(ns, &|| false);
            let took = thread_cpu_ns() - before;
            assert!(used >= ns, "{used} < {ns}");
            assert!(
                (took as f64 - ns as f64).abs() <= 0.1 * ns as f64,
                "asked {ns} ns, the thread used {took} ns"
            );
        }
        // hurried: gives up early
        let used = burn(10_000_000_000, &|| true);
        assert!(used < 1_000_000_000, "{used}");
    }
}
