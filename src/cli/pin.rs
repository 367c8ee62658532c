//! `--cpus-allowed LIST`, `--cpus-allowed-policy shared|split`,
//! `--numa-node N[,N…]`: where a command's workers run (docs/run.md).

use crate::error::UsageError;
use crate::measure::placed::IdSet;
use crate::runner::pin::{self, MemPolicy, PinRequest, Pinning, Policy, Refusal, Topology};
use anyhow::Context;

/// Which CPUs the workers run on and where their memory goes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PinArgs {
    /// Run the workers only on these CPUs, in fio's cpus_allowed form (e.g. 0-3,6,8-11); each must exist and be one this process may run on.
    #[arg(long, value_name = "LIST", value_parser = cpu_list, help_heading = "Placement")]
    pub cpus_allowed: Option<IdSet>,
    /// How the workers share those CPUs (fio's cpus_allowed_policy): shared, every worker may run on all of them (default); split, worker i runs on the (i mod n)th alone.
    #[arg(long, value_enum, value_name = "POLICY", help_heading = "Placement")]
    pub cpus_allowed_policy: Option<Policy>,
    /// Run the workers on the CPUs of these NUMA nodes (N[,N…], ranges as 0-1, or all) and bind their memory to them (MPOL_BIND); with --cpus-allowed, on the CPUs of both.
    #[arg(long, value_name = "NODES", value_parser = node_list, help_heading = "Placement")]
    pub numa_node: Option<IdSet>,
}

fn cpu_list(s: &str) -> Result<IdSet, String> {
    IdSet::parse_list(s, "CPU")
}

fn node_list(s: &str) -> Result<IdSet, String> {
    pin::parse_nodes(s)
}

/// A node list as the user wrote it (`all` for every node).
fn shown_nodes(n: &IdSet) -> String {
    if *n == pin::ALL_NODES {
        "all".into()
    } else {
        n.to_string()
    }
}

impl PinArgs {
    /// The pinning asked for, checked against this machine; the default
    /// (nothing pinned) without these flags.
    pub fn pinning(&self) -> anyhow::Result<Pinning> {
        if self.cpus_allowed.is_none() && self.numa_node.is_none() {
            if let Some(p) = self.cpus_allowed_policy {
                crate::usage!(
                    "--cpus-allowed-policy {}: it says how the workers share the CPUs of --cpus-allowed or --numa-node; give one of them",
                    p.name()
                );
            }
            return Ok(Pinning::default());
        }
        let req = PinRequest {
            cpus: self.cpus_allowed,
            policy: self.cpus_allowed_policy.unwrap_or_default(),
            cpu_nodes: self.numa_node,
            mem: self.numa_node.map_or(MemPolicy::Unchanged, MemPolicy::Bind),
        };
        let topo =
            Topology::detect().context("cannot read which CPUs and NUMA nodes this machine has")?;
        Pinning::resolve(&req, &topo).map_err(|r| {
            let (flag, list) = match &r {
                Refusal::Cpus(_) => (
                    "--cpus-allowed",
                    self.cpus_allowed.map(|c| c.to_string()).unwrap_or_default(),
                ),
                Refusal::CpuNodes(_) | Refusal::MemNodes(_) => (
                    "--numa-node",
                    self.numa_node.as_ref().map(shown_nodes).unwrap_or_default(),
                ),
            };
            let (Refusal::Cpus(m) | Refusal::CpuNodes(m) | Refusal::MemNodes(m)) = r;
            UsageError::new(format!("{flag} {list}: {m}")).into()
        })
    }
}
