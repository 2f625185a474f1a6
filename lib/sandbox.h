/* sandbox.h - run a builder in an isolated Linux environment */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SANDBOX_H
#define CIX_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/*
 * The builder runs as PID 1 of new user, mount, PID, IPC, UTS and network
 * namespaces, after pivot_root into spec->root,
 * which then holds only:
 *
 *   STORE_DIR/        writable by the build user (mode 1775, as Nix's
 *                     chroot store); outputs written there stay in
 *                     ROOT/STORE_DIR/ on the host for the caller
 *   STORE_DIR/INPUT   each input, bind-mounted read-only, nosuid, nodev
 *                     (a symlink input is copied as a symlink)
 *   EXTRA             each extra path, the same (for /bin/sh and the like)
 *   BIND              each bind's host path at its inside path, the same
 *   /build            spec->build_dir, read-write (cwd of the builder)
 *   /tmp              writable, sticky (mode 1777), as in Nix 2.8
 *   /dev              null zero full random urandom tty, shm (tmpfs),
 *                     pts (a new devpts instance), ptmx, fd, stdin,
 *                     stdout, stderr
 *   /proc             a fresh procfs of the new PID namespace
 *   /etc              passwd, group and hosts, with Nix 2.8's content;
 *                     with network, resolv.conf naming 10.0.2.3
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
 * namespace: nothing of the build survives it. As in Nix 2.8, the end of
 * that pipe (every process of the build closed it) ends the build: the
 * builder is killed (SIGKILL) if it is still running a second later (a
 * builder that exits closes the pipe a moment before it is gone).
 *
 * spec->network (fixed-output derivations only), CIX_SANDBOX_NET set,
 * gives the namespace a network of its own: slirp4netns, started by the
 * caller once the namespace exists, adds tap0 (10.0.2.100, gateway
 * 10.0.2.2, DNS 10.0.2.3, MTU 65520) and relays its connections in user
 * space from the host. The builder does not start before the network is
 * up, and slirp4netns is killed and reaped before cix_sandbox_run returns.
 * The host's abstract Unix sockets, which belong to the host's network
 * namespace, are out of reach (doc/security.md items 11, 22), and so is the
 * host's 127.0.0.1 unless CIX_SANDBOX_NET_HOST_LOOPBACK is set too (then
 * 10.0.2.2 reaches it). The output can still come from anywhere, so it
 * must be checked against its declared hash and copied to a fresh inode
 * before use (item 5). When slirp4netns is missing or fails, the build
 * runs with the loopback interface only, and a line of spec->log_fd says
 * why: never in the host's network namespace. slirp4netns is $CIX_SLIRP4NETNS,
 * else the first on $PATH, else /usr/bin/slirp4netns. Extra paths
 * /etc/hosts and /etc/resolv.conf are then ignored: the sandbox's are the
 * ones that work in it. Without network, an extra /etc/hosts is refused.
 *
 * The caller creates spec->root empty, owned by root (or by itself when
 * unprivileged), and removes it afterwards (its files are owned by the
 * caller; mounts vanish with the sandbox). With a build user, the
 * caller also makes spec->build_dir the build user's.
 */
/* A host file or directory bound read-only at another place inside. */
struct cix_sandbox_bind {
	const char *host;             /* absolute host path, not a symlink */
	const char *inside;           /* clean absolute path, not reserved */
};

struct cix_sandbox_spec {
	const char *root;             /* empty host directory: the new root */
	const char *store_dir;        /* logical store directory, absolute */
	const char *const *inputs;    /* input store paths (host = logical) */
	size_t nr_inputs;
	const char *const *extra_paths; /* host paths bound at the same place */
	size_t nr_extra_paths;
	const struct cix_sandbox_bind *binds; /* bound elsewhere inside */
	size_t nr_binds;
	const char *build_dir;        /* host directory mounted at /build */
	const char *builder;          /* absolute path, inside */
	char *const *argv;            /* argv[0] included */
	char *const *envp;            /* the builder's whole environment */
	int network;                  /* CIX_SANDBOX_NET*: slirp4netns (FOD) */
	int linux32;                  /* a 32-bit personality: uname says i686 */
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
	unsigned long long tmp_size;  /* bytes of /tmp, a tmpfs, 0: on disk */
};

struct cix_sandbox_result {
	int status;                   /* wait status of the builder */
	int timed_out;                /* killed after spec->timeout */
	int silent_too_long;          /* killed after spec->max_silent */
	int log_too_long;             /* killed after spec->max_log bytes */
	int seccomp;                  /* the seccomp filter was installed */
	int slirp;                    /* slirp4netns gave the build its network */
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
 * /dev/shm is a tmpfs of spec->shm_size bytes, whoever the caller is, and
 * so is /tmp of spec->tmp_size bytes, unless the store directory lies
 * below /tmp (then /tmp stays on the store's file system, as /build).
 */
#define CIX_SANDBOX_LIMIT_NONE   0
#define CIX_SANDBOX_LIMIT_CGROUP 1
#define CIX_SANDBOX_LIMIT_RLIMIT 2

/* spec->network: bits */
#define CIX_SANDBOX_NET               1   /* a network through slirp4netns */
#define CIX_SANDBOX_NET_HOST_LOOPBACK 2   /* 10.0.2.2 is the host's 127.0.0.1 */

/*
 * spec->network for a fixed-output build: CIX_SANDBOX_NET, with
 * CIX_SANDBOX_NET_HOST_LOOPBACK when $CIX_FOD_HOST_LOOPBACK is "yes" (or,
 * unset, fod-host-loopback of cix.conf is).
 */
int cix_sandbox_fod_network(void);

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
