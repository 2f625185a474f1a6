/* sandbox-seccomp.c - a hand-written seccomp filter: no setuid files, no xattrs */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * As Nix's filter (doc/security.md item 19, NIX-2017-0002): chmod, fchmod,
 * fchmodat and fchmodat2 with S_ISUID or S_ISGID in the mode fail with
 * EPERM, and setting extended attributes (file capabilities, ACLs) fails
 * with ENOTSUP. The store is mounted nosuid inside anyway, and outputs are
 * canonicalised afterwards; this keeps such files from ever existing.
 * The compat architecture's system calls (i386 on x86_64, arm on aarch64)
 * are filtered by their own numbers; x32 system calls (x86_64's numbers
 * with __X32_SYSCALL_BIT) are all refused with ENOSYS, and a call of any
 * other architecture kills the process.
 *
 * io_uring_setup, io_uring_enter and io_uring_register fail with ENOSYS:
 * io_uring's operations (IORING_OP_OPENAT, IORING_OP_SETXATTR...) are made
 * by the kernel without system calls, past this filter. Programs fall
 * back to the classic calls.
 */

struct sc_rule {
	unsigned nr;
	signed char mode_arg;   /* index of the mode argument; -1: refuse */
	signed char flags_arg;  /* open flags: the mode counts with O_CREAT */
	unsigned short refuse;  /* errno when mode_arg is -1 */
	signed char eq_arg;     /* refuse only when this argument is value */
	unsigned value;
};

/* __X32_SYSCALL_BIT: x32's calls are x86_64's numbers with it (or above). */
#define X32 0x40000000U
/* O_TMPFILE without O_DIRECTORY, which it includes. */
#define SB_O_TMPFILE_BIT 020000000U
#define CHMOD(nr, m) { nr, m, -1, 0, -1, 0 }
#define OPEN(nr, f, m) { nr, m, f, 0, -1, 0 }
#define REFUSE(nr, e) { nr, -1, -1, e, -1, 0 }
#define REFUSE_IF(nr, a, v, e) { nr, -1, -1, e, a, v }
/* socket(2)'s domain, and socketcall(2)'s call numbers for socket and socketpair */
#define SB_AF_UNIX 1
#define SB_SYS_SOCKET 1
#define SB_SYS_SOCKETPAIR 8
/*
 * socketpair of datagram sockets, whatever SOCK_CLOEXEC and SOCK_NONBLOCK:
 * such a socket may send to any address (sendmsg with msg_name), stream
 * and seqpacket pairs only to each other, and curl's resolver needs one.
 */
#define SB_SOCK_DGRAM 2
#define SB_SOCK_CLOEXEC 02000000
#define SB_SOCK_NONBLOCK 04000
#define DGRAM_PAIR(nr)                                                           \
	REFUSE_IF(nr, 1, SB_SOCK_DGRAM, EPERM),                                  \
	REFUSE_IF(nr, 1, SB_SOCK_DGRAM | SB_SOCK_CLOEXEC, EPERM),                \
	REFUSE_IF(nr, 1, SB_SOCK_DGRAM | SB_SOCK_NONBLOCK, EPERM),               \
	REFUSE_IF(nr, 1, SB_SOCK_DGRAM | SB_SOCK_CLOEXEC | SB_SOCK_NONBLOCK, EPERM)
/* io_uring_setup, io_uring_enter, io_uring_register: one number everywhere */
#define IO_URING REFUSE(425, ENOSYS), REFUSE(426, ENOSYS), REFUSE(427, ENOSYS)

/*
 * Also open, openat, creat, mknod and mknodat creating a file with those
 * bits (O_CREAT or O_TMPFILE); openat2, whose mode lies in memory a
 * filter cannot read, fails with ENOSYS so that callers fall back to
 * openat.
 */
#if defined(__x86_64__)
static const struct sc_rule native_rules[] = {
	CHMOD(90, 1), CHMOD(91, 1), CHMOD(268, 2), CHMOD(452, 2),  /* chmod fchmod fchmodat fchmodat2 */
	CHMOD(85, 1), CHMOD(133, 1), CHMOD(259, 2),                /* creat mknod mknodat */
	OPEN(2, 1, 2), OPEN(257, 2, 3), REFUSE(437, ENOSYS),       /* open openat openat2 */
	REFUSE(188, ENOTSUP), REFUSE(189, ENOTSUP),                /* setxattr lsetxattr */
	REFUSE(190, ENOTSUP), REFUSE(463, ENOTSUP),                /* fsetxattr setxattrat */
	IO_URING,
};
static const struct sc_rule compat_rules[] = {           /* i386 */
	CHMOD(15, 1), CHMOD(94, 1), CHMOD(306, 2), CHMOD(452, 2),
	CHMOD(8, 1), CHMOD(14, 1), CHMOD(297, 2),
	OPEN(5, 1, 2), OPEN(295, 2, 3), REFUSE(437, ENOSYS),
	REFUSE(226, ENOTSUP), REFUSE(227, ENOTSUP), REFUSE(228, ENOTSUP), REFUSE(463, ENOTSUP),
	IO_URING,
};
/*
 * A fixed-output build has a network namespace of its own (slirp4netns),
 * where the host's abstract Unix sockets are not. As a second wall (a
 * socket file in an extra path is reachable from any namespace), it may
 * make no Unix socket by socket, nor a pair of datagram sockets by
 * socketpair (which could send to any address), so that it can neither
 * reach a process outside through one nor hand it a descriptor
 * (doc/security.md items 11, 22). A stream pair's ends reach only each other.
 */
static const struct sc_rule native_fod_rules[] = {
	REFUSE_IF(41, 0, SB_AF_UNIX, EPERM), DGRAM_PAIR(53),
};
static const struct sc_rule compat_fod_rules[] = {
	REFUSE_IF(359, 0, SB_AF_UNIX, EPERM), DGRAM_PAIR(360),
	REFUSE_IF(102, 0, SB_SYS_SOCKET, EPERM),   /* socketcall: arguments unreadable */
	REFUSE_IF(102, 0, SB_SYS_SOCKETPAIR, EPERM),
};
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define COMPAT_ARCH AUDIT_ARCH_I386
#define NATIVE_REFUSE_FROM X32
#elif defined(__aarch64__)
static const struct sc_rule native_rules[] = {
	CHMOD(52, 1), CHMOD(53, 2), CHMOD(452, 2), CHMOD(33, 2),   /* fchmod fchmodat fchmodat2 mknodat */
	OPEN(56, 2, 3), REFUSE(437, ENOSYS),
	REFUSE(5, ENOTSUP), REFUSE(6, ENOTSUP), REFUSE(7, ENOTSUP), REFUSE(463, ENOTSUP),
	IO_URING,
};
static const struct sc_rule compat_rules[] = {           /* arm */
	CHMOD(15, 1), CHMOD(94, 1), CHMOD(333, 2), CHMOD(452, 2),
	CHMOD(8, 1), CHMOD(14, 1), CHMOD(324, 2),
	OPEN(5, 1, 2), OPEN(322, 2, 3), REFUSE(437, ENOSYS),
	REFUSE(226, ENOTSUP), REFUSE(227, ENOTSUP), REFUSE(228, ENOTSUP), REFUSE(463, ENOTSUP),
	IO_URING,
};
static const struct sc_rule native_fod_rules[] = {
	REFUSE_IF(198, 0, SB_AF_UNIX, EPERM), DGRAM_PAIR(199),
};
static const struct sc_rule compat_fod_rules[] = {
	REFUSE_IF(281, 0, SB_AF_UNIX, EPERM), DGRAM_PAIR(288),
};
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define COMPAT_ARCH AUDIT_ARCH_ARM
#define NATIVE_REFUSE_FROM 0
#endif

#ifdef NATIVE_ARCH
static void emit(struct sb_plan *plan, unsigned short code, unsigned char jt,
		 unsigned char jf, unsigned k)
{
	if (plan->filter_len >= SB_FILTER_MAX)
		BUG("seccomp filter too long");
	plan->filter[plan->filter_len++] = (struct sock_filter){ code, jt, jf, k };
}

/* The low 32 bits (little-endian) of system call argument i. */
static unsigned arg_offset(int i)
{
	return (unsigned)(offsetof(struct seccomp_data, args) + 8 * (unsigned)i);
}

static unsigned rule_len(const struct sc_rule *r)
{
	if (r->eq_arg >= 0)
		return 4;
	return r->mode_arg < 0 ? 1 : r->flags_arg < 0 ? 4 : 6;
}

/*
 * The block of one architecture: its rules, then allow. System call
 * numbers from refuse_from up (unless 0) fail with ENOSYS.
 */
static void emit_arch(struct sb_plan *plan, unsigned arch, unsigned refuse_from,
		      const struct sc_rule *rules, size_t n,
		      const struct sc_rule *more, size_t n_more)
{
	unsigned len = 2 + (refuse_from ? 2 : 0);   /* load nr, final allow */
	for (size_t i = 0; i < n + n_more; i++)
		len += 1 + rule_len(i < n ? &rules[i] : &more[i - n]);
	if (len > 255)
		BUG("seccomp filter block too long");
	emit(plan, BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)len, arch);
	emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
	if (refuse_from) {
		emit(plan, BPF_JMP | BPF_JGE | BPF_K, 0, 1, refuse_from);
		emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	}
	for (size_t i = 0; i < n + n_more; i++) {
		const struct sc_rule *r = i < n ? &rules[i] : &more[i - n];
		/* Not this call: skip its block. */
		emit(plan, BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)rule_len(r), r->nr);
		if (r->eq_arg >= 0) {
			emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, arg_offset(r->eq_arg));
			emit(plan, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, r->value);
			emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | (r->refuse & SECCOMP_RET_DATA));
			/* Another value: on to the next rule (socketcall has two). */
			emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
			continue;
		}
		if (r->mode_arg < 0) {
			emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | (r->refuse & SECCOMP_RET_DATA));
			continue;
		}
		if (r->flags_arg >= 0) {
			/* Without O_CREAT or O_TMPFILE, the mode is unused. */
			emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, arg_offset(r->flags_arg));
			emit(plan, BPF_JMP | BPF_JSET | BPF_K, 0, 3, O_CREAT | SB_O_TMPFILE_BIT);
		}
		emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, arg_offset(r->mode_arg));
		emit(plan, BPF_JMP | BPF_JSET | BPF_K, 0, 1, S_ISUID | S_ISGID);
		emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
		emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
	}
	emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
}
#endif

void cix_sandbox_build_filter(struct sb_plan *plan)
{
	plan->filter_len = 0;
#ifdef NATIVE_ARCH
	emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch));
	int fod = plan->spec->network;
	emit_arch(plan, NATIVE_ARCH, NATIVE_REFUSE_FROM, native_rules, ARRAY_SIZE(native_rules),
		  native_fod_rules, fod ? ARRAY_SIZE(native_fod_rules) : 0);
	/* The accumulator still holds the arch when the first test fails. */
	emit_arch(plan, COMPAT_ARCH, 0, compat_rules, ARRAY_SIZE(compat_rules),
		  compat_fod_rules, fod ? ARRAY_SIZE(compat_fod_rules) : 0);
	/* An architecture the rules do not know: nothing of it may run. */
	emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
#endif
}
