//! Print N block numbers that iogauge's offset distribution SPEC draws over
//! BLOCKS blocks, one a line (bench/dist.sh compares them with fio's).
//!
//!     cargo run --release --example dist_draws -- zipf:1.2 16384 16384 [SEED]

use iogauge::workload::dist::{Dir, Sampler, parse};
use iogauge::workload::worker_rng;
use std::io::Write;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 3 {
        eprintln!("usage: dist_draws SPEC BLOCKS N [SEED]");
        std::process::exit(2);
    }
    let num = |s: &str| -> u64 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("dist_draws: '{s}' is not a whole number");
            std::process::exit(2)
        })
    };
    let d = parse(&a[0]).unwrap_or_else(|e| {
        eprintln!("dist_draws: {e}");
        std::process::exit(2)
    });
    let (blocks, n) = (num(&a[1]), num(&a[2]));
    let mut rng = worker_rng(a.get(3).map_or(1, |s| num(s.as_str())), 0);
    let mut s = Sampler::new(&d, blocks, 4096, &mut rng).unwrap_or_else(|e| {
        eprintln!("dist_draws: {e}");
        std::process::exit(2)
    });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for _ in 0..n {
        let _ = writeln!(out, "{}", s.next(&mut rng, Dir::Read));
    }
}
