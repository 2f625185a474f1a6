/* gc.c - the garbage collector: what is alive, and deleting the rest */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc.h"
#include "remove.h"
#include "remove-queue.h"
#include "store-int.h"
#include "store-path.h"
#include "util.h"

#include <ctype.h>
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
 * The graph of every valid path is read at once (cix_db_load_all) and
 * marked in memory from the roots. The dead paths are then deleted in an
 * order where each comes before what it refers to: invalidated in batches
 * (one transaction each, every path checked to have no referrer left),
 * then their files removed, on a thread of their own while the next
 * batch is invalidated (lib/remove-queue.h).
 */

/*
 * Paths per transaction. Each commit writes every page its deletions made
 * dirty, and in a large store a few thousand random deletions dirty a page
 * each in every b-tree: with 512, a collection of 100k paths wrote 7.5
 * pages (30 KiB) per path and its time grew 19-fold from 10k paths. 4096
 * holds the database's write lock for about a tenth of a second. The
 * bigger the store, the fewer deletions share a page: a collection of n
 * paths goes in batches of n/8 (at most BATCH_MAX, about two seconds of
 * the lock at a million paths), else the pages written per path still
 * grew with the store (1M dead paths: 38 s with 16,384, 33 s with 65,536).
 */
#define BATCH 4096
#define BATCH_MAX 65536

struct gc {
	struct cix_store *s;
	const struct cix_gc_opts *o;
	struct cix_gc_result *res;
	struct cix_db_all all;
	struct strvec roots;        /* every root's path, valid or not; sorted */
	unsigned char *live;
	int stopped;                /* o->cancelled said so: stop at the next path */
};

/* The index of path in the sorted array v[0..n), or CIX_DB_NONE. */
static size_t sorted_index(char *const *v, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid], path);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return CIX_DB_NONE;
}

static size_t find(const struct cix_db_all *a, const char *path)
{
	return sorted_index(a->paths, a->nr, path);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static void mark(struct gc *g)
{
	const struct cix_db_all *a = &g->all;
	size_t *stack = xcalloc(a->nr ? a->nr : 1, sizeof(*stack)), top = 0;
	g->live = xcalloc(a->nr ? a->nr : 1, 1);
#define PUSH(i) do { size_t i_ = (i); if (i_ != CIX_DB_NONE && !g->live[i_]) { \
		g->live[i_] = 1; stack[top++] = i_; } } while (0)
	for (size_t i = 0; i < g->roots.nr; i++)
		PUSH(find(a, g->roots.v[i]));
	while (top) {
		size_t i = stack[--top];
		for (size_t k = a->refs_at[i]; k < a->refs_at[i + 1]; k++)
			PUSH(a->refs[k]);
		if (g->o->keep_derivations)
			PUSH(a->deriver[i]);
		if (g->o->keep_outputs && ends_with(a->paths[i], ".drv"))
			for (size_t k = a->outs_at[i]; k < a->outs_at[i + 1]; k++)
				PUSH(a->outs[k]);
	}
#undef PUSH
	free(stack);
}

/*
 * The paths of set (flags per index) in an order where referrers come
 * first (Kahn's algorithm on the set's own edges); those on a cycle, if
 * any, at the end.
 */
static size_t *referrers_first(const struct cix_db_all *a, const unsigned char *set, size_t *nr)
{
	size_t *indeg = xcalloc(a->nr ? a->nr : 1, sizeof(*indeg));
	size_t *order = xcalloc(a->nr ? a->nr : 1, sizeof(*order)), n = 0, head = 0;
	unsigned char *placed = xcalloc(a->nr ? a->nr : 1, 1);
	for (size_t i = 0; i < a->nr; i++)
		if (set[i])
			for (size_t k = a->refs_at[i]; k < a->refs_at[i + 1]; k++)
				if (a->refs[k] != i && set[a->refs[k]])
					indeg[a->refs[k]]++;
	for (size_t i = 0; i < a->nr; i++)
		if (set[i] && !indeg[i]) {
			order[n++] = i;
			placed[i] = 1;
		}
	while (head < n) {
		size_t i = order[head++];
		for (size_t k = a->refs_at[i]; k < a->refs_at[i + 1]; k++) {
			size_t j = a->refs[k];
			if (j != i && set[j] && !placed[j] && !--indeg[j]) {
				order[n++] = j;
				placed[j] = 1;
			}
		}
	}
	for (size_t i = 0; i < a->nr; i++)
		if (set[i] && !placed[i])
			order[n++] = i;
	free(indeg);
	free(placed);
	*nr = n;
	return order;
}

/* Asked to stop (once asked, stays so)? */
static int stop_now(struct gc *g)
{
	if (!g->stopped && g->o->cancelled && g->o->cancelled(g->o->cancel_opaque))
		g->stopped = 1;
	return g->stopped;
}

static int cancelled_error(struct cix_err *err)
{
	return cix_error(err, -ECANCELED, "the garbage collection was cancelled");
}

static int done_enough(struct gc *g)
{
	return (g->o->max_freed && g->res->bytes_freed >= g->o->max_freed) || stop_now(g);
}

static int stop_fn(void *g)
{
	return stop_now(g);
}

/*
 * Invalidate paths[0..n) (in order), then delete their files: on the
 * queue's thread if there is one (it takes paths), else here, what went
 * counted in g->res at once (a bound on the bytes to free looks at it).
 * < 0 only for database failures (and each's).
 */
static int delete_batch(struct gc *g, struct cix_remove_queue *q, struct cix_removal *rm,
			const char **paths, size_t n, struct cix_err *err)
{
	unsigned char *done = xcalloc(n ? n : 1, 1);
	long r = cix_db_invalidate_many(g->s->db, paths, n, done, err);
	if (r >= 0 && q) {
		cix_remove_queue_add(q, paths, done, n);
		return 0;
	}
	if (r >= 0) {
		r = cix_remove_listed(rm, paths, done, n);
		g->res->bytes_freed += rm->bytes;
		g->res->nr_deleted += rm->count;
		rm->bytes = 0;
		rm->count = 0;
	}
	free(done);
	free(paths);
	return r < 0 ? (int)r : 0;
}

static int delete_in_order(struct gc *g, const size_t *order, size_t n, struct cix_err *err)
{
	size_t batch = g->o->max_freed ? 16 : n / 8 < BATCH ? BATCH : n / 8 > BATCH_MAX ? BATCH_MAX : n / 8;
	struct cix_removal rm = { g->s->store_fd, strlen(g->s->store_dir) + 1, stop_fn, g,
				  g->o->each, g->o->opaque, 0, 0, { 0 } };
	/* (With a bound on the bytes to free, each batch's decide whether to go on: no queue.) */
	struct cix_remove_queue *q = g->o->max_freed || n <= batch ? NULL :
		cix_remove_queue_start(&rm);
	int r = 0;
	for (size_t i = 0; !r && i < n && !done_enough(g); i += batch) {
		size_t m = n - i < batch ? n - i : batch;
		const char **paths = xcalloc(m, sizeof(*paths));
		for (size_t k = 0; k < m; k++)
			paths[k] = g->all.paths[order[i + k]];
		r = delete_batch(g, q, &rm, paths, m, err);
	}
	if (q) {
		if (g->stopped)
			cix_remove_queue_stop(q);
		int qr = cix_remove_queue_finish(q, &rm);
		g->res->bytes_freed += rm.bytes;
		g->res->nr_deleted += rm.count;
		if (!r)
			r = qr;
	}
	if (!r && rm.rm_err.code)
		r = cix_error(err, rm.rm_err.code, "%s", rm.rm_err.msg);
	return r;
}

static int is_root(const struct gc *g, const char *path)
{
	return sorted_index(g->roots.v, g->roots.nr, path) != CIX_DB_NONE;
}

/*
 * Entries of the store that are not valid: leftovers of crashes and of
 * interrupted collections, or paths being built or added now (those are
 * temporary roots, and their locks are held). Stale lock files go too.
 */
static void delete_leftovers(struct gc *g)
{
	struct cix_store *s = g->s;
	int fd = openat(s->store_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	struct strbuf path = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strvec_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; i < names.nr && !done_enough(g); i++) {
		char *name = names.v[i];
		size_t len = strlen(name);
		struct cix_path_lock lock;
		int is_lock = ends_with(name, ".lock");
		if (is_lock)
			name[len - 5] = '\0';
		if (cix_store_basename_check(name, strlen(name), NULL) < 0)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", s->store_dir, name);
		if (is_lock) {
			/* Free and still there: unlocking deletes it. */
			if (cix_path_trylock(s, path.buf, &lock, NULL) == 0)
				cix_path_unlock(s, &lock);
			continue;
		}
		if (find(&g->all, path.buf) != CIX_DB_NONE || is_root(g, path.buf))
			continue;
		if (cix_path_trylock(s, path.buf, &lock, NULL) < 0)
			continue;
		/* Registered since the graph was read? Then it is not garbage. */
		if (cix_db_is_valid(s->db, path.buf, NULL) == 0 &&
		    cix_remove_tree_counted(s->store_fd, name, &g->res->bytes_freed, NULL) == 0 &&
		    g->o->each)
			g->o->each(path.buf, g->o->opaque);
		cix_path_unlock(s, &lock);
	}
	strvec_clear(&names);
	strbuf_release(&path);
}

/* Identical-file links that only the .links directory still holds. */
static void delete_unused_links(struct gc *g)
{
	DIR *d = cix_opendir_at(g->s->store_fd, ".links");
	struct dirent *de;
	int fd;
	if (!d)
		return;
	fd = dirfd(d);
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_nlink != 1)
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0)
			g->res->bytes_freed += (uint64_t)st.st_blocks * 512;
	}
	closedir(d);
}

static int list(struct gc *g, int live)
{
	for (size_t i = 0; i < g->all.nr; i++)
		if (!g->live[i] == !live && g->o->each) {
			int r = g->o->each(g->all.paths[i], g->o->opaque);
			if (r < 0)
				return r;
		}
	return 0;
}

static int delete_specific(struct gc *g, struct cix_err *err)
{
	const struct cix_db_all *a = &g->all;
	unsigned char *set = xcalloc(a->nr ? a->nr : 1, 1);
	size_t n = 0, *order = NULL;
	int r = 0;
	for (size_t i = 0; !r && i < g->o->nr_paths; i++) {
		const char *p = g->o->paths[i];
		size_t k = find(a, p);
		if (k == CIX_DB_NONE)
			r = cix_error(err, -CIX_ENOTFOUND, "cannot delete '%s': it is not valid", p);
		else if (g->live[k])
			r = cix_error(err, -CIX_EEXIST, "cannot delete '%s': it is still alive", p);
		else
			set[k] = 1;
	}
	/* Every referrer must go too: all or nothing. */
	for (size_t i = 0; !r && i < a->nr; i++)
		if (!set[i])
			for (size_t k = a->refs_at[i]; !r && k < a->refs_at[i + 1]; k++)
				if (set[a->refs[k]] && a->refs[k] != i)
					r = cix_error(err, -CIX_EEXIST,
						      "cannot delete '%s': it is still referenced by '%s'",
						      a->paths[a->refs[k]], a->paths[i]);
	if (!r) {
		order = referrers_first(a, set, &n);
		r = delete_in_order(g, order, n, err);
	}
	free(order);
	free(set);
	return r;
}

/*
 * STATE/gc.lock, taken: one collector at a time, and no new temporary
 * roots' file meanwhile. A collector that may be cancelled waits in
 * steps, to notice it; returns the lock's descriptor.
 */
static int lock_collector(struct gc *g, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int op = g->o->cancelled ? LOCK_EX | LOCK_NB : LOCK_EX, r;
	strbuf_addf(&p, "%s/gc.lock", g->s->state_dir);
	int lock = open(p.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", p.buf);
		goto out;
	}
	while ((r = flock(lock, op)) < 0 && (errno == EINTR || errno == EWOULDBLOCK)) {
		if (errno == EWOULDBLOCK) {
			if (stop_now(g))
				break;
			usleep(50 * 1000);
		}
	}
	if (r < 0) {
		r = g->stopped ? cancelled_error(err)
			       : cix_error_errno(err, -errno, "cannot lock '%s'", p.buf);
		close(lock);
	} else {
		r = lock;
	}
out:
	strbuf_release(&p);
	return r;
}

int cix_gc_collect(struct cix_store *s, const struct cix_gc_opts *o, struct cix_gc_result *res,
		   struct cix_err *err)
{
	struct cix_gc_result ignored = { 0 };
	struct gc g = { .s = s, .o = o, .res = res ? res : &ignored, .roots = STRVEC_INIT };
	struct cix_gc_roots roots = { 0 };
	int deleting = o->action == CIX_GC_DELETE_DEAD || o->action == CIX_GC_DELETE_SPECIFIC;
	int lock = -1, r;

	if (!s->db)
		return cix_error(err, -CIX_EUNSUPPORTED, "the garbage collector needs the local store");
	memset(g.res, 0, sizeof(*g.res));
	/* Nothing is invalidated that could not be deleted next. */
	if (deleting && access(s->store_dir, W_OK) < 0 && errno == EROFS)
		return cix_error_errno(err, -EROFS, "cannot delete from '%s'", s->store_dir);
	if (deleting && (r = lock = lock_collector(&g, err)) < 0)
		goto out;
	roots.cancelled = o->cancelled;
	roots.cancel_opaque = o->cancel_opaque;
	if ((r = cix_gc_find_roots(s, deleting, &roots, err)) < 0)
		goto out;
	char own[64];
	snprintf(own, sizeof(own), "{temp:%ld}", (long)getpid());
	for (size_t i = 0; i < roots.nr; i++)
		if (!(o->not_own_temp_roots && o->action == CIX_GC_DELETE_SPECIFIC &&
		      !strcmp(roots.v[i].link, own)))
			strvec_push(&g.roots, roots.v[i].path);
	strvec_sort_unique(&g.roots);
	if (stop_now(&g) || (r = cix_db_load_all(s->db, &g.all, err)) < 0)
		goto out;
	mark(&g);
	switch (o->action) {
	case CIX_GC_LIST_LIVE:
	case CIX_GC_LIST_DEAD:
		r = list(&g, o->action == CIX_GC_LIST_LIVE);
		break;
	case CIX_GC_DELETE_SPECIFIC:
		r = delete_specific(&g, err);
		break;
	case CIX_GC_DELETE_DEAD: {
		unsigned char *dead = xcalloc(g.all.nr ? g.all.nr : 1, 1);
		size_t n;
		for (size_t i = 0; i < g.all.nr; i++)
			dead[i] = !g.live[i];
		size_t *order = referrers_first(&g.all, dead, &n);
		r = delete_in_order(&g, order, n, err);
		free(order);
		free(dead);
		if (!r && !done_enough(&g))
			delete_leftovers(&g);
		if (!r && !g.stopped)
			delete_unused_links(&g);
		break;
	}
	}
out:
	if (g.stopped && r >= 0)
		r = cancelled_error(err);
	cix_gc_roots_release(&roots);
	strvec_clear(&g.roots);
	cix_db_all_release(&g.all);
	free(g.live);
	if (lock >= 0)
		close(lock);
	return r;
}

int cix_parse_size(const char *text, uint64_t *out)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "KB", 1000 }, { "k", 1ULL << 10 },
		{ "M", 1ULL << 20 }, { "MiB", 1ULL << 20 }, { "MB", 1000000 },
		{ "G", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "GB", 1000000000 },
		{ "T", 1ULL << 40 }, { "TiB", 1ULL << 40 }, { "TB", 1000000000000ULL },
	};
	char *end;
	if (!isdigit((unsigned char)*text))
		return -CIX_EINVAL;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno)
		return -CIX_EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			if (v > UINT64_MAX / units[i].mult)
				return -CIX_EINVAL;
			*out = v * units[i].mult;
			return 0;
		}
	return -CIX_EINVAL;
}
