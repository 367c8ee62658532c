//! `iogauge run`: its report shown again from the saved result.

use crate::common::*;

#[test]
fn show_prints_the_runs_report_again() {
    let d = work_dir();
    let small = [
        "run",
        "--unique-bytes",
        "1M",
        "--size-mean",
        "4K",
        "--ops",
        "200",
        "--dir",
        p(d.path()),
    ];
    for extra in [
        &[][..],
        &["-p", "2", "--workers-as", "processes"],
        &["--rate", "20000"],
    ] {
        let args: Vec<&str> = small.iter().chain(extra).copied().collect();
        let (v, report) = assert_show_repeats(&args);
        assert!(
            report.starts_with("iogauge run: uniqueBytes 1.00 MiB"),
            "{report}"
        );
        // a figure read back is the one the run printed
        let iops = format!(", {:.0} IO/s\n", f64_at(&v, "metrics.iops"));
        assert!(report.contains(&iops), "{iops:?} not in {report}");
    }
    assert_untouched(d.path());
}
