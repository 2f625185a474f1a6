/* sandbox-seccomp.c - unit tests for the sandbox's seccomp filter, run by a BPF interpreter */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "sandbox-int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>

/*
 * The kernel runs the filter only for the architecture of the caller:
 * the x32 ABI (off in most kernels), other architectures and unknown
 * ones cannot be tried for real. This interpreter of classic BPF (the
 * instructions the filter uses, any other failing) runs it on any
 * seccomp_data.
 */
#define BAD_PROGRAM 0xdeadbeefU

static unsigned run(const struct sb_plan *plan, const struct seccomp_data *d)
{
	unsigned a = 0, pc = 0;
	while (pc < plan->filter_len) {
		const struct sock_filter *f = &plan->filter[pc++];
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k % 4 || f->k + 4 > sizeof(*d))
				return BAD_PROGRAM;
			memcpy(&a, (const char *)d + f->k, 4);
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += a & f->k ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			return BAD_PROGRAM;
		}
	}
	return BAD_PROGRAM;   /* fell off the end */
}

static unsigned call(const struct sb_plan *plan, unsigned arch, unsigned nr,
		     unsigned long long a0, unsigned long long a1,
		     unsigned long long a2, unsigned long long a3)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch, .args = { a0, a1, a2, a3 } };
	return run(plan, &d);
}

#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))
#define X32 0x40000000U

int main(void)
{
#if defined(__x86_64__)
	static struct cix_sandbox_spec spec, fod_spec;
	static struct sb_plan plan, fod;
	const unsigned x64 = AUDIT_ARCH_X86_64, i386 = AUDIT_ARCH_I386;

	plan.spec = &spec;
	cix_sandbox_build_filter(&plan);
	fod_spec.network = 1;
	fod.spec = &fod_spec;
	cix_sandbox_build_filter(&fod);
	ok(plan.filter_len > 0 && fod.filter_len > plan.filter_len, "filters built");

	/* io_uring: its operations would bypass every rule below */
	for (unsigned nr = 425; nr <= 427; nr++) {
		is_int(call(&plan, x64, nr, 0, 0, 0, 0), ERRNO(ENOSYS), "x86_64 io_uring call %u: ENOSYS", nr);
		is_int(call(&plan, i386, nr, 0, 0, 0, 0), ERRNO(ENOSYS), "i386 io_uring call %u: ENOSYS", nr);
	}
	/* x32: every call refused, the rules' own and the others */
	is_int(call(&plan, x64, X32 | 425, 0, 0, 0, 0), ERRNO(ENOSYS), "x32 io_uring_setup: ENOSYS");
	is_int(call(&plan, x64, X32 | 90, 0, 04755, 0, 0), ERRNO(ENOSYS), "x32 chmod: ENOSYS");
	is_int(call(&plan, x64, X32 | 39, 0, 0, 0, 0), ERRNO(ENOSYS), "x32 getpid: ENOSYS");
	is_int(call(&plan, x64, X32 | 545, 0, 0, 0, 0), ERRNO(ENOSYS), "x32 execveat: ENOSYS");
	is_int(call(&plan, x64, 0xffffffffU, 0, 0, 0, 0), ERRNO(ENOSYS), "call -1: ENOSYS");
	/* an architecture the filter does not know */
	is_int(call(&plan, AUDIT_ARCH_AARCH64, 39, 0, 0, 0, 0), SECCOMP_RET_KILL_PROCESS,
	       "an unknown architecture: killed");
	is_int(call(&plan, 0, 90, 0, 04755, 0, 0), SECCOMP_RET_KILL_PROCESS, "arch 0: killed");

	/* the rules themselves */
	is_int(call(&plan, x64, 39, 0, 0, 0, 0), SECCOMP_RET_ALLOW, "getpid: allowed");
	is_int(call(&plan, x64, 90, 0, 04755, 0, 0), ERRNO(EPERM), "chmod 04755: EPERM");
	is_int(call(&plan, x64, 90, 0, 0755, 0, 0), SECCOMP_RET_ALLOW, "chmod 0755: allowed");
	is_int(call(&plan, x64, 268, 0, 0, 02755, 0), ERRNO(EPERM), "fchmodat 02755: EPERM");
	is_int(call(&plan, x64, 452, 0, 0, 04755, 0), ERRNO(EPERM), "fchmodat2 04755: EPERM");
	is_int(call(&plan, x64, 452, 0, 0, 0755, 0x100), SECCOMP_RET_ALLOW, "fchmodat2 0755: allowed");
	is_int(call(&plan, i386, 452, 0, 0, 06755, 0), ERRNO(EPERM), "i386 fchmodat2 06755: EPERM");
	is_int(call(&plan, x64, 257, 0, 0, O_CREAT | O_WRONLY, 04755), ERRNO(EPERM),
	       "openat O_CREAT 04755: EPERM");
	is_int(call(&plan, x64, 257, 0, 0, O_RDONLY, 04755), SECCOMP_RET_ALLOW,
	       "openat without O_CREAT: the mode is unused");
	is_int(call(&plan, x64, 437, 0, 0, 0, 0), ERRNO(ENOSYS), "openat2: ENOSYS");
	is_int(call(&plan, x64, 188, 0, 0, 0, 0), ERRNO(ENOTSUP), "setxattr: ENOTSUP");
	is_int(call(&plan, i386, 228, 0, 0, 0, 0), ERRNO(ENOTSUP), "i386 fsetxattr: ENOTSUP");
	is_int(call(&plan, x64, 41, 1, 1, 0, 0), SECCOMP_RET_ALLOW, "socket AF_UNIX: allowed");
	is_int(call(&fod, x64, 41, 1, 1, 0, 0), ERRNO(EPERM), "fixed-output: socket AF_UNIX: EPERM");
	is_int(call(&fod, x64, 41, 2, 1, 0, 0), SECCOMP_RET_ALLOW, "fixed-output: socket AF_INET: allowed");
	is_int(call(&fod, x64, 426, 0, 0, 0, 0), ERRNO(ENOSYS), "fixed-output: io_uring_enter: ENOSYS");
	is_int(call(&fod, x64, X32 | 41, 1, 1, 0, 0), ERRNO(ENOSYS), "fixed-output: x32 socket: ENOSYS");
#else
	skip("the seccomp filter's rules", "x86_64 only");
#endif
	return done_testing();
}
