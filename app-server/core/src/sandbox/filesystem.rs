//! The Landlock ruleset: read and execute below the readable paths (everything, unless paths
//! are hidden and no mount namespace could hide them), write only below the granted paths.

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, path_beneath_rules,
};

use crate::sandbox::SandboxError;

/// The newest ABI whose file-system rights we ask for (V5 adds device ioctls); older kernels
/// get what they support (`CompatLevel::BestEffort`), and no support at all is an error.
const FILESYSTEM_ABI: ABI = ABI::V5;

/// The network rights (TCP bind and connect, ABI V4) we deny when the network is off, on top
/// of the seccomp filter.
const NETWORK_ABI: ABI = ABI::V4;

/// What the ruleset allows.
pub struct FilesystemRules {
    /// Directories (or files) the process may read and execute below: `/`, or the split of
    /// `/` that leaves out the hidden paths.
    pub readable: Vec<PathBuf>,
    /// Directories (or files) the process may write below, with every right.
    pub writable: Vec<PathBuf>,
    /// Whether TCP bind and connect stay allowed.
    pub network_access: bool,
}

/// Applies the ruleset to this process (and everything it execs). Fails rather than leaving
/// the process unconfined when the kernel enforces nothing.
pub fn restrict(rules: &FilesystemRules) -> Result<RulesetStatus, SandboxError> {
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(FILESYSTEM_ABI))?;
    let ruleset = if rules.network_access {
        ruleset
    } else {
        ruleset.handle_access(AccessNet::from_all(NETWORK_ABI))?
    };
    let status = ruleset
        .create()?
        .add_rules(path_beneath_rules(
            &rules.readable,
            AccessFs::from_read(FILESYSTEM_ABI),
        ))?
        .add_rules(path_beneath_rules(
            &rules.writable,
            AccessFs::from_all(FILESYSTEM_ABI),
        ))?
        .add_rules(path_beneath_rules(
            crate::sandbox::plan::WRITABLE_DEVICES,
            AccessFs::from_all(FILESYSTEM_ABI),
        ))?
        .restrict_self()?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(SandboxError::Unsupported(
            "the kernel does not enforce landlock (it is missing or disabled at boot)".to_string(),
        ));
    }
    Ok(status.ruleset)
}

/// Whether the kernel can enforce Landlock at all, checked without restricting this process.
pub fn probe() -> Result<(), SandboxError> {
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|ruleset| ruleset.create());
    match created {
        Ok(_) => Ok(()),
        Err(error) => Err(SandboxError::Unsupported(format!(
            "the kernel does not support landlock ({error}); commands cannot be confined"
        ))),
    }
}
