//! Recognising `apply_patch` run through the shell tool (§2.3 form 3), and leaving every other
//! command to the shell.

use pretty_assertions::assert_eq;

use crate::tools::apply_patch::heredoc::{HeredocPatch, parse_heredoc_invocation};

const PATCH: &str = "*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\n";

fn found(workdir: Option<&str>) -> Option<HeredocPatch> {
    Some(HeredocPatch {
        workdir: workdir.map(str::to_string),
        patch: PATCH.to_string(),
    })
}

#[test]
fn recognises_the_transcript_command() {
    // The `cmd` of the recorded `exec_command` call (model-wire.md §2.3).
    let command = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: patched.txt\n+Hello from apply_patch\n*** End Patch\nEOF\n";
    assert_eq!(
        parse_heredoc_invocation(command),
        Some(HeredocPatch {
            workdir: None,
            patch: "*** Begin Patch\n*** Add File: patched.txt\n+Hello from apply_patch\n*** End Patch\n".to_string(),
        })
    );
}

#[test]
fn recognises_heredocs_with_any_delimiter_and_quoting() {
    let cases = [
        format!("apply_patch <<'EOF'\n{PATCH}EOF"),
        format!("apply_patch <<EOF\n{PATCH}EOF\n"),
        format!("apply_patch <<\"PATCH\"\n{PATCH}PATCH\n"),
        format!("apply_patch << 'END_OF_PATCH'\n{PATCH}END_OF_PATCH\n\n"),
        format!("applypatch <<'PATCH'\n{PATCH}PATCH"),
        format!("  apply_patch <<'EOF'\n{PATCH}EOF  \n"),
        format!(
            "apply_patch <<-EOF\n{}\tEOF\n",
            PATCH
                .lines()
                .map(|line| format!("\t{line}\n"))
                .collect::<String>()
        ),
    ];
    for command in cases {
        assert_eq!(
            parse_heredoc_invocation(&command),
            found(None),
            "{command:?}"
        );
    }
}

#[test]
fn recognises_a_leading_cd() {
    let cases = [
        (
            format!("cd foo && apply_patch <<'EOF'\n{PATCH}EOF\n"),
            "foo",
        ),
        (
            format!("cd 'foo bar' && apply_patch <<'EOF'\n{PATCH}EOF\n"),
            "foo bar",
        ),
        (
            format!("cd \"/abs/dir\" && applypatch <<EOF\n{PATCH}EOF\n"),
            "/abs/dir",
        ),
    ];
    for (command, workdir) in cases {
        assert_eq!(
            parse_heredoc_invocation(&command),
            found(Some(workdir)),
            "{command:?}"
        );
    }
}

#[test]
fn recognises_shell_wrappers() {
    let script = format!("apply_patch <<'EOF'\n{PATCH}EOF\n");
    let quoted = shlex::try_quote(&script).unwrap().into_owned();
    for shell in [
        "bash -lc",
        "bash -c",
        "sh -c",
        "zsh -lc",
        "/bin/bash -lc",
        "/usr/bin/zsh -c",
    ] {
        let command = format!("{shell} {quoted}");
        assert_eq!(
            parse_heredoc_invocation(&command),
            found(None),
            "{command:?}"
        );
    }
    let script = format!("cd src && apply_patch <<'EOF'\n{PATCH}EOF");
    let command = format!("bash -lc {}", shlex::try_quote(&script).unwrap());
    assert_eq!(parse_heredoc_invocation(&command), found(Some("src")));
}

#[test]
fn recognises_the_patch_as_single_argument() {
    let quoted = shlex::try_quote(PATCH).unwrap().into_owned();
    assert_eq!(
        parse_heredoc_invocation(&format!("apply_patch {quoted}")),
        found(None)
    );
    assert_eq!(
        parse_heredoc_invocation(&format!("applypatch \"{PATCH}\"")),
        found(None)
    );
    assert_eq!(
        parse_heredoc_invocation(&format!("cd sub && apply_patch {quoted}")),
        found(Some("sub"))
    );
    let script = format!("apply_patch {quoted}");
    let command = format!("bash -lc {}", shlex::try_quote(&script).unwrap());
    assert_eq!(parse_heredoc_invocation(&command), found(None));
}

#[test]
fn the_body_is_returned_even_when_it_is_not_a_valid_patch() {
    // The engine then reports the parse error to the model instead of running a shell.
    assert_eq!(
        parse_heredoc_invocation("apply_patch <<'EOF'\nnot a patch\nEOF\n"),
        Some(HeredocPatch {
            workdir: None,
            patch: "not a patch\n".to_string()
        })
    );
}

#[test]
fn leaves_other_commands_to_the_shell() {
    let heredoc = format!("<<'EOF'\n{PATCH}EOF\n");
    let commands = [
        "ls -la".to_string(),
        "echo apply_patch".to_string(),
        "echo 'apply_patch <<EOF'".to_string(),
        "apply_patch".to_string(),
        "apply_patch.py <<'EOF'\nx\nEOF\n".to_string(),
        format!("apply_patch.py {heredoc}"),
        format!("python3 apply_patch {heredoc}"),
        format!("echo foo && apply_patch {heredoc}"),
        format!("cd foo; apply_patch {heredoc}"),
        format!("cd foo || apply_patch {heredoc}"),
        format!("cd foo | apply_patch {heredoc}"),
        format!("cd foo bar && apply_patch {heredoc}"),
        format!("cd foo && cd bar && apply_patch {heredoc}"),
        format!("echo foo; cd bar && apply_patch {heredoc}"),
        format!("apply_patch foo {heredoc}"),
        format!("apply_patch {heredoc}echo done\n"),
        format!("apply_patch <<'EOF' && echo done\n{PATCH}EOF\n"),
        format!("apply_patch <<'EOF'\n{PATCH}"),
        "apply_patch <<< 'text'".to_string(),
        "apply_patch one two".to_string(),
        "bash -lc 'echo hi'".to_string(),
        "fish -c 'apply_patch x'".to_string(),
        "bash -x -c 'apply_patch x'".to_string(),
        "bash -lc \"bash -lc 'apply_patch x'\"".to_string(),
        "apply_patch 'unterminated".to_string(),
    ];
    for command in commands {
        assert_eq!(parse_heredoc_invocation(&command), None, "{command:?}");
    }
}
