/* sandbox-seccomp.c - a hand-written seccomp filter: no setuid files, no xattrs */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * As Nix's filter (security.md item 19, NIX-2017-0002): chmod, fchmod,
 * fchmodat and fchmodat2 with S_ISUID or S_ISGID in the mode fail with
 * EPERM, and setting extended attributes (file capabilities, ACLs) fails
 * with ENOTSUP. The store is mounted nosuid inside anyway, and outputs are
 * canonicalised afterwards; this keeps such files from ever existing.
 * Other architectures' system calls (i386 and x32 on x86_64) are filtered
 * by their own numbers.
 */

struct sc_rule {
	unsigned nr;
	int mode_arg;   /* index of the mode argument; -1: refuse (xattr) */
};

#define X32 0x40000000U

#if defined(__x86_64__)
static const struct sc_rule native_rules[] = {
	{ 90, 1 }, { 91, 1 }, { 268, 2 }, { 452, 2 },                 /* chmod fchmod fchmodat fchmodat2 */
	{ X32 | 90, 1 }, { X32 | 91, 1 }, { X32 | 268, 2 }, { X32 | 452, 2 },
	{ 188, -1 }, { 189, -1 }, { 190, -1 }, { 463, -1 },           /* setxattr lsetxattr fsetxattr setxattrat */
	{ X32 | 188, -1 }, { X32 | 189, -1 }, { X32 | 190, -1 }, { X32 | 463, -1 },
};
static const struct sc_rule compat_rules[] = {
	{ 15, 1 }, { 94, 1 }, { 306, 2 }, { 452, 2 },
	{ 226, -1 }, { 227, -1 }, { 228, -1 }, { 463, -1 },
};
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define COMPAT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
static const struct sc_rule native_rules[] = {
	{ 52, 1 }, { 53, 2 }, { 452, 2 },
	{ 5, -1 }, { 6, -1 }, { 7, -1 }, { 463, -1 },
};
static const struct sc_rule compat_rules[] = {
	{ 15, 1 }, { 94, 1 }, { 333, 2 }, { 452, 2 },
	{ 226, -1 }, { 227, -1 }, { 228, -1 }, { 463, -1 },
};
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define COMPAT_ARCH AUDIT_ARCH_ARM
#endif

#ifdef NATIVE_ARCH
static void emit(struct sb_plan *plan, unsigned short code, unsigned char jt,
		 unsigned char jf, unsigned k)
{
	if (plan->filter_len >= SB_FILTER_MAX)
		BUG("seccomp filter too long");
	plan->filter[plan->filter_len++] = (struct sock_filter){ code, jt, jf, k };
}

/* Block per rule: chmod-like take 5 instructions, xattr-like 2. */
static void emit_arch(struct sb_plan *plan, unsigned arch,
		      const struct sc_rule *rules, size_t n)
{
	unsigned len = 2;   /* load nr, final allow */
	for (size_t i = 0; i < n; i++)
		len += rules[i].mode_arg < 0 ? 2 : 5;
	emit(plan, BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)len, arch);
	emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < n; i++) {
		if (rules[i].mode_arg < 0) {
			emit(plan, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, rules[i].nr);
			emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | (ENOTSUP & SECCOMP_RET_DATA));
			continue;
		}
		/* The mode's low 32 bits (little-endian). */
		unsigned off = (unsigned)(offsetof(struct seccomp_data, args) +
					  8 * (unsigned)rules[i].mode_arg);
		emit(plan, BPF_JMP | BPF_JEQ | BPF_K, 0, 4, rules[i].nr);
		emit(plan, BPF_LD | BPF_W | BPF_ABS, 0, 0, off);
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
	emit_arch(plan, NATIVE_ARCH, native_rules, ARRAY_SIZE(native_rules));
	/* The accumulator still holds the arch when the first test fails. */
	emit_arch(plan, COMPAT_ARCH, compat_rules, ARRAY_SIZE(compat_rules));
	emit(plan, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
#endif
}
