/* sandbox-child.c - the sandbox's first process: mounts, pivot_root, exec */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * This runs between clone and execve in a copy of a possibly
 * multi-threaded parent: system calls only, no allocation, no stdio.
 */

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t i = 0;
	if (src)
		for (; src[i] && i + 1 < size; i++)
			dst[i] = src[i];
	dst[i] = '\0';
}

CIX_NORETURN static void fail(const struct sb_plan *plan, const char *what,
			      const char *path)
{
	struct sb_failure f;
	memset(&f, 0, sizeof(f));
	f.err = errno;
	copy_str(f.what, sizeof(f.what), what);
	copy_str(f.path, sizeof(f.path), path);
	/* The parent reads the report whole or not at all. */
	ssize_t n = write(plan->status_fd, &f, sizeof(f));
	(void)n;
	_exit(127);
}

/* The per-mount flags a user namespace locks: a remount must keep them. */
static unsigned long locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long fl = 0;
	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_RDONLY) fl |= MS_RDONLY;
	if (sv.f_flag & ST_NOSUID) fl |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV) fl |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC) fl |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME) fl |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME) fl |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME) fl |= MS_RELATIME;
	return fl;
}

/* A bind mount's flags: nosuid, nodev, and read-only if asked. */
static void remount(const struct sb_plan *plan, const char *dst, int ro)
{
	unsigned long extra = MS_NOSUID | MS_NODEV | (ro ? MS_RDONLY : 0);
	if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | extra | locked_flags(dst), NULL) < 0)
		fail(plan, "cannot remount", dst);
}

static void do_mount(const struct sb_plan *plan, const struct sb_mount *m)
{
	switch (m->kind) {
	case SB_BIND_RO:
	case SB_BIND_RW:
		if (mount(m->src, m->dst, NULL, MS_BIND | MS_REC, NULL) < 0)
			fail(plan, "cannot bind-mount", m->dst);
		remount(plan, m->dst, m->kind == SB_BIND_RO);
		break;
	case SB_BIND_DEV:
		if (mount(m->src, m->dst, NULL, MS_BIND, NULL) < 0)
			fail(plan, "cannot bind-mount", m->dst);
		break;
	case SB_TMPFS:
		if (mount("none", m->dst, "tmpfs", MS_NOSUID | MS_NODEV,
			  m->data ? m->data : "mode=1777") < 0)
			fail(plan, "cannot mount tmpfs on", m->dst);
		break;
	case SB_PROC:
		if (mount("none", m->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			fail(plan, "cannot mount proc on", m->dst);
		break;
	case SB_DEVPTS:
		/* Optional, as in Nix: a builder can live without ptys. */
		mount("none", m->dst, "devpts", MS_NOSUID | MS_NOEXEC,
		      "newinstance,mode=0620,ptmxmode=0666");
		break;
	}
}

int cix_sandbox_make_skeleton(int rootfd, const struct sb_plan *plan, size_t from, size_t to,
			      int exact_modes, size_t *bad)
{
	for (size_t i = from; i < to; i++) {
		const struct sb_op *op = &plan->ops[i];
		const char *rel = op->path + 1;
		struct stat st;
		int fd, ok = 1;
		switch (op->kind) {
		case SB_OP_DIR:
			ok = mkdirat(rootfd, rel, op->mode) == 0 &&
			     (!exact_modes || fchmodat(rootfd, rel, op->mode, 0) == 0);
			break;
		case SB_OP_DIRS:
			/* An existing one must be a directory, not a link. */
			if (mkdirat(rootfd, rel, op->mode) < 0) {
				if (errno != EEXIST ||
				    fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
					ok = 0;
				else if (!S_ISDIR(st.st_mode)) {
					errno = ENOTDIR;
					ok = 0;
				}
			} else if (exact_modes) {
				ok = fchmodat(rootfd, rel, op->mode, 0) == 0;
			}
			break;
		case SB_OP_FILE:
			fd = openat(rootfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    op->mode);
			if (fd < 0) {
				ok = 0;
				break;
			}
			if (cix_write_full(fd, op->data, strlen(op->data)) < 0 ||
			    (exact_modes && fchmod(fd, op->mode) < 0)) {
				int e = errno;
				close(fd);
				errno = e;
				ok = 0;
			} else if (close(fd) < 0) {
				ok = 0;
			}
			break;
		case SB_OP_SYMLINK:
			ok = symlinkat(op->data, rootfd, rel) == 0;
			break;
		}
		if (!ok) {
			*bad = i;
			return errno ? -errno : -EIO;
		}
	}
	return 0;
}

/*
 * The new root: a tmpfs over plan->root, holding the skeleton, /tmp and
 * the store directory taken from the host's root below it. The parent's
 * tmpfs, filled already, or one of ours, filled here (our namespace maps
 * us: we are the builder's user).
 */
static void make_tmpfs_root(const struct sb_plan *plan)
{
	unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE;
	int tmpfd, storefd, rootfd, filled = plan->root_mount_fd >= 0;
	size_t bad;

	tmpfd = (int)syscall(SYS_open_tree, AT_FDCWD, plan->disk_tmp, flags);
	if (tmpfd < 0)
		fail(plan, "cannot open mount tree", plan->disk_tmp);
	storefd = (int)syscall(SYS_open_tree, AT_FDCWD, plan->disk_store, flags);
	if (storefd < 0)
		fail(plan, "cannot open mount tree", plan->disk_store);
	if (filled) {
		if (syscall(SYS_move_mount, plan->root_mount_fd, "", AT_FDCWD, plan->root,
			    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			fail(plan, "cannot mount tmpfs on", plan->root);
		/*
		 * Our root is a mount of that tmpfs of our own, bound over
		 * it: the parent's may have writers (its skeleton's files, in
		 * the descriptor tables of processes its other threads
		 * started meanwhile), which would make it read-only never
		 * (EBUSY); this one has none.
		 */
		if (mount(plan->root, plan->root, NULL, MS_BIND, NULL) < 0)
			fail(plan, "cannot bind-mount", plan->root);
	} else if (mount("none", plan->root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0750") < 0) {
		fail(plan, "cannot mount tmpfs on", plan->root);
	}
	rootfd = open(plan->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rootfd < 0)
		fail(plan, "cannot open", plan->root);
	umask(022);
	/*
	 * ops[0] is /tmp, moved in before the rest (the store may be below
	 * it: the parent made its parents in the tmpfs's /tmp too, hidden now).
	 */
	if (!filled && cix_sandbox_make_skeleton(rootfd, plan, 0, 1, 0, &bad) < 0)
		fail(plan, "cannot create", plan->ops[bad].path);
	if (syscall(SYS_move_mount, tmpfd, "", AT_FDCWD, plan->disk_tmp,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		fail(plan, "cannot mount", plan->disk_tmp);
	remount(plan, plan->disk_tmp, 0);
	if (!filled && cix_sandbox_make_skeleton(rootfd, plan, 1, plan->nr_ops, 0, &bad) < 0)
		fail(plan, "cannot create", plan->ops[bad].path);
	if (syscall(SYS_move_mount, storefd, "", AT_FDCWD, plan->disk_store,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		fail(plan, "cannot mount", plan->disk_store);
	remount(plan, plan->disk_store, 0);
	close(tmpfd);
	close(storefd);
	close(rootfd);
}

static void loopback_up(const struct sb_plan *plan)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	if (fd < 0)
		fail(plan, "cannot open a socket", NULL);
	memset(&ifr, 0, sizeof(ifr));
	copy_str(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	ifr.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		fail(plan, "cannot bring up", "lo");
	close(fd);
}

/*
 * Every signal to its default, by the system call itself: libc refuses to
 * touch the ones it reserves (32 and 33 with glibc), which a caller may
 * have inherited ignored.
 */
static void reset_signals(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ksa;
	memset(&ksa, 0, sizeof(ksa));   /* SIG_DFL is 0 */
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP &&
		    syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask)) < 0) {
			struct sigaction dfl;
			memset(&dfl, 0, sizeof(dfl));
			dfl.sa_handler = SIG_DFL;
			sigaction(sig, &dfl, NULL);
		}
}

void cix_sandbox_child(const struct sb_plan *plan)
{
	const struct cix_sandbox_spec *s = plan->spec;
	char c;

	/* Die with the caller; the caller may already be gone. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (plan->net_wfd >= 0)
		close(plan->net_wfd);
	if (read(plan->sync_fd, &c, 1) != 1)
		_exit(127);

	if (plan->drop_groups && syscall(SYS_setgroups, 0, NULL) < 0)
		fail(plan, "cannot drop supplementary groups", NULL);

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fail(plan, "cannot make mounts private", "/");
	make_tmpfs_root(plan);
	for (size_t i = 0; i < plan->nr_mounts; i++)
		do_mount(plan, &plan->mounts[i]);

	if (sethostname("localhost", 9) < 0 || setdomainname("(none)", 6) < 0)
		fail(plan, "cannot set the host name", NULL);
	loopback_up(plan);

	if (chdir(plan->root) < 0)
		fail(plan, "cannot enter", plan->root);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		fail(plan, "cannot pivot_root to", plan->root);
	if (umount2(".", MNT_DETACH) < 0)
		fail(plan, "cannot detach the old root", NULL);
	if (chdir("/") < 0)
		fail(plan, "cannot enter", "/");
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
		  MS_NODEV | locked_flags("/"), NULL) < 0)
		fail(plan, "cannot make the root read-only", "/");

	int nullfd = open("/dev/null", O_RDONLY);
	if (nullfd < 0)
		fail(plan, "cannot open", "/dev/null");
	if (dup2(nullfd, 0) < 0 || dup2(plan->log_fd, 1) < 0 || dup2(plan->log_fd, 2) < 0)
		fail(plan, "cannot set up standard output", NULL);
	/* Every other descriptor closes at exec (the status pipe already does). */
	if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) < 0)
		fail(plan, "cannot close descriptors", NULL);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(plan, "cannot set no_new_privs", NULL);
	if (plan->filter_len) {
		struct sock_fprog prog = {
			.len = plan->filter_len,
			.filter = (struct sock_filter *)plan->filter,
		};
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
			fail(plan, "cannot install the seccomp filter", NULL);
	}
	/*
	 * By the system calls: glibc's wrappers would signal every thread of
	 * the caller (setxid), threads this copy does not have.
	 */
	if (syscall(SYS_setresgid, CIX_SANDBOX_GID, CIX_SANDBOX_GID, CIX_SANDBOX_GID) < 0 ||
	    syscall(SYS_setresuid, CIX_SANDBOX_UID, CIX_SANDBOX_UID, CIX_SANDBOX_UID) < 0)
		fail(plan, "cannot become the build user", NULL);
	/*
	 * A change of credentials clears the parent-death signal: set it
	 * again, then make sure the caller did not die in between (it keeps
	 * the sync pipe open until the builder ends).
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		fail(plan, "cannot set the parent-death signal", NULL);
	struct pollfd pfd = { .fd = plan->sync_fd, .events = POLLIN };
	if (poll(&pfd, 1, 0) != 0)
		_exit(127);

	/*
	 * As Nix: a session of its own, umask 022, no core dumps, no
	 * address space randomisation (determinism); and none of the
	 * caller's ignored or blocked signals (a daemon ignores SIGPIPE).
	 */
	setsid();
	int pers = personality(0xffffffff);
	/* An i686 build on x86_64: uname -m says i686, as config.guess asks. */
	if (pers != -1 && plan->linux32)
		pers = (pers & ~PER_MASK) | PER_LINUX32;
	if (pers != -1)
		personality((unsigned long)pers | ADDR_NO_RANDOMIZE);
	reset_signals();
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(022);
	struct rlimit core = { 0, RLIM_INFINITY };
	setrlimit(RLIMIT_CORE, &core);
	if (plan->nproc) {
		/* Counts every process of the build user's: it has no others. */
		struct rlimit np;
		if (getrlimit(RLIMIT_NPROC, &np) < 0)
			fail(plan, "cannot read the limit of processes", NULL);
		if (np.rlim_max > plan->nproc)
			np.rlim_max = plan->nproc;
		np.rlim_cur = np.rlim_max;
		if (setrlimit(RLIMIT_NPROC, &np) < 0)
			fail(plan, "cannot limit the number of processes", NULL);
	}

	/* A fixed-output build starts once its network is up (or will not be). */
	if (plan->net_fd >= 0 && read(plan->net_fd, &c, 1) != 1)
		_exit(127);
	if (chdir("/build") < 0)
		fail(plan, "cannot enter", "/build");
	execve(s->builder, s->argv, s->envp);
	fail(plan, "cannot execute", s->builder);
}
