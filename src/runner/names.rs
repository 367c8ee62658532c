//! Where the names a user gives go, and which paths a run may touch.
//!
//! Every file name that a flag or an input file gives for a file the run
//! writes (IOzone's `-f` and `-F`, IOBENCH's `FILEk`) becomes a path
//! through [`place`], one function with one rule; every path a command
//! reads or writes is checked against the others by [`Paths`] before any
//! work. Both refuse with one line naming the flag or `file:line` and the
//! fix (a [`crate::error::UsageError`] for the caller: exit 2).
//!
//! The rule (docs/measurement.md, "Where files go"):
//!
//! ```text
//!   name              where it goes                    refused when
//!   x, ./x            WORK/x (the run's own directory,  never
//!                     made new and removed at the end)
//!   ../x, a/../x      -                                always: it climbs out of WORK
//!   a/x               -                                always: WORK is new, it holds no a/
//!   /p/x              /p/x, only with the command's     without the option; /p missing;
//!                     option (--allow-outside): made    x there already (a file, a
//!                     with O_EXCL, removed at the end   dangling symlink), unless the
//!                                                       command's --allow-existing
//! ```
//!
//! A run's work directory is new, so nothing in it can be a symbolic link
//! or a file of someone else's; a name outside it is taken only when the
//! user asked for that, and even then never names something that is
//! already there unless a second option says so. The places a run works
//! in that the user names (`--dir`, PostMark's `set location`, an FFSB
//! profile's `location`) are directories that must exist; the run makes
//! its own files inside them and removes only those.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// What a command lets a name do beyond the rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allow {
    /// The command's option that lets an absolute name put a new file
    /// outside the work directory (`--allow-outside`), if it has one, and
    /// whether it was given.
    pub outside: Option<(&'static str, bool)>,
    /// The command's option that lets an absolute name be a file that
    /// exists (`--allow-existing`), if it has one, and whether it was given.
    pub existing: Option<(&'static str, bool)>,
}

impl Allow {
    fn outside(&self) -> bool {
        self.outside.is_some_and(|o| o.1)
    }
}

/// Where a name puts its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A file directly in the run's work directory: its name.
    Work(PathBuf),
    /// A path outside it that the user allowed; `exists` when it names a
    /// regular file that is there already (allowed by the command's
    /// option), to be used and never removed.
    Outside { path: PathBuf, exists: bool },
}

impl Place {
    /// The path of the file, given the work directory.
    pub fn path_in(&self, work: &Path) -> PathBuf {
        match self {
            Place::Work(name) => work.join(name),
            Place::Outside { path, .. } => path.clone(),
        }
    }
}

/// The directory `path` is in: "." for a bare name (whose parent is the
/// empty path, which no system call takes), `path` itself for the root.
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if p.as_os_str().is_empty() => Path::new("."),
        Some(p) => p,
        None if path.as_os_str().is_empty() => Path::new("."),
        None => path,
    }
}

/// Decide where `name` goes; `what` is how messages name it (`-f
/// ../notes.txt`, `ctl:3: FILE0 = a/b`). See the module doc for the rule.
pub fn place(what: &str, name: &Path, allow: Allow) -> Result<Place, String> {
    if name.as_os_str().is_empty() {
        return Err(format!("{what}: the name is empty; name a file"));
    }
    if name.is_absolute() {
        return outside(what, name, allow);
    }
    let mut parts = Vec::new();
    for c in name.components() {
        match c {
            Component::CurDir => {}
            Component::Normal(p) => parts.push(p),
            Component::ParentDir => {
                return Err(format!(
                    "{what}: '..' climbs out of the run's work directory, where a name's file goes; name a file there (no '..'){}",
                    option_hint(allow)
                ));
            }
            Component::RootDir | Component::Prefix(_) => unreachable!("a relative path"),
        }
    }
    match parts.as_slice() {
        [] => Err(format!(
            "{what}: names the work directory itself; name a file in it"
        )),
        [one] if !name.as_os_str().as_encoded_bytes().ends_with(b"/") => {
            Ok(Place::Work(PathBuf::from(one)))
        }
        [_] => Err(format!(
            "{what}: ends with '/', which names a directory; name a file"
        )),
        _ => Err(format!(
            "{what}: a name's file goes in the run's work directory, which is made new and holds no subdirectory; name a file without a directory part (--dir says where the work directory goes){}",
            option_hint(allow)
        )),
    }
}

/// How messages offer the option that takes a name outside the work
/// directory, if the command has one.
fn option_hint(allow: Allow) -> String {
    match allow.outside {
        Some((flag, _)) => format!(", or an absolute path with {flag}"),
        None => String::new(),
    }
}

/// An absolute name: only with the command's option, in a directory that
/// exists, and new unless existing files are allowed too.
fn outside(what: &str, name: &Path, allow: Allow) -> Result<Place, String> {
    if !allow.outside() {
        return Err(match allow.outside {
            Some((flag, _)) => format!(
                "{what}: an absolute name puts the file outside the run's work directory; give a plain file name (it goes in the work directory, which --dir places), or {flag} to create the file at that path"
            ),
            None => format!(
                "{what}: an absolute name puts the file outside the run's work directory; give a plain file name (it goes in the work directory, which --dir places)"
            ),
        });
    }
    let ends_slash = name.as_os_str().as_encoded_bytes().ends_with(b"/");
    let (Some(dir), Some(_), false) = (name.parent(), name.file_name(), ends_slash) else {
        return Err(format!("{what}: names a directory; name a file"));
    };
    if name.components().any(|c| c == Component::ParentDir) {
        return Err(format!(
            "{what}: an absolute name with '..' is ambiguous through symbolic links; write the path without '..'"
        ));
    }
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("{what}: {} is not a directory", dir.display())),
        Err(_) => {
            return Err(format!(
                "{what}: the directory {} does not exist",
                dir.display()
            ));
        }
    }
    let Ok(lm) = std::fs::symlink_metadata(name) else {
        return Ok(Place::Outside {
            path: name.to_path_buf(),
            exists: false,
        });
    };
    let dangling = lm.file_type().is_symlink() && std::fs::metadata(name).is_err();
    let kind = if dangling {
        // writing through it would make its target
        let to = std::fs::read_link(name).unwrap_or_default();
        format!(
            "a dangling symbolic link (to {}, which does not exist)",
            crate::error::shown_path(&to)
        )
    } else if lm.file_type().is_symlink() {
        "a symbolic link".into()
    } else if lm.is_dir() {
        "a directory".into()
    } else if lm.is_file() {
        "a file".into()
    } else {
        "a special file".into()
    };
    let refuse = |fix: String| {
        Err(format!(
            "{what}: {kind} is there already, and iogauge writes only files it creates; {fix}"
        ))
    };
    if dangling {
        return refuse("iogauge makes no file through a link: name the file itself or a path that does not exist".into());
    }
    match allow.existing {
        Some((flag, given)) => {
            if !given {
                return refuse(format!(
                    "name a path that does not exist, or give {flag} to use that file as it is"
                ));
            }
            match std::fs::metadata(name) {
                Ok(m) if m.is_file() => Ok(Place::Outside {
                    path: name.to_path_buf(),
                    exists: true,
                }),
                _ => refuse(format!("{flag} takes only a regular file")),
            }
        }
        None => refuse("remove it or name a path that does not exist".into()),
    }
}

/// Refuse two names that put their files in the same place (`-F a a`).
pub fn distinct<'a>(named: impl IntoIterator<Item = (&'a str, &'a Place)>) -> Result<(), String> {
    // IOBENCH may have 100 000 files: a map, not a scan per name
    let mut seen: std::collections::HashMap<PathBuf, &str> = std::collections::HashMap::new();
    for (what, p) in named {
        let id = match p {
            // the work directory is new: names in it differ by name alone
            Place::Work(n) => Path::new("\0work").join(n),
            Place::Outside { path, .. } => identity(path),
        };
        if let Some(first) = seen.get(&id) {
            return Err(format!(
                "{what}: the same file as {first}; give each its own name"
            ));
        }
        seen.insert(id, what);
    }
    Ok(())
}

/// The path as the file system sees it: absolute, symbolic links resolved
/// as far as the path exists, `.` and `..` taken out after that.
pub fn identity(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) if dir != abs => identity(dir).join(name),
        _ => {
            // `..` or `.` last: resolve lexically
            let mut out = PathBuf::new();
            for c in abs.components() {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c),
                }
            }
            out
        }
    }
}

/// What a path is to a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A file it reads (a profile, a control file, a model).
    Input,
    /// A directory whose files it reads (Andrew's `--tree`): an output
    /// may go there, but not onto one of its files.
    InputTree,
    /// A file it writes (a result, a report, a figure, a data file).
    Output,
    /// A directory it removes, with what is in it, at its end.
    Removed,
}

#[derive(Debug)]
struct Item {
    what: String,
    id: PathBuf,
    /// Device and inode of a file that exists (hard links are one file).
    ino: Option<(u64, u64)>,
    role: Role,
}

/// Every path one command reads or writes, checked together before any
/// work: no two outputs in one place, no output on an input, none inside
/// a directory the run removes.
#[derive(Debug, Default)]
pub struct Paths {
    items: Vec<Item>,
}

impl Paths {
    pub fn new() -> Paths {
        Paths::default()
    }

    fn add(&mut self, role: Role, what: impl Into<String>, p: &Path) {
        if p.as_os_str() == "-" || p.as_os_str().is_empty() {
            return;
        }
        let ino = std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
        self.items.push(Item {
            what: what.into(),
            id: identity(p),
            ino,
            role,
        });
    }

    /// A file the command reads; `what` names it (`the profile x.ffsb`).
    pub fn input(&mut self, what: impl Into<String>, p: &Path) -> &mut Paths {
        self.add(Role::Input, what, p);
        self
    }

    /// A directory whose files the command reads.
    pub fn input_tree(&mut self, what: impl Into<String>, p: &Path) -> &mut Paths {
        self.add(Role::InputTree, what, p);
        self
    }

    /// A file the command writes (`-` is stdout and never collides);
    /// `what` names it (`--json r.json`).
    pub fn output(&mut self, what: impl Into<String>, p: &Path) -> &mut Paths {
        self.add(Role::Output, what, p);
        self
    }

    /// A directory the run removes at its end.
    pub fn removed(&mut self, what: impl Into<String>, p: &Path) -> &mut Paths {
        self.add(Role::Removed, what, p);
        self
    }

    /// The first conflict, as one line.
    pub fn check(&self) -> Result<(), String> {
        let same = |a: &Item, b: &Item| a.id == b.id || (a.ino.is_some() && a.ino == b.ino);
        for (j, b) in self.items.iter().enumerate() {
            if b.role != Role::Output {
                continue;
            }
            for a in &self.items[..j] {
                if a.role == Role::Output && same(a, b) {
                    return Err(format!(
                        "{}: the same file as {}; one would overwrite the other: give each output its own file",
                        b.what, a.what
                    ));
                }
            }
            for a in &self.items {
                let hit = match a.role {
                    Role::Input => same(a, b).then_some("is"),
                    Role::InputTree => {
                        (b.ino.is_some() && b.id.starts_with(&a.id)).then_some("is a file in")
                    }
                    Role::Removed => b.id.starts_with(&a.id).then_some("lies inside"),
                    Role::Output => None,
                };
                if let Some(how) = hit {
                    return Err(match a.role {
                        Role::Removed => format!(
                            "{}: {how} {}, which the run removes at its end; write it elsewhere",
                            b.what, a.what
                        ),
                        _ => format!(
                            "{}: {how} {}, which the run reads; write it elsewhere",
                            b.what, a.what
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bare_names_directory_is_the_working_one() {
        assert_eq!(dir_of(Path::new("f")), Path::new("."));
        assert_eq!(dir_of(Path::new("a/f")), Path::new("a"));
        assert_eq!(dir_of(Path::new("/f")), Path::new("/"));
        assert_eq!(dir_of(Path::new("/")), Path::new("/"));
        assert_eq!(dir_of(Path::new("")), Path::new("."));
    }

    use super::*;

    const NONE: Allow = Allow {
        outside: None,
        existing: None,
    };

    fn with(outside: bool, existing: Option<bool>) -> Allow {
        Allow {
            outside: Some(("--allow-outside", outside)),
            existing: existing.map(|e| ("--allow-existing", e)),
        }
    }

    #[test]
    fn plain_names_go_in_the_work_directory() {
        for (n, want) in [
            ("x", "x"),
            ("./x", "x"),
            ("././x", "x"),
            (".x", ".x"),
            ("x..y", "x..y"),
        ] {
            let p = place("-f", Path::new(n), NONE).unwrap();
            assert_eq!(p, Place::Work(PathBuf::from(want)));
            assert_eq!(p.path_in(Path::new("/w")), Path::new("/w").join(want));
        }
    }

    #[test]
    fn names_that_leave_or_need_a_directory_are_refused_with_the_reason() {
        let e = |n: &str| place(&format!("-f {n}"), Path::new(n), NONE).unwrap_err();
        for n in ["../notes.txt", "..", "a/../../x", "./../x"] {
            let m = e(n);
            assert!(m.starts_with(&format!("-f {n}: '..' climbs out")), "{m}");
        }
        let m = e("a/../x");
        assert!(m.contains("'..' climbs out"), "{m}");
        let m = e("sub/x");
        assert!(m.contains("holds no subdirectory"), "{m}");
        assert!(e("").contains("empty"));
        assert!(e(".").contains("work directory itself"));
        assert!(e("x/").contains("names a directory"));
        let m = e("/etc/passwd");
        assert!(m.contains("absolute name") && !m.contains("--allow"), "{m}");
        // a command with the option names it
        let m = place("-f /tmp/x", Path::new("/tmp/x"), with(false, None)).unwrap_err();
        assert!(m.contains("--allow-outside"), "{m}");
        let m = place("-f ../x", Path::new("../x"), with(false, None)).unwrap_err();
        assert!(
            m.contains("or an absolute path with --allow-outside"),
            "{m}"
        );
    }

    #[test]
    fn outside_names_are_new_files_in_existing_directories() {
        let d = tempfile::tempdir().unwrap();
        let new = d.path().join("new");
        assert_eq!(
            place("-f", &new, with(true, None)).unwrap(),
            Place::Outside {
                path: new.clone(),
                exists: false
            }
        );
        let m = place("-f", &d.path().join("no/x"), with(true, None)).unwrap_err();
        assert!(m.contains("does not exist"), "{m}");
        // what is there already: a file, a directory, symlinks live and dangling
        std::fs::write(d.path().join("file"), b"precious").unwrap();
        std::fs::create_dir(d.path().join("dir")).unwrap();
        std::os::unix::fs::symlink(d.path().join("file"), d.path().join("live")).unwrap();
        std::os::unix::fs::symlink(d.path().join("nothing"), d.path().join("dangling")).unwrap();
        for (n, kind) in [
            ("file", "a file is there"),
            ("dir", "a directory is there"),
            ("live", "a symbolic link is there"),
            ("dangling", "a dangling symbolic link"),
        ] {
            let m = place("-f", &d.path().join(n), with(true, None)).unwrap_err();
            assert!(
                m.contains(kind) && m.contains("writes only files it creates"),
                "{m}"
            );
        }
        assert!(!d.path().join("nothing").exists());
        let m = place("-f", &d.path().join("file"), with(true, Some(false))).unwrap_err();
        assert!(m.contains("--allow-existing"), "{m}");
        assert_eq!(
            place("-f", &d.path().join("file"), with(true, Some(true))).unwrap(),
            Place::Outside {
                path: d.path().join("file"),
                exists: true
            }
        );
        let m = place("-f", &d.path().join("dir"), with(true, Some(true))).unwrap_err();
        assert!(m.contains("only a regular file"), "{m}");
        let m = place("-f", &d.path().join("dir/../x"), with(true, None)).unwrap_err();
        assert!(m.contains("'..'"), "{m}");
    }

    #[test]
    fn the_same_place_twice_is_refused() {
        let a = Place::Work("a".into());
        let b = Place::Work("b".into());
        distinct([("-F a", &a), ("-F b", &b)]).unwrap();
        let m = distinct([("-F a", &a), ("-F b", &b), ("-F ./a", &a)]).unwrap_err();
        assert_eq!(m, "-F ./a: the same file as -F a; give each its own name");
        let d = tempfile::tempdir().unwrap();
        let x = Place::Outside {
            path: d.path().join("x"),
            exists: false,
        };
        let x2 = Place::Outside {
            path: d.path().join(".").join("x"),
            exists: false,
        };
        assert!(distinct([("FILE0", &x), ("FILE1", &x2)]).is_err());
    }

    #[test]
    fn identity_sees_through_links_and_dots() {
        let d = tempfile::tempdir().unwrap();
        let real = identity(d.path());
        std::fs::create_dir(d.path().join("a")).unwrap();
        std::os::unix::fs::symlink(d.path().join("a"), d.path().join("l")).unwrap();
        assert_eq!(identity(&d.path().join("l/new")), real.join("a/new"));
        assert_eq!(identity(&d.path().join("a/../a/new")), real.join("a/new"));
        assert_eq!(identity(&d.path().join("no/such/..")), real.join("no"));
    }

    #[test]
    fn outputs_collide_with_outputs_inputs_and_removed_directories() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path().join("r");
        let m = Paths::new()
            .output("--json r", &r)
            .output("--csv ./r", &d.path().join("./r"))
            .check()
            .unwrap_err();
        assert!(m.starts_with("--csv ./r: the same file as --json r"), "{m}");
        Paths::new()
            .output("--json -", Path::new("-"))
            .output("--csv -", Path::new("-"))
            .output("--json r", &r)
            .check()
            .unwrap();
        std::fs::write(d.path().join("ctl"), b"x").unwrap();
        std::fs::hard_link(d.path().join("ctl"), d.path().join("hard")).unwrap();
        let m = Paths::new()
            .input("the control file ctl", &d.path().join("ctl"))
            .output("-o hard", &d.path().join("hard"))
            .check()
            .unwrap_err();
        assert!(
            m.starts_with("-o hard: is the control file ctl, which the run reads"),
            "{m}"
        );
        let m = Paths::new()
            .removed("LOC/data", &d.path().join("data"))
            .output("--json LOC/data/r", &d.path().join("data/r"))
            .check()
            .unwrap_err();
        assert!(
            m.contains("lies inside LOC/data, which the run removes"),
            "{m}"
        );
        // a new file in a tree the run reads is fine; one of its files is not
        Paths::new()
            .input_tree("--tree T", d.path())
            .output("--json T/r", &r)
            .check()
            .unwrap();
        let m = Paths::new()
            .input_tree("--tree T", d.path())
            .output("--json T/ctl", &d.path().join("ctl"))
            .check()
            .unwrap_err();
        assert!(
            m.contains("is a file in --tree T, which the run reads"),
            "{m}"
        );
        // inputs may coincide with each other
        Paths::new()
            .input("a", &r)
            .input("b", &r)
            .output("c", &d.path().join("c"))
            .check()
            .unwrap();
    }
}
