/* optimise.c - share identical files of the store through hard links */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "store-backend.h"
#include "encoding.h"
#include "nar.h"
#include "strvec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * As Nix's auto-optimise: every regular file is hashed as a NAR (so that
 * the executable bit is part of the key) and STORE/.links/<hash> is a hard
 * link to the first copy seen; later copies are replaced by links to it,
 * atomically (a link under a temporary name, then rename). Store files
 * are canonical (same mode, owner and mtime 1), so sharing an inode
 * changes nothing that a NAR records.
 */

struct opt {
	struct cix_store *s;
	int links_fd;
	struct cix_store_optimise_stats *st;
	struct cix_err *err;
};

static int nar_sink_hash(void *opaque, const void *data, size_t len)
{
	cix_hash_update(opaque, data, len);
	return 0;
}

static int link_file(struct opt *o, int dirfd, const char *name, const struct stat *st)
{
	struct cix_hash_ctx ctx;
	struct cix_hash h;
	struct strbuf key = STRBUF_INIT, tmp = STRBUF_INIT;
	struct stat lst;
	int r;

	cix_hash_init(&ctx, CIX_HASH_SHA256);
	r = cix_nar_dump_at(dirfd, name, nar_sink_hash, &ctx, o->err);
	if (r < 0) {
		cix_hash_abort(&ctx);
		return r;
	}
	cix_hash_final(&ctx, &h);
	cix_nixbase32_encode(&key, h.bytes, h.len);

	if (fstatat(o->links_fd, key.buf, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT) {
			r = cix_error_errno(o->err, -errno, "cannot stat link '%s'", key.buf);
		} else if (linkat(dirfd, name, o->links_fd, key.buf, 0) < 0 && errno != EEXIST) {
			r = cix_error_errno(o->err, -errno, "cannot link '%s'", name);
		}
		goto out;
	}
	if (lst.st_ino == st->st_ino && lst.st_dev == st->st_dev)
		goto out; /* already shared */
	if (!S_ISREG(lst.st_mode) || lst.st_size != st->st_size)
		goto out; /* a damaged .links entry is not trusted */

	/* Replace name by a link to the shared copy, atomically. */
	strbuf_addf(&tmp, ".tmp-link-%ld-%s", (long)getpid(), key.buf);
	unlinkat(dirfd, tmp.buf, 0);
	if (linkat(o->links_fd, key.buf, dirfd, tmp.buf, 0) < 0) {
		/* Too many links to one inode: keep this copy as it is. */
		r = errno == EMLINK ? 0 : cix_error_errno(o->err, -errno, "cannot link '%s'", name);
		goto out;
	}
	if (renameat(dirfd, tmp.buf, dirfd, name) < 0) {
		r = cix_error_errno(o->err, -errno, "cannot replace '%s'", name);
		unlinkat(dirfd, tmp.buf, 0);
		goto out;
	}
	if (st->st_nlink == 1)
		o->st->bytes_freed += (uint64_t)st->st_blocks * 512;
	o->st->files_linked++;
out:
	strbuf_release(&key);
	strbuf_release(&tmp);
	return r;
}

static int walk(struct opt *o, int dirfd, const char *name, int depth)
{
	static const struct timespec times[2] = { { 1, 0 }, { 1, 0 } };
	struct stat st;
	int r = 0;

	if (depth > CIX_NAR_MAX_DEPTH)
		return cix_error(o->err, -CIX_ELIMIT, "'%s' is nested too deep", name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return cix_error_errno(o->err, -errno, "cannot stat '%s'", name);
	if (S_ISREG(st.st_mode))
		return link_file(o, dirfd, name, &st);
	if (!S_ISDIR(st.st_mode))
		return 0;

	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cix_error_errno(o->err, -errno, "cannot open '%s'", name);
	DIR *d = cix_fdopendir_dup(fd);
	if (!d) {
		r = cix_error_errno(o->err, -errno, "cannot read '%s'", name);
		close(fd);
		return r;
	}
	/* Replacing entries needs write access for a moment; then 0555 again. */
	fchmod(fd, 0755);
	struct dirent *de;
	while (!r && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = walk(o, fd, de->d_name, depth + 1);
	closedir(d);
	fchmod(fd, st.st_mode & 07777);
	futimens(fd, times);
	close(fd);
	return r;
}

int cix_store_optimise_paths(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_store_optimise_stats *st, struct cix_err *err)
{
	struct opt o = { s, -1, st, err };
	int r = 0;

	memset(st, 0, sizeof(*st));
	if (mkdirat(s->store_fd, ".links", 0755) < 0 && errno != EEXIST)
		return cix_error_errno(err, -errno, "cannot create '%s/.links'", s->store_dir);
	o.links_fd = openat(s->store_fd, ".links", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o.links_fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s/.links'", s->store_dir);
	for (size_t i = 0; !r && i < n; i++) {
		struct cix_path_lock lock;
		if ((r = cix_path_lock(s, paths[i], &lock, err)) < 0)
			break;
		/* Deleted meanwhile: nothing to share. */
		if ((r = cix_db_is_valid(s->db, paths[i], err)) > 0)
			r = walk(&o, s->store_fd, paths[i] + strlen(s->store_dir) + 1, 0);
		cix_path_unlock(s, &lock);
	}
	close(o.links_fd);
	return r;
}

int cix_local_optimise(struct cix_store *s, struct cix_store_optimise_stats *st,
		       struct cix_err *err)
{
	struct strvec p = STRVEC_INIT;
	int r = cix_db_all_valid(s->db, strvec_push_fn, &p, err);
	if (!r)
		r = cix_store_optimise_paths(s, (const char *const *)p.v, p.nr, st, err);
	else
		memset(st, 0, sizeof(*st));
	strvec_clear(&p);
	return r;
}
