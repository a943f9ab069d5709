//! Tests for shell wrapping and argv joining.

use pretty_assertions::assert_eq;

use super::{join_command, shell_argv};

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|word| (*word).to_owned()).collect()
}

#[test]
fn wraps_in_the_named_shell() {
    assert_eq!(
        shell_argv("echo hi", Some("/bin/zsh"), true),
        strings(&["/bin/zsh", "-lc", "echo hi"])
    );
    assert_eq!(
        shell_argv("echo hi", Some("/bin/sh"), false),
        strings(&["/bin/sh", "-c", "echo hi"])
    );
}

#[test]
fn defaults_to_a_shell() {
    let argv = shell_argv("true", None, false);
    assert_eq!(argv.len(), 3);
    assert!(argv[0].starts_with('/'), "{argv:?}");
    assert_eq!(argv[1..], strings(&["-c", "true"]));
}

#[test]
fn joins_like_the_protocol_shows_commands() {
    let argv = strings(&["/bin/bash", "-c", "for i in 1 2 3; do echo line$i; done"]);
    assert_eq!(
        join_command(&argv),
        "/bin/bash -c 'for i in 1 2 3; do echo line$i; done'"
    );
    assert_eq!(join_command(&strings(&["ls", "-la"])), "ls -la");
    assert_eq!(join_command(&strings(&["echo", "it's"])), r#"echo "it's""#);
    assert_eq!(join_command(&strings(&["a\0b", "c"])), "a\0b c");
}
