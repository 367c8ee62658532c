//! Where a worker ran: the CPUs it was allowed and its memory policy, as
//! it read them back from the kernel after it was pinned
//! ([`crate::runner::pin`]), and the sets of CPU or NUMA node numbers
//! they are made of, in the kernel's list syntax (`0-3,6,8-11`, as
//! `/sys/devices/system/node/node0/cpulist` and fio's `cpus_allowed`
//! write them).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The most CPUs (and NUMA nodes) a set holds: glibc's `CPU_SETSIZE`,
/// the size of the mask `sched_setaffinity(2)` takes from it.
pub const MAX_IDS: usize = 1024;
/// The words of an [`IdSet`].
pub const WORDS: usize = MAX_IDS / 64;

/// A set of CPU or NUMA node numbers below [`MAX_IDS`]: a bit mask of
/// the kernel's layout (bit `i` of word `i / 64`), shown and read as a
/// list (`0-3,6`).
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct IdSet(pub [u64; WORDS]);

impl IdSet {
    pub const EMPTY: IdSet = IdSet([0; WORDS]);

    /// The set of `i` alone.
    pub fn only(i: usize) -> IdSet {
        let mut s = IdSet::EMPTY;
        s.insert(i);
        s
    }

    /// The set of `lo..=hi` (cut at [`MAX_IDS`]).
    pub fn range(lo: usize, hi: usize) -> IdSet {
        let mut s = IdSet::EMPTY;
        for i in lo..=hi.min(MAX_IDS - 1) {
            s.insert(i);
        }
        s
    }

    /// Add `i`; false when it is [`MAX_IDS`] or more (not added).
    pub fn insert(&mut self, i: usize) -> bool {
        if i >= MAX_IDS {
            return false;
        }
        self.0[i / 64] |= 1 << (i % 64);
        true
    }

    pub fn contains(&self, i: usize) -> bool {
        i < MAX_IDS && self.0[i / 64] & (1 << (i % 64)) != 0
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..MAX_IDS).filter(|&i| self.contains(i))
    }

    /// The `n`th member (from 0), ascending.
    pub fn nth(&self, n: usize) -> Option<usize> {
        self.iter().nth(n)
    }

    /// The members of both.
    pub fn and(&self, o: &IdSet) -> IdSet {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a &= b;
        }
        s
    }

    /// The members of either.
    pub fn or(&self, o: &IdSet) -> IdSet {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a |= b;
        }
        s
    }

    /// The members of `self` that `o` lacks.
    pub fn minus(&self, o: &IdSet) -> IdSet {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a &= !b;
        }
        s
    }

    /// Read a list: numbers and ranges `lo-hi` separated by commas, blanks
    /// around each allowed (`0-3,6, 8-11`), as fio's `cpus_allowed` and
    /// the kernel's `cpulist` files write them. `what` names a member in
    /// the messages (`CPU`, `NUMA node`). Stricter than fio, which reads
    /// each piece with `atoi` and so takes `x` as 0 and `3-1` as nothing:
    /// every piece must be a number or a range that runs upwards.
    pub fn parse_list(text: &str, what: &str) -> Result<IdSet, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err(format!("an empty list names no {what}"));
        }
        let mut s = IdSet::EMPTY;
        for piece in t.split(',') {
            let p = piece.trim();
            if p.is_empty() {
                return Err(format!(
                    "'{t}' has an empty item (a list is N or N-M, separated by commas)"
                ));
            }
            let number = |n: &str| -> Result<usize, String> {
                let n = n.trim();
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!(
                        "'{p}' is not a {what} number or a range of them (N or N-M)"
                    ));
                }
                n.parse::<usize>()
                    .ok()
                    .filter(|&i| i < MAX_IDS)
                    .ok_or_else(|| format!("{what} {n} is beyond the {MAX_IDS} a set can name"))
            };
            let (lo, hi) = match p.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => {
                    let n = number(p)?;
                    (n, n)
                }
            };
            if hi < lo {
                return Err(format!(
                    "the range '{p}' runs backwards (write the lower {what} first)"
                ));
            }
            for i in lo..=hi {
                s.insert(i);
            }
        }
        Ok(s)
    }

    /// `CPU 3` or `CPUs 3-5`: the set with the word `what` for its members.
    pub fn named(&self, what: &str) -> String {
        if self.len() == 1 {
            format!("{what} {self}")
        } else {
            format!("{what}s {self}")
        }
    }
}

impl fmt::Display for IdSet {
    /// The shortest list: runs of two or more as `lo-hi`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut it = self.iter().peekable();
        while let Some(lo) = it.next() {
            let mut hi = lo;
            while it.peek() == Some(&(hi + 1)) {
                hi = it.next().expect("peeked");
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if hi == lo {
                write!(f, "{lo}")?;
            } else {
                write!(f, "{lo}-{hi}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for IdSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IdSet({self})")
    }
}

impl Serialize for IdSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for IdSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = String::deserialize(d)?;
        if t.is_empty() {
            return Ok(IdSet::EMPTY);
        }
        IdSet::parse_list(&t, "member").map_err(serde::de::Error::custom)
    }
}

/// Where one worker ran, as it read it back after it was pinned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    /// The worker's index in the run.
    pub worker: usize,
    /// The CPUs the worker's thread or process may run on
    /// (`sched_getaffinity(2)`).
    pub cpus: IdSet,
    /// The NUMA nodes those CPUs belong to (empty where the kernel shows
    /// no nodes).
    pub nodes: IdSet,
    /// Its memory policy (`get_mempolicy(2)`): `default`, `bind`,
    /// `local`, `preferred`, `interleave`, or `mode N` for another.
    pub mem_policy: String,
    /// The nodes the policy names (`bind`, `preferred`, `interleave`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_nodes: Option<IdSet>,
}

impl Placed {
    /// `CPUs 0-1 (node 0), memory bind:0`.
    pub fn describe(&self) -> String {
        let mut s = self.cpus.named("CPU");
        if !self.nodes.is_empty() {
            s += &format!(" ({})", self.nodes.named("node"));
        }
        s += &format!(", memory {}", self.mem_policy);
        if let Some(n) = &self.mem_nodes {
            s += &format!(":{n}");
        }
        s
    }
}

/// One line for a run's workers (`pinned:` in the text report): what
/// they share said once, what differs said worker by worker, at most 16
/// of them.
pub fn describe_all(ps: &[Placed]) -> String {
    const MOST: usize = 16;
    let by_worker = |f: &dyn Fn(&Placed) -> String| -> String {
        let first = ps.first().map(f).unwrap_or_default();
        if ps.iter().all(|p| f(p) == first) {
            return first;
        }
        let mut s = ps.iter().take(MOST).map(f).collect::<Vec<_>>().join(" | ");
        if ps.len() > MOST {
            s += &format!(" | … ({} workers)", ps.len());
        }
        format!("by worker {s}")
    };
    let cpus = match by_worker(&|p| p.cpus.to_string()) {
        d if d.starts_with("by worker") => format!("CPUs {d}"),
        // the same for all
        _ => ps.first().map(|p| p.cpus.named("CPU")).unwrap_or_default(),
    };
    let nodes = ps.iter().fold(IdSet::EMPTY, |s, p| s.or(&p.nodes));
    let mem = by_worker(&|p| match &p.mem_nodes {
        Some(n) => format!("{}:{n}", p.mem_policy),
        None => p.mem_policy.clone(),
    });
    let mut line = format!(
        "{} worker{}, {cpus}",
        ps.len(),
        if ps.len() == 1 { "" } else { "s" }
    );
    if !nodes.is_empty() {
        line += &format!(" ({})", nodes.named("node"));
    }
    line += &format!(", memory {mem}");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: &[usize]) -> IdSet {
        let mut s = IdSet::EMPTY;
        for &i in ids {
            s.insert(i);
        }
        s
    }

    #[test]
    fn lists_read_as_the_kernel_and_fio_write_them() {
        let p = |t: &str| IdSet::parse_list(t, "CPU");
        assert_eq!(
            p("0-3,6,8-11").unwrap(),
            set(&[0, 1, 2, 3, 6, 8, 9, 10, 11])
        );
        assert_eq!(p("0").unwrap(), set(&[0]));
        // a cpulist file ends with a newline; blanks around items are taken
        assert_eq!(p("0-1\n").unwrap(), set(&[0, 1]));
        assert_eq!(p(" 2 , 4-5 ").unwrap(), set(&[2, 4, 5]));
        assert_eq!(p("5,1,5,1-2").unwrap(), set(&[1, 2, 5]));
        assert_eq!(p("1023").unwrap(), set(&[1023]));
        assert_eq!(p("3-3").unwrap(), set(&[3]));
        // what fio's atoi would take silently
        for bad in [
            "", " ", "x", "1,", ",1", "1,,2", "3-1", "1-", "-1", "1-2-3", "0x1", "+1", "1.5",
        ] {
            assert!(p(bad).is_err(), "{bad:?} was taken");
        }
        assert_eq!(
            p("3-1").unwrap_err(),
            "the range '3-1' runs backwards (write the lower CPU first)"
        );
        assert_eq!(
            p("0,x").unwrap_err(),
            "'x' is not a CPU number or a range of them (N or N-M)"
        );
        assert_eq!(
            p("1024").unwrap_err(),
            "CPU 1024 is beyond the 1024 a set can name"
        );
        assert!(p("99999999999999999999999").is_err());
    }

    #[test]
    fn lists_are_shown_shortest() {
        let s = set(&[0, 1, 2, 3, 6, 8, 9, 10, 11, 13, 14]);
        assert_eq!(s.to_string(), "0-3,6,8-11,13-14");
        assert_eq!(IdSet::EMPTY.to_string(), "");
        assert_eq!(set(&[1023]).to_string(), "1023");
        assert_eq!(set(&[63, 64]).to_string(), "63-64");
        // and read back the same
        assert_eq!(IdSet::parse_list(&s.to_string(), "CPU").unwrap(), s);
        assert_eq!(set(&[2]).named("CPU"), "CPU 2");
        assert_eq!(set(&[2, 3]).named("node"), "nodes 2-3");
    }

    #[test]
    fn set_operations() {
        let a = set(&[0, 1, 2, 64, 100]);
        let b = set(&[1, 64, 200]);
        assert_eq!(a.and(&b), set(&[1, 64]));
        assert_eq!(a.or(&b), set(&[0, 1, 2, 64, 100, 200]));
        assert_eq!(a.minus(&b), set(&[0, 2, 100]));
        assert_eq!(a.len(), 5);
        assert_eq!(a.nth(3), Some(64));
        assert_eq!(a.nth(5), None);
        assert!(!IdSet::EMPTY.contains(0) && IdSet::EMPTY.is_empty());
        assert!(!IdSet::EMPTY.clone().insert(MAX_IDS));
        assert_eq!(IdSet::range(2, 4), set(&[2, 3, 4]));
    }

    #[test]
    fn a_placement_round_trips_through_json() {
        let p = Placed {
            worker: 1,
            cpus: set(&[0, 1]),
            nodes: set(&[0]),
            mem_policy: "bind".into(),
            mem_nodes: Some(set(&[0])),
        };
        let j = serde_json::to_value(&p).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"worker": 1, "cpus": "0-1", "nodes": "0", "mem_policy": "bind", "mem_nodes": "0"})
        );
        assert_eq!(serde_json::from_value::<Placed>(j).unwrap(), p);
        assert_eq!(p.describe(), "CPUs 0-1 (node 0), memory bind:0");
        let mut q = p.clone();
        q.worker = 0;
        q.cpus = set(&[0]);
        let mut r = p.clone();
        r.cpus = set(&[1]);
        assert_eq!(
            describe_all(&[q.clone(), r]),
            "2 workers, CPUs by worker 0 | 1 (node 0), memory bind:0"
        );
        assert_eq!(
            describe_all(&[q.clone(), q.clone()]),
            "2 workers, CPU 0 (node 0), memory bind:0"
        );
        let many: Vec<Placed> = (0..20)
            .map(|i| Placed {
                worker: i,
                cpus: set(&[i % 2]),
                nodes: IdSet::EMPTY,
                mem_policy: if i == 0 { "local" } else { "default" }.into(),
                mem_nodes: None,
            })
            .collect();
        let line = describe_all(&many);
        assert!(
            line.starts_with("20 workers, CPUs by worker 0 | 1 | 0"),
            "{line}"
        );
        assert!(
            line.contains("| … (20 workers), memory by worker local | default"),
            "{line}"
        );
    }
}
