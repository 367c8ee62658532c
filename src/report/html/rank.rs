//! Colouring a column of figures by rank, as bon_csv2html colours
//! bonnie++'s table: the best figure of the column green, the worst red,
//! the others between them by their rank (not their value, so that one
//! outlier does not wash the rest of the column into one colour).
//!
//! Equal figures share a rank and a colour. A column with fewer than two
//! distinct figures is not coloured: there is nothing to rank.

/// Which way a figure is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Throughput: higher is better.
    Higher,
    /// Latency, time, CPU: lower is better.
    Lower,
}

/// Each figure's position from best (0.0) to worst (1.0) among the
/// distinct figures of the column; `None` for a missing or non-finite
/// figure, and for all when fewer than two figures differ.
pub fn positions(values: &[Option<f64>], better: Better) -> Vec<Option<f64>> {
    let mut distinct: Vec<f64> = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < 2 {
        return vec![None; values.len()];
    }
    let last = (distinct.len() - 1) as f64;
    values
        .iter()
        .map(|v| {
            let v = (*v).filter(|v| v.is_finite())?;
            let i = distinct.partition_point(|d| *d < v) as f64;
            Some(match better {
                Better::Higher => (last - i) / last,
                Better::Lower => i / last,
            })
        })
        .collect()
}

/// The background colour of a cell at `position` (0 best … 1 worst): a
/// light green through yellow to a light red, dark text legible on all.
pub fn colour(position: f64) -> String {
    let hue = 120.0 * (1.0 - position.clamp(0.0, 1.0));
    format!("hsl({hue:.0}, 70%, 78%)")
}

/// [`positions`] as colours.
pub fn colours(values: &[Option<f64>], better: Better) -> Vec<Option<String>> {
    positions(values, better)
        .into_iter()
        .map(|p| p.map(colour))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_is_green_worst_is_red_by_rank() {
        let v = [Some(10.0), Some(1000.0), Some(20.0), None];
        // higher is better: 1000 best, 10 worst, 20 in the middle by rank
        // (not near the bottom, as its value would put it)
        assert_eq!(
            positions(&v, Better::Higher),
            vec![Some(1.0), Some(0.0), Some(0.5), None]
        );
        assert_eq!(
            colours(&v, Better::Higher),
            vec![
                Some("hsl(0, 70%, 78%)".to_string()),
                Some("hsl(120, 70%, 78%)".to_string()),
                Some("hsl(60, 70%, 78%)".to_string()),
                None
            ]
        );
        // latency: reversed
        assert_eq!(
            positions(&v, Better::Lower),
            vec![Some(0.0), Some(1.0), Some(0.5), None]
        );
    }

    #[test]
    fn ties_share_a_colour_and_lone_figures_none() {
        let v = [Some(5.0), Some(5.0), Some(7.0)];
        assert_eq!(
            positions(&v, Better::Lower),
            vec![Some(0.0), Some(0.0), Some(1.0)]
        );
        assert_eq!(
            positions(&[Some(3.0), Some(3.0)], Better::Higher),
            vec![None, None]
        );
        assert_eq!(
            positions(&[Some(3.0), None], Better::Higher),
            vec![None, None]
        );
        assert_eq!(
            positions(&[Some(f64::NAN), Some(1.0), Some(2.0)], Better::Higher),
            vec![None, Some(1.0), Some(0.0)]
        );
        assert_eq!(positions(&[], Better::Higher), Vec::<Option<f64>>::new());
    }
}
