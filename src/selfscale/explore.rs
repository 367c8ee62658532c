//! The exploration: sweep uniqueBytes, find the regions and their
//! boundaries, then per region iterate the focal vector and measure one
//! curve per parameter. Measurement is behind [`Oracle`], so the whole
//! procedure runs on synthetic functions in the tests.

use super::focal::{self, FOCAL_FRACTION};
use super::model::{Boundary, CrossCurve, Curve, Model, Param, Point, Region, Workload};
use super::regions;
use anyhow::Result;
use std::collections::HashMap;

/// Something that measures a workload's throughput.
pub trait Oracle {
    /// Measure `w`; `label` says where in the procedure this is (for the
    /// progress display). `None` when Ctrl-C stopped the measurement.
    fn measure(&mut self, w: &Workload, label: &str) -> Result<Option<Point>>;
}

/// The shape of the exploration.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub min_bytes: u64,
    pub max_bytes: u64,
    /// Ratio between neighbouring sweep points.
    pub sweep_factor: f64,
    pub align: u64,
    /// Largest sizeMean on a curve (and the top of the validation range).
    pub size_max: u64,
    /// Largest processNum on a curve.
    pub proc_max: u32,
    /// The sweep's other parameters and the first focal guess.
    pub start: Workload,
    pub tolerance: f64,
    /// A region whose throughput spans more than this is split.
    pub span_max: f64,
    pub max_regions: usize,
    pub max_rounds: u32,
    /// Extra sweep points per cliff, each halving the bracket.
    pub bisections: u32,
    /// Rounds of sweep points halfway between neighbours inside a region.
    pub ramp_rounds: u32,
    /// A curve whose focal workload, measured first and last, moved by
    /// more than this fraction is measured again.
    pub drift_tolerance: f64,
    pub quick: bool,
    /// Measure the curves where parameters interact (processNum at the
    /// ends of readFrac; readFrac, seqFrac and processNum with small
    /// requests; the sweep at the ends of readFrac, with a process per CPU
    /// and with large requests).
    pub interactions: bool,
    /// The processNum of the sweep measured again (the CPUs, at least 2).
    pub sweep_procs: u32,
    /// The sizeMean of the sweep measured again (large requests).
    pub sweep_size: u64,
    /// The sizeMean at which each region's readFrac, seqFrac and
    /// processNum curves are measured again (small requests).
    pub small_size: u64,
}

/// The uniqueBytes values of the sweep: `min`, `min·f`, … up to `max`
/// (which ends the sweep when the last step would leave it √f or more
/// away), rounded to `align`.
pub fn sweep_values(p: &Plan) -> Vec<u64> {
    let mut v = Vec::new();
    let mut u = p.min_bytes.max(p.align) as f64;
    let max = p.max_bytes as f64;
    while u <= max * 1.0001 {
        v.push(round_bytes(u, p.align));
        u *= p.sweep_factor;
    }
    if let Some(&last) = v.last()
        && max / last as f64 >= p.sweep_factor.sqrt() * 0.999
    {
        v.push(round_bytes(max, p.align));
    }
    v.dedup();
    v
}

/// The geometric midpoints (rounded as sweep values) of neighbouring sweep
/// points `xy` (uniqueBytes, MB/s; sorted) whose throughputs differ by more
/// than `tol` (relative to the lower), where a midpoint is new.
pub fn steep_midpoints(xy: &[(f64, f64)], tol: f64, align: u64) -> Vec<u64> {
    xy.windows(2)
        .filter(|w| {
            let (a, b) = (w[0].1.min(w[1].1), w[0].1.max(w[1].1));
            a > 0.0 && b / a > 1.0 + tol
        })
        .map(|w| round_bytes((w[0].0 * w[1].0).sqrt(), align))
        .filter(|&u| {
            let (a, b) = (xy[0].0, xy[xy.len() - 1].0);
            let x = u as f64;
            x > a && x < b && !xy.iter().any(|p| p.0 == x)
        })
        .collect()
}

/// Round a uniqueBytes value to 1/64 of its power of two (about 1.5 %),
/// and to a multiple of `align`.
pub fn round_bytes(x: f64, align: u64) -> u64 {
    let step = (2f64.powi(x.max(1.0).log2().floor() as i32 - 6) as u64).max(align.max(1));
    let step = step.div_ceil(align.max(1)) * align.max(1);
    focal::round_to(x, step)
}

/// The name a boundary gets from where it lies.
fn label(model: &Model, cliff: bool, is_last_cliff: bool, u: u64, ratio: f64) -> String {
    let fs = model.environment.fs_type.as_str();
    let memory_fs = matches!(fs, "tmpfs" | "ramfs");
    let fake = crate::engine::Choice::parse(&model.settings.engine).is_ok_and(|e| e.is_fake());
    if !cliff {
        "ramp split".into()
    } else if fake {
        "performance boundary".into()
    } else if model.settings.direct {
        "effective device cache size".into()
    } else if is_last_cliff && !memory_fs && ratio >= 3.0 && u >= 64 << 20 {
        "effective file cache size".into()
    } else if u < 64 << 20 {
        "effective CPU cache size".into()
    } else {
        "performance boundary".into()
    }
}

struct Explorer<'a, O: Oracle> {
    plan: &'a Plan,
    oracle: &'a mut O,
    memo: HashMap<(u64, u64, u64, u64, u32), Point>,
    model: &'a mut Model,
}

impl<O: Oracle> Explorer<'_, O> {
    /// Measure `w`, or with `reuse` take an earlier measurement of it.
    fn get(&mut self, w: &Workload, label: &str, reuse: bool) -> Result<Option<Point>> {
        if reuse && let Some(p) = self.memo.get(&w.key()) {
            return Ok(Some(p.clone()));
        }
        let Some(p) = self.oracle.measure(w, label)? else {
            return Ok(None);
        };
        self.memo.insert(w.key(), p.clone());
        self.model.points.push(p.clone());
        Ok(Some(p))
    }

    fn add_to_sweep(&mut self, p: Point) {
        let u = p.workload.unique_bytes;
        if !self
            .model
            .sweep
            .points
            .iter()
            .any(|q| q.workload.unique_bytes == u)
        {
            self.model.sweep.points.push(p);
            self.model.sweep.sort();
        }
    }

    /// Measure the sweep's workload at uniqueBytes `u` and add it to the
    /// sweep; false when the run was stopped.
    fn sweep_point(&mut self, u: u64, label: &str) -> Result<bool> {
        let w = Param::UniqueBytes.with(&self.plan.start, u as f64);
        let Some(p) = self.get(&w, label, true)? else {
            return Ok(false);
        };
        self.add_to_sweep(p);
        Ok(true)
    }

    fn sweep_xy(&self) -> Vec<(f64, f64)> {
        self.model.sweep.xy()
    }

    /// The sweep points' relative confidence half-widths, in the order of
    /// [`Self::sweep_xy`].
    fn sweep_half_widths(&self) -> Vec<f64> {
        let mut p: Vec<(f64, f64)> = self
            .model
            .sweep
            .points
            .iter()
            .map(|q| (q.workload.unique_bytes as f64, q.rel_half_width))
            .collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        p.into_iter().map(|x| x.1).collect()
    }

    /// Measure `param` over `values` with the others at `fixed`, every
    /// point afresh and one after the other, so that the ratios a
    /// prediction takes from one curve come from measurements close in time
    /// even when the machine's background load drifts. The focal workload
    /// (`fixed` itself) is measured first and again last; the curve's focal
    /// point is the mean of the two. When they differ by more than the
    /// plan's drift tolerance, the machine changed under the curve, and the
    /// curve is measured once more (the second attempt is kept either way).
    fn curve(
        &mut self,
        param: Param,
        fixed: &Workload,
        values: &[f64],
        what: &str,
    ) -> Result<Option<(Curve, [f64; 2])>> {
        let f = param.get(fixed);
        let others: Vec<f64> = values.iter().copied().filter(|&v| v != f).collect();
        let n = others.len() + 2;
        for attempt in 0..2 {
            let again = if attempt == 0 { "" } else { ", again" };
            let label = |i: usize, v: f64| {
                format!(
                    "{what}{again}: {} {} ({i}/{n})",
                    param.name(),
                    param.show(v)
                )
            };
            let Some(first) = self.get(fixed, &label(1, f), false)? else {
                return Ok(None);
            };
            let mut c = Curve::new(param, *fixed);
            for (i, &v) in others.iter().enumerate() {
                let w = param.with(fixed, v);
                let Some(p) = self.get(&w, &label(i + 2, v), false)? else {
                    return Ok(None);
                };
                c.points.push(p);
            }
            let Some(last) = self.get(fixed, &label(n, f), false)? else {
                return Ok(None);
            };
            let (a, b) = (first.mb_per_s, last.mb_per_s);
            let moved = (a - b).abs() / ((a + b) / 2.0).max(1e-12);
            let pair = [first, last];
            c.points.push(combine(&pair).expect("two points"));
            c.sort();
            if moved <= self.plan.drift_tolerance || attempt == 1 {
                if moved > self.plan.drift_tolerance {
                    self.model.notes.push(format!(
                        "{what}: the {} curve was measured twice; its focal workload still moved {:.0} % ({a:.1} → {b:.1} MB/s) while it was measured",
                        param.name(),
                        moved * 100.0
                    ));
                }
                return Ok(Some((c, [a, b])));
            }
            self.model.notes.push(format!(
                "{what}: the focal workload moved {:.0} % ({a:.1} → {b:.1} MB/s) while the {} curve was measured; measuring it again",
                moved * 100.0,
                param.name()
            ));
        }
        unreachable!("the second attempt returns")
    }

    /// The whole exploration: the sweep, its regions and boundaries, each
    /// region's focal vector and curves, and the sweep again across the
    /// interactions. False when the run was stopped.
    fn run(&mut self) -> Result<bool> {
        let plan = self.plan;
        if !self.sweep()? {
            return Ok(false);
        }
        let base: Vec<(f64, f64)> = self.sweep_xy();
        let t: Vec<f64> = base.iter().map(|p| p.1).collect();
        let hw = self.sweep_half_widths();
        let split = regions::detect(&t, &hw, plan.tolerance, plan.span_max, plan.max_regions);
        let Some(bounds) = self.boundaries(&split, &base)? else {
            return Ok(false);
        };
        if !self.ramps(&split, &base)? {
            return Ok(false);
        }
        self.name_boundaries(&split, &t, &bounds);
        let nreg = split.regions.len();
        for (i, span) in split.regions.iter().enumerate() {
            let (lo, hi) = (base[span.first].0 as u64, base[span.last].0 as u64);
            let region = Region {
                number: i + 1,
                lo_bytes: lo,
                hi_bytes: hi,
                level_mb_per_s: regions::median(&t[span.first..=span.last]),
                from_bytes: if i == 0 {
                    plan.min_bytes
                } else {
                    bounds[i - 1].unique_bytes
                },
                to_bytes: if i + 1 == nreg {
                    plan.max_bytes
                } else {
                    bounds[i].unique_bytes
                },
                focal: plan.start,
                focal_point: None,
                focal_repeats: Vec::new(),
                rounds: 0,
                stable: false,
                curves: Vec::new(),
                cross: Vec::new(),
            };
            if !self.region(region, nreg)? {
                return Ok(false);
            }
        }
        Ok(!plan.interactions || self.sweep_across()?)
    }

    /// Phase 1, the uniqueBytes sweep; false when the run was stopped.
    fn sweep(&mut self) -> Result<bool> {
        let values = sweep_values(self.plan);
        for (i, &u) in values.iter().enumerate() {
            let label = format!(
                "uniqueBytes sweep: {} ({}/{})",
                Param::UniqueBytes.show(u as f64),
                i + 1,
                values.len()
            );
            if !self.sweep_point(u, &label)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Phase 2, the boundaries between the regions of `split` (`base` is the
    /// sweep it was found in): where there is a cliff, bisect where the
    /// curve crosses the boundary level, then interpolate the crossing.
    /// None when the run was stopped.
    fn boundaries(
        &mut self,
        split: &regions::Split,
        base: &[(f64, f64)],
    ) -> Result<Option<Vec<Bound>>> {
        let plan = self.plan;
        let mut bounds = Vec::new();
        for (k, pair) in split.regions.windows(2).enumerate() {
            let cliff = split.cliffs[k];
            let (hi, lo) = (base[pair[0].last], base[pair[1].first]);
            if cliff {
                for b in 0..plan.bisections {
                    let xy = self.sweep_xy();
                    let Some((ua, ub)) = regions::bracket_of_crossing(&xy, hi.0, hi.1, lo.0, lo.1)
                    else {
                        break;
                    };
                    let u = round_bytes((ua * ub).sqrt(), plan.align);
                    if u as f64 <= ua || u as f64 >= ub {
                        break;
                    }
                    let label = format!(
                        "boundary {}: uniqueBytes {} (bisection {}/{})",
                        k + 1,
                        Param::UniqueBytes.show(u as f64),
                        b + 1,
                        plan.bisections
                    );
                    if !self.sweep_point(u, &label)? {
                        return Ok(None);
                    }
                }
            }
            let u = if cliff {
                regions::crossing(&self.sweep_xy(), hi.0, hi.1, lo.0, lo.1)
            } else {
                (hi.0 * lo.0).sqrt()
            };
            bounds.push(Bound {
                unique_bytes: round_bytes(u, plan.align),
                cliff,
                transition: [hi.0 as u64, lo.0 as u64],
                upper: hi.1,
                lower: lo.1,
            });
        }
        Ok(Some(bounds))
    }

    /// Phase 2b, inside each region, the sweep again halfway between two
    /// neighbours that differ by more than the tolerance: the ratios are
    /// interpolated between sweep points, and a region past the cache falls
    /// steeply all along (ext4 under a 1 GiB bound: 834 MB/s at 1 GiB, 269
    /// at 2 GiB, and 340 halfway, not the 551 a straight line gives). False
    /// when the run was stopped.
    fn ramps(&mut self, split: &regions::Split, base: &[(f64, f64)]) -> Result<bool> {
        let plan = self.plan;
        for span in &split.regions {
            let (lo, hi) = (base[span.first].0, base[span.last].0);
            for round in 0..plan.ramp_rounds {
                let inside: Vec<(f64, f64)> = self
                    .sweep_xy()
                    .into_iter()
                    .filter(|p| p.0 >= lo && p.0 <= hi)
                    .collect();
                let mids = steep_midpoints(&inside, plan.tolerance, plan.align);
                if mids.is_empty() {
                    break;
                }
                for (j, &u) in mids.iter().enumerate() {
                    let label = format!(
                        "uniqueBytes sweep, inside a region: {} (round {}, {}/{})",
                        Param::UniqueBytes.show(u as f64),
                        round + 1,
                        j + 1,
                        mids.len()
                    );
                    if !self.sweep_point(u, &label)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// The model's boundaries, named from where they lie and from the
    /// levels of the regions either side (`t`: the first sweep's figures).
    fn name_boundaries(&mut self, split: &regions::Split, t: &[f64], bounds: &[Bound]) {
        let last_cliff = bounds.iter().rposition(|b| b.cliff);
        let levels: Vec<f64> = split
            .regions
            .iter()
            .map(|sp| regions::median(&t[sp.first..=sp.last]))
            .collect();
        self.model.boundaries = bounds
            .iter()
            .enumerate()
            .map(|(k, b)| Boundary {
                below: k + 1,
                above: k + 2,
                unique_bytes: b.unique_bytes,
                label: label(
                    self.model,
                    b.cliff,
                    Some(k) == last_cliff,
                    b.unique_bytes,
                    levels[k] / levels[k + 1].max(1e-12),
                ),
                cliff: b.cliff,
                upper_mb_per_s: b.upper,
                lower_mb_per_s: b.lower,
                transition: b.transition,
            })
            .collect();
    }

    /// Phase 3, one region (`r`, its focal vector not yet chosen): the focal
    /// vector and the curves through it, then the curves where parameters
    /// interact. False when the run was stopped.
    fn region(&mut self, r: Region, nreg: usize) -> Result<bool> {
        let plan = self.plan;
        let i = r.number - 1;
        let focal_u = round_bytes(
            ((r.lo_bytes as f64) * (r.hi_bytes as f64)).sqrt(),
            plan.align,
        );
        let grids = Grids {
            sizes: focal::size_grid(plan.align, plan.size_max.min(focal_u / 4), plan.quick)
                .into_iter()
                .map(|s| s as f64)
                .collect(),
            procs: focal::proc_grid(plan.proc_max, plan.quick)
                .into_iter()
                .map(f64::from)
                .collect(),
            fracs: focal::frac_grid(plan.quick),
        };
        let nearest = |v: &[f64], x: f64| {
            v.iter()
                .copied()
                .min_by(|a, b| {
                    (a.log2() - x.log2())
                        .abs()
                        .total_cmp(&(b.log2() - x.log2()).abs())
                })
                .unwrap_or(x)
        };
        let s = nearest(&grids.sizes, plan.start.size_mean as f64);
        let pn = nearest(&grids.procs, plan.start.process_num as f64);
        self.model.regions.push(Region {
            focal: focal_at(focal_u, s, pn),
            ..r
        });
        let idx = self.model.regions.len() - 1;
        let Some(search) = self.focal_search(idx, nreg, &grids, focal_u, s, pn)? else {
            return Ok(false);
        };
        let f = focal_at(focal_u, search.size, search.procs);
        let what = format!("region {}/{nreg}", i + 1);
        let Some(read_curve) = self.curve(Param::ReadFrac, &f, &grids.fracs, &what)? else {
            return Ok(false);
        };
        let Some(seq_curve) = self.curve(Param::SeqFrac, &f, &grids.fracs, &what)? else {
            return Ok(false);
        };
        let curves = [search.size_curve, read_curve, seq_curve, search.proc_curve];
        self.settle(idx, f, curves, search.stable);
        Ok(self.by_readers_and_writers(idx, nreg, &grids.procs)?
            && self.with_small_requests(idx, nreg, &grids.procs)?)
    }

    /// The focal search of region `idx`: the sizeMean curve, then the
    /// processNum curve at the sizeMean it chose, round after round until
    /// processNum stays where it is or the plan's rounds run out. None when
    /// the run was stopped.
    fn focal_search(
        &mut self,
        idx: usize,
        nreg: usize,
        grids: &Grids,
        focal_u: u64,
        mut s: f64,
        mut pn: f64,
    ) -> Result<Option<Search>> {
        let plan = self.plan;
        let number = self.model.regions[idx].number;
        let what = |round: u32| format!("region {number}/{nreg}, round {round}");
        let mut rounds = 0;
        loop {
            rounds += 1;
            let Some(mut size_curve) = self.curve(
                Param::SizeMean,
                &focal_at(focal_u, s, pn),
                &grids.sizes,
                &what(rounds),
            )?
            else {
                return Ok(None);
            };
            let s2 = focal::at_fraction_of_max(&size_curve.0.xy(), FOCAL_FRACTION).unwrap_or(s);
            let Some(proc_curve) = self.curve(
                Param::ProcessNum,
                &focal_at(focal_u, s2, pn),
                &grids.procs,
                &what(rounds),
            )?
            else {
                return Ok(None);
            };
            let p2 = focal::at_fraction_of_max(&proc_curve.0.xy(), FOCAL_FRACTION).unwrap_or(pn);
            let moved = p2 != pn;
            (s, pn) = (s2, p2);
            let r = &mut self.model.regions[idx];
            r.focal = focal_at(focal_u, s, pn);
            r.rounds = rounds;
            if moved && rounds >= plan.max_rounds.max(1) {
                // not settled: measure sizeMean again at the final
                // processNum so that every curve passes through F
                let Some(c) = self.curve(
                    Param::SizeMean,
                    &focal_at(focal_u, s, pn),
                    &grids.sizes,
                    &format!("region {number}/{nreg}, final"),
                )?
                else {
                    return Ok(None);
                };
                size_curve = c;
            }
            if !moved || rounds >= plan.max_rounds.max(1) {
                return Ok(Some(Search {
                    size: s,
                    procs: pn,
                    size_curve,
                    proc_curve,
                    stable: !moved,
                }));
            }
        }
    }

    /// Region `idx`'s focal vector `f`, its four curves and T(F): the mean
    /// of the focal measurements of the four curves (two each), their
    /// confidence interval as its precision.
    fn settle(&mut self, idx: usize, f: Workload, curves: [(Curve, [f64; 2]); 4], stable: bool) {
        // a curve measured at an earlier focal guess (the sizeMean curve
        // when sizeMean moved) holds F once, among its points
        let repeats: Vec<f64> = curves
            .iter()
            .flat_map(|c| {
                if c.0.fixed == f {
                    c.1.to_vec()
                } else {
                    c.0.points
                        .iter()
                        .filter(|q| q.workload == f)
                        .map(|q| q.mb_per_s)
                        .collect()
                }
            })
            .collect();
        let focal_points: Vec<Point> = curves
            .iter()
            .filter_map(|c| c.0.points.iter().find(|q| q.workload == f).cloned())
            .collect();
        let r = &mut self.model.regions[idx];
        r.focal = f;
        r.focal_point = combine(&focal_points).map(|mut p| {
            p.rel_half_width = super::bench::rel_half_width(&repeats).min(9.99);
            p
        });
        r.focal_repeats = repeats;
        r.stable = stable;
        r.curves = curves.into_iter().map(|c| c.0).collect();
        for c in &mut r.curves {
            c.fixed = f;
        }
    }

    /// Where processes and writers interact: region `idx`'s processNum
    /// curve again with only writers and with only readers. Not in a
    /// `--quick` region past the page cache's bound: there the device sets
    /// the pace, each point takes the whole time cap, and what one process
    /// gains from more differs little with the mix (ext4 under 512 MiB at
    /// 1.4 GiB: 1 → 8 processes 1.10× at readFrac 0.5, 0.98× with writers,
    /// 0.98× with readers); without these 8 points `--quick` keeps to its 3
    /// minutes. False when the run was stopped.
    fn by_readers_and_writers(&mut self, idx: usize, nreg: usize, procs: &[f64]) -> Result<bool> {
        let plan = self.plan;
        let r = &self.model.regions[idx];
        let (number, f) = (r.number, r.focal);
        let past_bound = self
            .model
            .settings
            .memory_limit
            .is_some_and(|l| r.lo_bytes >= l);
        if !plan.interactions || procs.len() < 2 || (plan.quick && past_bound) {
            return Ok(true);
        }
        for at in [0.0, 1.0] {
            if at == f.read_frac {
                continue;
            }
            let fixed = Param::ReadFrac.with(&f, at);
            let what = format!("region {number}/{nreg}, readFrac {at}");
            let Some((curve, _)) = self.curve(Param::ProcessNum, &fixed, procs, &what)? else {
                return Ok(false);
            };
            self.model.regions[idx].cross.push(CrossCurve {
                across: Param::ReadFrac,
                at,
                curve,
            });
        }
        Ok(true)
    }

    /// Where the request size changes what costs: small requests pay per
    /// request (a system call, a page-cache lookup), large ones per byte, so
    /// readFrac, seqFrac and processNum act differently on each (ext4's page
    /// cache at 128 MiB: seqFrac 0 → 1 gives 0.9× at 256 KiB and 2.7× at 4
    /// KiB): region `idx`'s three curves again with small requests, when the
    /// focal sizeMean is at least two doublings larger. The fractions on the
    /// full grid in `--quick` too: with small requests their effect is far
    /// from linear (ext4's page cache at 23 MiB, 4 KiB: readFrac 0.5 → 3 666
    /// MB/s, 0.75 → 5 977, 1 → 14 088), and a grid of 0, 0.5 and 1 put
    /// readFrac 0.75 half again too high. False when the run was stopped.
    fn with_small_requests(&mut self, idx: usize, nreg: usize, procs: &[f64]) -> Result<bool> {
        let plan = self.plan;
        let r = &self.model.regions[idx];
        let (number, f) = (r.number, r.focal);
        if !plan.interactions || plan.small_size.saturating_mul(4) > f.size_mean {
            return Ok(true);
        }
        let at = plan.small_size as f64;
        let fixed = Param::SizeMean.with(&f, at);
        let what = format!(
            "region {number}/{nreg}, sizeMean {}",
            Param::SizeMean.show(at)
        );
        let all_fracs = focal::frac_grid(false);
        for (param, values) in [
            (Param::ReadFrac, &all_fracs[..]),
            (Param::SeqFrac, &all_fracs[..]),
            (Param::ProcessNum, procs),
        ] {
            if values.len() < 2 {
                continue;
            }
            let Some((curve, _)) = self.curve(param, &fixed, values, &what)? else {
                return Ok(false);
            };
            self.model.regions[idx].cross.push(CrossCurve {
                across: Param::SizeMean,
                at,
                curve,
            });
        }
        Ok(true)
    }

    /// Phase 4: where the cache holds the data only partly, writes (dirty pages
    /// to write back) and reads fall off at different sizes: the sweep
    /// again with only writers and only readers; and where the CPUs share
    /// their caches, one process and several fall off at different sizes:
    /// the sweep again with a process per CPU. Small requests are limited
    /// by the work per request and large ones by the memory's bandwidth,
    /// which falls as the data leave a cache: the sweep again with large
    /// requests. At the same uniqueBytes (bisections included, so that the
    /// curves' ratios agree wherever the function is separable). False when
    /// the run was stopped.
    fn sweep_across(&mut self) -> Result<bool> {
        let plan = self.plan;
        let values: Vec<u64> = self
            .model
            .sweep
            .points
            .iter()
            .map(|p| p.workload.unique_bytes)
            .collect();
        let others = [
            (Param::ReadFrac, 0.0),
            (Param::ReadFrac, 1.0),
            (Param::ProcessNum, f64::from(plan.sweep_procs)),
            (Param::SizeMean, plan.sweep_size as f64),
        ];
        for (across, at) in others {
            if at == across.get(&plan.start) {
                continue;
            }
            let fixed = across.with(&plan.start, at);
            let mut curve = Curve::new(Param::UniqueBytes, fixed);
            for (i, &u) in values.iter().enumerate() {
                let w = Param::UniqueBytes.with(&fixed, u as f64);
                let label = format!(
                    "uniqueBytes sweep at {} {}: {} ({}/{})",
                    across.name(),
                    across.show(at),
                    Param::UniqueBytes.show(u as f64),
                    i + 1,
                    values.len()
                );
                let Some(p) = self.get(&w, &label, true)? else {
                    return Ok(false);
                };
                curve.points.push(p);
            }
            curve.sort();
            self.model
                .sweep_cross
                .push(CrossCurve { across, at, curve });
        }
        Ok(true)
    }
}

/// A boundary between two neighbouring regions before it is named: where
/// it lies, whether a cliff separates the regions, the sweep points either
/// side and their throughputs.
struct Bound {
    unique_bytes: u64,
    cliff: bool,
    transition: [u64; 2],
    upper: f64,
    lower: f64,
}

/// A region's grids: the sizeMean, processNum and fraction values its
/// curves are measured at.
struct Grids {
    sizes: Vec<f64>,
    procs: Vec<f64>,
    fracs: Vec<f64>,
}

/// What a region's focal search settled: sizeMean and processNum, the two
/// curves it measured (with their focal measurements) and whether
/// processNum stopped moving.
struct Search {
    size: f64,
    procs: f64,
    size_curve: (Curve, [f64; 2]),
    proc_curve: (Curve, [f64; 2]),
    stable: bool,
}

/// A region's focal vector at uniqueBytes `u`, sizeMean `s` and processNum
/// `pn`, the fractions at one half.
fn focal_at(u: u64, s: f64, pn: f64) -> Workload {
    Workload {
        unique_bytes: u,
        size_mean: s as u64,
        read_frac: 0.5,
        seq_frac: 0.5,
        process_num: pn as u32,
    }
}

/// One point from repeated measurements of the same workload: the means,
/// and the 95 % confidence interval of the repeats as the precision.
pub fn combine(pts: &[Point]) -> Option<Point> {
    let first = pts.first()?;
    let n = pts.len() as f64;
    let mean = |f: fn(&Point) -> f64| pts.iter().map(f).sum::<f64>() / n;
    let mbs: Vec<f64> = pts.iter().map(|p| p.mb_per_s).collect();
    Some(Point {
        workload: first.workload,
        mb_per_s: mean(|p| p.mb_per_s),
        iops: mean(|p| p.iops),
        read_mb_per_s: mean(|p| p.read_mb_per_s),
        write_mb_per_s: mean(|p| p.write_mb_per_s),
        mean_request_bytes: mean(|p| p.mean_request_bytes),
        rel_half_width: if pts.len() >= 2 {
            super::bench::rel_half_width(&mbs).min(9.99)
        } else {
            first.rel_half_width
        },
        batches: pts.iter().map(|p| p.batches).sum(),
        seconds: pts.iter().map(|p| p.seconds).sum(),
        converged: pts.iter().all(|p| p.converged),
    })
}

/// Run the whole exploration, filling `model` as it goes (so that an
/// interrupted run leaves a partial model). Returns whether it finished.
pub fn explore<O: Oracle>(plan: &Plan, oracle: &mut O, model: &mut Model) -> Result<bool> {
    let mut e = Explorer {
        plan,
        oracle,
        memo: HashMap::new(),
        model,
    };
    let done = e.run()?;
    e.model.complete = done;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of the selfscale tests, its sweep starting from nothing.
    fn plan() -> Plan {
        let p = crate::selfscale::tests::plan();
        Plan {
            start: Workload {
                unique_bytes: 0,
                ..p.start
            },
            ..p
        }
    }

    #[test]
    fn sweep_values_are_geometric_and_end_at_the_limit() {
        let v = sweep_values(&plan());
        assert_eq!(v.len(), 11);
        assert_eq!(v[0], 1 << 20);
        assert_eq!(v[10], 1 << 30);
        let p = Plan {
            max_bytes: 3 << 30,
            ..plan()
        };
        // 1 GiB·2 = 2 GiB, then 3 GiB is 1.5 > √2 away: added
        assert_eq!(*sweep_values(&p).last().unwrap(), 3 << 30);
        let p = Plan {
            sweep_factor: 4.0,
            ..plan()
        };
        assert_eq!(
            sweep_values(&p),
            [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30]
        );
    }

    #[test]
    fn steep_neighbours_get_a_midpoint() {
        let m = (1u64 << 30) as f64;
        // 834 → 269 MB/s over a doubling: bisected; 1 000 → 900: not
        let xy = [(0.5 * m, 1000.0), (m, 900.0), (2.0 * m, 269.0)];
        let mid = steep_midpoints(&xy, 0.2, 512);
        assert_eq!(mid.len(), 1);
        assert!((mid[0] as f64 / (2f64.sqrt() * m) - 1.0).abs() < 0.016);
        // rising just as steeply counts too; nothing twice
        let xy = [(m, 269.0), (2.0 * m, 834.0)];
        assert_eq!(steep_midpoints(&xy, 0.2, 512).len(), 1);
        let with_mid = [(m, 269.0), (mid[0] as f64, 500.0), (2.0 * m, 834.0)];
        assert_eq!(steep_midpoints(&with_mid, 0.2, 512).len(), 2);
        // neighbours too close to split leave nothing
        let xy = [(1024.0 * 1024.0, 10.0), (1024.0 * 1024.0 + 512.0, 100.0)];
        assert!(steep_midpoints(&xy, 0.2, 512).is_empty());
        assert!(steep_midpoints(&[], 0.2, 512).is_empty());
    }

    #[test]
    fn rounding_keeps_about_one_and_a_half_percent() {
        for x in [1.3e6, 7.7e8, 2.9e9, 12345.0] {
            let r = round_bytes(x, 512) as f64;
            assert!((r / x - 1.0).abs() < 0.016, "{x} → {r}");
            assert_eq!(r as u64 % 512, 0);
        }
    }
}
