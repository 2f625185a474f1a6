/* store.c - the local store: opening, locking, adding content */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "env.h"
#include "store-int.h"
#include "gc.h"
#include "store-backend.h"
#include "encoding.h"
#include "nar.h"
#include "remove.h"
#include "store-path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>


const char *cix_state_dir(void)
{
	return cix_env(CIX_ENV_STATE_DIR);
}

/* Remove temporaries of adds that died: those whose lock nobody holds. */
static void clean_tmp(struct cix_store *s)
{
	DIR *d = cix_opendir_at(s->store_fd, TMP_DIR);
	struct dirent *de;
	int fd;
	if (!d)
		return;
	fd = dirfd(d);
	while ((de = readdir(d))) {
		struct cix_path_lock lock = { .fd = -1 };
		/* A temporary is named after its process: tmp-PID-N. */
		if (!strncmp(de->d_name, "tmp-", 4)) {
			if (cix_name_of_dead_process(de->d_name, "tmp-"))
				cix_remove_tree_at(fd, de->d_name, NULL);
			continue;
		}
		if (de->d_name[0] == '.' || cix_store_basename_check(de->d_name,
								      strlen(de->d_name), NULL) < 0)
			continue;
		cix_path_lock_name(de->d_name, &lock);
		if (cix_path_lock_take(s, &lock, 1, NULL) == 0) {
			cix_remove_tree_at(fd, de->d_name, NULL);
			cix_path_unlock(s, &lock);
		}
		free(lock.name);
	}
	closedir(d);
}

/*
 * STORE/TMP_DIR, made when missing, opened and held under a shared lock
 * while the store is open: the last process to close the store removes
 * it when empty (close_tmp_dir), as Nix leaves nothing in the store but
 * store paths. One that was removed while we waited for the lock is made
 * again.
 */
static int open_tmp_dir(struct cix_store *s)
{
	for (int tries = 0; tries < 100; tries++) {
		struct stat st;
		int fd, r;
		if (mkdirat(s->store_fd, TMP_DIR, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(s->store_fd, TMP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		while ((r = flock(fd, LOCK_SH)) < 0 && errno == EINTR)
			;
		if (r == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0)
			return fd;
		r = r < 0 ? -errno : 0;
		close(fd);
		if (r < 0)
			return r;
	}
	return -EAGAIN;
}

/* Hold STORE/TMP_DIR: 0, -EROFS (no message) for a read-only store, or an error. */
static int hold_tmp_dir(struct cix_store *s, struct cix_err *err)
{
	int fd = open_tmp_dir(s);

	if (fd >= 0) {
		s->tmp_fd = fd;
		return 0;
	}
	if (fd == -EROFS)
		return fd;
	return cix_error_errno(err, fd, "cannot create '%s/%s'", s->store_dir, TMP_DIR);
}

int cix_store_need_tmp(struct cix_store *s, struct cix_err *err)
{
	int r;

	if (s->tmp_fd >= 0)
		return 0;
	/* Released since (a daemon's worker between operations): taken again. */
	if ((r = hold_tmp_dir(s, err)) != -EROFS)
		return r;
	return cix_error(err, -EROFS, "cannot write to the store '%s': %s", s->store_dir,
			 strerror(EROFS));
}

/* Remove STORE/TMP_DIR if no other process has the store open and it is empty. */
void cix_store_close_tmp(struct cix_store *s)
{
	if (s->tmp_fd < 0)
		return;
	/* (A failed conversion may drop our shared lock: we are closing anyway.) */
	if (flock(s->tmp_fd, LOCK_EX | LOCK_NB) == 0)
		unlinkat(s->store_fd, TMP_DIR, AT_REMOVEDIR);
	close(s->tmp_fd);
	s->tmp_fd = -1;
}

static int store_open(const char *store_dir, const char *state_dir, int clean,
		      struct cix_store **out, struct cix_err *err)
{
	struct cix_store *s = xcalloc(1, sizeof(*s));
	struct strbuf db = STRBUF_INIT;
	int r;

	s->ops = &cix_store_local_ops;
	s->store_fd = -1;
	s->tmp_fd = -1;
	s->temproots_fd = -1;
	s->store_dir = xstrdup(store_dir ? store_dir : cix_store_dir());
	s->state_dir = xstrdup(state_dir ? state_dir : cix_state_dir());
	if ((r = cix_store_dir_check(s->store_dir, err)) < 0)
		goto fail;
	strbuf_addf(&db, "%s/db", s->state_dir);
	if ((r = cix_mkdirs(s->store_dir, err)) < 0 || (r = cix_mkdirs(db.buf, err)) < 0)
		goto fail;
	s->store_fd = open(s->store_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->store_fd < 0) {
		r = cix_error_errno(err, -errno, "cannot open store '%s'", s->store_dir);
		goto fail;
	}
	/* A read-only store still answers queries: only writes need temporaries. */
	if ((r = hold_tmp_dir(s, err)) < 0 && r != -EROFS)
		goto fail;
	strbuf_addstr(&db, "/db.sqlite");
	if ((r = cix_db_open(db.buf, 1, &s->db, err)) < 0)
		goto fail;
	strbuf_release(&db);
	if (clean) {
		clean_tmp(s);
		cix_store_clean_temp_roots(s);
	}
	*out = s;
	return 0;
fail:
	strbuf_release(&db);
	cix_store_close(s);
	return r;
}

int cix_store_open(const char *store_dir, const char *state_dir,
		   struct cix_store **out, struct cix_err *err)
{
	return store_open(store_dir, state_dir, 1, out, err);
}

int cix_store_open_no_clean(const char *store_dir, const char *state_dir,
			    struct cix_store **out, struct cix_err *err)
{
	return store_open(store_dir, state_dir, 0, out, err);
}

void cix_store_close(struct cix_store *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	cix_store_drop_temp_roots(s);
	cix_db_close(s->db);
	cix_store_close_tmp(s);
	if (s->store_fd >= 0)
		close(s->store_fd);
	free(s->store_dir);
	free(s->state_dir);
	free(s);
}

int cix_store_check_path(struct cix_store *s, const char *path, struct cix_err *err)
{
	return cix_store_path_parse(s->store_dir, path, NULL, err);
}

int cix_remove_path(struct cix_store *s, const char *path, struct cix_err *err)
{
	struct cix_store_path_parts parts;
	int r = cix_store_path_parse(s->store_dir, path, &parts, err);
	return r < 0 ? r : cix_remove_tree_at(s->store_fd, parts.base, err);
}

/* ---- Adding content ---- */

void cix_store_tmp_name_of(struct strbuf *base, long pid)
{
	static unsigned counter;
	strbuf_addf(base, "tmp-%ld-%u", pid, __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
}

void cix_store_tmp_name(struct strbuf *base)
{
	cix_store_tmp_name_of(base, (long)getpid());
}

/*
 * Copy src through its NAR to the temporary directory under the name tmp,
 * with canonical metadata, in one pass: the NAR hash and size are those
 * of the stream restored, so what is stored is exactly what was hashed.
 */
static int copy_in(struct cix_store *s, const char *src, const char *tmp,
		   struct cix_hash *nar_hash, uint64_t *nar_size, struct cix_err *err)
{
	struct strbuf target = STRBUF_INIT;
	int r;
	if ((r = cix_store_need_tmp(s, err)) < 0)
		return r;
	strbuf_addf(&target, "%s/%s/%s", s->store_dir, TMP_DIR, tmp);
	r = cix_nar_copy_at(AT_FDCWD, src, target.buf, CIX_RESTORE_CANONICAL | CIX_RESTORE_WRITEBACK,
			    nar_hash, nar_size, err);
	strbuf_release(&target);
	return r;
}

int cix_store_copy_in(struct cix_store *s, const char *src, const char *base,
		      struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	struct cix_hash h;
	uint64_t size;
	int tfd, r;

	cix_store_tmp_name(&tmp);
	if ((r = copy_in(s, src, tmp.buf, &h, &size, err)) < 0)
		goto out;
	tfd = openat(s->store_fd, TMP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s/%s'", s->store_dir, TMP_DIR);
	} else {
		if ((r = cix_store_move_in(s, tfd, tmp.buf, base, err)) < 0)
			cix_remove_tree_at(tfd, tmp.buf, NULL);
		close(tfd);
	}
out:
	strbuf_release(&tmp);
	return r;
}

static void render_ca(struct strbuf *ca, enum cix_add_method method, const struct cix_hash *h)
{
	strbuf_addf(ca, "fixed:%s%s:", method == CIX_ADD_RECURSIVE ? "r:" : "",
		    cix_hash_algo_name(h->algo));
	cix_nixbase32_encode(ca, h->bytes, h->len);
}

/* The content hash of the copy, for the store path. */
static int content_hash(struct cix_store *s, const char *tmp, enum cix_add_method method,
			enum cix_hash_algo algo, const struct cix_hash *nar_hash,
			struct cix_hash *h, struct cix_err *err)
{
	struct strbuf t = STRBUF_INIT;
	int r;
	if (method == CIX_ADD_RECURSIVE && algo == CIX_HASH_SHA256) {
		*h = *nar_hash;
		return 0;
	}
	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp);
	r = method == CIX_ADD_RECURSIVE ? cix_nar_hash_path(t.buf, algo, h, NULL, err)
					: cix_hash_file(algo, t.buf, h, err);
	strbuf_release(&t);
	return r;
}

int cix_store_move_in(struct cix_store *s, int tmp_fd, const char *tmp, const char *base,
		      struct cix_err *err)
{
	static const struct timespec times[2] = { { 1, 0 }, { 1, 0 } };
	struct stat st;
	if (renameat2(tmp_fd, tmp, s->store_fd, base, RENAME_NOREPLACE) == 0)
		return 0;
	/*
	 * Moving a directory to another parent rewrites its "..", which needs
	 * write access to it: without root, open it up for the move only.
	 * (Tried second: the first try costs root nothing.)
	 */
	if (errno != EACCES || geteuid() == 0 ||
	    fstatat(tmp_fd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return cix_error_errno(err, -errno, "cannot move '%s' into the store", base);
	if (fchmodat(tmp_fd, tmp, 0755, 0) < 0 ||
	    renameat2(tmp_fd, tmp, s->store_fd, base, RENAME_NOREPLACE) < 0)
		return cix_error_errno(err, -errno, "cannot move '%s' into the store", base);
	if (fchmodat(s->store_fd, base, 0555, 0) < 0 ||
	    utimensat(s->store_fd, base, times, AT_SYMLINK_NOFOLLOW) < 0)
		return cix_error_errno(err, -errno, "cannot set metadata of '%s'", base);
	return 0;
}

int cix_store_register(struct cix_store *s, const struct cix_path_info *infos, size_t n,
		       struct cix_err *err)
{
	/* One flush of the store's file system: cheaper than an fsync per file. */
	int fd = openat(s->store_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syncfs(fd) < 0) {
		int r = cix_error_errno(err, -errno, "cannot write the store's files to disk");
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return cix_db_register(s->db, infos, n, err);
}

/*
 * Under the path's lock, unless it became valid meanwhile: rename the copy
 * into place (dropping an invalid leftover of an earlier crash), register.
 * A valid path whose files were deleted by hand is put back.
 */
int cix_store_install(struct cix_store *s, const char *tmp, struct cix_path_info *info,
		      struct cix_err *err)
{
	struct cix_path_lock lock;
	const char *base = info->path + strlen(s->store_dir) + 1;
	int r;

	/* Alive for the collector from now on, valid already or not. */
	if ((r = cix_store_add_temp_root(s, info->path, err)) < 0 ||
	    (r = cix_path_lock(s, info->path, &lock, err)) < 0)
		return r;
	/*
	 * A new path (the usual case) needs no query: nothing is in its place.
	 * If something is, it stays when valid, else it is a leftover.
	 */
	if ((r = cix_store_move_in(s, s->tmp_fd, tmp, base, err)) == -EEXIST) {
		if ((r = cix_db_is_valid(s->db, info->path, err)) != 0) {
			r = r < 0 ? r : 0;
			goto out;
		}
		if ((r = cix_remove_tree_at(s->store_fd, base, err)) < 0)
			goto out;
		r = cix_store_move_in(s, s->tmp_fd, tmp, base, err);
	}
	if (!r && (r = cix_store_register(s, info, 1, err)) < 0)
		cix_remove_tree_at(s->store_fd, base, NULL);
	if (!r)
		r = 1;   /* registered here */
out:
	cix_path_unlock(s, &lock);
	return r;
}

int cix_local_add(struct cix_store *s, const char *src, const char *name,
		  enum cix_add_method method, enum cix_hash_algo algo, struct strbuf *out,
		  struct cix_err *err)
{
	struct cix_path_info info = { 0 };
	struct strbuf path = STRBUF_INIT, ca = STRBUF_INIT, tmp = STRBUF_INIT, t = STRBUF_INIT;
	struct cix_hash h;
	int r;

	if (method == CIX_ADD_FLAT) {
		/* Only a regular file has a flat hash; refuse anything else first. */
		struct stat st;
		if (stat(src, &st) < 0) {
			r = cix_error_errno(err, -errno, "cannot stat '%s'", src);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			r = cix_error(err, -CIX_EINVAL, "'%s' is not a regular file", src);
			goto out;
		}
	}
	cix_store_tmp_name(&tmp);
	if ((r = copy_in(s, src, tmp.buf, &info.nar_hash, &info.nar_size, err)) < 0)
		goto out;
	if ((r = content_hash(s, tmp.buf, method, algo, &info.nar_hash, &h, err)) < 0 ||
	    (r = cix_store_path_make_fixed(&path, s->store_dir, name,
					   method == CIX_ADD_RECURSIVE, &h, err)) < 0)
		goto drop;
	render_ca(&ca, method, &h);
	info.path = path.buf;
	info.ca = ca.buf;
	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp.buf);
	/* Kept alive from here, whether it was valid already or not. */
	if ((r = cix_store_add_temp_root(s, path.buf, err)) == 0 &&
	    (r = cix_db_is_valid(s->db, path.buf, err)) == 0 &&
	    (r = cix_store_admit_drv(s, &info, t.buf, NULL, 0, err)) == 0)
		r = cix_store_install(s, tmp.buf, &info, err);
	cix_store_admit_drv_release(&info);
drop:
	/* Whatever was not moved into place (already valid, or an error). */
	strbuf_reset(&t);
	strbuf_addf(&t, "%s/%s/%s", s->store_dir, TMP_DIR, tmp.buf);
	cix_remove_tree_at(AT_FDCWD, t.buf, NULL);
	if (r >= 0) {
		r = 0;
		strbuf_addstr(out, path.buf);
	}
out:
	strbuf_release(&path);
	strbuf_release(&ca);
	strbuf_release(&tmp);
	strbuf_release(&t);
	return r;
}
