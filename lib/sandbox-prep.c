/* sandbox-prep.c - populate the sandbox's new root on the host, plan its mounts */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "quote.h"

/*
 * Nix 2.8's files (local-derivation-goal.cc): the build user is uid 1000,
 * gid 100, its home the build directory /build.
 */
static const char etc_passwd[] =
	"root:x:0:0:Nix build user:/build:/noshell\n"
	"nixbld:x:1000:100:Nix build user:/build:/noshell\n"
	"nobody:x:65534:65534:Nobody:/:/noshell\n";
static const char etc_group[] =
	"root:x:0:\n"
	"nixbld:!:100:\n"
	"nogroup:x:65534:\n";
static const char etc_hosts[] =
	"127.0.0.1 localhost\n"
	"::1 localhost\n";
/* A fixed-output build's resolver: slirp4netns's DNS relay. */
static const char etc_resolv_conf[] =
	"nameserver 10.0.2.3\n";

static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty",
};

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = xmalloc(la + lb + 1);
	memcpy(p, a, la);
	memcpy(p + la, b, lb + 1);
	return p;
}

static void add_mount(struct sb_plan *plan, enum sb_mount_kind kind,
		      const char *src, const char *logical)
{
	ALLOC_GROW(plan->mounts, plan->nr_mounts + 1, plan->alloc_mounts);
	struct sb_mount *m = &plan->mounts[plan->nr_mounts++];
	m->kind = kind;
	m->src = src ? xstrdup(src) : NULL;
	m->dst = join(plan->root, logical);
	m->data = NULL;
}

/* owned: data is ours to free with the plan. */
static void add_op(struct sb_plan *plan, enum sb_op_kind kind, const char *logical,
		   const char *data, char *owned, unsigned mode)
{
	ALLOC_GROW(plan->ops, plan->nr_ops + 1, plan->alloc_ops);
	struct sb_op *op = &plan->ops[plan->nr_ops++];
	op->kind = kind;
	op->path = xstrdup(logical);
	op->data = owned ? owned : data;
	op->owned = owned;
	op->mode = mode;
}

/* Directories for each proper prefix of logical path p ("/a/b/c": /a, /a/b). */
static void add_parent_ops(struct sb_plan *plan, const char *p)
{
	char buf[PATH_MAX];
	size_t n = strlen(p);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;   /* check_spec bounds every path */
	memcpy(buf, p, n);
	buf[n] = '\0';
	for (char *c = buf + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			add_op(plan, SB_OP_DIRS, buf, NULL, NULL, 0755);
			*c = '/';
		}
}

void cix_sandbox_plan_release(struct sb_plan *plan)
{
	for (size_t i = 0; i < plan->nr_mounts; i++) {
		free(plan->mounts[i].src);
		free(plan->mounts[i].dst);
		free(plan->mounts[i].data);
	}
	free(plan->mounts);
	plan->mounts = NULL;
	plan->nr_mounts = plan->alloc_mounts = 0;
	for (size_t i = 0; i < plan->nr_ops; i++) {
		free(plan->ops[i].path);
		free(plan->ops[i].owned);
	}
	free(plan->ops);
	plan->ops = NULL;
	plan->nr_ops = plan->alloc_ops = 0;
	if (plan->root_mount_fd >= 0)
		close(plan->root_mount_fd);   /* detached: gone with its last reference */
	plan->root_mount_fd = -1;
	free(plan->disk_tmp);
	free(plan->disk_store);
	plan->disk_tmp = plan->disk_store = NULL;
	free(plan->root);
	plan->root = NULL;
}

/*
 * An absolute path without empty, "." or ".." components and without a
 * trailing slash; not "/" itself.
 */
static int clean_abs_path(const char *p)
{
	if (p[0] != '/' || !p[1] || strlen(p) >= PATH_MAX - 64)
		return 0;
	const char *c = p + 1;
	for (;;) {
		const char *e = strchrnul(c, '/');
		size_t n = (size_t)(e - c);
		if (!n || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!*e)
			return 1;
		c = e + 1;
	}
}

CIX_PRINTF(3, 4)
static int sb_error(struct cix_err *err, int code, const char *fmt, ...)
{
	char msg[CIX_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (code > -CIX_EBASE)
		return cix_error_errno(err, code, "%s", msg);
	return cix_error(err, code, "%s", msg);
}

/* An error naming path, quoted: fmt holds one %s. */
#define quoted_error(err, code, fmt, path)                                  \
	({                                                                  \
		char q_[256];                                               \
		int c_ = (code);                                            \
		cix_quote(q_, sizeof(q_), (path), strlen(path));            \
		sb_error((err), c_, fmt, q_);                               \
	})

/* mkdir -p of logical path p (absolute) below rootfd, each new dir 0755. */
static int mkdirs_at(int rootfd, const char *p, struct cix_err *err)
{
	char buf[PATH_MAX];
	size_t n = strlen(p);
	if (n >= sizeof(buf))
		return cix_error(err, -CIX_ELIMIT, "sandbox path too long");
	memcpy(buf, p, n + 1);
	for (char *s = buf + 1;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			struct stat st;
			if (mkdirat(rootfd, buf + 1, 0755) < 0 && errno != EEXIST)
				return quoted_error(err, -errno, "cannot create '%s' in the sandbox", buf);
			if (fstatat(rootfd, buf + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
				return quoted_error(err, -errno, "cannot stat '%s' in the sandbox", buf);
			if (!S_ISDIR(st.st_mode))
				return quoted_error(err, -CIX_EINVAL, "'%s' in the sandbox is not a directory", buf);
			*s = c;
			if (!c)
				return 0;
		}
	}
}

/*
 * Make the mount point (or, for a symlink, a copy of it) for host path
 * `path` (an input) at the same logical place below the root on the host.
 */
static int add_bind(struct sb_plan *plan, int rootfd, const char *path,
		    enum sb_mount_kind kind, struct cix_err *err)
{
	struct stat st;
	const char *rel = path + 1;
	if (lstat(path, &st) < 0)
		return quoted_error(err, -errno, "cannot stat '%s'", path);
	const char *slash = strrchr(path, '/');
	if (slash != path) {
		char parent[PATH_MAX];
		memcpy(parent, path, (size_t)(slash - path));
		parent[slash - path] = '\0';
		int ret = mkdirs_at(rootfd, parent, err);
		if (ret < 0)
			return ret;
	}
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return quoted_error(err, -errno, "cannot read link '%s'", path);
		target[n] = '\0';
		if (symlinkat(target, rootfd, rel) < 0)
			return quoted_error(err, -errno, "cannot copy link '%s'", path);
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdirat(rootfd, rel, 0755) < 0)
			return quoted_error(err, -errno, "cannot create mount point '%s'", path);
	} else if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) {
		int fd = openat(rootfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0)
			return quoted_error(err, -errno, "cannot create mount point '%s'", path);
		close(fd);
	} else {
		return quoted_error(err, -CIX_EUNSUPPORTED, "cannot bind '%s': not a file or directory", path);
	}
	add_mount(plan, kind, path, path);
	return 0;
}

/* The same, planned for the skeleton (an extra path). */
static int plan_bind(struct sb_plan *plan, const char *path, enum sb_mount_kind kind,
		     struct cix_err *err)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return quoted_error(err, -errno, "cannot stat '%s'", path);
	add_parent_ops(plan, path);
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return quoted_error(err, -errno, "cannot read link '%s'", path);
		target[n] = '\0';
		add_op(plan, SB_OP_SYMLINK, path, NULL, xstrdup(target), 0);
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		add_op(plan, SB_OP_DIR, path, NULL, NULL, 0755);
	else if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))
		add_op(plan, SB_OP_FILE, path, "", NULL, 0444);
	else
		return quoted_error(err, -CIX_EUNSUPPORTED, "cannot bind '%s': not a file or directory", path);
	add_mount(plan, kind, path, path);
	return 0;
}

/*
 * Host file or directory host, bound read-only at inside (a bind of the
 * spec): no symlink is copied, the host path must be the thing itself.
 */
static int plan_bind_at(struct sb_plan *plan, const char *host, const char *inside,
			struct cix_err *err)
{
	struct stat st;
	if (lstat(host, &st) < 0)
		return quoted_error(err, -errno, "cannot stat '%s'", host);
	add_parent_ops(plan, inside);
	if (S_ISDIR(st.st_mode))
		add_op(plan, SB_OP_DIR, inside, NULL, NULL, 0755);
	else if (S_ISREG(st.st_mode))
		add_op(plan, SB_OP_FILE, inside, "", NULL, 0444);
	else
		return quoted_error(err, -CIX_EUNSUPPORTED, "cannot bind '%s': not a file or directory", host);
	add_mount(plan, SB_BIND_RO, host, inside);
	return 0;
}

/* Paths the sandbox makes itself: /proc, /dev, /build, /etc and below. */
static int reserved_path(const char *p)
{
	static const char *const reserved[] = { "/proc", "/dev", "/build", "/etc" };
	for (size_t j = 0; j < ARRAY_SIZE(reserved); j++) {
		size_t rl = strlen(reserved[j]);
		if (!strncmp(p, reserved[j], rl) && (!p[rl] || p[rl] == '/'))
			return 1;
	}
	return 0;
}

/*
 * With network, the sandbox's /etc/hosts and /etc/resolv.conf: the host's
 * (a resolver on its 127.0.0.53, say) would not work in the sandbox's
 * network, so an extra path of those names is left out.
 */
static int net_own(const struct cix_sandbox_spec *s, const char *p)
{
	return s->network && (!strcmp(p, "/etc/hosts") || !strcmp(p, "/etc/resolv.conf"));
}

static int dir_is_empty(int fd)
{
	DIR *d = cix_fdopendir_dup(fd);
	struct dirent *de;
	int empty = 1;
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

static int check_spec(const struct cix_sandbox_spec *s, struct cix_err *err)
{
	if (!s->root || !s->store_dir || !s->build_dir || !s->builder || !s->argv || !s->envp)
		return cix_error(err, -CIX_EINVAL, "incomplete sandbox specification");
	if (s->root[0] != '/' || s->build_dir[0] != '/' || !clean_abs_path(s->store_dir))
		return cix_error(err, -CIX_EINVAL,
				 "sandbox root, build and store directories must be absolute");
	if (s->builder[0] != '/')
		return quoted_error(err, -CIX_EINVAL, "builder '%s' is not an absolute path", s->builder);
	size_t sl = strlen(s->store_dir);
	if (reserved_path(s->store_dir) || !strcmp(s->store_dir, "/tmp"))
		return quoted_error(err, -CIX_EINVAL, "store directory '%s' is reserved in the sandbox", s->store_dir);
	for (size_t i = 0; i < s->nr_inputs; i++) {
		const char *p = s->inputs[i];
		if (strncmp(p, s->store_dir, sl) || p[sl] != '/' ||
		    !clean_abs_path(p) || strchr(p + sl + 1, '/'))
			return quoted_error(err, -CIX_EINVAL, "input '%s' is not a store path", p);
	}
	for (size_t i = 0; i < s->nr_extra_paths; i++) {
		const char *p = s->extra_paths[i];
		if (!clean_abs_path(p))
			return quoted_error(err, -CIX_EINVAL, "extra sandbox path '%s' is not clean and absolute", p);
		/* Files below /etc may be added; a FOD's hosts is not bound (net_own). */
		int etc_file = !strncmp(p, "/etc/", 5) && strcmp(p, "/etc/passwd") &&
			strcmp(p, "/etc/group") && (s->network || strcmp(p, "/etc/hosts"));
		if ((reserved_path(p) && !etc_file) ||
		    (!strncmp(p, "/tmp", 4) && (!p[4] || p[4] == '/')))
			return quoted_error(err, -CIX_EINVAL, "extra sandbox path '%s' is reserved", p);
		if (!strncmp(p, s->store_dir, sl) && (!p[sl] || p[sl] == '/'))
			return quoted_error(err, -CIX_EINVAL, "extra sandbox path '%s' is in the store", p);
	}
	for (size_t i = 0; i < s->nr_binds; i++) {
		const char *p = s->binds[i].inside;
		if (s->binds[i].host[0] != '/' || !clean_abs_path(p))
			return quoted_error(err, -CIX_EINVAL, "sandbox bind '%s' is not clean and absolute", p);
		if (reserved_path(p) || (!strncmp(p, "/tmp", 4) && (!p[4] || p[4] == '/')) ||
		    (!strncmp(p, s->store_dir, sl) && (!p[sl] || p[sl] == '/')))
			return quoted_error(err, -CIX_EINVAL, "sandbox bind '%s' is reserved", p);
	}
	return 0;
}

/*
 * With a build user, the child's namespace does not map us, and it cannot
 * make files in a tmpfs of its own (they would have no owner there). We
 * make the root's tmpfs instead, detached (never in the host's tree, gone
 * when unused), and fill it: its files are root's, the builder's to read
 * only (its group's, for the root), as on the host's file system, without
 * the host's file system's cost (new inodes, removed after the build).
 */
static int make_detached_root(struct sb_plan *plan, gid_t gid, struct cix_err *err)
{
	char gid_str[32];
	size_t bad;
	int fsfd = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC), mfd = -1, ret;
	if (fsfd < 0)
		return quoted_error(err, -errno, "cannot make a tmpfs for sandbox root '%s'", plan->root);
	snprintf(gid_str, sizeof(gid_str), "%u", (unsigned)gid);
	if (syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "mode", "0750", 0) < 0 ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "gid", gid_str, 0) < 0 ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mfd = (int)syscall(SYS_fsmount, fsfd, FSMOUNT_CLOEXEC,
				MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0) {
		ret = quoted_error(err, -errno, "cannot make a tmpfs for sandbox root '%s'", plan->root);
		close(fsfd);
		return ret;
	}
	close(fsfd);
	plan->root_mount_fd = mfd;
	if ((ret = cix_sandbox_make_skeleton(mfd, plan, 0, plan->nr_ops, 1, &bad)) < 0)
		return quoted_error(err, ret, "cannot create '%s' in the sandbox", plan->ops[bad].path);
	return 0;
}

int cix_sandbox_prepare(struct sb_plan *plan, struct cix_err *err)
{
	const struct cix_sandbox_spec *s = plan->spec;
	int build_user = s->uid != (uid_t)-1;
	plan->root_mount_fd = -1;
	int ret = check_spec(s, err);
	if (ret < 0)
		return ret;
	plan->root = xstrdup(s->root);
	size_t rl = strlen(plan->root);
	while (rl > 1 && plan->root[rl - 1] == '/')
		plan->root[--rl] = '\0';
	if (rl == 1)
		return cix_error(err, -CIX_EINVAL, "the sandbox root cannot be /");
	plan->disk_tmp = join(plan->root, "/tmp");
	plan->disk_store = join(plan->root, s->store_dir);

	int rootfd = open(plan->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rootfd < 0)
		return quoted_error(err, -errno, "cannot open sandbox root '%s'", plan->root);
	struct stat st;
	if (fstat(rootfd, &st) < 0) {
		ret = quoted_error(err, -errno, "cannot stat sandbox root '%s'", plan->root);
		goto out;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		ret = quoted_error(err, -CIX_EINVAL,
				   "sandbox root '%s' must be ours and writable by no one else",
				   plan->root);
		goto out;
	}
	if (!dir_is_empty(rootfd)) {
		ret = quoted_error(err, -CIX_EEXIST, "sandbox root '%s' is not empty", plan->root);
		goto out;
	}
	/* The build user reaches the root through its group, as in Nix. */
	if (fchmod(rootfd, 0750) < 0 ||
	    (build_user && fchown(rootfd, (uid_t)-1, s->gid) < 0)) {
		ret = quoted_error(err, -errno, "cannot set up sandbox root '%s'", plan->root);
		goto out;
	}

	/*
	 * On the host: /tmp and the store directory (which may lie below
	 * /tmp), where the builder writes, and the inputs' mount points in
	 * the latter.
	 */
	if (mkdirat(rootfd, "tmp", 0755) < 0 || fchmodat(rootfd, "tmp", 01777, 0) < 0) {
		ret = quoted_error(err, -errno, "cannot create '%s' in the sandbox", "/tmp");
		goto out;
	}
	if ((ret = mkdirs_at(rootfd, s->store_dir, err)) < 0)
		goto out;
	if (fchmodat(rootfd, s->store_dir + 1, 01775, 0) < 0 ||
	    (build_user && fchownat(rootfd, s->store_dir + 1, 0, s->gid, AT_SYMLINK_NOFOLLOW) < 0)) {
		ret = quoted_error(err, -errno, "cannot set up '%s' in the sandbox", s->store_dir);
		goto out;
	}
	for (size_t i = 0; i < s->nr_inputs; i++)
		if ((ret = add_bind(plan, rootfd, s->inputs[i], SB_BIND_RO, err)) < 0)
			goto out;

	/* The skeleton: first /tmp's mount point (it exists on the host). */
	add_op(plan, SB_OP_DIRS, "/tmp", NULL, NULL, 0755);
	add_op(plan, SB_OP_DIR, "/etc", NULL, NULL, 0755);
	add_op(plan, SB_OP_FILE, "/etc/passwd", etc_passwd, NULL, 0444);
	add_op(plan, SB_OP_FILE, "/etc/group", etc_group, NULL, 0444);
	add_op(plan, SB_OP_FILE, "/etc/hosts", etc_hosts, NULL, 0444);
	if (s->network)
		add_op(plan, SB_OP_FILE, "/etc/resolv.conf", etc_resolv_conf, NULL, 0444);
	for (size_t i = 0; i < s->nr_extra_paths; i++)
		if (!net_own(s, s->extra_paths[i]) &&
		    (ret = plan_bind(plan, s->extra_paths[i], SB_BIND_RO, err)) < 0)
			goto out;
	for (size_t i = 0; i < s->nr_binds; i++)
		if ((ret = plan_bind_at(plan, s->binds[i].host, s->binds[i].inside, err)) < 0)
			goto out;

	add_op(plan, SB_OP_DIR, "/build", NULL, NULL, 0755);
	add_mount(plan, SB_BIND_RW, s->build_dir, "/build");

	add_op(plan, SB_OP_DIR, "/dev", NULL, NULL, 0755);
	add_op(plan, SB_OP_DIR, "/dev/shm", NULL, NULL, 0755);
	add_op(plan, SB_OP_DIR, "/dev/pts", NULL, NULL, 0755);
	add_op(plan, SB_OP_DIR, "/proc", NULL, NULL, 0555);
	for (size_t i = 0; i < ARRAY_SIZE(dev_nodes); i++) {
		char host[32];
		snprintf(host, sizeof(host), "/dev/%s", dev_nodes[i]);
		add_op(plan, SB_OP_FILE, host, "", NULL, 0644);
		add_mount(plan, SB_BIND_DEV, host, host);
	}
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },
		{ "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" },
		{ "/proc/self/fd/2", "/dev/stderr" },
		{ "pts/ptmx", "/dev/ptmx" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(links); i++)
		add_op(plan, SB_OP_SYMLINK, links[i][1], links[i][0], NULL, 0);
	add_mount(plan, SB_TMPFS, NULL, "/dev/shm");
	if (s->shm_size) {
		char opts[64];
		snprintf(opts, sizeof(opts), "mode=1777,size=%llu", s->shm_size);
		plan->mounts[plan->nr_mounts - 1].data = xstrdup(opts);
	}
	if (s->tmp_size && strncmp(s->store_dir, "/tmp/", 5)) {
		/* Over the disk's /tmp, last: a size that a build cannot pass. */
		char opts[64];
		snprintf(opts, sizeof(opts), "mode=1777,size=%llu", s->tmp_size);
		add_mount(plan, SB_TMPFS, NULL, "/tmp");
		plan->mounts[plan->nr_mounts - 1].data = xstrdup(opts);
	}
	add_mount(plan, SB_DEVPTS, NULL, "/dev/pts");
	add_mount(plan, SB_PROC, NULL, "/proc");
	/* Last, the store directory's mount point (below /tmp: there already). */
	add_parent_ops(plan, s->store_dir);
	add_op(plan, SB_OP_DIRS, s->store_dir, NULL, NULL, 0755);

	if (build_user)
		ret = make_detached_root(plan, s->gid, err);
out:
	close(rootfd);
	return ret;
}
