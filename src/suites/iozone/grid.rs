//! The file and record sizes IOzone visits, reproducing IOzone 3.489's
//! auto-mode loops (`auto_test`, `init_file_sizes`, `init_record_sizes`).
//!
//! The ranges are IOzone 3.489's defines: files from `KILOBYTES_START`
//! (64 kB) to `KILOBYTES_END` (512 MB), records from `RECLEN_START` (4 kB)
//! to `RECLEN_END` = `MAXBUFFERSIZE` (16 MB), each multiplied by
//! `MULTIPLIER` (2, or `-+x`) from one step to the next while it stays
//! within the range; `-n`/`-g` and `-y`/`-q` replace the ends, a single
//! `-s` or `-r` makes its range that one value, and several `-s` or `-r`
//! are taken as the list itself. For each file size the records are taken
//! in order until one is larger than the file.
//!
//! The crossover: for a file larger than `CROSSOVER` (16384 kB, so 32 MB
//! and up) the records start at `LARGE_REC` (64 kB) instead, unless `-z`
//! was given or any of `-r`, `-s`, `-y`, `-q` (several `-s` or `-r` set
//! `-z` themselves). IOzone then stores a zero in its Excel tables for each
//! record it skipped; [`Row::skipped_cells`] counts them.

use super::flags::{Config, Mode};

/// Smallest file in auto mode (`KILOBYTES_START`), kB.
pub const AUTO_MIN_FILE_KB: u64 = 64;
/// Largest file in auto mode (`KILOBYTES_END`), kB.
pub const AUTO_MAX_FILE_KB: u64 = 512 * 1024;
/// Smallest record in auto mode (`RECLEN_START`), kB.
pub const AUTO_MIN_RECORD_KB: u64 = 4;
/// Largest record in auto mode (`RECLEN_END`), kB.
pub const AUTO_MAX_RECORD_KB: u64 = super::flags::MAX_RECORD_KB;
/// Factor between successive sizes (`MULTIPLIER`; `-+x` replaces it).
pub const MULTIPLIER: u64 = 2;
/// Files larger than this skip the small records (`CROSSOVER`), kB.
pub const CROSSOVER_KB: u64 = 16 * 1024;
/// The first record past the crossover (`LARGE_REC`), kB.
pub const LARGE_RECORD_KB: u64 = 64;

/// One file size and the record sizes run on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// File size, kB.
    pub file_kb: u64,
    /// Record sizes, kB, ascending, none larger than the file.
    pub records_kb: Vec<u64>,
    /// Zero cells IOzone's Excel tables hold before this row's figures:
    /// the records the crossover skipped (4 with the defaults: 4, 8, 16 and
    /// 32 kB). IOzone counts them by halving 64 kB down to the smallest
    /// record whatever `-+x` is, so with `-+x 4` its row is shifted
    /// against the column headings; that is IOzone's output.
    pub skipped_cells: usize,
}

/// `min`, `min·m`, `min·m²`, … up to `max` (IOzone's `size *= multiplier`
/// loops). A multiplier below 2 counts as 2, as in IOzone.
fn geometric(min: u64, max: u64, multiplier: u64) -> Vec<u64> {
    let m = multiplier.max(2);
    let mut out = Vec::new();
    let mut v = min;
    while v > 0 && v <= max {
        out.push(v);
        match v.checked_mul(m) {
            Some(next) => v = next,
            None => break,
        }
    }
    out
}

/// A given list walked as IOzone walks it: each next value is the first
/// one larger than the last taken (so it keeps the rising values).
fn rising(list: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for &v in list {
        if out.last().is_none_or(|last| v > *last) {
            out.push(v);
        }
    }
    out
}

/// The file sizes auto mode visits, kB, ascending.
pub fn file_sizes(cfg: &Config) -> Vec<u64> {
    auto_sizes(
        &cfg.file_kb,
        (cfg.min_file_kb, cfg.max_file_kb),
        (AUTO_MIN_FILE_KB, AUTO_MAX_FILE_KB),
        cfg.multiplier,
    )
}

/// The record sizes auto mode visits below the crossover, kB, ascending:
/// also the column headings of IOzone's Excel tables.
pub fn record_sizes(cfg: &Config) -> Vec<u64> {
    auto_sizes(
        &cfg.record_kb,
        (cfg.min_record_kb, cfg.max_record_kb),
        (AUTO_MIN_RECORD_KB, AUTO_MAX_RECORD_KB),
        cfg.multiplier,
    )
}

/// Several sizes given are visited as given, ascending; otherwise the
/// geometric run between the bounds, where one size given stands in for
/// either bound not set and IOzone's defaults for the rest.
fn auto_sizes(
    given: &[u64],
    (min, max): (Option<u64>, Option<u64>),
    (auto_min, auto_max): (u64, u64),
    multiplier: u64,
) -> Vec<u64> {
    if given.len() > 1 {
        return rising(given);
    }
    let single = given.first().copied();
    let min = min.or(single).unwrap_or(auto_min);
    let max = max.or(single).unwrap_or(auto_max);
    geometric(min, max, multiplier)
}

/// Whether the crossover applies: not with `-z`, `-A`, `-r`, `-s`, `-y`
/// or `-q`.
pub fn crossover(cfg: &Config) -> bool {
    !cfg.no_crossover
        && cfg.file_kb.is_empty()
        && cfg.record_kb.is_empty()
        && cfg.min_record_kb.is_none()
        && cfg.max_record_kb.is_none()
}

/// The auto-mode grid, one row per file size, in IOzone's order. A file
/// smaller than every record gets no row (the parser refuses such ranges).
pub fn auto_grid(cfg: &Config) -> Vec<Row> {
    let records = record_sizes(cfg);
    let max_record = cfg
        .max_record_kb
        .or(cfg.record_kb.first().copied())
        .unwrap_or(AUTO_MAX_RECORD_KB);
    let smallest = records.first().copied().unwrap_or(AUTO_MIN_RECORD_KB);
    let cross = crossover(cfg);
    let large = geometric(LARGE_RECORD_KB, max_record, cfg.multiplier);
    file_sizes(cfg)
        .into_iter()
        .filter_map(|file_kb| {
            let (list, skipped_cells) = if cross && file_kb > CROSSOVER_KB {
                (&large, skipped(smallest))
            } else {
                (&records, 0)
            };
            let records_kb: Vec<u64> = list.iter().copied().take_while(|r| *r <= file_kb).collect();
            (!records_kb.is_empty()).then_some(Row {
                file_kb,
                records_kb,
                skipped_cells,
            })
        })
        .collect()
}

/// IOzone's count of dummy Excel cells on a crossover row: halve 64 kB
/// until it reaches the smallest record.
fn skipped(smallest_kb: u64) -> usize {
    let mut n = 0;
    let mut c = LARGE_RECORD_KB;
    while c != smallest_kb && c > 0 {
        n += 1;
        c >>= 1;
    }
    n
}

/// The runs of any mode: the auto grid, or one row with one record (in
/// throughput mode, each child's file and record).
pub fn runs(cfg: &Config) -> Vec<Row> {
    match cfg.mode() {
        Mode::Auto => auto_grid(cfg),
        Mode::Single | Mode::Throughput => vec![Row {
            file_kb: cfg.single_file_kb(),
            records_kb: vec![cfg.single_record_kb()],
            skipped_cells: 0,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::iozone::flags::parse_with_page_size;

    fn grid(line: &str) -> Vec<(u64, Vec<u64>, usize)> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let cfg = parse_with_page_size(&args, 4096)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .config;
        runs(&cfg)
            .into_iter()
            .map(|r| (r.file_kb, r.records_kb, r.skipped_cells))
            .collect()
    }

    /// `from`, `from·m`, … up to `to`.
    fn pow(from: u64, to: u64, m: u64) -> Vec<u64> {
        let mut v = vec![from];
        while v[v.len() - 1] * m <= to {
            v.push(v[v.len() - 1] * m);
        }
        v
    }

    // Expected grids are worked out by hand from IOzone 3.489's source:
    // init_file_sizes/init_record_sizes build the lists with
    // `for (size = min; size <= max; size *= multiplier)`, auto_test takes
    // the records of each file while `recszi <= kilosi*1024` and, when none
    // of -r/-s/-y/-q was given and -z is off, restarts the records at
    // LARGE_REC (64 kB) for `kilosi > xover` (CROSSOVER, 16384 kB), storing
    // a zero for each of 64k→32k→16k→8k before reaching 4 kB.

    #[test]
    fn dash_a_defaults() {
        let g = grid("-a");
        let files: Vec<u64> = g.iter().map(|r| r.0).collect();
        assert_eq!(files, pow(64, 512 * 1024, 2));
        assert_eq!(files.len(), 14);
        for (file, records, skipped) in &g {
            if *file <= 16384 {
                assert_eq!(*records, pow(4, *file, 2), "{file}");
                assert_eq!(*skipped, 0);
            } else {
                assert_eq!(*records, pow(64, 16384, 2), "{file}");
                assert_eq!(*skipped, 4);
            }
        }
        assert_eq!(g[0], (64, vec![4, 8, 16, 32, 64], 0));
        assert_eq!(g[8].1.len(), 13, "16 MB: 4 kB..16 MB");
        assert_eq!(g[9], (32768, pow(64, 16384, 2), 4));
        assert_eq!(g[13].1.len(), 9, "512 MB: 64 kB..16 MB");
    }

    #[test]
    fn dash_n_1m_dash_g_64m() {
        let all = [
            4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
        ];
        let large = vec![64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
        let want = vec![
            (1024, all[..9].to_vec(), 0),
            (2048, all[..10].to_vec(), 0),
            (4096, all[..11].to_vec(), 0),
            (8192, all[..12].to_vec(), 0),
            (16384, all.to_vec(), 0),
            (32768, large.clone(), 4),
            (65536, large, 4),
        ];
        assert_eq!(grid("-a -n 1m -g 64m"), want);
        // -z: no crossover, every record on the big files too.
        let mut noz = want;
        noz[5] = (32768, all.to_vec(), 0);
        noz[6] = (65536, all.to_vec(), 0);
        assert_eq!(grid("-a -n 1m -g 64m -z"), noz);
        assert_eq!(grid("-az -n 1m -g 64m"), noz);
        // -A is -az (and -i 0 -i 1).
        assert_eq!(grid("-A -n 1m -g 64m"), noz);
    }

    #[test]
    fn dash_y_dash_q_turn_off_the_crossover() {
        let want: Vec<_> = pow(1024, 65536, 2)
            .into_iter()
            .map(|f| (f, vec![64, 128, 256, 512, 1024], 0))
            .collect();
        assert_eq!(grid("-a -n 1m -g 64m -y 64k -q 1m"), want);
        // -q alone: records 4 kB..256 kB on every file, no crossover.
        let g = grid("-a -n 1m -g 64m -q 256");
        assert!(g.iter().all(|r| r.1 == pow(4, 256, 2) && r.2 == 0));
        // -y alone: from 8 kB, no crossover, up to the file or 16 MB.
        let g = grid("-a -n 1m -g 64m -y 8");
        assert_eq!(g[0].1, pow(8, 1024, 2));
        assert_eq!(g[6], (65536, pow(8, 16384, 2), 0));
    }

    #[test]
    fn multiplier_four() {
        // Files 64, 256, …, 262144 (×4 to 1 GB would pass 512 MB); records
        // 4, 16, …, 16384; past the crossover 64, 256, …, 16384.
        let g = grid("-a -+x 4");
        assert_eq!(
            g,
            vec![
                (64, vec![4, 16, 64], 0),
                (256, vec![4, 16, 64, 256], 0),
                (1024, vec![4, 16, 64, 256, 1024], 0),
                (4096, vec![4, 16, 64, 256, 1024, 4096], 0),
                (16384, vec![4, 16, 64, 256, 1024, 4096, 16384], 0),
                (65536, vec![64, 256, 1024, 4096, 16384], 4),
                (262144, vec![64, 256, 1024, 4096, 16384], 4),
            ]
        );
        let c = parse_with_page_size(&["-a".into(), "-+x".into(), "4".into()], 4096)
            .unwrap()
            .config;
        assert_eq!(record_sizes(&c), vec![4, 16, 64, 256, 1024, 4096, 16384]);
    }

    #[test]
    fn explicit_lists() {
        // Several -s and -r: auto mode, no crossover, records up to the file.
        assert_eq!(
            grid("-s 1m -s 4m -r 4k -r 64k"),
            vec![(1024, vec![4, 64], 0), (4096, vec![4, 64], 0)]
        );
        assert_eq!(
            grid("-s 64k -s 128m -r 4k -r 1m"),
            vec![(64, vec![4], 0), (131072, vec![4, 1024], 0)]
        );
        // Several -s with the default record range, no crossover.
        assert_eq!(
            grid("-s 64 -s 64m"),
            vec![(64, pow(4, 64, 2), 0), (65536, pow(4, 16384, 2), 0)]
        );
        // Several -r over the default file range.
        let g = grid("-r 4 -r 128");
        assert_eq!(g[0], (64, vec![4], 0));
        assert_eq!(g[1], (128, vec![4, 128], 0));
        assert_eq!(g[13], (524288, vec![4, 128], 0));
    }

    #[test]
    fn single_size_in_auto_mode() {
        // -a -s: one file, every record up to it, no crossover.
        assert_eq!(grid("-a -s 64m"), vec![(65536, pow(4, 16384, 2), 0)]);
        // -a -r: every file, one record.
        let g = grid("-a -r 64k");
        assert_eq!(g.len(), 14);
        assert!(g.iter().all(|r| r.1 == vec![64] && r.2 == 0));
    }

    #[test]
    fn single_and_throughput_runs() {
        assert_eq!(grid(""), vec![(512, vec![4], 0)]);
        assert_eq!(grid("-s 1g -r 1m"), vec![(1 << 20, vec![1024], 0)]);
        assert_eq!(grid("-t 4 -s 64m -r 64k"), vec![(65536, vec![64], 0)]);
        // -z and -+x change nothing outside auto mode.
        assert_eq!(grid("-z -+x 4"), vec![(512, vec![4], 0)]);
    }

    #[test]
    fn hand_built_configs_do_not_loop_or_panic() {
        let mut c = Config {
            auto: true,
            multiplier: 0,
            ..Config::default()
        };
        assert_eq!(auto_grid(&c).len(), 14, "a multiplier below 2 counts as 2");
        c.min_file_kb = Some(u64::MAX / 2 + 1);
        c.max_file_kb = Some(u64::MAX);
        assert_eq!(file_sizes(&c), vec![u64::MAX / 2 + 1]);
        c.min_file_kb = Some(0);
        assert!(auto_grid(&c).is_empty());
        c.min_file_kb = None;
        c.max_file_kb = None;
        c.file_kb = vec![4096, 1024, 8192];
        assert_eq!(file_sizes(&c), vec![4096, 8192], "IOzone's walk skips 1024");
        assert_eq!(skipped(3), 7, "never reaches 3 kB: stops at 0");
    }
}
