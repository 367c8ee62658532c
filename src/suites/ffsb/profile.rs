//! What an FFSB 6.0 profile says, after parsing: the global options, the
//! file systems (each with its optional aging thread group), the thread
//! groups (each with its optional `[stats]`). [`super::parse`] builds it
//! from a profile file; the run, the report and the JSON read it.
//!
//! Sizes are bytes; times are as the profile gives them (seconds for
//! `time`, milliseconds for `op_delay` and `msec_range`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The fifteen operations, in FFSB's table order (the order in which the
/// weights are walked when an operation is chosen, and the order of the
/// report's lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Read,
    ReadAll,
    Write,
    Create,
    Append,
    Delete,
    MetaOp,
    CreateDir,
    Stat,
    WriteAll,
    WriteAllFsync,
    OpenClose,
    WriteFsync,
    CreateFsync,
    AppendFsync,
}

impl Op {
    pub const ALL: [Op; 15] = [
        Op::Read,
        Op::ReadAll,
        Op::Write,
        Op::Create,
        Op::Append,
        Op::Delete,
        Op::MetaOp,
        Op::CreateDir,
        Op::Stat,
        Op::WriteAll,
        Op::WriteAllFsync,
        Op::OpenClose,
        Op::WriteFsync,
        Op::CreateFsync,
        Op::AppendFsync,
    ];

    /// FFSB's name of the operation (the report's "Op Name"; the profile's
    /// weight is `<name>_weight`).
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::ReadAll => "readall",
            Op::Write => "write",
            Op::Create => "create",
            Op::Append => "append",
            Op::Delete => "delete",
            Op::MetaOp => "metaop",
            Op::CreateDir => "createdir",
            Op::Stat => "stat",
            Op::WriteAll => "writeall",
            Op::WriteAllFsync => "writeall_fsync",
            Op::OpenClose => "open_close",
            Op::WriteFsync => "write_fsync",
            Op::CreateFsync => "create_fsync",
            Op::AppendFsync => "append_fsync",
        }
    }

    /// Its index in [`Op::ALL`] (and in [`ThreadGroup::weights`]).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether the operation moves data, so the report gives a
    /// throughput (else `NA`).
    pub fn moves_data(self) -> bool {
        !matches!(
            self,
            Op::Delete | Op::MetaOp | Op::CreateDir | Op::Stat | Op::OpenClose
        )
    }

    /// The operations aging redirects to the fill set: create, append,
    /// delete and their fsync forms.
    pub fn ages(self) -> bool {
        matches!(
            self,
            Op::Create | Op::Append | Op::Delete | Op::CreateFsync | Op::AppendFsync
        )
    }
}

/// The system calls `[stats]` times, in FFSB's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Syscall {
    Open,
    Read,
    Write,
    Create,
    Lseek,
    Unlink,
    Close,
    Stat,
}

impl Syscall {
    pub const ALL: [Syscall; 8] = [
        Syscall::Open,
        Syscall::Read,
        Syscall::Write,
        Syscall::Create,
        Syscall::Lseek,
        Syscall::Unlink,
        Syscall::Close,
        Syscall::Stat,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Syscall::Open => "open",
            Syscall::Read => "read",
            Syscall::Write => "write",
            Syscall::Create => "create",
            Syscall::Lseek => "lseek",
            Syscall::Unlink => "unlink",
            Syscall::Close => "close",
            Syscall::Stat => "stat",
        }
    }
}

/// The whole profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The file it was read from (for messages).
    pub source: PathBuf,
    /// `time`: seconds the thread groups run; 0 = only build the file sets.
    pub time: u32,
    /// `directio`: O_DIRECT on every benchmark open (implies `alignio`).
    pub directio: bool,
    /// `alignio`: random offsets aligned to 4 KiB.
    pub alignio: bool,
    /// `bufferio`: accepted; FFSB never implemented it (nor does iogauge).
    pub bufferio: bool,
    /// `verbose`: accepted, without effect (as in FFSB).
    pub verbose: bool,
    /// `callout`: a shell command run and waited for before the run.
    pub callout: Option<String>,
    pub filesystems: Vec<FileSystem>,
    pub threadgroups: Vec<ThreadGroup>,
    /// FFSB's warnings for deprecated options, in order, each as FFSB
    /// prints it (`WARNING: The "num_filesystems" option is deprecated!!!`).
    pub warnings: Vec<String>,
}

/// One `[filesystem] … [end]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileSystem {
    /// Line of its `[filesystem]` header.
    pub line: usize,
    /// `location`: the directory holding `data/` and `meta/`.
    pub location: PathBuf,
    /// The run makes the location (`DIR/fs<i>` of `--location DIR` with
    /// several file systems); any other location must exist.
    #[serde(skip)]
    pub run_makes_location: bool,
    /// `num_files`: files created before the run.
    pub num_files: u32,
    /// `num_dirs`: `data/datadir<i>` subdirectories.
    pub num_dirs: u32,
    pub min_filesize: u64,
    pub max_filesize: u64,
    /// `size_weight SIZE WEIGHT` pairs, in the order declared; when there
    /// are any, sizes are drawn from them instead of min..max.
    pub size_weights: Vec<(u64, u32)>,
    /// `init_size`: create files until this many bytes are written (0: off).
    pub init_size: u64,
    /// `init_util`: create files until the file system is this full
    /// (a fraction; 0: off).
    pub init_util: f64,
    /// `create_blocksize` (4096): write size of the initial files.
    pub create_blocksize: u32,
    /// `age_blocksize` (4096): write size of the fill files.
    pub age_blocksize: u32,
    /// `reuse`: keep a matching file set from an earlier run.
    pub reuse: bool,
    /// `agefs`: age the file system with [`FileSystem::age_group`] first.
    pub agefs: bool,
    /// `desired_util`: aging stops once the file system is this full, a
    /// fraction of its blocks (0.02 = 2 %).
    pub desired_util: f64,
    /// The `[threadgroup]` nested in the file system: the aging mix.
    pub age_group: Option<ThreadGroup>,
    /// `clone=<location>`: the settings were copied from that file
    /// system (already applied; kept for the report).
    pub clone_of: Option<PathBuf>,
}

/// One `[threadgroup] … [end]`. Its default is FFSB's values before a
/// profile sets anything: every option 0, no `bindfs`, no `[stats]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadGroup {
    /// Line of its `[threadgroup]` header.
    pub line: usize,
    pub num_threads: u32,
    /// `bindfs=<location>`: only that file system.
    pub bindfs: Option<PathBuf>,
    /// `<op>_weight`, indexed by [`Op::index`].
    pub weights: [u32; 15],
    pub read_random: bool,
    pub read_skip: bool,
    pub read_size: u64,
    pub read_blocksize: u32,
    pub read_skipsize: u32,
    pub write_random: bool,
    pub write_size: u64,
    pub write_blocksize: u32,
    /// `fsync_file`: deprecated and ignored (the `*_fsync` weights say it).
    pub fsync_file: bool,
    /// `op_delay`: milliseconds slept after each operation.
    pub op_delay_ms: u32,
    pub stats: Option<Stats>,
}

impl ThreadGroup {
    /// The weight of `op`.
    pub fn weight(&self, op: Op) -> u32 {
        self.weights[op.index()]
    }

    /// The sum of the weights.
    pub fn total_weight(&self) -> u64 {
        self.weights.iter().map(|w| u64::from(*w)).sum()
    }
}

/// One `[stats] … [end]`; by default statistics off, no ranges.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub enable_stats: bool,
    pub enable_range: bool,
    /// `ignore=<syscall>`: calls not timed.
    pub ignore: Vec<Syscall>,
    /// `msec_range A B` buckets in milliseconds, in the order declared.
    pub ranges_ms: Vec<(f64, f64)>,
}

/// FFSB's values before a profile sets anything (`parser.c` reads every
/// missing option as 0; the block sizes default to 4096, `ffsb_fs.h`).
impl Default for FileSystem {
    fn default() -> FileSystem {
        FileSystem {
            line: 0,
            location: PathBuf::new(),
            run_makes_location: false,
            num_files: 0,
            num_dirs: 0,
            min_filesize: 0,
            max_filesize: 0,
            size_weights: Vec::new(),
            init_size: 0,
            init_util: 0.0,
            create_blocksize: 4096,
            age_blocksize: 4096,
            reuse: false,
            agefs: false,
            desired_util: 0.0,
            age_group: None,
            clone_of: None,
        }
    }
}

impl Profile {
    /// Moves every file system under `dir` (the CLI's `--location DIR`):
    /// with one file system its location becomes `dir`; with several, the
    /// i-th (in profile order) becomes `dir/fs<i>`. `bindfs` and `clone_of`
    /// references, which name locations, follow the same mapping.
    pub fn relocate(&mut self, dir: &Path) {
        let moves: Vec<(PathBuf, PathBuf)> = if self.filesystems.len() == 1 {
            vec![(self.filesystems[0].location.clone(), dir.to_path_buf())]
        } else {
            self.filesystems
                .iter()
                .enumerate()
                .map(|(i, fs)| (fs.location.clone(), dir.join(format!("fs{i}"))))
                .collect()
        };
        let several = self.filesystems.len() > 1;
        self.moved(&moves, several);
    }

    /// Moves every file system into `sub` of its location, which the run
    /// makes and removes: an MPI rank's own file sets, apart from the
    /// other ranks' in the same locations.
    pub fn per_rank(&mut self, sub: &str) {
        let moves: Vec<(PathBuf, PathBuf)> = self
            .filesystems
            .iter()
            .map(|fs| (fs.location.clone(), fs.location.join(sub)))
            .collect();
        self.moved(&moves, true);
    }

    /// Each file system's location, and the references to it, moved as
    /// `moves` (old, new) say, in profile order.
    fn moved(&mut self, moves: &[(PathBuf, PathBuf)], makes: bool) {
        let map = |p: &mut PathBuf| {
            if let Some((_, new)) = moves.iter().find(|(old, _)| old == p) {
                *p = new.clone();
            }
        };
        let map_group = |tg: &mut ThreadGroup| {
            if let Some(b) = tg.bindfs.as_mut() {
                map(b);
            }
        };
        for (fs, (_, new)) in self.filesystems.iter_mut().zip(moves) {
            fs.location = new.clone();
            fs.run_makes_location = makes;
            if let Some(c) = fs.clone_of.as_mut() {
                map(c);
            }
            if let Some(tg) = fs.age_group.as_mut() {
                map_group(tg);
            }
        }
        for tg in &mut self.threadgroups {
            map_group(tg);
        }
    }
}
