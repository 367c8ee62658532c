//! `iogauge completions` and `iogauge man`: made from the command table.

use crate::common::*;

/// The commands a user sees, from `iogauge --help`'s list.
fn visible_commands() -> Vec<String> {
    let out = iogauge().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // a command's line; wrapped help lines are indented further
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn bash_completion_names_every_visible_command() {
    let out = iogauge().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    let script = String::from_utf8(out.stdout).unwrap();
    let commands = visible_commands();
    assert!(commands.len() > 15, "{commands:?}");
    for c in &commands {
        assert!(script.contains(c.as_str()), "bash completion lacks {c}");
    }
    assert!(!script.contains(" worker "), "the hidden worker is offered");
    // bash reads it without a syntax error
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok()
    {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("iogauge.bash");
        std::fs::write(&f, &script).unwrap();
        let st = std::process::Command::new("bash")
            .arg("-n")
            .arg(&f)
            .status()
            .unwrap();
        assert!(st.success(), "bash -n rejects the script");
    }
}

#[test]
fn fish_and_zsh_completions_are_written() {
    for (shell, mark) in [("fish", "complete -c iogauge"), ("zsh", "#compdef iogauge")] {
        let out = iogauge().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(
            script.contains(mark),
            "{shell}: {}",
            &script[..200.min(script.len())]
        );
        assert!(script.contains("postmark"), "{shell}");
    }
    match std::process::Command::new("fish").arg("--version").output() {
        Ok(_) => {
            let out = iogauge().args(["completions", "fish"]).output().unwrap();
            let dir = tempfile::tempdir().unwrap();
            let f = dir.path().join("iogauge.fish");
            std::fs::write(&f, out.stdout).unwrap();
            let st = std::process::Command::new("fish")
                .arg("-n")
                .arg(&f)
                .status()
                .unwrap();
            assert!(st.success(), "fish -n rejects the script");
        }
        Err(_) => eprintln!("fish is not installed: its script is not loaded, only checked"),
    }
}

#[test]
fn man_pages_have_name_synopsis_and_every_command() {
    let out = iogauge().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.contains(".SH NAME") && page.contains(".SH SYNOPSIS"),
        "{page}"
    );
    for c in visible_commands() {
        assert!(page.contains(&c.replace('-', "\\-")), "the page lacks {c}");
    }
    let out = iogauge().args(["man", "postmark"]).output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains("iogauge\\-postmark"), "{page}");

    let dir = tempfile::tempdir().unwrap();
    let st = iogauge()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(st.status.success());
    assert!(dir.path().join("iogauge.1").is_file());
    assert!(dir.path().join("iogauge-run.1").is_file());
    assert!(!dir.path().join("iogauge-worker.1").exists());
    let n = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(n, 1 + visible_commands().len());
}

#[test]
fn bad_shell_command_or_dir_is_one_line_exit_2() {
    for args in [
        vec!["completions", "tcsh"],
        vec!["man", "nosuch"],
        vec!["man", "--dir", "/nonexistent/dir"],
    ] {
        let out = iogauge().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
