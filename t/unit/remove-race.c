/* remove-race.c - deleting a tree while other threads swap its directories */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "err.h"
#include "remove.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * CVE-2025-46415: a recursive delete that named files by absolute path
 * could be sent elsewhere by swapping a directory for a symlink, and
 * deleted arbitrary directories as root. Here racer threads keep swapping
 * directories of a tree for symlinks to a canary directory (or to its
 * parent), or move them into the canary, while cix_remove_tree_at deletes
 * the tree. The canary must survive every round; each call must remove
 * the tree or fail with a message; what a failed call leaves (the racers'
 * symlinks included) must go with a second call. Before the races, the
 * two worst moments are hit exactly by interposing libc (see exact()).
 *
 * Checked against broken variants of lib/remove.c: without O_NOFOLLOW when
 * descending (caught by exact()), without the ".." check (exact() and the
 * races), and a path-based delete as in the CVE (the races, first round).
 */

#define LEAF_FILES 8
#define INNER_FILES 2
#define NRACERS 2

enum mode { SYM_REL, SYM_ABS, FLIP, RENAME_OUT };
static const char *const mode_name[] = {
	"relative symlinks", "absolute symlinks", "fast flips", "rename-out into the canary"
};

/*
 * The test runs as root: a broken delete that climbs out through ".."
 * could go as many levels up as the tree is deep (5). So base is 8 empty
 * guard levels below the temporary directory, each with a file that must
 * survive too.
 */
#define GUARDS 8

static char top[256], base[300];
static int work_fd = -1, canary_fd = -1, stash_fd = -1, keep_fd = -1;

struct racer {
	pthread_t th;
	int id;
	enum mode mode;
	unsigned seed;
	atomic_int *stop;
	long swaps, links_removed, not_back, serial;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put_file(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		diag("cannot write %s: %s", name, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * A directory at depth (0 for tree) with its files and, below it, fan[depth]
 * directories named prefix[depth]N: tree/aI/bJ/cK/dL, 288 leaves of 8
 * files; 2604 files in all.
 */
static const int fan[] = { 6, 6, 4, 2 };
static const char prefix[] = "abcd";

static void make_dirtree(int dfd, const char *name, int depth, const char *text)
{
	char n[16];
	int fd;
	if (mkdirat(dfd, name, 0755) < 0 ||
	    (fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		diag("cannot make %s: %s", name, strerror(errno));
		return;
	}
	for (int i = 0; i < (depth == 4 ? LEAF_FILES : INNER_FILES); i++) {
		snprintf(n, sizeof(n), "f%02d", i);
		put_file(fd, n, text);
	}
	for (int i = 0; depth < 4 && i < fan[depth]; i++) {
		snprintf(n, sizeof(n), "%c%d", prefix[depth], i);
		make_dirtree(fd, n, depth + 1, text);
	}
	close(fd);
}

static int make_tree(void)
{
	struct stat st;
	make_dirtree(work_fd, "tree", 0, "tree file\n");
	return fstatat(work_fd, "tree", &st, 0);
}

/*
 * The canary, and its parent, hold what a path through a swapped component
 * would name: every tail of a tree path (bJ/cK/dL/fNN, cK/dL/fNN, dL/fNN
 * and fNN), as an attacker who made the tree would arrange.
 */
static void make_mirror(int dfd)
{
	char n[16];
	for (int i = 0; i < LEAF_FILES; i++) {
		snprintf(n, sizeof(n), "f%02d", i);
		put_file(dfd, n, "canary\n");
	}
	mkdirat(dfd, "keep", 0755);   /* no tree names: where directories are moved */
	int keep = openat(dfd, "keep", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; keep >= 0 && i < LEAF_FILES; i++) {
		snprintf(n, sizeof(n), "k%02d", i);
		put_file(keep, n, "canary\n");
	}
	if (keep >= 0)
		close(keep);
	for (int depth = 2; depth <= 4; depth++)
		for (int i = 0; i < fan[depth - 1]; i++) {
			snprintf(n, sizeof(n), "%c%d", prefix[depth - 1], i);
			make_dirtree(dfd, n, depth, "canary\n");
		}
}

/* Entries below dfd, not following symlinks, without the names of skip. */
static int count_tree(int dfd, const char *const *skip)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		int skipped = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
		for (int i = 0; skip && skip[i] && !skipped; i++)
			skipped = !strncmp(de->d_name, skip[i], strlen(skip[i]));
		if (skipped)
			continue;
		n++;
		if (de->d_type == DT_DIR) {
			int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			n += sub < 0 ? 0 : count_tree(sub, skip);
			if (sub >= 0)
				close(sub);
		}
	}
	closedir(d);
	return n;
}

static const char *const in_canary[] = { "mv-", NULL };
static const char *const in_base[] = { "work", "stash", "canary", NULL };
static int mirror_size, base_fd = -1;

/* The canary, its parent and the guards above with all they held. */
static int canary_intact(void)
{
	char p[512];
	struct stat st;
	int good = count_tree(canary_fd, in_canary) == mirror_size &&
		   count_tree(base_fd, in_base) == mirror_size;
	for (int i = 0, len = snprintf(p, sizeof(p), "%s", top); i < GUARDS; i++) {
		strcpy(p + len, "/guard");
		if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode))
			good = 0;
		len += snprintf(p + len, sizeof(p) - (size_t)len, "/g");
	}
	return good;
}

/* Symlinks anywhere below dfd/name, not following any. */
static int count_links(int dfd, const char *name)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return 1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n += count_links(fd, de->d_name);
	closedir(d);
	return n;
}

/* Remove every entry of dfd whose name starts with prefix. */
static void clear(int dfd, const char *start)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    !strncmp(de->d_name, start, strlen(start)))
			cix_remove_tree_at(fd, de->d_name, NULL);
	closedir(d);
}

/* One swap of a random directory of the racer's share of the tree. */
static void swap_once(struct racer *r)
{
	char rel[64], target[512], aside[32];
	int depth = 1 + (int)(rand_r(&r->seed) % (r->mode == FLIP ? 2 : 4)), a;
	size_t len;
	do
		a = (int)(rand_r(&r->seed) % (unsigned)fan[0]);
	while (a % NRACERS != r->id);
	len = (size_t)snprintf(rel, sizeof(rel), "tree/a%d", a);
	for (int i = 1; i < depth; i++)
		len += (size_t)snprintf(rel + len, sizeof(rel) - len, "/%c%d", prefix[i],
					(int)(rand_r(&r->seed) % (unsigned)fan[i]));
	snprintf(aside, sizeof(aside), "%s%d-%ld", r->mode == RENAME_OUT ? "mv-" : "s",
		 r->id, r->serial++);
	int to_fd = r->mode == RENAME_OUT ? keep_fd : stash_fd;
	if (renameat(work_fd, rel, to_fd, aside) < 0)
		return;
	if (r->mode != RENAME_OUT) {
		/* To the canary, or to its parent (which holds the tree too). */
		int parent = rand_r(&r->seed) % 2;
		target[0] = '\0';
		if (r->mode == SYM_ABS)
			snprintf(target, sizeof(target), "%s%s", base, parent ? "" : "/canary");
		else {
			/* the link is in work/tree/..., depth + 1 levels below base */
			for (int i = 0; i <= depth; i++)
				strcat(target, i ? "/.." : "..");
			if (!parent)
				strcat(target, "/canary");
		}
		if (symlinkat(target, work_fd, rel) < 0) {
			renameat(stash_fd, aside, work_fd, rel);
			return;
		}
	}
	r->swaps++;
	if (r->mode != FLIP) {
		struct timespec hold = { 0, (long)(rand_r(&r->seed) %
						 (r->mode == RENAME_OUT ? 2000000 : 100000)) };
		nanosleep(&hold, NULL);
	} else {
		/* mostly a symlink, briefly a directory: spin, no system call */
		double until = now() + (rand_r(&r->seed) % 30) / 1e6;
		while (now() < until)
			;
	}
	if (r->mode != RENAME_OUT) {
		if (atomic_load(r->stop))
			return;   /* leave the symlink for the second call */
		if (unlinkat(work_fd, rel, 0) < 0 && errno == ENOENT)
			r->links_removed++;   /* by the deleter, as a symlink */
	}
	if (renameat(to_fd, aside, work_fd, rel) < 0)
		r->not_back++;
}

static void *racer_main(void *opaque)
{
	struct racer *r = opaque;
	while (!atomic_load(r->stop)) {
		swap_once(r);
		struct timespec pause = { 0, (long)(rand_r(&r->seed) % 50000) };
		if (r->mode != FLIP)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

static void race(enum mode mode, double seconds)
{
	struct racer rs[NRACERS];
	atomic_int stop;
	int rounds = 0, canary_ok = 1, results_ok = 1, second_ok = 1, errors = 0,
	    moved = 0, links_left = 0, calls = 0;
	double make_time = 0, del_time = 0;
	long swaps = 0, links_removed = 0, not_back = 0;
	double start = now();
	char first_err[CIX_ERR_MSG_MAX] = "", other_err[CIX_ERR_MSG_MAX] = "";

	/* At least 3 rounds; longer (up to 6 s) until the racers were met. */
	while (rounds < 3 || now() - start < seconds ||
	       (now() - start < 6 && (mode == RENAME_OUT ? !moved : !links_removed))) {
		struct cix_err err = { 0 };
		struct stat st;
		int rc = 0;

		double t0 = now();
		if (make_tree() < 0)
			break;
		make_time += now() - t0;
		atomic_store(&stop, 0);
		for (int i = 0; i < NRACERS; i++) {
			rs[i] = (struct racer){ .id = i, .mode = mode, .stop = &stop,
						.seed = (unsigned)(rounds * 7919 + i * 104729 + mode) };
			pthread_create(&rs[i].th, NULL, racer_main, &rs[i]);
		}
		/* In even rounds a failed call is retried, still raced, up to 20 times. */
		for (int i = 0; i < (rounds % 2 ? 1 : 20); i++) {
			double t1 = now();
			rc = cix_remove_tree_at(work_fd, "tree", &err);
			del_time += now() - t1;
			calls++;
			if (rc == 0)
				break;
			errors++;
			if (rc == -CIX_EMISMATCH)
				moved++;
			if (!first_err[0] || (rc != -CIX_EMISMATCH && !other_err[0]))
				memcpy(first_err[0] ? other_err : first_err, err.msg, sizeof(first_err));
			if (err.code != rc || !err.msg[0]) {
				results_ok = 0;
				diag("round %d: error %d without a message", rounds + 1, rc);
			}
			if (!canary_intact())
				break;
		}
		atomic_store(&stop, 1);
		for (int i = 0; i < NRACERS; i++) {
			pthread_join(rs[i].th, NULL);
			swaps += rs[i].swaps;
			links_removed += rs[i].links_removed;
			not_back += rs[i].not_back;
		}
		rounds++;
		if (!canary_intact()) {
			canary_ok = 0;
			diag("round %d: the canary was damaged (remove returned %d: %s)",
			     rounds, rc, err.msg);
			break;
		}
		if (rc == 0 && fstatat(work_fd, "tree", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			results_ok = 0;
			diag("round %d: remove returned 0 but the tree is still there", rounds);
		}
		/* Now unraced, a second call removes what is left. */
		links_left += count_links(work_fd, "tree");
		rc = cix_remove_tree_at(work_fd, "tree", &err);
		if (rc < 0 || fstatat(work_fd, "tree", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    !canary_intact()) {
			second_ok = 0;
			diag("round %d: the second call returned %d (%s)", rounds, rc, rc ? err.msg : "");
		}
		clear(stash_fd, "s");
		clear(keep_fd, "mv-");
	}
	diag("%.2fs making trees, %.2fs deleting them", make_time, del_time);
	diag("%s: %d rounds, %ld swaps, %d calls, %d failed (%d on a moved directory), "
	     "%ld swapped-in symlinks removed by the deleter, %ld pieces not put back, "
	     "%d symlinks left by failed calls", mode_name[mode], rounds, swaps, calls, errors, moved,
	     links_removed, not_back, links_left);
	if (first_err[0])
		diag("  e.g. %s", first_err);
	if (other_err[0])
		diag("  and %s", other_err);
	ok(canary_ok, "%s: the canary and its files survive every round", mode_name[mode]);
	ok(results_ok, "%s: each call removed the tree or failed with a message", mode_name[mode]);
	ok(second_ok, "%s: a second call removes what a failed one left, symlinks as symlinks",
	   mode_name[mode]);
	if (mode == RENAME_OUT)
		ok(moved > 0, "%s: going up from a moved directory was caught (%d times)",
		   mode_name[mode], moved);
	else
		ok(links_removed > 0, "%s: the deleter met swapped-in symlinks (%ld times)",
		   mode_name[mode], links_removed);
	ok(count_tree(work_fd, NULL) == 0 && count_tree(stash_fd, NULL) == 0,
	   "%s: nothing is left over", mode_name[mode]);
}

/* Without a race: symlinks of every kind in the tree, and as the top. */
static void unraced(void)
{
	struct cix_err err = { 0 };
	char abs_canary[512], abs_base[512];
	struct stat st;
	int t;

	snprintf(abs_canary, sizeof(abs_canary), "%s/canary", base);
	snprintf(abs_base, sizeof(abs_base), "%s", base);
	make_tree();
	t = openat(work_fd, "tree/a0/b0", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	symlinkat("../../../../canary", t, "rel-canary");
	symlinkat("../../../..", t, "rel-base");
	symlinkat(abs_canary, t, "abs-canary");
	symlinkat(abs_base, t, "abs-base");
	symlinkat("../../../../canary/f00", t, "to-file");
	symlinkat("nowhere", t, "dangling");
	fchmod(t, 0555);   /* a read-only store directory */
	close(t);
	is_int(cix_remove_tree_at(work_fd, "tree", &err), 0,
	       "a tree with symlinks to the canary and its parent is removed");
	ok(fstatat(work_fd, "tree", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT,
	   "  the tree is gone");
	ok(canary_intact(), "  the canary is intact");

	symlinkat(abs_canary, work_fd, "top");
	is_int(cix_remove_tree_at(work_fd, "top", &err), 0, "a symlink given as the top is removed");
	ok(fstatat(work_fd, "top", &st, AT_SYMLINK_NOFOLLOW) < 0 && canary_intact(),
	   "  as a symlink: the canary is intact");
	is_int(cix_remove_tree_at(work_fd, "top", &err), 0, "a missing name is not an error");
}

/*
 * Exact timing, no threads: this binary interposes fstatat64 and openat64,
 * which remove.c's calls bind to, and swaps at the worst moment: a
 * directory for a symlink just after it was checked to be a directory,
 * and the current directory into the canary just before going up.
 */
static enum { HOOK_NONE, HOOK_AFTER_STAT, HOOK_BEFORE_UP } hook;
static const char *hook_name, *hook_target;
static ino_t hook_ino;
static int hook_fired;

int fstatat64(int fd, const char *name, struct stat64 *st, int flags)
{
	static int (*real)(int, const char *, struct stat64 *, int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fstatat64");
	int r = real(fd, name, st, flags);
	if (r == 0 && hook == HOOK_AFTER_STAT && !hook_fired && S_ISDIR(st->st_mode) &&
	    !strcmp(name, hook_name)) {
		hook_fired = renameat(fd, name, stash_fd, "hooked") == 0 &&
			     symlinkat(hook_target, fd, name) == 0;
	}
	return r;
}

int openat64(int fd, const char *name, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	unsigned mode = 0;
	struct stat st;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "openat64");
	if (flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, unsigned);
		va_end(ap);
	}
	if (hook == HOOK_BEFORE_UP && !hook_fired && !strcmp(name, "..") &&
	    fstat(fd, &st) == 0 && st.st_ino == hook_ino)
		hook_fired = renameat(work_fd, hook_name, keep_fd, "mv-hooked") == 0;
	return real(fd, name, flags, mode);
}

static void hooked(int kind, const char *name, const char *target, const char *what)
{
	struct cix_err err = { 0 };
	struct stat st;
	int rc;
	make_tree();
	hook_fired = 0;
	hook_name = name;
	hook_target = target;
	if (kind == HOOK_BEFORE_UP && fstatat(work_fd, name, &st, 0) == 0)
		hook_ino = st.st_ino;
	hook = kind;
	rc = cix_remove_tree_at(work_fd, "tree", &err);
	hook = HOOK_NONE;
	if (!hook_fired) {
		skip(what, "the hook never ran: remove.c calls other functions now");
		cix_remove_tree_at(work_fd, "tree", NULL);
		return;
	}
	ok(canary_intact(), "%s: the canary is intact", what);
	ok(rc < 0 && err.code == rc && err.msg[0], "  the call failed with a message: %s", err.msg);
	ok(cix_remove_tree_at(work_fd, "tree", &err) == 0 &&
	   fstatat(work_fd, "tree", &st, AT_SYMLINK_NOFOLLOW) < 0 && canary_intact(),
	   "  a second call removes the rest, and only that");
	clear(stash_fd, "");
	clear(keep_fd, "mv-");
}

static void exact(void)
{
	char abs_base[sizeof(base)];
	snprintf(abs_base, sizeof(abs_base), "%s", base);
	hooked(HOOK_AFTER_STAT, "a1", "../../canary",
	       "a checked directory swapped for a relative symlink to the canary");
	hooked(HOOK_AFTER_STAT, "c2", abs_base,
	       "a checked directory swapped for an absolute symlink to the canary's parent");
	hooked(HOOK_BEFORE_UP, "tree/a2/b3", NULL,
	       "a directory moved into the canary just before going up from it");
	hooked(HOOK_BEFORE_UP, "tree/a4/b1/c3/d0", NULL,
	       "a leaf directory moved into the canary just before going up from it");
}

/* A fresh base (work, stash, canary) for each part, below the guards. */
static int setup(const char *guards, const char *name)
{
	snprintf(base, sizeof(base), "%s/%s", guards, name);
	if (mkdir(base, 0755) < 0 || (base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	mkdirat(base_fd, "work", 0755);
	mkdirat(base_fd, "stash", 0755);
	mkdirat(base_fd, "canary", 0755);
	work_fd = openat(base_fd, "work", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	stash_fd = openat(base_fd, "stash", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	canary_fd = openat(base_fd, "canary", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (work_fd < 0 || stash_fd < 0 || canary_fd < 0)
		return -1;
	make_mirror(canary_fd);
	make_mirror(base_fd);
	keep_fd = openat(canary_fd, "keep", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mirror_size = count_tree(canary_fd, NULL);
	return 0;
}

static void teardown(void)
{
	close(work_fd);
	close(stash_fd);
	close(canary_fd);
	close(keep_fd);
	close(base_fd);
}

int main(void)
{
	char guards[sizeof(top) + 2 * GUARDS];
	struct stat st;
	/* Thousands of files per round: on tmpfs if TMPDIR does not say. */
	if (!getenv("TMPDIR") && !stat("/dev/shm", &st) && S_ISDIR(st.st_mode) &&
	    !access("/dev/shm", W_OK | X_OK))
		setenv("TMPDIR", "/dev/shm", 1);
	if (tap_mkdtemp(top, sizeof(top), "remove-race") < 0)
		return 1;
	strcpy(guards, top);
	for (int i = 0; i < GUARDS; i++) {
		int g = open(guards, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		put_file(g, "guard", "guard\n");
		close(g);
		strcat(guards, "/g");
		mkdir(guards, 0755);
	}

	if (setup(guards, "unraced") < 0) {
		perror(base);
		return 1;
	}
	ok(mirror_size > 600 && canary_intact(), "the canary is in place (%d entries)", mirror_size);
	unraced();
	exact();
	teardown();
	for (enum mode m = SYM_REL; m <= RENAME_OUT; m++) {
		char name[16];
		snprintf(name, sizeof(name), "race%d", (int)m);
		if (setup(guards, name) < 0) {
			perror(base);
			return 1;
		}
		race(m, 1.0);
		teardown();
	}

	if (!tap_failed)
		cix_remove_tree_at(AT_FDCWD, top, NULL);
	else
		diag("left %s for inspection", top);
	return done_testing();
}
