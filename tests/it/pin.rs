//! `--cpus-allowed`, `--cpus-allowed-policy`, `--numa-node` on `iogauge
//! run`: each worker, thread or process, runs where it was put and the
//! result says where (read back from the kernel); a list that names a CPU
//! or node this machine lacks is refused in one line.

use crate::common::*;
use serde_json::Value;

/// The CPUs this test process may run on (`Cpus_allowed_list`), which
/// the runs it starts inherit.
fn allowed() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list in /proc/self/status")
        .trim()
        .to_string();
    let mut out = Vec::new();
    for piece in list.split(',') {
        let (a, b) = piece.split_once('-').unwrap_or((piece, piece));
        out.extend(a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap());
    }
    out
}

/// A small `run` of `workers` in a new directory with `extra`, as threads
/// and as processes: each result (schema-checked) and report. The
/// directory is left as it was found, and `show` prints the same report.
fn pinned_runs(workers: &str, extra: &[&str]) -> Vec<(Value, String)> {
    let d = work_dir();
    let mut out = Vec::new();
    for how in ["threads", "processes"] {
        let mut args = vec![
            "run",
            "--unique-bytes",
            "256K",
            "--size-mean",
            "4K",
            "--ops",
            "400",
            "-p",
            workers,
            "--workers-as",
            how,
            "--dir",
            p(d.path()),
        ];
        args.extend_from_slice(extra);
        let (v, report) = assert_show_repeats(&args);
        crate::schema::assert_valid(&format!("run {args:?}"), &v);
        out.push((v, report));
    }
    assert_untouched(d.path());
    out
}

/// Each worker's `field` in the result's `pinning`, in worker order.
fn per_worker(v: &Value, field: &str) -> Vec<String> {
    let ws = v["pinning"].as_array().expect("a pinning section");
    for (i, w) in ws.iter().enumerate() {
        assert_eq!(w["worker"], i, "{ws:?}");
    }
    ws.iter()
        .map(|w| w[field].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn cpus_allowed_0_puts_every_worker_on_cpu_0() {
    if !allowed().contains(&0) {
        eprintln!("skipped: this process may not run on CPU 0");
        return;
    }
    for (v, report) in pinned_runs("2", &["--cpus-allowed", "0"]) {
        assert_eq!(per_worker(&v, "cpus"), ["0", "0"]);
        // no memory policy asked: each worker kept the system's
        assert_eq!(per_worker(&v, "mem_policy"), ["default", "default"]);
        assert_eq!(v["config"]["pinning"]["cpus"], "0");
        assert_eq!(v["config"]["pinning"]["policy"], "shared");
        assert!(report.contains("\n  pinned: 2 workers, CPU 0 "), "{report}");
    }
    // --check says the pinning it checked, and makes nothing
    let d = work_dir();
    let out = iogauge()
        .args([
            "run",
            "--check",
            "--unique-bytes",
            "256K",
            "--cpus-allowed",
            "0",
        ])
        .args(["--dir", p(d.path())])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("; pinned: CPU 0 shared"), "{text}");
    assert_untouched(d.path());
}

#[test]
fn split_gives_each_worker_its_own_cpu_and_wraps() {
    let cpus = allowed();
    if cpus.len() < 2 {
        eprintln!("skipped: this process may run on one CPU only");
        return;
    }
    let (a, b) = (cpus[0].to_string(), cpus[1].to_string());
    let list = format!("{a},{b}");
    for (v, report) in pinned_runs(
        "2",
        &["--cpus-allowed", &list, "--cpus-allowed-policy", "split"],
    ) {
        assert_eq!(per_worker(&v, "cpus"), [a.clone(), b.clone()]);
        assert_eq!(v["config"]["pinning"]["policy"], "split");
        assert!(
            report.contains(&format!("pinned: 2 workers, CPUs by worker {a} | {b}")),
            "{report}"
        );
    }
    // more workers than CPUs: round again, as fio
    for (v, _) in pinned_runs(
        "3",
        &["--cpus-allowed", &list, "--cpus-allowed-policy", "split"],
    ) {
        assert_eq!(per_worker(&v, "cpus"), [a.clone(), b.clone(), a.clone()]);
    }
}

#[test]
fn numa_node_0_runs_on_its_cpus_and_binds_memory_there() {
    let node0 = std::path::Path::new("/sys/devices/system/node/node0/cpulist");
    let Ok(cpulist) = std::fs::read_to_string(node0) else {
        eprintln!("skipped: the kernel shows no NUMA node 0");
        return;
    };
    // the CPUs of node 0 this process may use, as the kernel lists them
    let mine = allowed();
    let mut of_node = Vec::new();
    for piece in cpulist.trim().split(',').filter(|s| !s.is_empty()) {
        let (a, b) = piece.split_once('-').unwrap_or((piece, piece));
        of_node.extend(
            (a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap())
                .filter(|c| mine.contains(c)),
        );
    }
    if of_node.is_empty() {
        eprintln!("skipped: this process may run on no CPU of node 0");
        return;
    }
    for (v, report) in pinned_runs("2", &["--numa-node", "0"]) {
        assert_eq!(per_worker(&v, "mem_policy"), ["bind", "bind"]);
        assert_eq!(per_worker(&v, "mem_nodes"), ["0", "0"]);
        assert_eq!(per_worker(&v, "nodes"), ["0", "0"]);
        for c in per_worker(&v, "cpus") {
            let got: Vec<usize> = c
                .split(',')
                .flat_map(|p| {
                    let (a, b) = p.split_once('-').unwrap_or((p, p));
                    a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap()
                })
                .collect();
            assert_eq!(got, of_node, "{c}");
        }
        assert_eq!(v["config"]["pinning"]["mem_policy"], "bind:0");
        assert_eq!(v["config"]["pinning"]["numa_nodes"], "0");
        assert!(report.contains("(node 0), memory bind:0\n"), "{report}");
    }
}

#[test]
fn bad_lists_absent_cpus_and_nodes_are_refused_in_one_line() {
    let d = work_dir();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--unique-bytes",
            "256K",
            "--ops",
            "10",
            "--dir",
            p(d.path()),
        ];
        args.extend_from_slice(extra);
        assert_usage_error(&args)
    };
    assert_eq!(
        run(&["--cpus-allowed", "0-x"]),
        "iogauge: invalid value '0-x' for '--cpus-allowed <LIST>': '0-x' is not a CPU number or a range of them (N or N-M) (see 'iogauge run --help')"
    );
    let e = run(&["--cpus-allowed", "3-1"]);
    assert!(e.contains("runs backwards"), "{e}");
    let e = run(&["--cpus-allowed", "0,,1"]);
    assert!(e.contains("an empty item"), "{e}");
    // a CPU beyond the machine (1023: the last a set can name)
    if !std::path::Path::new("/sys/devices/system/cpu/cpu1023").exists() {
        let e = run(&["--cpus-allowed", "0,1023"]);
        assert!(
            e.starts_with(
                "iogauge: --cpus-allowed 0,1023: CPU 1023 does not exist (this machine has CPU"
            ),
            "{e}"
        );
    }
    if !std::path::Path::new("/sys/devices/system/node/node7").exists() {
        let e = run(&["--numa-node", "7"]);
        assert!(
            e.starts_with(
                "iogauge: --numa-node 7: NUMA node 7 does not exist (this machine has node"
            ) || e.contains("built without NUMA support"),
            "{e}"
        );
    }
    let e = run(&["--numa-node", "!0"]);
    assert!(e.contains("not supported"), "{e}");
    let e = run(&["--cpus-allowed-policy", "split"]);
    assert!(e.contains("give one of them"), "{e}");
    let e = run(&["--cpus-allowed-policy", "spread", "--cpus-allowed", "0"]);
    assert!(e.contains("the values are: shared, split"), "{e}");
    assert_untouched(d.path());
}

#[test]
fn a_cpu_outside_the_process_affinity_is_refused() {
    let cpus = allowed();
    let Some(&last) = cpus.last() else { return };
    if cpus.len() < 2 || !std::path::Path::new("/usr/bin/taskset").exists() {
        eprintln!("skipped: needs two CPUs and taskset");
        return;
    }
    let first = cpus[0].to_string();
    let d = work_dir();
    let out = std::process::Command::new("taskset")
        .args(["-c", &first])
        .arg(bin_path())
        .args([
            "run",
            "--unique-bytes",
            "256K",
            "--ops",
            "10",
            "--dir",
            p(d.path()),
        ])
        .args(["--cpus-allowed", &last.to_string()])
        .output()
        .unwrap();
    let line = usage_error_line(&["run", "--cpus-allowed"], &out);
    assert_eq!(
        line,
        format!(
            "iogauge: --cpus-allowed {last}: CPU {last} is not among the CPUs this process may run on ({first}; see taskset -p, or the cgroup's cpuset)"
        )
    );
    assert_untouched(d.path());
}

#[test]
fn fio_pinning_options_are_read_and_their_unsupported_values_named() {
    let out = iogauge()
        .args([
            "fio",
            "--parse-only",
            "--name=a",
            "--cpus_allowed=0-1,3",
            "--cpus_allowed_policy=split",
            "--numa_cpu_nodes=0",
            "--numa_mem_policy=bind:0",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for (name, value) in [
        ("cpus_allowed", "0-1,3"),
        ("cpus_allowed_policy", "split"),
        ("numa_cpu_nodes", "0"),
        ("numa_mem_policy", "bind:0"),
    ] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in {text}"));
        assert_eq!(line.split_whitespace().nth(1), Some(value), "{line}");
    }
    let d = work_dir();
    let job = d.path().join("numa.fio");
    std::fs::write(
        &job,
        "[j]\nnuma_cpu_nodes=0\nnuma_mem_policy=interleave:0-1\n",
    )
    .unwrap();
    let e = assert_usage_error(&["fio", "--parse-only", p(&job)]);
    assert!(
        e.ends_with("numa.fio:3: numa_mem_policy: 'interleave:0-1': the interleave policy is not supported by iogauge (it applies bind:NODES, local and default)"),
        "{e}"
    );
}
