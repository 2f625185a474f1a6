/* path-lock.c - per-path locks, and claims that hold many paths with one descriptor */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "store-int.h"
#include "store-path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A path's lock is STORE/BASE.lock under flock(2), unlinked by its holder
 * before it lets go (waiters see nlink 0 and open a fresh one).
 *
 * An import of N paths must keep all N from other writers until its one
 * transaction commits, without N descriptors, and without making and
 * deleting N lock files (ext4 then scans its recently deleted inodes at
 * each creation: quadratic). So it claims them: imports take turns
 * (STATE/claims.lock), and the one whose turn it is holds a claim file
 * STATE/claims/PID-N under LOCK_EX, to which it appends each path's hash
 * part, in ascending order, before it waits for that path's lock to be
 * free (without taking it). Whoever takes a path's lock then looks for
 * the path in the live claims, and if it is there lets go and waits for
 * the claim to end. A claim file not held is a dead importer's: void.
 *
 * No deadlock: multi-path locks are taken in ascending order, and the
 * claimant only ever waits at its newest path, above all it claimed.
 *
 * The usual case, nobody at any of the paths, is cheaper still
 * (path-claim.c): all the hash parts are written at once, then the locks
 * looked at (one walk of the store's directory when the import is a good
 * part of the store, else a lookup each); only if one is held does the
 * claim start again, a path at a time, as above.
 */

#define CLAIMS_DIR "claims"
#define RECORD CIX_STORE_HASH_CHARS

void cix_path_lock_name(const char *base, struct cix_path_lock *lock)
{
	lock->name = xmalloc(strlen(base) + 6);
	strcpy(lock->name, base);
	strcat(lock->name, ".lock");
}

/* STATE/claims into p (reset first). */
void cix_claims_dir(struct cix_store *s, struct strbuf *p)
{
	strbuf_reset(p);
	strbuf_addf(p, "%s/%s", s->state_dir, CLAIMS_DIR);
}

int cix_claims_dir_open(struct cix_store *s)
{
	struct strbuf p = STRBUF_INIT;
	cix_claims_dir(s, &p);
	int fd = open(p.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	strbuf_release(&p);
	return fd;
}

/* Whether the sorted records of claim file cfd hold hash. */
static int claim_has(int cfd, const char *hash)
{
	struct stat st;
	size_t lo = 0, hi;
	char rec[RECORD];
	if (fstat(cfd, &st) < 0)
		return 0;
	hi = (size_t)st.st_size / RECORD;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pread(cfd, rec, RECORD, (off_t)(mid * RECORD)) != RECORD)
			return 0;
		int c = memcmp(rec, hash, RECORD);
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The live claim of another process on base, as an fd to wait on, or -1. */
static int claim_on(struct cix_store *s, const char *base)
{
	int dfd = cix_claims_dir_open(s), cfd = -1;
	char own[32];
	DIR *d;
	struct dirent *de;
	if (dfd < 0)
		return -1; /* the common case: no import in its commit */
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return -1;
	}
	snprintf(own, sizeof(own), "%ld-", (long)getpid());
	while (cfd < 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strncmp(de->d_name, own, strlen(own)))
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		if ((flock(cfd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK) &&
		    claim_has(cfd, base))
			break;
		close(cfd);
		cfd = -1;
	}
	closedir(d);
	return cfd;
}

static void wait_claim(int cfd)
{
	while (flock(cfd, LOCK_SH) < 0 && errno == EINTR)
		;
	close(cfd);
}

int cix_path_lock_take(struct cix_store *s, struct cix_path_lock *lock, int nonblock,
		       struct cix_err *err)
{
	for (;;) {
		struct stat st;
		int fd = openat(s->store_fd, lock->name,
				O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600), cfd;
		if (fd < 0)
			return cix_error_errno(err, -errno, "cannot open lock '%s'", lock->name);
		if (flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0)) < 0) {
			int e = -errno;
			close(fd);
			if (e == -EINTR)
				continue;
			return e == -EWOULDBLOCK ? e :
			       cix_error_errno(err, e, "cannot lock '%s'", lock->name);
		}
		/* Its last holder deleted it after we opened it: take a fresh one. */
		if (fstat(fd, &st) == 0 && st.st_nlink == 0) {
			close(fd);
			continue;
		}
		if ((cfd = claim_on(s, lock->name)) >= 0) {
			unlinkat(s->store_fd, lock->name, 0);
			close(fd);
			if (nonblock) {
				close(cfd);
				return -EWOULDBLOCK;
			}
			wait_claim(cfd);
			continue;
		}
		lock->fd = fd;
		return 0;
	}
}

static int path_lock(struct cix_store *s, const char *path, struct cix_path_lock *lock,
		     int nonblock, struct cix_err *err)
{
	struct cix_store_path_parts parts;
	int r = cix_store_path_parse(s->store_dir, path, &parts, err);
	if (r < 0)
		return r;
	cix_path_lock_name(parts.base, lock);
	if ((r = cix_path_lock_take(s, lock, nonblock, err)) < 0) {
		free(lock->name);
		lock->name = NULL;
	}
	return r;
}

int cix_path_lock(struct cix_store *s, const char *path, struct cix_path_lock *lock,
		  struct cix_err *err)
{
	return path_lock(s, path, lock, 0, err);
}

int cix_path_trylock(struct cix_store *s, const char *path, struct cix_path_lock *lock,
		     struct cix_err *err)
{
	return path_lock(s, path, lock, 1, err);
}

void cix_path_unlock(struct cix_store *s, struct cix_path_lock *lock)
{
	if (!lock->name)
		return;
	/* Unlink while holding it; waiters notice nlink 0 and retry. */
	unlinkat(s->store_fd, lock->name, 0);
	close(lock->fd);
	free(lock->name);
	lock->name = NULL;
}
