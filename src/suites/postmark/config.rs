//! PostMark 1.53's configuration: the variables its `set` commands change,
//! with 1.53's defaults, and the text of its `show` command.
//!
//! Values are C `int`s in PostMark; they are kept as `i32` here so that what
//! the command parser accepts (see `command.rs`) is stored unchanged.

use serde::{Deserialize, Serialize};

use crate::suites::postmark::report::scale;

/// `set report verbose|terse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportFormat {
    /// The multi-line report (1.53's default).
    #[default]
    Verbose,
    /// One line of space-separated rates.
    Terse,
}

impl ReportFormat {
    /// The word `set report` takes and `show` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportFormat::Verbose => "verbose",
            ReportFormat::Terse => "terse",
        }
    }
}

/// One entry of `set location`: a directory and its weight (> 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// Directory as typed (PostMark joins it with `/` and the file name).
    pub path: String,
    /// How many times the directory appears in the weighted index.
    pub weight: i32,
}

/// Everything `set` can change, as PostMark 1.53 keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// `set size L [H]`: smallest file size (bytes). Default 500.
    pub size_low: i32,
    /// `set size L [H]`: size bound (bytes); created files are in [L, H),
    /// appends stop at H. Default 10000.
    pub size_high: i32,
    /// `set number N`: files created before the transactions. Default 500.
    pub number: i32,
    /// `set seed N`: seed given to `sgenrand` at the start of every run. Default 42.
    pub seed: i32,
    /// `set transactions N`. Default 500.
    pub transactions: i32,
    /// `set location`: working directories in list order (empty = cwd).
    pub locations: Vec<Location>,
    /// `set subdirectories N`: 0 by default; used only when > 1.
    pub subdirectories: i32,
    /// `set read N`: read block size. Default 512.
    pub read_block: i32,
    /// `set write N`: write block size. Default 512.
    pub write_block: i32,
    /// `set buffering true|false`: stdio (true, default) or raw system calls.
    pub buffered: bool,
    /// `set bias read N`: chance in 10 of read over append; -1 disables both. Default 5.
    pub bias_read: i32,
    /// `set bias create N`: chance in 10 of create over delete; -1 disables both. Default 5.
    pub bias_create: i32,
    /// `set report verbose|terse`. Default verbose.
    pub report: ReportFormat,
}

impl Default for Config {
    /// PostMark 1.53's initial values (the globals at the top of postmark-1.53.c).
    fn default() -> Self {
        Config {
            size_low: 500,
            size_high: 10000,
            number: 500,
            seed: 42,
            transactions: 500,
            locations: Vec::new(),
            subdirectories: 0,
            read_block: 512,
            write_block: 512,
            buffered: true,
            bias_read: 5,
            bias_create: 5,
            report: ReportFormat::Verbose,
        }
    }
}

/// The text of `show`, split the way 1.53 writes it: `show FILE` appends
/// `to_target` to FILE, but the per-location lines are printed with `printf`,
/// so they always go to stdout (at the place marked by `locations_at`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShowText {
    /// What goes to the `show` target (stdout, or the file).
    pub to_target: String,
    /// The `\t<path> (weight=<w>)` lines, always on stdout.
    pub locations: String,
    /// Byte offset in `to_target` after which 1.53 prints `locations`.
    pub locations_at: usize,
}

impl ShowText {
    /// Everything in the order a terminal shows it when the target is stdout.
    pub fn combined(&self) -> String {
        let mut s = String::with_capacity(self.to_target.len() + self.locations.len());
        s.push_str(&self.to_target[..self.locations_at]);
        s.push_str(&self.locations);
        s.push_str(&self.to_target[self.locations_at..]);
        s
    }
}

impl Config {
    /// The output of `show`, in 1.53's layout. `cwd` is what `getwd()`
    /// returns; 1.53 prints it only when no location is set.
    pub fn show(&self, cwd: &str) -> ShowText {
        let mut t = String::new();
        t.push_str("Current configuration is:\n");
        t.push_str(&format!("The base number of files is {}\n", self.number));
        t.push_str(&format!("Transactions: {}\n", self.transactions));
        if self.size_low != self.size_high {
            t.push_str(&format!(
                "Files range between {} and {} in size\n",
                scale(self.size_low),
                scale(self.size_high)
            ));
        } else {
            t.push_str(&format!("Files are {} in size\n", scale(self.size_low)));
        }
        t.push_str(&format!(
            "Working director{}: {}\n",
            if self.locations.len() > 1 { "ies" } else { "y" },
            if self.locations.is_empty() { cwd } else { "" }
        ));
        let locations_at = t.len();
        let locations: String = self
            .locations
            .iter()
            .map(|l| format!("\t{} (weight={})\n", l.path, l.weight))
            .collect();
        if self.subdirectories > 0 {
            t.push_str(&format!(
                "{} subdirector{} will be used\n",
                self.subdirectories,
                if self.subdirectories == 1 { "y" } else { "ies" }
            ));
        }
        t.push_str(&format!(
            "Block sizes are: read={}, write={}\n",
            scale(self.read_block),
            scale(self.write_block)
        ));
        t.push_str(&format!(
            "Biases are: read/append={}, create/delete={}\n",
            self.bias_read, self.bias_create
        ));
        t.push_str(if self.buffered {
            "Using Unix buffered file I/O\n"
        } else {
            "Not using Unix buffered file I/O\n"
        });
        t.push_str(&format!("Random number generator seed is {}\n", self.seed));
        t.push_str(&format!("Report format is {}.\n", self.report.as_str()));
        ShowText {
            to_target: t,
            locations,
            locations_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_1_53s() {
        let c = Config::default();
        assert_eq!((c.size_low, c.size_high), (500, 10000));
        assert_eq!((c.number, c.seed, c.transactions), (500, 42, 500));
        assert!(c.locations.is_empty());
        assert_eq!(c.subdirectories, 0);
        assert_eq!((c.read_block, c.write_block), (512, 512));
        assert!(c.buffered);
        assert_eq!((c.bias_read, c.bias_create), (5, 5));
        assert_eq!(c.report, ReportFormat::Verbose);
    }

    #[test]
    fn show_defaults_matches_postmark() {
        // Output of `show` in Debian's postmark 1.53-2+b1, run in /tmp/pm-run.
        let expected = "Current configuration is:\n\
            The base number of files is 500\n\
            Transactions: 500\n\
            Files range between 500 bytes and 9.77 kilobytes in size\n\
            Working directory: /tmp/pm-run\n\
            Block sizes are: read=512 bytes, write=512 bytes\n\
            Biases are: read/append=5, create/delete=5\n\
            Using Unix buffered file I/O\n\
            Random number generator seed is 42\n\
            Report format is verbose.\n";
        let s = Config::default().show("/tmp/pm-run");
        assert_eq!(s.combined(), expected);
        assert!(s.locations.is_empty());
    }

    #[test]
    fn show_with_locations_splits_the_stdout_only_lines() {
        let c = Config {
            size_low: 4096,
            size_high: 4096,
            subdirectories: 1,
            buffered: false,
            report: ReportFormat::Terse,
            read_block: 2 * 1048576,
            locations: vec![
                Location {
                    path: "/a".into(),
                    weight: 1,
                },
                Location {
                    path: "/b".into(),
                    weight: 3,
                },
            ],
            ..Config::default()
        };
        let s = c.show("/ignored");
        assert_eq!(s.locations, "\t/a (weight=1)\n\t/b (weight=3)\n");
        assert_eq!(
            s.combined(),
            "Current configuration is:\n\
             The base number of files is 500\n\
             Transactions: 500\n\
             Files are 4.00 kilobytes in size\n\
             Working directories: \n\
             \t/a (weight=1)\n\
             \t/b (weight=3)\n\
             1 subdirectory will be used\n\
             Block sizes are: read=2.00 megabytes, write=512 bytes\n\
             Biases are: read/append=5, create/delete=5\n\
             Not using Unix buffered file I/O\n\
             Random number generator seed is 42\n\
             Report format is terse.\n"
        );
        assert!(!s.to_target.contains("weight="));
        assert!(s.to_target[..s.locations_at].ends_with("Working directories: \n"));
    }

    #[test]
    fn report_format_words() {
        assert_eq!(ReportFormat::Terse.as_str(), "terse");
        assert_eq!(ReportFormat::default().as_str(), "verbose");
    }
}
