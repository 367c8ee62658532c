use super::*;
use crate::measure::OpKind;
use rand_distr::{Distribution, Exp};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;

/// A rank whose one worker read `n` times with exponential latencies
/// (mean `mean_ns`), its phase from `start` to `start + len` on its clock.
fn rank(
    r: usize,
    host: &str,
    n: usize,
    mean_ns: f64,
    start: u64,
    len: u64,
) -> (RankReport, Vec<u64>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(r as u64 + 7);
    let exp = Exp::new(1.0 / mean_ns).unwrap();
    let mut s = WorkerStats::new(&[OpKind::Read]);
    let mut lats = Vec::with_capacity(n);
    for i in 0..n {
        let l = exp.sample(&mut rng) as u64 + 100;
        lats.push(l);
        // spread over the phase: the series' windows are from its start
        s.record(OpKind::Read, l, 4096, i as u64 * len / n as u64);
    }
    let o = Outcome {
        stats: s,
        per_worker: Vec::new(),
        workers: 1,
        worker_ns: 0,
        elapsed: Duration::from_nanos(len),
        cpu: CpuTimes::default(),
        complete: true,
        interrupted: false,
        error: None,
        extras: vec![serde_json::json!({ "rank": r })],
        failures: vec![None],
        engine_modes: vec![None],
        pinned: Vec::new(),
        machine: Default::default(),
    };
    (RankReport::of(r, host, &o, start), lats)
}

fn exact(v: &mut [u64], q: f64) -> u64 {
    v.sort_unstable();
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

#[test]
fn merged_counts_and_percentiles_are_those_of_every_sample() {
    let hosts: Vec<String> = ["a", "a", "b", "b"].iter().map(|s| s.to_string()).collect();
    let mut all = Vec::new();
    let mut reports = Vec::new();
    // ranks with very different latencies: averaging their percentiles
    // would be far off the pooled ones
    for (r, mean) in [(0, 2_000.0), (1, 10_000.0), (2, 50_000.0), (3, 200_000.0)] {
        let (rep, lats) = rank(
            r,
            &hosts[r],
            20_000 + r * 1000,
            mean,
            1_000_000,
            2_000_000_000,
        );
        all.extend(lats);
        reports.push(rep);
    }
    // through the wire, as the gather sends them
    let reports: Vec<RankReport> = reports
        .iter()
        .map(|r| serde_json::from_slice(&serde_json::to_vec(r).unwrap()).unwrap())
        .collect();
    let (o, phase) = merge(reports, &hosts).unwrap();
    assert_eq!(o.stats.total_ops(), all.len() as u64);
    assert_eq!(o.workers, 4);
    assert_eq!(o.per_worker.len(), 4);
    assert_eq!(o.extras.len(), 4);
    assert_eq!(o.extras[2]["rank"], 2);
    let s = o.stats.kind(OpKind::Read).unwrap().summary();
    for (q, got) in [(0.99, s.p99), (0.999, s.p999), (0.5, s.p50)] {
        let want = exact(&mut all, q);
        let err = (got as f64 - want as f64).abs() / want as f64;
        // HDR histograms with 3 significant digits
        assert!(err < 0.002, "q {q}: merged {got}, pooled {want}");
    }
    assert_eq!(phase.per_host.len(), 2);
    assert_eq!(phase.per_host[0].ranks, vec![0, 1]);
    assert_eq!(
        phase.per_host.iter().map(|h| h.ops).sum::<u64>(),
        all.len() as u64
    );
    assert!(o.complete && o.error.is_none());
}

#[test]
fn elapsed_runs_from_the_first_start_to_the_last_end_on_rank_0s_clock() {
    let hosts: Vec<String> = vec!["h".into(); 3];
    let (mut a, _) = rank(0, "h", 10, 1000.0, 5_000_000_000, 1_000_000_000);
    // rank 1's clock is 2 s behind rank 0's: it started 0.5 s later
    let (mut b, _) = rank(1, "h", 10, 1000.0, 3_500_000_000, 2_000_000_000);
    b.clock_start = Offset {
        offset_ns: 2_000_000_000,
        bound_ns: 3_000,
    };
    b.clock_end = Offset {
        offset_ns: 2_000_000_100,
        bound_ns: 4_000,
    };
    // rank 2 started 0.25 s earlier and ended first
    let (c, _) = rank(2, "h", 10, 1000.0, 4_750_000_000, 500_000_000);
    a.stonewall_ops = Some(10);
    let (o, p) = merge(vec![b, a, c], &hosts).unwrap();
    // first start 4.75 s, last end 5.5 + 2.0 s (+100 ns of drift)
    assert_eq!(o.elapsed, Duration::from_nanos(2_750_000_100));
    assert_eq!(p.start_spread_s, 0.75);
    assert_eq!(p.first_done_rank, 2);
    assert!((p.first_done_s - 0.5).abs() < 1e-9);
    assert_eq!(p.clock_bound_ns, 4_000);
    assert_eq!(p.clock_drift_ns, 100);
    assert_eq!(p.per_rank[1].start_s, 0.75);
    assert_eq!(p.stonewall.as_ref().unwrap().ops, 10);
    // the series by wall-clock window: rank 1's second lands 0.75 s on,
    // in the first window; its next second in the second window
    let ops = o.stats.series.ops();
    assert_eq!(ops.iter().sum::<u64>(), 30);
    assert!(ops.len() >= 2, "{ops:?}");
}

#[test]
fn ranks_that_did_not_report_are_named_and_the_rest_is_kept() {
    let hosts: Vec<String> = vec!["n1".into(), "n1".into(), "n2".into(), "n2".into()];
    let (a, _) = rank(0, "n1", 100, 1000.0, 0, 1_000_000);
    let (mut c, _) = rank(3, "n2", 100, 1000.0, 0, 1_000_000);
    c.interrupted = true;
    c.complete = false;
    let (o, p) = merge(vec![a, c], &hosts).unwrap();
    assert_eq!(o.stats.total_ops(), 200);
    assert!(!o.complete && o.interrupted);
    let e = o.error.unwrap().to_string();
    assert_eq!(
        e,
        "rank 1 on n1, rank 2 on n2 did not report (died or was killed); the result holds what ranks 0, 3 measured"
    );
    assert_eq!(p.missing, vec![(1, "n1".into()), (2, "n2".into())]);
    assert!(
        section(
            &Job {
                rank: 0,
                size: 4,
                hosts,
                id: "x".into()
            },
            Opts::default(),
            vec![p],
            &BTreeMap::new()
        )
        .render()
        .contains("rank 2 on n2: DID NOT REPORT")
    );
}

#[test]
fn a_ranks_error_is_named_with_its_rank_and_host() {
    let hosts: Vec<String> = vec!["n1".into(), "n2".into()];
    let (a, _) = rank(0, "n1", 1, 1000.0, 0, 1_000);
    let (mut b, _) = rank(1, "n2", 1, 1000.0, 0, 1_000);
    b.error = Some("No space left on device".into());
    b.complete = false;
    let (o, _) = merge(vec![a, b], &hosts).unwrap();
    assert_eq!(
        o.error.unwrap().to_string(),
        "rank 1 (n2): No space left on device"
    );
    assert!(!o.complete);
}

/// docs/result-schema.json holds the `cluster` section as the types say;
/// `IOGAUGE_BLESS=1` writes it.
#[test]
fn the_result_schema_holds_the_cluster_section() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/result-schema.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.definitions_path = "/$defs/cluster/$defs".into();
    let mut g = settings.into_generator();
    let root = g.subschema_for::<Section>();
    let mut def = serde_json::json!({
        "description": "An MPI job's ranks (mpirun -np N iogauge ...): each timed phase's per-rank and per-host figures, the ranks' clocks and the stonewall. Absent on one machine.",
        "$defs": g.take_definitions(true),
    });
    def["$ref"] = serde_json::to_value(&root).unwrap()["$ref"].clone();
    doc["$defs"]["cluster"] = def;
    doc["$defs"]["result"]["properties"]["cluster"] =
        serde_json::json!({ "$ref": "#/$defs/cluster" });
    if std::env::var_os("IOGAUGE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
        return;
    }
    let have: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        have == doc,
        "docs/result-schema.json does not hold the cluster section as the types say (IOGAUGE_BLESS=1 cargo test --release --lib the_result_schema rewrites it)"
    );
}
