/* build-users.c - the pool of build users, and the directories builds run in */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-users.h"
#include "env.h"
#include "remove.h"
#include "conf.h"
#include "nar.h"
#include "nar-read.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where the machine's build-user locks live (a tmpfs, emptied at boot). */
#define CIX_RUN_DIR "/run/cix"
/* How long to wait between two looks for a free build user. */
#define BUSY_WAIT_NS 50000000L

const char *cix_build_users_group(void)
{
	return cix_env(CIX_ENV_BUILD_USERS_GROUP);
}

/*
 * The killer: a child that becomes uid and kills every process uid may
 * signal. System calls only (glibc's setresuid would signal the caller's
 * threads, whose memory it shares), errno aside.
 */
static int kill_as(void *arg)
{
	uid_t uid = *(const uid_t *)arg;
	if (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 || syscall(SYS_setgroups, 0, NULL) < 0 ||
	    syscall(SYS_setresuid, uid, uid, uid) < 0)
		syscall(SYS_exit, 1);
	/*
	 * One kill(-1) reaches every process the user may signal (all but
	 * the caller), at once: none can fork after it. Its result says
	 * nothing useful (0 whenever any process exists, permitted or not).
	 */
	while (syscall(SYS_kill, -1, SIGKILL) < 0 && errno == EINTR)
		;
	syscall(SYS_exit, 0);
	return 0;
}

#ifdef __SANITIZE_ADDRESS__
/* AddressSanitizer cannot follow a process onto a stack of ours: fork. */
static pid_t start_killer(uid_t *uid)
{
	pid_t pid = fork();
	if (pid == 0)
		kill_as(uid);
	return pid;
}
#else
/* Enough for kill_as's few system calls. */
#define KILLER_STACK 16384

/*
 * CLONE_VM: a fork would copy our page tables and leave copy-on-write
 * faults to every thread of ours, per build. CLONE_VFORK: this thread
 * waits until the child is gone, so the child may use its stack. The
 * child shares our memory with the processes it kills around: they may
 * signal it (it is their user), so it blocks every signal, lest a
 * handler of ours run in it; they cannot trace it (its group is not
 * theirs, and its change of user makes our memory not dumpable, as the
 * sandbox's child's does).
 */
static pid_t start_killer(uid_t *uid)
{
	char stack[KILLER_STACK] __attribute__((aligned(16)));
	/* By the system call: glibc's would leave two of its own unblocked. */
	unsigned long all = ~0UL, old;
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all)) < 0)
		return -1;
	pid_t pid = clone(kill_as, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, uid);
	int e = errno;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	errno = e;
	return pid;
}
#endif

/*
 * Kill every process running as uid, from a child that becomes uid: a
 * builder of an earlier build (or anything else) must not share the
 * user with the next one.
 */
static int kill_user(uid_t uid, struct cix_err *err)
{
	pid_t pid = start_killer(&uid);
	int status;
	if (pid < 0)
		return cix_error_errno(err, -errno, "cannot fork");
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cix_error_errno(err, -errno, "cannot wait for a child");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cix_error(err, -EPERM, "cannot kill the processes of build user %u",
				 (unsigned)uid);
	return 0;
}

/*
 * The build users' locks are the machine's, not a store's: two cix stores
 * (a daemon's and a test's, a private one of distro-check) never take the
 * same build user at once, and none kills the processes of a build user
 * another holds. $CIX_USERPOOL_DIR moves them (tests).
 */
static int open_pool(struct cix_err *err)
{
	const char *dir = cix_env(CIX_ENV_USERPOOL_DIR);
	int fd;
	if (!dir || !*dir) {
		if (mkdir(CIX_RUN_DIR, 0755) < 0 && errno != EEXIST)
			return cix_error_errno(err, -errno, "cannot create '%s'", CIX_RUN_DIR);
		dir = CIX_RUN_DIR "/userpool";
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return cix_error_errno(err, -errno, "cannot create '%s'", dir);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", dir);
	return fd;
}

int cix_build_user_acquire(struct cix_store *s, struct cix_build_user *u, struct cix_err *err)
{
	const char *group = cix_build_users_group();
	uid_t *uids;
	size_t nr;
	gid_t gid = (gid_t)-1;
	int r, pool;

	*u = (struct cix_build_user)CIX_BUILD_USER_INIT;
	if (geteuid() != 0 || !*group)
		return 0;
	if ((r = cix_build_users_members(group, &uids, &nr, &gid, err)) < 0 || !nr)
		return r;
	if ((pool = open_pool(err)) < 0) {
		free(uids);
		return pool;
	}
	for (r = 0; !r && u->uid == (uid_t)-1;) {
		for (size_t i = 0; !r && i < nr; i++) {
			char name[24];
			snprintf(name, sizeof(name), "%u", (unsigned)uids[i]);
			int fd = openat(pool, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (fd < 0) {
				r = cix_error_errno(err, -errno, "cannot open build user lock '%s'", name);
				break;
			}
			if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
				close(fd);
				if (errno != EWOULDBLOCK)
					r = cix_error_errno(err, -errno, "cannot lock build user %s", name);
				continue;
			}
			if ((r = kill_user(uids[i], err)) < 0) {
				close(fd);
				break;
			}
			*u = (struct cix_build_user){ uids[i], gid, fd };
			break;
		}
		if (!r && u->uid == (uid_t)-1) {
			/* All busy: another build gives one back soon. */
			struct timespec ts = { 0, BUSY_WAIT_NS };
			nanosleep(&ts, NULL);
		}
	}
	close(pool);
	free(uids);
	return r;
}

void cix_build_user_release(struct cix_build_user *u)
{
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	*u = (struct cix_build_user)CIX_BUILD_USER_INIT;
}

int cix_build_dir_create(struct cix_store *s, const struct cix_build_user *u, char **out,
			 struct cix_err *err)
{
	struct strbuf d = STRBUF_INIT;
	struct stat st;
	int fd = -1, r = 0;

	*out = NULL;
	strbuf_addf(&d, "%s/builds", s->state_dir);
	if (mkdir(d.buf, 0700) < 0 && errno != EEXIST) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", d.buf);
		goto out;
	}
	if ((fd = open(d.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(fd, &st) < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", d.buf);
		goto out;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 0077)) {
		r = cix_error(err, -EPERM,
			      "'%s' must be the caller's and closed to others (mode 0700): refusing to build there",
			      d.buf);
		goto out;
	}
	close(fd);
	/* Named after the process: a crashed one's is removed later. */
	strbuf_addf(&d, "/build-%ld-XXXXXX", (long)getpid());
	if (!mkdtemp(d.buf)) {
		r = cix_error_errno(err, -errno, "cannot create a build directory in '%s'",
				    s->state_dir);
		goto out;
	}
	if ((fd = open(d.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", d.buf);
		rmdir(d.buf);
		goto out;
	}
	if (u->uid != (uid_t)-1 && fchown(fd, u->uid, u->gid) < 0) {
		r = cix_error_errno(err, -errno, "cannot give '%s' to the build user", d.buf);
		rmdir(d.buf);
		goto out;
	}
	*out = strbuf_detach(&d, NULL);
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&d);
	return r;
}

static int hand_over_at(int dirfd, const char *name, uid_t from, int depth, struct cix_err *err)
{
	struct stat st;
	int fd, r = 0;

	if (depth > CIX_NAR_MAX_DEPTH)
		return cix_error(err, -CIX_ELIMIT, "'%s' is nested too deep", name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : cix_error_errno(err, -errno, "cannot stat '%s'", name);
	if (st.st_uid != from)
		return 0;   /* not the build's: left as it is */
	if (!S_ISDIR(st.st_mode)) {
		if (st.st_nlink != 1)
			return 0;   /* shared with something else */
		if (fchownat(dirfd, name, getuid(), getgid(), AT_SYMLINK_NOFOLLOW) < 0)
			return cix_error_errno(err, -errno, "cannot change owner of '%s'", name);
		return 0;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", name);
	struct stat st2;
	if (fstat(fd, &st2) < 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
		close(fd);
		return cix_error(err, -CIX_EMISMATCH, "'%s' changed while being handed over", name);
	}
	DIR *d = cix_fdopendir_dup(fd);
	if (!d) {
		r = cix_error_errno(err, -errno, "cannot read directory '%s'", name);
		close(fd);
		return r;
	}
	struct dirent *de;
	while (!r && (errno = 0, de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = hand_over_at(fd, de->d_name, from, depth + 1, err);
	if (!r && errno)
		r = cix_error_errno(err, -errno, "cannot read directory '%s'", name);
	closedir(d);
	if (!r && fchown(fd, getuid(), getgid()) < 0)
		r = cix_error_errno(err, -errno, "cannot change owner of '%s'", name);
	close(fd);
	return r;
}

int cix_build_dir_hand_over(const char *dir, const struct cix_build_user *u, struct cix_err *err)
{
	if (u->uid == (uid_t)-1 || u->uid == getuid())
		return 0;   /* the files are the caller's already */
	return hand_over_at(AT_FDCWD, dir, u->uid, 0, err);
}

/* The whole number in the environment variable v, or dflt when unset or not one. */
static long env_count(enum cix_env_var var, long dflt)
{
	const char *v = cix_env(var);
	unsigned long long n;
	return v && cix_parse_decimal(v, LONG_MAX, &n) == 0 ? (long)n : dflt;
}

struct kept_dir {
	char *name;
	time_t mtime;
};

static int newest_first(const void *a, const void *b)
{
	const struct kept_dir *x = a, *y = b;
	return (x->mtime < y->mtime) - (x->mtime > y->mtime);
}

/*
 * Kept build directories go after a while, and the oldest beyond a number:
 * -K may be given to every failed build, and each may leave gigabytes.
 */
static void prune_kept(int dirfd)
{
	const struct cix_build_limits *l;
	long max_age = CIX_KEPT_BUILDS_MAX_AGE, max_nr = CIX_KEPT_BUILDS_MAX;
	/* cix.conf's (none: 0, no bound), then the environment's */
	if (cix_build_limits_of_conf(&l, NULL) == 0) {
		/* (both bounded by the parser: 100 years, 2^40) */
		max_age = l->kept_max_age ? (long)l->kept_max_age : LONG_MAX;
		max_nr = l->kept_max ? (long)l->kept_max : LONG_MAX;
	}
	max_age = env_count(CIX_ENV_KEPT_BUILDS_MAX_AGE, max_age);
	max_nr = env_count(CIX_ENV_KEPT_BUILDS_MAX, max_nr);
	DIR *dir = cix_fdopendir_dup(dirfd);
	struct kept_dir *v = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	struct stat st;
	if (!dir)
		return;
	rewinddir(dir);   /* the descriptor's offset is shared with the caller's reads */
	while ((de = readdir(dir)) && nr < 1000000) {
		if (strncmp(de->d_name, "kept-", 5) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr++] = (struct kept_dir){ xstrdup(de->d_name), st.st_mtime };
	}
	closedir(dir);
	if (nr)
		qsort(v, nr, sizeof(*v), newest_first);
	time_t now = time(NULL);
	for (size_t i = 0; i < nr; i++) {
		if ((long)i >= max_nr || now - v[i].mtime > max_age)
			cix_remove_tree_at(dirfd, v[i].name, NULL);
		free(v[i].name);
	}
	free(v);
}

void cix_build_dirs_clean(struct cix_store *s)
{
	struct strbuf d = STRBUF_INIT;
	strbuf_addf(&d, "%s/builds", s->state_dir);
	int fd = open(d.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? cix_fdopendir_dup(fd) : NULL;
	struct dirent *de;
	strbuf_release(&d);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir)))
		if (cix_name_of_dead_process(de->d_name, "build-"))
			cix_remove_tree_at(fd, de->d_name, NULL);
	closedir(dir);
	prune_kept(fd);
	close(fd);
}

int cix_build_dir_keep(const char *dir, char **kept, struct cix_err *err)
{
	const char *base = strrchr(dir, '/');
	const char *suffix = base ? strrchr(base, '-') : NULL;
	struct strbuf k = STRBUF_INIT;
	*kept = NULL;
	if (!base || !suffix)
		return cix_error(err, -CIX_EINVAL, "'%s' is not a build directory", dir);
	strbuf_add(&k, dir, (size_t)(base - dir));
	int fd = open(k.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	strbuf_addf(&k, "/kept%s", suffix);
	if (rename(dir, k.buf) < 0) {
		int r = cix_error_errno(err, -errno, "cannot rename '%s'", dir);
		if (fd >= 0)
			close(fd);
		strbuf_release(&k);
		return r;
	}
	/* Its age counts from now (a rename leaves its time as the build left it). */
	utimensat(AT_FDCWD, k.buf, NULL, AT_SYMLINK_NOFOLLOW);
	if (fd >= 0) {
		prune_kept(fd);
		close(fd);
	}
	*kept = strbuf_detach(&k, NULL);
	return 0;
}
