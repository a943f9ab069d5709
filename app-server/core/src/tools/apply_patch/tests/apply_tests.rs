//! Adding, deleting and moving files, the summary, and all-or-nothing application.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::{plan, read, run, snapshot, wrap, write};
use crate::tools::apply_patch::apply::FAIL_COMMIT_STEP;
use crate::tools::apply_patch::parser::parse_patch;
use crate::tools::apply_patch::plan::{FileChangeKind, plan_patch};

#[test]
fn add_file_creates_parent_directories() {
    let directory = tempfile::tempdir().unwrap();
    let applied = run(
        directory.path(),
        &wrap("*** Add File: nested/deeper/new.txt\n+ab\n+cd"),
    )
    .unwrap();
    assert_eq!(
        applied.summary(),
        "Success. Updated the following files:\nA nested/deeper/new.txt\n"
    );
    assert_eq!(
        read(directory.path(), "nested/deeper/new.txt").as_deref(),
        Some("ab\ncd\n")
    );
}

#[test]
fn add_file_overwrites_an_existing_file() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "duplicate.txt", "old content\n");
    let applied = run(
        directory.path(),
        &wrap("*** Add File: duplicate.txt\n+new content"),
    )
    .unwrap();
    assert_eq!(
        applied.summary(),
        "Success. Updated the following files:\nA duplicate.txt\n"
    );
    assert_eq!(
        read(directory.path(), "duplicate.txt").as_deref(),
        Some("new content\n")
    );
}

#[test]
fn delete_file_removes_it_and_keeps_others() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "obsolete.txt", "gone\n");
    write(directory.path(), "keep.txt", "keep\n");
    let applied = run(directory.path(), &wrap("*** Delete File: obsolete.txt")).unwrap();
    assert_eq!(
        applied.summary(),
        "Success. Updated the following files:\nD obsolete.txt\n"
    );
    assert_eq!(read(directory.path(), "obsolete.txt"), None);
    assert_eq!(
        read(directory.path(), "keep.txt").as_deref(),
        Some("keep\n")
    );
}

#[test]
fn multiple_operations_are_summarised_by_kind() {
    // Codex scenario 002.
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "delete.txt", "obsolete\n");
    write(directory.path(), "modify.txt", "line1\nline2\n");
    let patch = wrap(
        "*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** Add File: nested/new.txt\n+created",
    );
    let applied = run(directory.path(), &patch).unwrap();
    assert_eq!(
        applied.summary(),
        "Success. Updated the following files:\nA nested/new.txt\nM modify.txt\nD delete.txt\n"
    );
    assert_eq!(
        read(directory.path(), "modify.txt").as_deref(),
        Some("line1\nchanged\n")
    );
    assert_eq!(
        read(directory.path(), "nested/new.txt").as_deref(),
        Some("created\n")
    );
    assert_eq!(read(directory.path(), "delete.txt"), None);
}

#[test]
fn move_to_a_new_directory() {
    // Codex scenario 004.
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "old/name.txt", "old content\n");
    write(directory.path(), "old/other.txt", "unrelated\n");
    let patch = wrap(
        "*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content",
    );
    let applied = run(directory.path(), &patch).unwrap();
    assert_eq!(
        applied.summary(),
        "Success. Updated the following files:\nM renamed/dir/name.txt\n"
    );
    assert_eq!(read(directory.path(), "old/name.txt"), None);
    assert_eq!(
        read(directory.path(), "renamed/dir/name.txt").as_deref(),
        Some("new content\n")
    );
    assert_eq!(
        read(directory.path(), "old/other.txt").as_deref(),
        Some("unrelated\n")
    );
}

#[test]
fn move_overwrites_an_existing_destination() {
    // Codex scenario 010.
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "old/name.txt", "from\n");
    write(directory.path(), "renamed/dir/name.txt", "existing\n");
    let patch =
        wrap("*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new");
    run(directory.path(), &patch).unwrap();
    assert_eq!(read(directory.path(), "old/name.txt"), None);
    assert_eq!(
        read(directory.path(), "renamed/dir/name.txt").as_deref(),
        Some("new\n")
    );
}

#[test]
fn paths_resolve_against_the_cwd_and_absolute_paths_are_kept() {
    let directory = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let absolute = elsewhere.path().join("abs.txt");
    write(directory.path(), "sub/rel.txt", "x\n");
    let patch = wrap(&format!(
        "*** Add File: {}\n+abs\n*** Update File: ./sub/../sub/rel.txt\n*** Move to: sub/moved.txt\n@@\n-x\n+y",
        absolute.display()
    ));
    let plan = plan(directory.path(), &patch).unwrap();
    let planned: Vec<(PathBuf, FileChangeKind)> = plan
        .files()
        .iter()
        .map(|file| (file.path.clone(), file.kind.clone()))
        .collect();
    assert_eq!(
        planned,
        vec![
            (absolute.clone(), FileChangeKind::Add),
            (
                directory.path().join("sub/rel.txt"),
                FileChangeKind::Update {
                    move_path: Some(directory.path().join("sub/moved.txt"))
                }
            ),
        ]
    );
    let applied = plan.apply().unwrap();
    assert_eq!(
        applied.summary(),
        format!(
            "Success. Updated the following files:\nA {}\nM sub/moved.txt\n",
            absolute.display()
        )
    );
    assert_eq!(fs::read_to_string(&absolute).unwrap(), "abs\n");
}

#[test]
fn later_operations_see_earlier_ones_on_the_same_path() {
    let directory = tempfile::tempdir().unwrap();
    let patch = wrap(
        "*** Add File: a.txt\n+one\n+two\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-two\n+TWO\n*** Update File: b.txt\n@@\n-one\n+ONE",
    );
    let applied = run(directory.path(), &patch).unwrap();
    assert_eq!(
        applied.summary(),
        "Success. Updated the following files:\nA a.txt\nM b.txt\nM b.txt\n"
    );
    assert_eq!(read(directory.path(), "a.txt"), None);
    assert_eq!(
        read(directory.path(), "b.txt").as_deref(),
        Some("ONE\nTWO\n")
    );
}

#[test]
fn planning_writes_nothing() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "a.txt", "a\n");
    let before = snapshot(directory.path());
    plan(
        directory.path(),
        &wrap("*** Add File: new/b.txt\n+b\n*** Delete File: a.txt"),
    )
    .unwrap();
    assert_eq!(snapshot(directory.path()), before);
}

#[test]
fn missing_and_unusable_files_are_errors() {
    let directory = tempfile::tempdir().unwrap();
    fs::create_dir(directory.path().join("dir")).unwrap();
    write(directory.path(), "dir/foo.txt", "x\n");
    let cwd = directory.path();
    let missing = cwd.join("missing.txt");
    let cases = [
        (
            "*** Update File: missing.txt\n@@\n-a\n+b",
            format!(
                "failed to read file to update {}: no such file",
                missing.display()
            ),
        ),
        (
            "*** Delete File: missing.txt",
            format!(
                "failed to read file to delete {}: no such file",
                missing.display()
            ),
        ),
        (
            "*** Delete File: dir",
            format!(
                "failed to read file to delete {}: Is a directory (os error 21)",
                cwd.join("dir").display()
            ),
        ),
        (
            "*** Add File: dir\n+x",
            format!(
                "cannot write {}: it exists and is not a regular file",
                cwd.join("dir").display()
            ),
        ),
        (
            "*** Delete File: dir/foo.txt\n*** Delete File: dir/foo.txt",
            format!(
                "failed to read file to delete {}: no such file",
                cwd.join("dir/foo.txt").display()
            ),
        ),
    ];
    let before = snapshot(cwd);
    for (body, expected) in cases {
        assert_eq!(run(cwd, &wrap(body)).err(), Some(expected), "{body}");
    }
    assert_eq!(snapshot(cwd), before);
}

#[test]
fn non_utf8_files_cannot_be_updated() {
    let directory = tempfile::tempdir().unwrap();
    fs::write(directory.path().join("binary.bin"), [0xff, 0xfe, b'\n']).unwrap();
    assert_eq!(
        run(
            directory.path(),
            &wrap("*** Update File: binary.bin\n@@\n-x\n+y")
        )
        .err(),
        Some(format!(
            "failed to read file to update {}: the file is not valid UTF-8",
            directory.path().join("binary.bin").display()
        ))
    );
}

/// The third file fails to match, so the first two (an update and a move) are not written.
#[test]
fn a_failing_file_leaves_the_earlier_files_untouched() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "one.txt", "one\n");
    write(directory.path(), "two.txt", "two\n");
    write(directory.path(), "three.txt", "three\n");
    let before = snapshot(directory.path());
    let patch = wrap(
        "*** Update File: one.txt\n@@\n-one\n+ONE\n*** Update File: two.txt\n*** Move to: moved/two.txt\n@@\n-two\n+TWO\n*** Update File: three.txt\n@@\n-nope\n+NOPE",
    );
    let error = run(directory.path(), &patch).unwrap_err();
    assert!(
        error.starts_with("Failed to find expected lines in "),
        "{error}"
    );
    assert_eq!(snapshot(directory.path()), before);
}

/// A failure after some files were already renamed into place restores all of them, removes
/// created files and directories, and leaves no temporary file behind.
#[test]
fn a_failure_while_committing_rolls_everything_back() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "one.txt", "one\n");
    write(directory.path(), "two.txt", "two\n");
    write(directory.path(), "gone.txt", "gone\n");
    fs::set_permissions(
        directory.path().join("one.txt"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let before = snapshot(directory.path());
    let patch = wrap(
        "*** Update File: one.txt\n@@\n-one\n+ONE\n*** Update File: two.txt\n*** Move to: moved/deep/two.txt\n@@\n-two\n+TWO\n*** Delete File: gone.txt\n*** Add File: new/file.txt\n+new",
    );
    let plan = plan(directory.path(), &patch).unwrap();
    for failing_step in 0..5 {
        FAIL_COMMIT_STEP.set(Some(failing_step));
        let error = plan.apply().unwrap_err().to_string();
        FAIL_COMMIT_STEP.set(None);
        assert!(error.ends_with("injected failure"), "{error}");
        assert_eq!(
            snapshot(directory.path()),
            before,
            "failing at step {failing_step}"
        );
    }
    let mode = fs::metadata(directory.path().join("one.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);

    plan.apply().unwrap();
    assert_eq!(read(directory.path(), "one.txt").as_deref(), Some("ONE\n"));
    assert_eq!(
        read(directory.path(), "moved/deep/two.txt").as_deref(),
        Some("TWO\n")
    );
    assert_eq!(read(directory.path(), "gone.txt"), None);
    assert_eq!(
        read(directory.path(), "new/file.txt").as_deref(),
        Some("new\n")
    );
    // Permissions survive an edit.
    let mode = fs::metadata(directory.path().join("one.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
}

/// A write that fails while staging (here: a name too long for a temporary file) cleans up the
/// temporary files and directories staged for the earlier files.
#[test]
fn a_failure_while_staging_leaves_no_trace() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "one.txt", "one\n");
    let before = snapshot(directory.path());
    let long_name = "x".repeat(250);
    let patch = wrap(&format!(
        "*** Update File: one.txt\n@@\n-one\n+ONE\n*** Add File: staged/dir/a.txt\n+a\n*** Add File: {long_name}\n+b"
    ));
    let error = run(directory.path(), &patch).unwrap_err();
    assert!(error.starts_with("failed to write "), "{error}");
    assert_eq!(snapshot(directory.path()), before);
}

#[test]
fn a_file_changed_after_planning_is_not_overwritten() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "a.txt", "a\n");
    write(directory.path(), "b.txt", "b\n");
    let plan = plan(
        directory.path(),
        &wrap("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"),
    )
    .unwrap();
    write(directory.path(), "b.txt", "edited meanwhile\n");
    assert_eq!(
        plan.apply().map_err(|error| error.to_string()).err(),
        Some(format!(
            "{} changed on disk after the patch was checked; nothing was written",
            directory.path().join("b.txt").display()
        ))
    );
    assert_eq!(read(directory.path(), "a.txt").as_deref(), Some("a\n"));
}

#[test]
fn editing_through_a_symlink_keeps_the_link() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "target.txt", "a\n");
    std::os::unix::fs::symlink("target.txt", directory.path().join("link.txt")).unwrap();
    run(
        directory.path(),
        &wrap("*** Update File: link.txt\n@@\n-a\n+b"),
    )
    .unwrap();
    assert!(
        fs::symlink_metadata(directory.path().join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(directory.path(), "target.txt").as_deref(), Some("b\n"));
}

#[test]
fn an_unchanged_update_writes_nothing_but_is_reported() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "same.txt", "same\n");
    let patch = parse_patch(&wrap("*** Update File: same.txt\n@@\n-same\n+same")).unwrap();
    let plan = plan_patch(&patch, directory.path()).unwrap();
    assert_eq!(
        plan.apply().unwrap().summary(),
        "Success. Updated the following files:\nM same.txt\n"
    );
    assert_eq!(
        read(directory.path(), "same.txt").as_deref(),
        Some("same\n")
    );
}
