//! `gitDiffToRemote`: the working tree against its remote-tracking commit.
