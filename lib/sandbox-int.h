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
};

#define SB_FILTER_MAX 256

/*
 * Everything the child needs, computed by the parent before clone so that
 * the child allocates nothing and only makes system calls.
 */
struct sb_plan {
	const struct cix_sandbox_spec *spec;
	char *root;
	struct sb_mount *mounts;
	size_t nr_mounts, alloc_mounts;
	struct sock_filter filter[SB_FILTER_MAX];
	unsigned short filter_len;  /* 0: no filter for this architecture */
	int drop_groups;            /* setgroups(0, NULL): we are root */
	int sync_fd;                /* read end: the id maps are written */
	int status_fd;              /* write end, O_CLOEXEC: failure report */
	int log_fd;                 /* write end of the log pipe */
	unsigned long nproc;        /* RLIMIT_NPROC to set, 0: none */
};

/* What the child writes to status_fd when a step fails. */
struct sb_failure {
	int err;                    /* errno */
	char what[64];
	char path[PATH_MAX];
};

/* sandbox-prep.c: populate plan->root on the host, fill plan->mounts. */
int cix_sandbox_prepare(struct sb_plan *plan, struct cix_err *err);
void cix_sandbox_plan_release(struct sb_plan *plan);

/* sandbox-seccomp.c: fill plan->filter for the running architecture. */
void cix_sandbox_build_filter(struct sb_plan *plan);

/*
 * sandbox-cgroup.c: a pids cgroup limited to max_procs. Returns 1 with
 * *dir set, 0 when no cgroup can be used (or max_procs is 0).
 */
int cix_sandbox_cgroup_create(char **dir, unsigned long max_procs, struct cix_err *err);
int cix_sandbox_cgroup_enter(const char *dir, pid_t pid, struct cix_err *err);
/* Remove the cgroup (its tasks dead) and free dir; NULL is fine. */
void cix_sandbox_cgroup_remove(char *dir);

/* sandbox-child.c: the child after clone; never returns. */
CIX_NORETURN void cix_sandbox_child(const struct sb_plan *plan);

#endif
