//! `fileChange` changes and the `turn/diff/updated` aggregate, byte for byte against the
//! recorded transcripts (`d_filechange_approval_accept.jsonl`, `d3_filechange_update_delete.jsonl`).

use std::path::Path;

use app_server_protocol::item::{FileUpdateChange, PatchChangeKind};
use pretty_assertions::assert_eq;

use super::{plan, wrap, write};
use crate::tools::apply_patch::diff::{TurnDiffTracker, blob_id};

/// Plans `patch`, tracks it, applies it.
fn apply_tracked(tracker: &mut TurnDiffTracker, cwd: &Path, patch: &str) -> Vec<FileUpdateChange> {
    let plan = plan(cwd, patch).unwrap();
    tracker.track(&plan);
    plan.apply().unwrap();
    plan.changes()
}

#[test]
fn add_matches_the_transcript() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    let changes = apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Add File: patched.txt\n+Hello from apply_patch"),
    );
    assert_eq!(
        changes,
        vec![FileUpdateChange {
            path: cwd.join("patched.txt").display().to_string(),
            kind: PatchChangeKind::Add,
            diff: "Hello from apply_patch\n".to_string(),
        }]
    );
    assert_eq!(
        tracker.unified_diff(),
        "diff --git a/patched.txt b/patched.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..38b65d93eaf930b1e8fd990dc61ba303c204a93c\n--- /dev/null\n+++ b/patched.txt\n@@ -0,0 +1 @@\n+Hello from apply_patch\n"
    );
}

#[test]
fn update_matches_the_transcript() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    write(cwd, "upd.txt", "alpha\nbeta\ngamma\n");
    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    let changes = apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Update File: upd.txt\n@@\n alpha\n-beta\n+BETA\n gamma"),
    );
    assert_eq!(
        changes,
        vec![FileUpdateChange {
            path: cwd.join("upd.txt").display().to_string(),
            kind: PatchChangeKind::Update { move_path: None },
            diff: "@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n".to_string(),
        }]
    );
    assert_eq!(
        tracker.unified_diff(),
        "diff --git a/upd.txt b/upd.txt\nindex 85c30401ce288f253613cb07ee32e62128089caa..e50310a98706747e5f83d131572570985b069064\n--- a/upd.txt\n+++ b/upd.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"
    );
}

#[test]
fn delete_matches_the_transcript() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    write(cwd, "gone.txt", "bye\n");
    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    let changes = apply_tracked(&mut tracker, cwd, &wrap("*** Delete File: gone.txt"));
    assert_eq!(
        changes,
        vec![FileUpdateChange {
            path: cwd.join("gone.txt").display().to_string(),
            kind: PatchChangeKind::Delete,
            diff: "bye\n".to_string(),
        }]
    );
    assert_eq!(
        tracker.unified_diff(),
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex b023018cabc396e7692c70bbf5784a93d3f738ab..0000000000000000000000000000000000000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    );
}

#[test]
fn blob_ids_are_git_blob_ids() {
    // `printf '…' | git hash-object --stdin`.
    assert_eq!(
        blob_id(Some(b"Hello from apply_patch\n")),
        "38b65d93eaf930b1e8fd990dc61ba303c204a93c"
    );
    assert_eq!(
        blob_id(Some(b"")),
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    );
    assert_eq!(blob_id(None), "0000000000000000000000000000000000000000");
}

#[test]
fn update_changes_use_three_lines_of_context_and_absolute_move_paths() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    write(cwd, "src/a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
    let plan = plan(
        cwd,
        &wrap("*** Update File: src/a.txt\n*** Move to: dst/a.txt\n@@\n 4\n-5\n+five\n 6"),
    )
    .unwrap();
    assert_eq!(
        plan.changes(),
        vec![FileUpdateChange {
            path: cwd.join("src/a.txt").display().to_string(),
            kind: PatchChangeKind::Update {
                move_path: Some(cwd.join("dst/a.txt").display().to_string())
            },
            diff: "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n".to_string(),
        }]
    );
}

#[test]
fn the_aggregate_is_relative_to_the_turn_start() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    write(cwd, "b.txt", "one\n");
    write(cwd, "c.txt", "same\n");
    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    assert_eq!(tracker.unified_diff(), "");

    apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Add File: a.txt\n+first\n*** Update File: b.txt\n@@\n-one\n+two"),
    );
    apply_tracked(
        &mut tracker,
        cwd,
        &wrap(
            "*** Update File: a.txt\n@@\n first\n+second\n*** Update File: b.txt\n@@\n-two\n+three",
        ),
    );
    // Changed and changed back: left out.
    apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Update File: c.txt\n@@\n-same\n+other"),
    );
    apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Update File: c.txt\n@@\n-other\n+same"),
    );
    assert_eq!(
        tracker.unified_diff(),
        format!(
            "diff --git a/a.txt b/a.txt\nnew file mode 100644\nindex {ZERO}..{}\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+first\n+second\n\
             diff --git a/b.txt b/b.txt\nindex {}..{}\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+three\n",
            blob_id(Some(b"first\nsecond\n")),
            blob_id(Some(b"one\n")),
            blob_id(Some(b"three\n")),
        )
    );
}

const ZERO: &str = "0000000000000000000000000000000000000000";

#[test]
fn moves_show_as_one_diff_and_pure_renames_as_git_renames() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    write(cwd, "old.txt", "a\nb\n");
    write(cwd, "keep.txt", "k\n");
    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Update File: old.txt\n*** Move to: mid.txt\n@@\n-b\n+B"),
    );
    apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Update File: mid.txt\n*** Move to: new.txt\n@@\n a\n-B\n+BB"),
    );
    assert_eq!(
        tracker.unified_diff(),
        format!(
            "diff --git a/old.txt b/new.txt\nindex {}..{}\n--- a/old.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+BB\n",
            blob_id(Some(b"a\nb\n")),
            blob_id(Some(b"a\nBB\n")),
        )
    );

    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    apply_tracked(
        &mut tracker,
        cwd,
        &wrap("*** Update File: keep.txt\n*** Move to: sub/kept.txt\n@@\n-k\n+k"),
    );
    assert_eq!(
        tracker.unified_diff(),
        "diff --git a/keep.txt b/sub/kept.txt\nsimilarity index 100%\nrename from keep.txt\nrename to sub/kept.txt\n"
    );
}

#[test]
fn paths_outside_the_cwd_are_absolute_and_missing_newlines_are_marked() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path().join("project");
    std::fs::create_dir(&cwd).unwrap();
    let outside = directory.path().join("outside.txt");
    std::fs::write(&outside, "x").unwrap();
    let mut tracker = TurnDiffTracker::new(cwd.clone());
    apply_tracked(
        &mut tracker,
        &cwd,
        &wrap(&format!(
            "*** Update File: {}\n@@\n-x\n+y",
            outside.display()
        )),
    );
    let shown = outside.display();
    assert_eq!(
        tracker.unified_diff(),
        format!(
            "diff --git a/{shown} b/{shown}\nindex {}..{}\n--- a/{shown}\n+++ b/{shown}\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n",
            blob_id(Some(b"x")),
            blob_id(Some(b"y\n")),
        )
    );
}

#[test]
fn binary_files_are_reported_without_hunks() {
    let directory = tempfile::tempdir().unwrap();
    let cwd = directory.path();
    std::fs::write(cwd.join("blob.bin"), [0xff, 0x00, b'\n']).unwrap();
    let mut tracker = TurnDiffTracker::new(cwd.to_path_buf());
    apply_tracked(&mut tracker, cwd, &wrap("*** Delete File: blob.bin"));
    assert_eq!(
        tracker.unified_diff(),
        format!(
            "diff --git a/blob.bin b/blob.bin\ndeleted file mode 100644\nindex {}..{ZERO}\nBinary files a/blob.bin and /dev/null differ\n",
            blob_id(Some(&[0xff, 0x00, b'\n'])),
        )
    );
}
