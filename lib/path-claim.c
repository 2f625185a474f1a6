/* path-claim.c - claims: many paths kept from other writers with one descriptor */
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

/* The protocol is described in path-lock.c. */
#define RECORD CIX_STORE_HASH_CHARS

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

/* The claim file c->name, made and held. */
static int claim_file(struct cix_store *s, struct cix_path_claim *c, struct cix_err *err)
{
	c->nr = 0;
	c->fd = openat(c->dir_fd, c->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       0644);
	if (c->fd < 0 || flock(c->fd, LOCK_EX) < 0) {
		struct strbuf p = STRBUF_INIT;
		int e = errno;
		cix_claims_dir(s, &p);
		int r = cix_error_errno(err, -e, "cannot make the claim '%s/%s'", p.buf, c->name);
		strbuf_release(&p);
		return r;
	}
	return 0;
}

static int claim_files(struct cix_store *s, struct cix_path_claim *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = 0;
	cix_claims_dir(s, &p);
	if (mkdir(p.buf, 0755) < 0 && errno != EEXIST)
		r = cix_error_errno(err, -errno, "cannot make '%s'", p.buf);
	else if ((c->dir_fd = cix_claims_dir_open(s)) < 0)
		r = cix_error_errno(err, -errno, "cannot open '%s'", p.buf);
	if (!r) {
		struct strbuf name = STRBUF_INIT;
		drop_dead_claims(c->dir_fd);
		strbuf_addf(&name, "%ld-%ld", (long)getpid(), (long)c->dir_fd);
		c->name = strbuf_detach(&name, NULL);
		r = claim_file(s, c, err);
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

/*
 * Claiming all paths at once, then looking at their locks, saves two
 * system calls a path, but may not wait for a lock: its holder may be
 * waiting for one of our later paths. So a held lock (rare: another
 * writer at one of the paths right now) sends us back to one at a time.
 */

/* Whether lock file name is held by someone: 1, or 0 (a stale one is removed). */
static int lock_held(struct cix_store *s, const char *name)
{
	struct stat st;
	int fd = openat(s->store_fd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC), held;
	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_EX | LOCK_NB) < 0;
	if (!held && fstat(fd, &st) == 0 && st.st_nlink > 0)
		unlinkat(s->store_fd, name, 0);
	close(fd);
	return held;
}

static int cmp_record(const void *a, const void *b)
{
	return memcmp(a, b, RECORD);
}

/* Whether a lock of one of the n records is held, by one walk of the store's directory. */
static int held_in_listing(struct cix_store *s, const char *recs, size_t n)
{
	DIR *d = cix_opendir_at(s->store_fd, ".");
	struct dirent *de;
	int held = 0;
	if (!d)
		return -errno;
	while (!held && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len > RECORD + 5 && !strcmp(de->d_name + len - 5, ".lock") &&
		    bsearch(de->d_name, recs, n, RECORD, cmp_record))
			held = lock_held(s, de->d_name);
	}
	closedir(d);
	return held;
}

/* Whether a lock of one of paths[0..n) is held, looking at each. */
static int held_one_by_one(struct cix_store *s, const char *const *paths, size_t n)
{
	int held = 0;
	for (size_t i = 0; !held && i < n; i++) {
		struct cix_path_lock lock;
		cix_path_lock_name(paths[i] + strlen(s->store_dir) + 1, &lock);
		held = lock_held(s, lock.name);
		free(lock.name);
	}
	return held;
}

/* A walk of the directory costs a fraction of a lookup per entry (20 bytes on tmpfs). */
static int list_the_store(struct cix_store *s, size_t n)
{
	struct stat st;
	return fstat(s->store_fd, &st) == 0 && (uint64_t)st.st_size / 20 < 6 * (uint64_t)n;
}

static int claim_records(struct cix_store *s, struct cix_path_claim *c,
			 const char *const *paths, size_t n, char *recs, struct cix_err *err)
{
	size_t skip = strlen(s->store_dir) + 1;
	int r;
	for (size_t i = 0; i < n; i++)
		memcpy(recs + i * RECORD, paths[i] + skip, RECORD);
	/* (a fresh claim file: its offset is 0) */
	if ((r = cix_write_full(c->fd, recs, n * RECORD)) < 0)
		return cix_error_errno(err, r, "cannot write the claim '%s'", c->name);
	c->nr = n;
	return 0;
}

int cix_path_claim_all(struct cix_store *s, struct cix_path_claim *c, const char *const *paths,
		       size_t n, struct cix_err *err)
{
	char *recs = xmalloc(n * RECORD + 1);
	int r = claim_records(s, c, paths, n, recs, err), held = 0;
	if (!r)
		held = list_the_store(s, n) ? held_in_listing(s, recs, n)
					    : held_one_by_one(s, paths, n);
	free(recs);
	if (r < 0 || !held)
		return r;
	if (held < 0)
		return cix_error_errno(err, held, "cannot read the store '%s'", s->store_dir);
	/* One at a time, in a fresh claim (waiters on this one wake as it goes). */
	unlinkat(c->dir_fd, c->name, 0);
	close(c->fd);
	if ((r = claim_file(s, c, err)) < 0)
		return r;
	for (size_t i = 0; !r && i < n; i++)
		r = cix_path_claim(s, c, paths[i], err);
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
		cix_claims_dir(s, &p);
		rmdir(p.buf);
		strbuf_release(&p);
		close(c->turn_fd);
	}
	free(c->name);
	*c = (struct cix_path_claim){ .fd = -1, .dir_fd = -1, .turn_fd = -1 };
}
