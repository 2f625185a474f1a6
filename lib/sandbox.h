/* sandbox.h - run a builder in an isolated Linux environment */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SANDBOX_H
#define CIX_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/*
 * The builder runs as PID 1 of new user, mount, PID, IPC, UTS and (unless
 * network is set) network namespaces, after pivot_root into spec->root,
 * which then holds only:
 *
 *   STORE_DIR/        writable by the build user (mode 1775, as Nix's
 *                     chroot store); outputs written there stay in
 *                     ROOT/STORE_DIR/ on the host for the caller
 *   STORE_DIR/INPUT   each input, bind-mounted read-only, nosuid, nodev
 *                     (a symlink input is copied as a symlink)
 *   EXTRA             each extra path, the same (for /bin/sh and the like)
 *   /build            spec->build_dir, read-write (cwd of the builder)
 *   /tmp              writable, sticky (mode 1777), as in Nix 2.8
 *   /dev              null zero full random urandom tty, shm (tmpfs),
 *                     pts (a new devpts instance), ptmx, fd, stdin,
 *                     stdout, stderr
 *   /proc             a fresh procfs of the new PID namespace
 *   /etc              passwd, group and (without network) hosts, with
 *                     Nix 2.8's content
 *
 * Everything else of the new root is a read-only mount. As in Nix 2.8,
 * the builder always runs as uid 1000 and gid 100 of its user namespace
 * ("nixbld"), whatever it maps to on the host: spec->uid/spec->gid (a
 * build user, the caller being root), or, when spec->uid is (uid_t)-1,
 * the caller's own uid and gid (no root needed: unprivileged user
 * namespaces). With a build user, the supplementary groups are dropped.
 *
 * Inside: hostname "localhost", domain name "(none)"; only the loopback
 * interface, up; the parent's death kills the sandbox (PR_SET_PDEATHSIG);
 * no new privileges; a seccomp filter makes the chmod family, and open,
 * openat, creat, mknod and mknodat creating a file, fail with EPERM when
 * the mode holds S_ISUID or S_ISGID, openat2 fail with ENOSYS (libc
 * falls back to openat) and the setxattr family with ENOTSUP: no setuid
 * file, no file capability, no ACL can be made. io_uring, whose
 * operations would pass the filter, fails with ENOSYS; x32 system calls
 * too, and those of an unknown architecture kill the process.
 * The builder has a session of its own, umask 022, no core dumps, no
 * address space randomisation, default signal dispositions and no signal
 * blocked.
 * Standard input is /dev/null; standard output and error go, through a
 * pipe the caller watches, to spec->log_fd. When the builder (PID 1)
 * exits or is killed, the kernel kills every process left in its PID
 * namespace: nothing of the build survives it.
 *
 * spec->network = 1 (fixed-output derivations only) keeps the host's
 * network namespace: the builder can then reach anything the host can,
 * including services on 127.0.0.1 and abstract Unix sockets, so its
 * output must be checked against its declared hash and copied to a fresh
 * inode before use (security.md items 5, 11, 22); /etc/hosts is then not
 * written (the caller may add the host's as an extra path).
 *
 * The caller creates spec->root empty, owned by root (or by itself when
 * unprivileged), and removes it afterwards (its files are owned by the
 * caller; mounts vanish with the sandbox). With a build user, the
 * caller also makes spec->build_dir the build user's.
 */
struct cix_sandbox_spec {
	const char *root;             /* empty host directory: the new root */
	const char *store_dir;        /* logical store directory, absolute */
	const char *const *inputs;    /* input store paths (host = logical) */
	size_t nr_inputs;
	const char *const *extra_paths; /* host paths bound at the same place */
	size_t nr_extra_paths;
	const char *build_dir;        /* host directory mounted at /build */
	const char *builder;          /* absolute path, inside */
	char *const *argv;            /* argv[0] included */
	char *const *envp;            /* the builder's whole environment */
	int network;                  /* 1: keep the host's network (FOD) */
	int log_fd;                   /* builder output goes here; -1: drop */
	uid_t uid;                    /* build user, or (uid_t)-1 */
	gid_t gid;
	unsigned timeout;             /* seconds in all, 0: none */
	unsigned max_silent;          /* seconds without output, 0: none */
	unsigned long long max_log;   /* bytes of output, 0: no limit */
	unsigned long max_procs;      /* processes and threads at once, 0: no limit */
	/* Those of all the builds together (the cgroup cix-builds), 0: no limit. */
	unsigned long all_max_procs;
	unsigned long long memory_max; /* bytes of memory and swap, 0: no limit */
	unsigned long long shm_size;  /* bytes of /dev/shm, 0: tmpfs's default */
};

struct cix_sandbox_result {
	int status;                   /* wait status of the builder */
	int timed_out;                /* killed after spec->timeout */
	int silent_too_long;          /* killed after spec->max_silent */
	int log_too_long;             /* killed after spec->max_log bytes */
	int seccomp;                  /* the seccomp filter was installed */
	int proc_limit;               /* how max_procs was enforced: CIX_SANDBOX_LIMIT_* */
	int memory_limit;             /* the same for memory_max (cgroup or none) */
	int oom_killed;               /* a process was killed for want of memory */
	double prepare_seconds;       /* populating the root on the host */
	double setup_seconds;         /* clone to execve of the builder */
	double total_seconds;         /* clone to the builder's end */
};

/*
 * spec->max_procs bounds the builder's processes (a fork bomb) with a pids
 * cgroup of its own when the caller is root and the pids controller is
 * there; else, with a build user, with RLIMIT_NPROC; else not at all.
 * That cgroup lies in cix-builds, below the caller's own cgroup, whose
 * pids.max is spec->all_max_procs: all the builds of the callers of that
 * cgroup (a daemon and its workers) together stay below it. The same
 * holds for memory_max, with the memory controller (v1: memory.limit_in_bytes
 * and memory.memsw.limit_in_bytes when there; v2: memory.max and
 * memory.swap.max 0), and without a cgroup there is no memory limit.
 * /dev/shm is a tmpfs of spec->shm_size bytes, whoever the caller is.
 */
#define CIX_SANDBOX_LIMIT_NONE   0
#define CIX_SANDBOX_LIMIT_CGROUP 1
#define CIX_SANDBOX_LIMIT_RLIMIT 2

/* The uid and gid the builder has inside its user namespace. */
#define CIX_SANDBOX_UID 1000
#define CIX_SANDBOX_GID 100

/*
 * Set up the sandbox, run the builder in it and wait for it. Returns 0
 * when the builder ran (whatever its exit status, see res->status), or a
 * negative code when the sandbox could not be set up or the builder not
 * executed. The caller's SIGCHLD disposition must not be SIG_IGN.
 */
int cix_sandbox_run(const struct cix_sandbox_spec *spec,
		    struct cix_sandbox_result *res, struct cix_err *err);

#endif
