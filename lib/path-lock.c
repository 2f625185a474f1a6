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
static void claims_dir(struct cix_store *s, struct strbuf *p)
{
	strbuf_reset(p);
	strbuf_addf(p, "%s/%s", s->state_dir, CLAIMS_DIR);
}

static int claims_dir_open(struct cix_store *s)
{
	struct strbuf p = STRBUF_INIT;
	claims_dir(s, &p);
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
	int dfd = claims_dir_open(s), cfd = -1;
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

/* Claim files of importers that died (we hold the turn: no other lives). */
static void drop_dead_claims(int dfd)
{
	DIR *d = cix_fdopendir_dup(dfd);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
}

static int claim_files(struct cix_store *s, struct cix_path_claim *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = 0;
	claims_dir(s, &p);
	if (mkdir(p.buf, 0755) < 0 && errno != EEXIST)
		r = cix_error_errno(err, -errno, "cannot make '%s'", p.buf);
	else if ((c->dir_fd = claims_dir_open(s)) < 0)
		r = cix_error_errno(err, -errno, "cannot open '%s'", p.buf);
	if (!r) {
		struct strbuf name = STRBUF_INIT;
		drop_dead_claims(c->dir_fd);
		strbuf_addf(&name, "%ld-%ld", (long)getpid(), (long)c->dir_fd);
		c->name = strbuf_detach(&name, NULL);
		c->fd = openat(c->dir_fd, c->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			       O_CLOEXEC, 0644);
		if (c->fd < 0 || flock(c->fd, LOCK_EX) < 0)
			r = cix_error_errno(err, -errno, "cannot make the claim '%s/%s'", p.buf,
					    c->name);
	}
	strbuf_release(&p);
	return r;
}

int cix_path_claim_begin(struct cix_store *s, struct cix_path_claim *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = 0;
	*c = (struct cix_path_claim){ .fd = -1, .dir_fd = -1, .turn_fd = -1 };
	strbuf_addf(&p, "%s/claims.lock", s->state_dir);
	c->turn_fd = open(p.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->turn_fd < 0)
		r = cix_error_errno(err, -errno, "cannot open '%s'", p.buf);
	while (!r && flock(c->turn_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			r = cix_error_errno(err, -errno, "cannot lock '%s'", p.buf);
	strbuf_release(&p);
	if (!r)
		r = claim_files(s, c, err);
	if (r < 0)
		cix_path_claim_end(s, c);
	return r;
}

int cix_path_claim(struct cix_store *s, struct cix_path_claim *c, const char *path,
		   struct cix_err *err)
{
	struct cix_store_path_parts parts;
	struct cix_path_lock lock;
	struct stat st;
	int r = cix_store_path_parse(s->store_dir, path, &parts, err), fd;
	if (r < 0)
		return r;
	/* Claimed first: who takes the lock after we looked will see it. */
	if (pwrite(c->fd, parts.hash, RECORD, (off_t)(c->nr * RECORD)) != RECORD)
		return cix_error_errno(err, errno ? -errno : -EIO, "cannot write the claim '%s'",
				       c->name);
	c->nr++;
	cix_path_lock_name(parts.base, &lock);
	fd = openat(s->store_fd, lock.name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		/* Held: wait for its holder to finish (it may have made the path). */
		while ((r = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
			;
		if (r < 0)
			r = cix_error_errno(err, -errno, "cannot lock '%s'", lock.name);
		else if (fstat(fd, &st) == 0 && st.st_nlink > 0)
			unlinkat(s->store_fd, lock.name, 0);
		close(fd);
	} else if (errno != ENOENT) {
		r = cix_error_errno(err, -errno, "cannot open lock '%s'", lock.name);
	}
	free(lock.name);
	return r;
}

void cix_path_claim_end(struct cix_store *s, struct cix_path_claim *c)
{
	if (c->fd >= 0) {
		unlinkat(c->dir_fd, c->name, 0);
		close(c->fd);
	}
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	if (c->turn_fd >= 0) {
		/* (fails while claims of dead importers are there: the next one drops them) */
		struct strbuf p = STRBUF_INIT;
		claims_dir(s, &p);
		rmdir(p.buf);
		strbuf_release(&p);
		close(c->turn_fd);
	}
	free(c->name);
	*c = (struct cix_path_claim){ .fd = -1, .dir_fd = -1, .turn_fd = -1 };
}
