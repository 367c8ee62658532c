//! `iogauge fio --parse-only`'s report: each job resolved, every option
//! with its value and where it came from.

use super::job::Job;
use super::jobfile::Parsed;
use crate::error::shown;

/// `--parse-only`'s report: a block per job (clones each), its group, and
/// every option with its value and where it came from; then the options
/// left out with --ignore-unsupported.
pub fn parse_report(p: &Parsed) -> String {
    let mut out = String::new();
    for j in &p.jobs {
        out.push_str(&job_block(j));
        out.push('\n');
    }
    if !p.ignored.is_empty() {
        out.push_str("fio options left out (--ignore-unsupported):\n");
        for i in &p.ignored {
            out.push_str(&format!(
                "  {}  [{}]  {}\n",
                shown(&i.option),
                shown(&i.job),
                shown(&i.at.to_string())
            ));
        }
    }
    out.push_str(&format!(
        "{} job{} in {} group{}; parsed only, nothing was run\n",
        p.jobs.len(),
        if p.jobs.len() == 1 { "" } else { "s" },
        p.jobs.last().map_or(0, |j| j.group + 1),
        if p.jobs.last().is_some_and(|j| j.group > 0) {
            "s"
        } else {
            ""
        }
    ));
    out
}

fn job_block(j: &Job) -> String {
    let mut out = format!(
        "[{}] job {} of {}, group {}, from {}\n",
        shown(&j.name),
        j.clone,
        j.numjobs,
        j.group,
        shown(&j.at.to_string())
    );
    let rows = j.values();
    let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let vwidth = rows
        .iter()
        .map(|(_, v)| shown(v).chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    for (name, v) in rows {
        let from = match j.origin.get(name) {
            Some((at, text)) => format!("{} ({})", at, text),
            None => "default".to_string(),
        };
        out.push_str(&format!(
            "  {name:<width$}  {:<vwidth$}  {}\n",
            shown(&v),
            shown(&from)
        ));
    }
    let (names, total) = j.file_names_head(8);
    let more = if total > names.len() {
        format!(" … ({total} files)")
    } else {
        String::new()
    };
    out.push_str(&format!(
        "  {:<width$}  {}{more}\n",
        "files",
        shown(&names.join(" "))
    ));
    out
}
