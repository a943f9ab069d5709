//! The seccomp filter that takes the network away: Codex's list of denied socket calls, with
//! `socket`/`socketpair` still allowed for `AF_UNIX` (local IPC that tools rely on).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use crate::sandbox::SandboxError;

/// Calls that fail with `EPERM` whatever their arguments.
///
/// `sendto` is on the list although `send(2)` on a connected UNIX socket uses it with a NULL
/// address; Codex denies it too, and we keep its list rather than invent a weaker one.
const DENIED_SYSCALLS: &[libc::c_long] = &[
    libc::SYS_connect,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_getpeername,
    libc::SYS_getsockname,
    libc::SYS_shutdown,
    libc::SYS_sendto,
    libc::SYS_sendmmsg,
    libc::SYS_recvmmsg,
    libc::SYS_getsockopt,
    libc::SYS_setsockopt,
    libc::SYS_ptrace,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
];

/// Builds the network-denying filter for the architecture we run on.
pub fn network_filter() -> Result<BpfProgram, SandboxError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = DENIED_SYSCALLS
        .iter()
        .map(|&syscall| (syscall, Vec::new()))
        .collect();
    for syscall in [libc::SYS_socket, libc::SYS_socketpair] {
        let not_unix = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?;
        rules.insert(syscall, vec![SeccompRule::new(vec![not_unix])?]);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    let mut program = BpfProgram::try_from(filter)?;
    if arch == TargetArch::x86_64 {
        deny_x32_syscalls(&mut program);
    }
    Ok(program)
}

/// Installs `program` on this (single) thread. Requires `PR_SET_NO_NEW_PRIVS`.
pub fn install(program: &BpfProgram) -> Result<(), SandboxError> {
    seccompiler::apply_filter(program)?;
    Ok(())
}

/// The x32 ABI reaches the same kernel calls under numbers with bit 30 set and the x86_64
/// audit architecture, so seccompiler's per-number rules would not see an x32 `connect`.
/// Deny every x32 call, right after seccompiler's architecture check.
fn deny_x32_syscalls(program: &mut BpfProgram) {
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    // seccompiler starts with: load arch, jump-if-equal over the next instruction, kill.
    const ARCH_CHECK_LEN: usize = 3;
    let load_nr = sock_filter {
        code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16,
        jt: 0,
        jf: 0,
        k: 0, // offsetof(struct seccomp_data, nr)
    };
    let is_x32 = sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16,
        jt: 0,
        jf: 1,
        k: X32_SYSCALL_BIT,
    };
    let deny = sock_filter {
        code: (libc::BPF_RET | libc::BPF_K) as u16,
        jt: 0,
        jf: 0,
        k: libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
    };
    let at = ARCH_CHECK_LEN.min(program.len());
    program.splice(at..at, [load_nr, is_x32, deny]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_builds_for_this_architecture() {
        let program = network_filter().unwrap();
        // Arch check, x32 check, syscall chains, default action.
        assert!(program.len() > DENIED_SYSCALLS.len());
        if std::env::consts::ARCH == "x86_64" {
            assert_eq!(program[4].k, 0x4000_0000);
            // The rest of the program starts by loading the syscall number again.
            assert_eq!(
                program[6].code,
                (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16
            );
        }
    }
}
