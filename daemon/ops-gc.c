/* ops-gc.c - the garbage collector's operations: roots and CollectGarbage */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "encoding.h"
#include "gc.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char CENSORED[] = "{censored}";

/*
 * Has the client hung up? The collector asks now and then: a collection
 * nobody waits for ends there, and releases the GC lock that every add
 * and build waits for.
 */
static int client_gone(void *opaque)
{
	const struct conn *c = opaque;
	struct pollfd p = { .fd = c->w.fd, .events = POLLRDHUP };
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* The path stays alive while the connection lasts (the worker's temporary roots). */
static int op_add_temp_root(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = conn_read_path(c, &p, err);
	if (!r)
		r = cix_store_add_temp_root(c->s, p.buf, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	strbuf_release(&p);
	return r;
}

/*
 * An indirect root: STATE/gcroots/auto/HASH links to the client's symlink
 * (say ./result), which keeps its store path alive while it exists. The
 * collector only reads links on the way, so any absolute name is harmless.
 */
static int op_add_indirect_root(struct conn *c, struct cix_err *err)
{
	struct strbuf link = STRBUF_INIT;
	int r = cix_wire_read_string(&c->w, &link, CIX_WIRE_MAX_PATH, err);
	if (!r && memchr(link.buf, '\0', link.len))
		r = cix_error(err, -CIX_EINVAL, "an indirect root must be an absolute file name");
	if (!r)
		r = cix_store_add_indirect_root(c->s, link.buf, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 1);
	}
	strbuf_release(&link);
	return r;
}

/*
 * What an untrusted user sees of a root's link: its own links; as Nix
 * does, "{censored}" for temporary and runtime roots (the processes of
 * anyone); nothing of the links of others.
 */
static const char *shown_link(const struct conn *c, const struct cix_gc_root *root)
{
	struct stat st;
	if (c->trusted)
		return root->link;
	if (root->runtime || root->link[0] == '{')
		return CENSORED;
	if (root->link[0] == '/' && lstat(root->link, &st) == 0 && st.st_uid == c->uid)
		return root->link;
	return NULL;
}

/* The roots, as (link, path) pairs; censored ones once per path. */
static int op_find_roots(struct conn *c, struct cix_err *err)
{
	struct cix_gc_roots roots = { .cancelled = client_gone, .cancel_opaque = c };
	struct strvec links = STRVEC_INIT, paths = STRVEC_INIT, censored = STRVEC_INIT;
	int r = cix_gc_find_roots(c->s, 0, &roots, err);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < roots.nr; i++) {
		const char *link = shown_link(c, &roots.v[i]);
		if (link == CENSORED) {
			strvec_push(&censored, roots.v[i].path);
		} else if (link) {
			strvec_push(&links, link);
			strvec_push(&paths, roots.v[i].path);
		}
	}
	strvec_sort_unique(&censored);
	conn_last(c);
	cix_wire_write_u64(&c->w, links.nr + censored.nr);
	for (size_t i = 0; i < links.nr; i++) {
		cix_wire_write_str(&c->w, links.v[i]);
		cix_wire_write_str(&c->w, paths.v[i]);
	}
	for (size_t i = 0; i < censored.nr; i++) {
		cix_wire_write_str(&c->w, CENSORED);
		cix_wire_write_str(&c->w, censored.v[i]);
	}
out:
	strvec_clear(&links);
	strvec_clear(&paths);
	strvec_clear(&censored);
	cix_gc_roots_release(&roots);
	return r;
}

static int push_path(const char *path, void *opaque)
{
	strvec_push(opaque, path);
	return 0;
}

/*
 * CollectGarbage: 0 lists the live paths, 1 the dead, 2 deletes the dead
 * (up to maxFreed bytes), 3 deletes the paths given (all dead, or none).
 * Any user may: only what nothing keeps alive is deleted.
 */
static int op_collect_garbage(struct conn *c, struct cix_err *err)
{
	struct strvec paths = STRVEC_INIT, out = STRVEC_INIT;
	struct cix_gc_result res = { 0 };
	uint64_t action, max_freed, obsolete;
	int ignore_liveness, r;
	if ((r = cix_wire_read_u64(&c->w, &action, err)) < 0 ||
	    (r = conn_read_paths(c, &paths, err)) < 0 ||
	    (r = cix_wire_read_bool(&c->w, &ignore_liveness, err)) < 0 ||
	    (r = cix_wire_read_u64(&c->w, &max_freed, err)) < 0)
		goto out;
	for (int i = 0; i < 3; i++)
		if ((r = cix_wire_read_u64(&c->w, &obsolete, err)) < 0)
			goto out;
	if (ignore_liveness) {
		r = cix_error(err, -EPERM, "you may not ignore the garbage collector's roots");
		goto out;
	}
	if (action > 3) {
		r = cix_error(err, -CIX_EINVAL, "unknown garbage collector action %llu",
			      (unsigned long long)action);
		goto out;
	}
	struct cix_gc_opts o = {
		.action = (enum cix_gc_action)action,
		.paths = (const char *const *)paths.v, .nr_paths = paths.nr,
		.max_freed = max_freed == UINT64_MAX ? 0 : max_freed,
		.keep_derivations = c->trusted_set.keep_derivations >= 0
				    ? c->trusted_set.keep_derivations : c->settings->gc_keep_derivations,
		.keep_outputs = c->trusted_set.keep_outputs >= 0
				? c->trusted_set.keep_outputs : c->settings->gc_keep_outputs,
		/* what the connection added it may delete (its temporary roots) */
		.not_own_temp_roots = 1,
		.each = push_path, .opaque = &out,
		.cancelled = client_gone, .cancel_opaque = c,
	};
	cix_wire_stderr_next(&c->w, "finding garbage collector roots...\n");
	if ((r = cix_store_collect_garbage(c->s, &o, &res, err)) < 0) {
		if (r == -ECANCELED && c->settings->debug)
			fprintf(stderr, "cix-daemon: the client of uid %u hung up: its garbage"
				" collection was cancelled\n", (unsigned)c->uid);
		goto out;
	}
	conn_last(c);
	cix_wire_write_strings(&c->w, (const char *const *)out.v, out.nr);
	cix_wire_write_u64(&c->w, res.bytes_freed);
	cix_wire_write_u64(&c->w, 0);   /* obsolete */
out:
	strvec_clear(&paths);
	strvec_clear(&out);
	return r;
}

const struct op daemon_gc_ops[] = {
	{ CIX_OP_ADD_TEMP_ROOT, op_add_temp_root },
	{ CIX_OP_ADD_INDIRECT_ROOT, op_add_indirect_root },
	{ CIX_OP_FIND_ROOTS, op_find_roots },
	{ CIX_OP_COLLECT_GARBAGE, op_collect_garbage },
	{ 0, NULL },
};
