//! The model's graphs: which are drawn, under which names and titles, from
//! what of the model (the drawing is `report::plot::workload`'s).

use super::model::{Model, Param, Point, Region};
use super::validate::Case;
use crate::report::plot::workload::{self, Mark, Predicted, Scale, Sweep};
use anyhow::Result;
use std::path::Path;

/// How `p`'s values are drawn along x.
fn scale(p: Param) -> Scale {
    match p {
        Param::UniqueBytes | Param::SizeMean => Scale::Bytes,
        Param::ReadFrac | Param::SeqFrac => Scale::Fraction,
        Param::ProcessNum => Scale::Count,
    }
}

/// The points of a curve of `p`, as drawn.
fn marks(p: Param, points: &[Point]) -> Vec<Mark> {
    points
        .iter()
        .map(|q| Mark {
            x: p.get(&q.workload),
            mb_per_s: q.mb_per_s,
            rel_half_width: q.rel_half_width,
        })
        .collect()
}

/// The model's uniqueBytes sweep, the sweeps across the interactions, the
/// boundaries and the regions' focal points, as drawn.
fn sweep(model: &Model) -> Sweep {
    let f = &model.sweep.fixed;
    let bytes = |u: u64| u as f64;
    Sweep {
        title: format!(
            "uniqueBytes (sizeMean {}, readFrac {}, seqFrac {}, processNum {})",
            Param::SizeMean.show(f.size_mean as f64),
            f.read_frac,
            f.seq_frac,
            f.process_num
        ),
        points: marks(Param::UniqueBytes, &model.sweep.points),
        again: model
            .sweep_cross
            .iter()
            .map(|c| {
                (
                    format!("{} {}", c.across.name(), c.across.show(c.at)),
                    c.curve
                        .points
                        .iter()
                        .map(|q| (bytes(q.workload.unique_bytes), q.mb_per_s))
                        .collect(),
                )
            })
            .collect(),
        boundaries: model
            .boundaries
            .iter()
            .map(|b| {
                let u = bytes(b.unique_bytes);
                (u, format!("{} {}", b.label, Param::UniqueBytes.show(u)))
            })
            .collect(),
        focal: model
            .regions
            .iter()
            .filter_map(|r| {
                Some((
                    bytes(r.focal.unique_bytes),
                    r.focal_point.as_ref()?.mb_per_s,
                ))
            })
            .collect(),
    }
}

/// The points of the scatter of predicted against measured MB/s.
pub fn predicted(cases: &[Case]) -> Vec<Predicted> {
    cases
        .iter()
        .map(|c| Predicted {
            measured: c.measured.mb_per_s,
            predicted: c.predicted_mb_per_s,
            in_transition: c.in_transition,
        })
        .collect()
}

/// The file name of a region's graph of `p`: `region-2-size_mean.svg`.
pub fn curve_file(r: &Region, p: Param) -> String {
    format!("region-{}-{}.svg", r.number, p.key())
}

/// Every graph of the model into `dir`; returns the file names.
pub fn model_graphs(dir: &Path, model: &Model) -> Result<Vec<String>> {
    let mut files = Vec::new();
    if !model.sweep.points.is_empty() {
        workload::sweep_svg(&dir.join("unique_bytes.svg"), &sweep(model))?;
        files.push("unique_bytes.svg".to_string());
    }
    for r in &model.regions {
        for c in &r.curves {
            if c.points.is_empty() {
                continue;
            }
            let name = curve_file(r, c.param);
            let f = &r.focal;
            let others: Vec<String> = Param::ALL
                .iter()
                .filter(|&&p| p != c.param)
                .map(|&p| format!("{} {}", p.name(), p.show(p.get(f))))
                .collect();
            let title = format!("region {}: {}", r.number, others.join(", "));
            workload::curve_svg(
                &dir.join(&name),
                &title,
                c.param.name(),
                scale(c.param),
                &marks(c.param, &c.points),
                c.param.get(f),
            )?;
            files.push(name);
        }
    }
    Ok(files)
}
