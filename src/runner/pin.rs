//! Pinning the workers to CPUs and their memory to NUMA nodes: fio's
//! `cpus_allowed`, `cpus_allowed_policy`, `numa_cpu_nodes` and
//! `numa_mem_policy` (the `bind`, `local` and `default` policies).
//!
//! A command builds a [`Pinning`] once, before anything runs: it reads the
//! user's lists ([`PinRequest`]) and checks them against the machine
//! ([`Topology`]: the CPUs that exist, the CPUs this process may use, the
//! NUMA nodes and their CPUs), so a refusal comes before any work. The
//! runner hands it to every worker ([`super::StopRule::pin`]):
//!
//! ```text
//!   worker i (thread or process), before its start barrier:
//!     sched_setaffinity(0, worker_cpus(i))    shared: the whole set
//!                                             split: its ((first + i) mod n)th CPU
//!     set_mempolicy(MPOL_BIND, nodes)         or MPOL_LOCAL / MPOL_DEFAULT
//!     sched_getaffinity, get_mempolicy  ───>  Placed, in the result
//! ```
//!
//! Both calls act on the calling thread only, so every worker thread sets
//! its own. A worker process pins itself before it builds its worker, so
//! its buffers and engine are allocated under the policy. Worker threads
//! are built together on the thread that starts the run, before they
//! exist: that thread runs under the union of the workers' CPUs and the
//! memory policy while it builds them ([`Pinning::around`]), then goes
//! back to what it had.
//!
//! A worker placed apart from the others of its run (a fio job with its
//! own `cpus_allowed` beside other jobs) says so itself
//! ([`super::Worker::pinning`]); its thread, or its process once the
//! worker is built, is pinned with that instead.

use crate::measure::placed::{IdSet, Placed, WORDS};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;

/// How the workers share the CPUs (fio's `cpus_allowed_policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Every worker may run on every CPU of the set.
    #[default]
    Shared,
    /// Worker i runs on one CPU: the set's (i mod n)th, ascending, as fio
    /// gives each job one CPU and goes round again when there are more jobs
    /// than CPUs.
    Split,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Shared => "shared",
            Policy::Split => "split",
        }
    }
}

/// A worker's memory policy (set_mempolicy(2)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemPolicy {
    /// Left as the process had it.
    #[default]
    Unchanged,
    /// `MPOL_DEFAULT`: the system's (allocate on the node of the CPU that
    /// touches the page first).
    Default,
    /// `MPOL_LOCAL`: on the node of the CPU that allocates.
    Local,
    /// `MPOL_BIND`: only on these nodes.
    Bind(IdSet),
}

impl MemPolicy {
    /// fio's form: `default`, `local`, `bind:NODES`; `None` when unchanged.
    pub fn fio_form(&self) -> Option<String> {
        match self {
            MemPolicy::Unchanged => None,
            MemPolicy::Default => Some("default".into()),
            MemPolicy::Local => Some("local".into()),
            MemPolicy::Bind(n) => Some(format!("bind:{n}")),
        }
    }
}

impl Serialize for MemPolicy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.fio_form() {
            Some(f) => s.serialize_str(&f),
            None => s.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for MemPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(MemPolicy::Unchanged),
            Some(t) => parse_mem_policy(&t).map_err(serde::de::Error::custom),
        }
    }
}

/// fio's `numa_mem_policy` in the forms iogauge applies: `default`,
/// `local`, `bind:NODES`. The others (`prefer`, `interleave`) and
/// unknown modes are refused, saying which.
pub fn parse_mem_policy(text: &str) -> Result<MemPolicy, String> {
    let t = text.trim();
    let (mode, nodes) = match t.split_once(':') {
        Some((m, n)) => (m.trim(), Some(n)),
        None => (t, None),
    };
    match (mode, nodes) {
        ("default", None) => Ok(MemPolicy::Default),
        ("local", None) => Ok(MemPolicy::Local),
        ("default" | "local", Some(_)) => Err(format!(
            "'{t}': the {mode} policy takes no node list (write '{mode}')"
        )),
        ("bind", Some(n)) => Ok(MemPolicy::Bind(parse_nodes(n)?)),
        ("bind", None) => Err(format!("'{t}': bind needs its nodes (bind:0 or bind:0-1)")),
        ("prefer" | "interleave", _) => Err(format!(
            "'{t}': the {mode} policy is not supported by iogauge (it applies bind:NODES, local and default)"
        )),
        _ => Err(format!(
            "'{mode}' is not a memory policy of fio (default, prefer, bind, interleave, local)"
        )),
    }
}

/// A list of NUMA nodes as fio reads it (libnuma's `numa_parse_nodestring`
/// in the forms iogauge takes): numbers and ranges, or `all`
/// ([`ALL_NODES`], every node the machine has once resolved). The
/// relative (`+`) and inverted (`!`) forms are refused.
pub fn parse_nodes(text: &str) -> Result<IdSet, String> {
    let t = text.trim();
    if t == "all" {
        return Ok(ALL_NODES);
    }
    if t.starts_with('!') || t.starts_with('+') {
        return Err(format!(
            "'{t}': node lists relative to this process's (+) or inverted (!) are not supported by iogauge; name the nodes"
        ));
    }
    IdSet::parse_list(t, "NUMA node")
}

/// `all` in a node list: every node the machine has, once resolved.
pub const ALL_NODES: IdSet = IdSet([u64::MAX; WORDS]);

/// What the CPUs and nodes are on this machine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// The CPUs that exist (`/sys/devices/system/cpu/present`).
    pub present: IdSet,
    /// The CPUs this process may run on (`sched_getaffinity(2)`).
    pub allowed: IdSet,
    /// Each NUMA node and its CPUs (`/sys/devices/system/node/nodeN/cpulist`);
    /// empty when the kernel shows none (built without NUMA).
    pub nodes: Vec<(usize, IdSet)>,
    /// The nodes that have memory (`/sys/devices/system/node/has_memory`;
    /// every node where the file is missing).
    pub with_memory: IdSet,
}

const CPU_DIR: &str = "/sys/devices/system/cpu";
const NODE_DIR: &str = "/sys/devices/system/node";

fn read_list(path: &Path, what: &str) -> io::Result<IdSet> {
    let t = std::fs::read_to_string(path)?;
    IdSet::parse_list(&t, what).map_err(|e| io::Error::other(format!("{}: {e}", path.display())))
}

impl Topology {
    /// This machine's, as the kernel shows it now.
    pub fn detect() -> io::Result<Topology> {
        let present = read_list(&Path::new(CPU_DIR).join("present"), "CPU").or_else(|_| {
            // SAFETY: sysconf has no preconditions.
            let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
            Ok::<_, io::Error>(IdSet::range(0, (n.max(1) - 1) as usize))
        })?;
        let allowed = affinity()?;
        let mut nodes = Vec::new();
        if let Ok(dir) = std::fs::read_dir(NODE_DIR) {
            for e in dir.flatten() {
                let name = e.file_name();
                let Some(n) = name
                    .to_str()
                    .and_then(|s| s.strip_prefix("node"))
                    .and_then(|s| s.parse::<usize>().ok())
                else {
                    continue;
                };
                let cpus = read_list(&e.path().join("cpulist"), "CPU").unwrap_or_default();
                nodes.push((n, cpus));
            }
        }
        nodes.sort_by_key(|(n, _)| *n);
        let all: IdSet = nodes.iter().fold(IdSet::EMPTY, |mut s, (n, _)| {
            s.insert(*n);
            s
        });
        let with_memory = read_list(&Path::new(NODE_DIR).join("has_memory"), "NUMA node")
            .map(|m| m.and(&all))
            .unwrap_or(all);
        Ok(Topology {
            present,
            allowed,
            nodes,
            with_memory,
        })
    }

    /// The nodes there are.
    pub fn node_set(&self) -> IdSet {
        let mut s = IdSet::EMPTY;
        for (n, _) in &self.nodes {
            s.insert(*n);
        }
        s
    }

    /// The CPUs of `nodes`.
    pub fn cpus_of(&self, nodes: &IdSet) -> IdSet {
        self.nodes
            .iter()
            .filter(|(n, _)| nodes.contains(*n))
            .fold(IdSet::EMPTY, |s, (_, c)| s.or(c))
    }

    /// The nodes `cpus` belong to.
    pub fn nodes_of(&self, cpus: &IdSet) -> IdSet {
        let mut s = IdSet::EMPTY;
        for (n, c) in &self.nodes {
            if !c.and(cpus).is_empty() {
                s.insert(*n);
            }
        }
        s
    }

    /// `nodes` checked against the nodes there are (`all`: every one).
    fn nodes(&self, nodes: &IdSet) -> Result<IdSet, String> {
        let have = self.node_set();
        if have.is_empty() {
            return Err(
                "this kernel shows no NUMA nodes (no /sys/devices/system/node): it was built without NUMA support".into(),
            );
        }
        if *nodes == ALL_NODES {
            return Ok(have);
        }
        let missing = nodes.minus(&have);
        if !missing.is_empty() {
            return Err(format!(
                "NUMA {} {} not exist (this machine has {})",
                missing.named("node"),
                if missing.len() == 1 { "does" } else { "do" },
                have.named("node")
            ));
        }
        Ok(*nodes)
    }
}

/// The pinning a user asked for, before it is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PinRequest {
    /// `cpus_allowed`: the CPUs the workers may run on.
    pub cpus: Option<IdSet>,
    pub policy: Policy,
    /// `numa_cpu_nodes`: the workers run on these nodes' CPUs (with
    /// `cpus`, on the CPUs of both).
    pub cpu_nodes: Option<IdSet>,
    /// `numa_mem_policy`.
    pub mem: MemPolicy,
}

/// Why a pinning cannot be had; each says which part of the request is
/// wrong, so that the caller can name its own flag or option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The CPU list (`--cpus-allowed`, `cpus_allowed`).
    Cpus(String),
    /// The nodes to run on (`--numa-node`, `numa_cpu_nodes`).
    CpuNodes(String),
    /// The memory policy's nodes (`--numa-node`, `numa_mem_policy`).
    MemNodes(String),
}

/// Where the workers of a run go: the CPUs they may run on, how they share
/// them, and their memory policy; checked against the machine
/// ([`Pinning::resolve`]). The default pins nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pinning {
    /// The CPUs the workers share or split (`cpus_allowed`, narrowed to
    /// the CPUs of `numa_nodes`); absent: left as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<IdSet>,
    pub policy: Policy,
    /// The NUMA nodes the workers were asked to run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_nodes: Option<IdSet>,
    /// The memory policy each worker sets (fio's form), absent: unchanged.
    #[serde(default, skip_serializing_if = "is_unchanged")]
    pub mem_policy: MemPolicy,
    /// Under `split`, the number of this run's first worker in a
    /// numbering over several runs (fio counts its threads over the whole
    /// job file); 0 for a run alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_worker: usize,
}

fn is_unchanged(m: &MemPolicy) -> bool {
    *m == MemPolicy::Unchanged
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Pinning {
    /// `req` checked against `topo`: every CPU exists and is one this
    /// process may run on, every node exists (and, to bind memory to, has
    /// memory), and the CPUs left are not none.
    pub fn resolve(req: &PinRequest, topo: &Topology) -> Result<Pinning, Refusal> {
        if let Some(c) = &req.cpus {
            let missing = c.minus(&topo.present);
            if !missing.is_empty() {
                return Err(Refusal::Cpus(format!(
                    "{} {} not exist (this machine has {})",
                    missing.named("CPU"),
                    if missing.len() == 1 { "does" } else { "do" },
                    topo.present.named("CPU")
                )));
            }
            let barred = c.minus(&topo.allowed);
            if !barred.is_empty() {
                return Err(Refusal::Cpus(format!(
                    "{} {} not among the CPUs this process may run on ({}; see taskset -p, or the cgroup's cpuset)",
                    barred.named("CPU"),
                    if barred.len() == 1 { "is" } else { "are" },
                    topo.allowed
                )));
            }
        }
        let numa_nodes = match &req.cpu_nodes {
            Some(n) => Some(topo.nodes(n).map_err(Refusal::CpuNodes)?),
            None => None,
        };
        let cpus = match (req.cpus, numa_nodes) {
            (c, None) => c,
            (c, Some(n)) => {
                let of_nodes = topo.cpus_of(&n);
                let usable = of_nodes.and(&topo.allowed);
                let both = match c {
                    Some(c) => usable.and(&c),
                    None => usable,
                };
                if both.is_empty() {
                    let nodes = n.named("NUMA node");
                    return Err(match c {
                        Some(c) => Refusal::Cpus(format!(
                            "{} and {nodes} (CPUs: {}) have no CPU in common that this process may run on",
                            c.named("CPU"),
                            if of_nodes.is_empty() {
                                "none".into()
                            } else {
                                of_nodes.to_string()
                            }
                        )),
                        None => Refusal::CpuNodes(format!(
                            "{nodes} {} no CPU this process may run on (its CPUs: {}; this process may run on {})",
                            if n.len() == 1 { "has" } else { "have" },
                            if of_nodes.is_empty() {
                                "none".into()
                            } else {
                                of_nodes.to_string()
                            },
                            topo.allowed
                        )),
                    });
                }
                Some(both)
            }
        };
        let mem_policy = match req.mem {
            MemPolicy::Bind(n) => {
                let n = topo.nodes(&n).map_err(Refusal::MemNodes)?;
                let bare = n.minus(&topo.with_memory);
                if !bare.is_empty() {
                    return Err(Refusal::MemNodes(format!(
                        "NUMA {} {} no memory to bind to (the nodes with memory: {})",
                        bare.named("node"),
                        if bare.len() == 1 { "has" } else { "have" },
                        topo.with_memory
                    )));
                }
                MemPolicy::Bind(n)
            }
            m => m,
        };
        Ok(Pinning {
            cpus,
            policy: req.policy,
            numa_nodes,
            mem_policy,
            first_worker: 0,
        })
    }

    /// Whether it changes anything.
    pub fn is_set(&self) -> bool {
        self.cpus.is_some() || self.mem_policy != MemPolicy::Unchanged
    }

    /// The same, with `first` the number of the run's first worker in
    /// `split`'s count (fio numbers the threads of a whole job file).
    pub fn first_worker(mut self, first: usize) -> Pinning {
        self.first_worker = first;
        self
    }

    /// The CPUs worker `i` may run on: the whole set when shared; under
    /// `split`, the set's ((first + i) mod n)th CPU, ascending (fio's
    /// `fio_cpus_split`). `None`: its affinity is left as it is.
    pub fn worker_cpus(&self, i: usize) -> Option<IdSet> {
        let c = self.cpus?;
        match self.policy {
            Policy::Shared => Some(c),
            Policy::Split => {
                let n = c.len().max(1);
                c.nth((self.first_worker + i) % n).map(IdSet::only)
            }
        }
    }

    /// Pin the calling thread as worker `i`, and read back where it may
    /// run and its memory policy.
    pub fn place(&self, i: usize) -> io::Result<Placed> {
        if let Some(c) = self.worker_cpus(i) {
            set_affinity(&c).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot pin worker {i} to {}: {e}", c.named("CPU")),
                )
            })?;
        }
        set_mem_policy(&self.mem_policy).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "cannot set worker {i}'s memory policy to {}: {e}",
                    self.mem_policy.fio_form().unwrap_or_default()
                ),
            )
        })?;
        placed(i)
    }

    /// Run `f` on the calling thread under the union of the workers' CPUs
    /// and their memory policy, and put the thread back as it was: for
    /// what is built for the workers before their threads exist.
    pub fn around<T>(&self, f: impl FnOnce() -> T) -> io::Result<T> {
        if !self.is_set() {
            return Ok(f());
        }
        let cpus0 = affinity()?;
        let mem0 = mem_policy()?;
        if let Some(c) = self.cpus {
            set_affinity(&c)?;
        }
        set_mem_policy(&self.mem_policy)?;
        let out = f();
        set_affinity(&cpus0)?;
        restore_mem_policy(mem0)?;
        Ok(out)
    }

    /// As plain words, for a worker process's shared region.
    pub(crate) fn to_wire(self) -> Wire {
        let mut w = [0u64; WIRE];
        w[0] = u64::from(self.cpus.is_some())
            | u64::from(self.policy == Policy::Split) << 1
            | u64::from(self.numa_nodes.is_some()) << 2;
        w[1] = match self.mem_policy {
            MemPolicy::Unchanged => 0,
            MemPolicy::Default => 1,
            MemPolicy::Local => 2,
            MemPolicy::Bind(_) => 3,
        };
        w[2] = self.first_worker as u64;
        let sets = [
            self.cpus.unwrap_or_default(),
            match self.mem_policy {
                MemPolicy::Bind(n) => n,
                _ => IdSet::EMPTY,
            },
            self.numa_nodes.unwrap_or_default(),
        ];
        for (k, s) in sets.iter().enumerate() {
            w[3 + k * WORDS..3 + (k + 1) * WORDS].copy_from_slice(&s.0);
        }
        w
    }

    /// From [`Pinning::to_wire`]'s words.
    pub(crate) fn from_wire(w: &Wire) -> Pinning {
        let set = |k: usize| {
            let mut s = IdSet::EMPTY;
            s.0.copy_from_slice(&w[3 + k * WORDS..3 + (k + 1) * WORDS]);
            s
        };
        Pinning {
            cpus: (w[0] & 1 != 0).then(|| set(0)),
            policy: if w[0] & 2 != 0 {
                Policy::Split
            } else {
                Policy::Shared
            },
            numa_nodes: (w[0] & 4 != 0).then(|| set(2)),
            mem_policy: match w[1] {
                1 => MemPolicy::Default,
                2 => MemPolicy::Local,
                3 => MemPolicy::Bind(set(1)),
                _ => MemPolicy::Unchanged,
            },
            first_worker: w[2] as usize,
        }
    }

    /// One line for the text report and `--check`: `CPUs 0-1 split,
    /// memory bind:0`; empty when it pins nothing.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = &self.cpus {
            parts.push(format!("{} {}", c.named("CPU"), self.policy.name()));
        }
        if let Some(n) = &self.numa_nodes {
            parts.push(format!("on {}", n.named("NUMA node")));
        }
        if let Some(m) = self.mem_policy.fio_form() {
            parts.push(format!("memory {m}"));
        }
        parts.join(", ")
    }
}

/// The words of a [`Pinning`] on the wire.
pub(crate) const WIRE: usize = 3 + 3 * WORDS;
pub(crate) type Wire = [u64; WIRE];

/// The calling thread's CPUs (`sched_getaffinity(2)`).
pub fn affinity() -> io::Result<IdSet> {
    // SAFETY: cpu_set_t is plain bits; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size is the set's.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut s = IdSet::EMPTY;
    for i in 0..crate::measure::placed::MAX_IDS {
        // SAFETY: i is below CPU_SETSIZE.
        if unsafe { libc::CPU_ISSET(i, &set) } {
            s.insert(i);
        }
    }
    Ok(s)
}

/// Let the calling thread run on `cpus` only.
fn set_affinity(cpus: &IdSet) -> io::Result<()> {
    // SAFETY: as in `affinity`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for i in cpus.iter() {
        // SAFETY: i is below CPU_SETSIZE.
        unsafe { libc::CPU_SET(i, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; a valid set of its size.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The kernel's memory policy modes (linux/mempolicy.h).
const MPOL_DEFAULT: i32 = 0;
const MPOL_PREFERRED: i32 = 1;
const MPOL_BIND: i32 = 2;
const MPOL_INTERLEAVE: i32 = 3;
const MPOL_LOCAL: i32 = 4;
/// The mode flags above the mode (MPOL_F_STATIC_NODES and the like).
const MPOL_MODE_MASK: i32 = 0xff;
/// The bits of a node mask the calls read and write, plus one: the
/// kernel reads `maxnode - 1` bits.
const MAXNODE: libc::c_ulong = (crate::measure::placed::MAX_IDS + 1) as libc::c_ulong;

/// Set the calling thread's memory policy (none to set when unchanged).
fn set_mem_policy(m: &MemPolicy) -> io::Result<()> {
    let (mode, mask) = match m {
        MemPolicy::Unchanged => return Ok(()),
        MemPolicy::Default => (MPOL_DEFAULT, None),
        MemPolicy::Local => (MPOL_LOCAL, None),
        MemPolicy::Bind(n) => (MPOL_BIND, Some(n.0)),
    };
    raw_set_mem_policy(mode, mask)
}

fn raw_set_mem_policy(mode: i32, mask: Option<[u64; WORDS]>) -> io::Result<()> {
    let (ptr, max) = match &mask {
        Some(m) => (m.as_ptr(), MAXNODE),
        None => (std::ptr::null(), 0),
    };
    // SAFETY: set_mempolicy(2) reads at most maxnode - 1 bits of the mask,
    // which holds that many; a null mask with 0 for the modes without one.
    let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, ptr, max) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The calling thread's memory policy: its mode (flags included) and mask.
fn mem_policy() -> io::Result<(i32, [u64; WORDS])> {
    let mut mode: libc::c_int = 0;
    let mut mask = [0u64; WORDS];
    // SAFETY: get_mempolicy(2) writes the mode and at most maxnode - 1
    // bits of the mask, which holds that many; no address, no flags.
    let r = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode as *mut libc::c_int,
            mask.as_mut_ptr(),
            MAXNODE,
            std::ptr::null_mut::<libc::c_void>(),
            0 as libc::c_ulong,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((mode, mask))
}

/// Put back a policy [`mem_policy`] read.
fn restore_mem_policy((mode, mask): (i32, [u64; WORDS])) -> io::Result<()> {
    let bare = mode & MPOL_MODE_MASK;
    let needs_mask = matches!(bare, MPOL_BIND | MPOL_INTERLEAVE)
        || (bare == MPOL_PREFERRED && mask.iter().any(|&w| w != 0));
    raw_set_mem_policy(mode, needs_mask.then_some(mask))
}

/// Where the calling thread, worker `i`, may run and its memory policy.
fn placed(i: usize) -> io::Result<Placed> {
    let cpus = affinity()?;
    let (mode, mask) = mem_policy()?;
    let mask = IdSet(mask);
    let (name, nodes) = match mode & MPOL_MODE_MASK {
        MPOL_DEFAULT => ("default".to_string(), None),
        MPOL_BIND => ("bind".into(), Some(mask)),
        // before Linux 3.8, local was "preferred" with no node
        MPOL_PREFERRED if mask.is_empty() => ("local".into(), None),
        MPOL_PREFERRED => ("preferred".into(), Some(mask)),
        MPOL_INTERLEAVE => ("interleave".into(), Some(mask)),
        MPOL_LOCAL => ("local".into(), None),
        m => (format!("mode {m}"), Some(mask)),
    };
    let topo_nodes = node_cpus();
    let on = topo_nodes
        .iter()
        .filter(|(_, c)| !c.and(&cpus).is_empty())
        .fold(IdSet::EMPTY, |mut s, (n, _)| {
            s.insert(*n);
            s
        });
    Ok(Placed {
        worker: i,
        cpus,
        nodes: on,
        mem_policy: name,
        mem_nodes: nodes,
    })
}

/// Each NUMA node's CPUs, as the kernel shows them (none without NUMA).
fn node_cpus() -> Vec<(usize, IdSet)> {
    let Ok(dir) = std::fs::read_dir(NODE_DIR) else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_str()?
                .strip_prefix("node")?
                .parse::<usize>()
                .ok()?;
            Some((n, read_list(&e.path().join("cpulist"), "CPU").ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(t: &str) -> IdSet {
        IdSet::parse_list(t, "CPU").unwrap()
    }

    /// Two nodes of four CPUs; this process may use 0-5; node 2 has
    /// memory but no CPU, node 3 CPUs but no memory.
    fn machine() -> Topology {
        let with_memory = set("0-2");
        Topology {
            present: set("0-11"),
            allowed: set("0-5"),
            nodes: vec![
                (0, set("0-3")),
                (1, set("4-7")),
                (2, IdSet::EMPTY),
                (3, set("8-11")),
            ],
            with_memory,
        }
    }

    fn resolve(r: PinRequest) -> Result<Pinning, Refusal> {
        Pinning::resolve(&r, &machine())
    }

    #[test]
    fn split_gives_each_worker_one_cpu_and_wraps_as_fio() {
        let p = resolve(PinRequest {
            cpus: Some(set("1,3-4")),
            policy: Policy::Split,
            ..Default::default()
        })
        .unwrap();
        let each: Vec<String> = (0..5)
            .map(|i| p.worker_cpus(i).unwrap().to_string())
            .collect();
        assert_eq!(each, ["1", "3", "4", "1", "3"]);
        // a run that is not the first of a job file goes on from its first
        let q = p.first_worker(2);
        assert_eq!(q.worker_cpus(0).unwrap().to_string(), "4");
        let shared = Pinning {
            policy: Policy::Shared,
            ..p
        };
        assert_eq!(shared.worker_cpus(3).unwrap().to_string(), "1,3-4");
        assert_eq!(Pinning::default().worker_cpus(0), None);
        assert!(!Pinning::default().is_set());
    }

    #[test]
    fn cpus_that_do_not_exist_or_are_not_ours_are_refused() {
        let r = |c: &str| {
            resolve(PinRequest {
                cpus: Some(set(c)),
                ..Default::default()
            })
        };
        assert_eq!(
            r("0,12-13").unwrap_err(),
            Refusal::Cpus("CPUs 12-13 do not exist (this machine has CPUs 0-11)".into())
        );
        assert_eq!(
            r("99").unwrap_err(),
            Refusal::Cpus("CPU 99 does not exist (this machine has CPUs 0-11)".into())
        );
        assert_eq!(
            r("5-6").unwrap_err(),
            Refusal::Cpus(
                "CPU 6 is not among the CPUs this process may run on (0-5; see taskset -p, or the cgroup's cpuset)"
                    .into()
            )
        );
        assert_eq!(r("0-5").unwrap().cpus, Some(set("0-5")));
    }

    #[test]
    fn numa_nodes_give_their_cpus_and_are_checked() {
        let r = |nodes: &str, cpus: Option<&str>| {
            resolve(PinRequest {
                cpus: cpus.map(set),
                cpu_nodes: Some(parse_nodes(nodes).unwrap()),
                mem: MemPolicy::Bind(parse_nodes(nodes).unwrap()),
                ..Default::default()
            })
        };
        let p = r("0", None).unwrap();
        assert_eq!(p.cpus, Some(set("0-3")));
        assert_eq!(p.mem_policy, MemPolicy::Bind(IdSet::only(0)));
        assert_eq!(
            p.describe(),
            "CPUs 0-3 shared, on NUMA node 0, memory bind:0"
        );
        // node 1's CPUs this process may use: 4-5
        assert_eq!(r("1", None).unwrap().cpus, Some(set("4-5")));
        assert_eq!(r("0-1", Some("2-4")).unwrap().cpus, Some(set("2-4")));
        assert_eq!(
            r("7", None).unwrap_err(),
            Refusal::CpuNodes("NUMA node 7 does not exist (this machine has nodes 0-3)".into())
        );
        assert_eq!(
            r("3", None).unwrap_err(),
            Refusal::CpuNodes(
                "NUMA node 3 has no CPU this process may run on (its CPUs: 8-11; this process may run on 0-5)"
                    .into()
            )
        );
        assert_eq!(
            r("0", Some("4")).unwrap_err(),
            Refusal::Cpus(
                "CPU 4 and NUMA node 0 (CPUs: 0-3) have no CPU in common that this process may run on"
                    .into()
            )
        );
        // memory only where there is memory
        let m = resolve(PinRequest {
            mem: MemPolicy::Bind(set("1,3")),
            ..Default::default()
        });
        assert_eq!(
            m.unwrap_err(),
            Refusal::MemNodes(
                "NUMA node 3 has no memory to bind to (the nodes with memory: 0-2)".into()
            )
        );
        // all: every node
        let all = resolve(PinRequest {
            mem: MemPolicy::Bind(ALL_NODES),
            ..Default::default()
        });
        assert!(all.is_err(), "node 3 has no memory");
        let none = Topology {
            nodes: Vec::new(),
            ..machine()
        };
        let e = Pinning::resolve(
            &PinRequest {
                cpu_nodes: Some(IdSet::only(0)),
                ..Default::default()
            },
            &none,
        )
        .unwrap_err();
        assert!(matches!(e, Refusal::CpuNodes(m) if m.contains("without NUMA")));
    }

    #[test]
    fn node_lists_and_memory_policies_as_fio_writes_them() {
        assert_eq!(parse_nodes("0-1,3").unwrap(), set("0-1,3"));
        assert_eq!(parse_nodes("all").unwrap(), ALL_NODES);
        assert!(parse_nodes("!0").unwrap_err().contains("not supported"));
        assert!(parse_nodes("+0").unwrap_err().contains("not supported"));
        assert!(parse_nodes("0-").is_err());
        assert_eq!(
            parse_nodes("a").unwrap_err(),
            "'a' is not a NUMA node number or a range of them (N or N-M)"
        );
        assert_eq!(
            parse_mem_policy("bind:0-1").unwrap(),
            MemPolicy::Bind(set("0-1"))
        );
        assert_eq!(parse_mem_policy("local").unwrap(), MemPolicy::Local);
        assert_eq!(parse_mem_policy(" default ").unwrap(), MemPolicy::Default);
        assert!(
            parse_mem_policy("bind")
                .unwrap_err()
                .contains("needs its nodes")
        );
        assert!(
            parse_mem_policy("local:0")
                .unwrap_err()
                .contains("no node list")
        );
        assert!(
            parse_mem_policy("interleave:0-1")
                .unwrap_err()
                .contains("not supported by iogauge")
        );
        assert!(
            parse_mem_policy("prefer:1")
                .unwrap_err()
                .contains("not supported by iogauge")
        );
        assert!(
            parse_mem_policy("spread")
                .unwrap_err()
                .contains("not a memory policy of fio")
        );
    }

    #[test]
    fn a_pinning_crosses_to_a_worker_process_unchanged() {
        let p = resolve(PinRequest {
            cpus: Some(set("1-2,5")),
            policy: Policy::Split,
            cpu_nodes: Some(set("0-1")),
            mem: MemPolicy::Bind(set("0-1")),
        })
        .unwrap()
        .first_worker(7);
        assert_eq!(Pinning::from_wire(&p.to_wire()), p);
        for m in [MemPolicy::Unchanged, MemPolicy::Local, MemPolicy::Default] {
            let q = Pinning {
                mem_policy: m,
                ..Default::default()
            };
            assert_eq!(Pinning::from_wire(&q.to_wire()), q);
        }
        let j = serde_json::to_value(p).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"cpus": "1-2,5", "policy": "split", "numa_nodes": "0-1", "mem_policy": "bind:0-1", "first_worker": 7})
        );
        assert_eq!(serde_json::from_value::<Pinning>(j).unwrap(), p);
    }

    #[test]
    fn the_machine_is_read() {
        let t = Topology::detect().unwrap();
        assert!(!t.present.is_empty());
        assert!(!t.allowed.is_empty());
        assert!(t.allowed.minus(&t.present).is_empty(), "{t:?}");
    }

    #[test]
    fn a_thread_pins_itself_and_reads_it_back() {
        // on a thread of its own: the test harness's threads stay as they are
        let t = Topology::detect().unwrap();
        let cpu = t.allowed.nth(0).unwrap();
        let p = Pinning {
            cpus: Some(IdSet::only(cpu)),
            mem_policy: MemPolicy::Local,
            ..Default::default()
        };
        let got = std::thread::spawn(move || p.place(3))
            .join()
            .unwrap()
            .unwrap();
        assert_eq!(got.worker, 3);
        assert_eq!(got.cpus, IdSet::only(cpu));
        assert_eq!(got.mem_policy, "local");
        // around: the thread is back as it was afterwards
        std::thread::spawn(move || {
            let before = affinity().unwrap();
            let inside = p.around(|| affinity().unwrap()).unwrap();
            assert_eq!(inside, IdSet::only(cpu));
            assert_eq!(affinity().unwrap(), before);
            assert_eq!(mem_policy().unwrap().0 & MPOL_MODE_MASK, MPOL_DEFAULT);
        })
        .join()
        .unwrap();
    }
}
