/* sandbox-int.h - internals shared by the sandbox's parent and child sides */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SANDBOX_INT_H
#define CIX_SANDBOX_INT_H

#include <linux/filter.h>
#include <limits.h>

#include "sandbox.h"

enum sb_mount_kind {
	SB_BIND_RO,     /* read-only, nosuid, nodev bind (inputs, extras) */
	SB_BIND_RW,     /* read-write, nosuid, nodev bind */
	SB_BIND_DEV,    /* a device node, bound as it is */
	SB_TMPFS,
	SB_PROC,
	SB_DEVPTS,      /* optional: a failure is ignored */
};

struct sb_mount {
	enum sb_mount_kind kind;
	char *src;      /* host path, or NULL */
	char *dst;      /* host path below the new root */
	char *data;     /* SB_TMPFS: the mount options, or NULL */
};

/*
 * The skeleton of the new root (/etc, /dev, /proc, /build and the mount
 * points of the extra paths) is made in a tmpfs over the root, by the
 * child or (with a build user) by the parent: nothing of it touches the
 * host's file system.
 */
enum sb_op_kind {
	SB_OP_DIR,      /* a new directory */
	SB_OP_DIRS,     /* a directory that may exist already (a parent) */
	SB_OP_FILE,     /* a new file with the given contents */
	SB_OP_SYMLINK,  /* a new symbolic link to data */
};

struct sb_op {
	enum sb_op_kind kind;
	char *path;     /* logical absolute path in the sandbox */
	const char *data;
	char *owned;    /* data, when allocated */
	unsigned mode;
};

#define SB_FILTER_MAX 256

/*
 * Everything the child needs, computed by the parent before clone so that
 * the child allocates nothing and only makes system calls.
 */
struct sb_plan {
	const struct cix_sandbox_spec *spec;
	char *root;
	int root_mount_fd;          /* the root's tmpfs, made and filled by the parent
	                               (build user), detached; -1: the child makes it */
	char *disk_tmp;             /* ROOT/tmp, on the host: /tmp */
	char *disk_store;           /* ROOT/STORE_DIR, on the host: the store */
	struct sb_op *ops;          /* the skeleton, in order */
	size_t nr_ops, alloc_ops;
	struct sb_mount *mounts;    /* after the skeleton, /tmp and the store */
	size_t nr_mounts, alloc_mounts;
	struct sock_filter filter[SB_FILTER_MAX];
	unsigned short filter_len;  /* 0: no filter for this architecture */
	int drop_groups;            /* setgroups(0, NULL): we are root */
	int sync_fd;                /* read end: the id maps are written */
	int status_fd;              /* write end, O_CLOEXEC: failure report */
	int log_fd;                 /* write end of the log pipe */
	int net_fd;                 /* read end: the network is up (or will not be); -1: none */
	int net_wfd;                /* its write end, the parent's: the child closes it */
	unsigned long nproc;        /* RLIMIT_NPROC to set, 0: none */
	int linux32;                /* personality PER_LINUX32 */
};

/* What the child writes to status_fd when a step fails. */
struct sb_failure {
	int err;                    /* errno */
	char what[64];
	char path[PATH_MAX];
};

/*
 * sandbox-prep.c: make /tmp, the store directory and the inputs' mount
 * points in plan->root on the host; plan the skeleton and the mounts.
 */
int cix_sandbox_prepare(struct sb_plan *plan, struct cix_err *err);
void cix_sandbox_plan_release(struct sb_plan *plan);

/*
 * sandbox-child.c: make plan->ops[from, to) below rootfd, by system calls
 * only; on failure, return -errno and set *bad to the failed op's index.
 * exact_modes: the ops' modes whatever the umask (a parent's, which it
 * cannot change: it is its threads' too).
 */
int cix_sandbox_make_skeleton(int rootfd, const struct sb_plan *plan, size_t from, size_t to,
			      int exact_modes, size_t *bad);

/* sandbox-seccomp.c: fill plan->filter for the running architecture. */
void cix_sandbox_build_filter(struct sb_plan *plan);

/*
 * sandbox-cgroup.c: the build's cgroup (v1: one per hierarchy, pids and
 * memory; v2: one), limited as spec says, in cix-builds. Sets
 * cg->pids / cg->memory to the directories whose limits hold; returns 0
 * (no cgroup usable: both NULL) or a negative error.
 */
struct sb_cgroup {
	char *pids;             /* the directory holding pids.max, or NULL */
	char *memory;           /* the one holding the memory limit, or NULL */
	int v2;                 /* then pids and memory are the same directory */
};
int cix_sandbox_cgroup_create(struct sb_cgroup *cg, const struct cix_sandbox_spec *spec,
			      struct cix_err *err);
int cix_sandbox_cgroup_enter(const struct sb_cgroup *cg, pid_t pid, struct cix_err *err);
/* Did the memory controller kill a process of the cgroup? */
int cix_sandbox_cgroup_oom_killed(const struct sb_cgroup *cg);
/* Remove the cgroups (their tasks dead) and free their names. */
void cix_sandbox_cgroup_remove(struct sb_cgroup *cg);

/*
 * sandbox-net.c: slirp4netns serving the network namespace of pid target.
 * cix_sandbox_slirp_start returns 0 once tap0 is configured, or -1 with
 * why (one line) set and nothing left running. _stop kills and reaps it.
 */
struct sb_slirp {
	pid_t pid;                  /* -1: none */
	int pidfd;
	int exit_fd;                /* write end of its --exit-fd */
	int err_fd;                 /* read end of its standard error */
};
int cix_sandbox_slirp_start(struct sb_slirp *sl, pid_t target, int host_loopback,
			    char *why, size_t size);
void cix_sandbox_slirp_stop(struct sb_slirp *sl);

/* sandbox-child.c: the child after clone; never returns. */
CIX_NORETURN void cix_sandbox_child(const struct sb_plan *plan);

#endif
