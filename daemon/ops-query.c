/* ops-query.c - the daemon's read-only operations, options and roots */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "drv.h"
#include "encoding.h"
#include "store-path.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int op_is_valid_path(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = conn_read_path(c, &p, err);
	if (!r && (r = cix_db_is_valid(c->s->db, p.buf, err)) >= 0) {
		conn_last(c);
		cix_wire_write_u64(&c->w, (uint64_t)r);
		r = 0;
	}
	strbuf_release(&p);
	return r;
}

static int op_query_valid_paths(struct conn *c, struct cix_err *err)
{
	struct strvec in = STRVEC_INIT, out = STRVEC_INIT;
	int r = conn_read_paths(c, &in, err), subst;
	if (!r && c->minor >= 27)
		r = cix_wire_read_bool(&c->w, &subst, err);   /* no substituters yet */
	for (size_t i = 0; !r && i < in.nr; i++)
		if ((r = cix_db_is_valid(c->s->db, in.v[i], err)) > 0) {
			strvec_push(&out, in.v[i]);
			r = 0;
		}
	if (!r) {
		conn_last(c);
		cix_wire_write_strings(&c->w, (const char *const *)out.v, out.nr);
	}
	strvec_clear(&in);
	strvec_clear(&out);
	return r;
}

static int op_query_path_info(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	int r = conn_read_path(c, &p, err);
	if (r)
		goto out;
	r = cix_db_query(c->s->db, p.buf, &info, err);
	if (r == -CIX_ENOTFOUND && c->minor >= 17) {
		conn_last(c);
		cix_wire_write_u64(&c->w, 0);
		r = 0;
		goto out;
	}
	if (r == -CIX_ENOTFOUND)
		r = cix_error(err, r, "path '%s' is not valid", p.buf);
	if (r)
		goto out;
	conn_last(c);
	if (c->minor >= 17)
		cix_wire_write_u64(&c->w, 1);
	conn_write_path_info(c, &info);
out:
	cix_path_info_release(&info);
	strbuf_release(&p);
	return r;
}

static int op_query_path_hash(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT, h = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	int r = conn_read_path(c, &p, err);
	if (!r && !(r = cix_db_query(c->s->db, p.buf, &info, err))) {
		cix_base16_encode(&h, info.nar_hash.bytes, info.nar_hash.len);
		conn_last(c);
		cix_wire_write_str(&c->w, h.buf);
	}
	cix_path_info_release(&info);
	strbuf_release(&p);
	strbuf_release(&h);
	return r;
}

/* A query listing paths: references, referrers, valid derivers, outputs. */
static int list_query(struct conn *c, int (*q)(struct cix_db *, const char *, cix_path_fn,
					       void *, struct cix_err *),
		      struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct strvec out = STRVEC_INIT;
	int r = conn_read_path(c, &p, err);
	if (!r && (r = q(c->s->db, p.buf, strvec_push_fn, &out, err)) >= 0) {
		r = 0;
		conn_last(c);
		cix_wire_write_strings(&c->w, (const char *const *)out.v, out.nr);
	}
	strbuf_release(&p);
	strvec_clear(&out);
	return r;
}

static int op_query_references(struct conn *c, struct cix_err *err)
{
	return list_query(c, cix_db_references, err);
}

static int op_query_referrers(struct conn *c, struct cix_err *err)
{
	return list_query(c, cix_db_referrers, err);
}

static int op_query_valid_derivers(struct conn *c, struct cix_err *err)
{
	return list_query(c, cix_db_valid_derivers, err);
}

static int op_query_derivation_outputs(struct conn *c, struct cix_err *err)
{
	return list_query(c, cix_db_drv_outputs, err);
}

static int op_query_deriver(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	int r = conn_read_path(c, &p, err);
	if (!r && !(r = cix_db_query(c->s->db, p.buf, &info, err))) {
		conn_last(c);
		cix_wire_write_str(&c->w, info.deriver);
	}
	cix_path_info_release(&info);
	strbuf_release(&p);
	return r;
}

/* The derivation's outputs, from its file: name and path of each. */
static int drv_outputs(struct conn *c, const char *drv_path, struct cix_drv **drv,
		       struct cix_err *err)
{
	int r = cix_db_is_valid(c->s->db, drv_path, err);
	if (r <= 0)
		return r < 0 ? r : cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", drv_path);
	return cix_drv_parse_file(drv_path, c->s->store_dir, drv, err);
}

static int op_query_derivation_output_map(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_drv *drv = NULL;
	int r = conn_read_path(c, &p, err);
	if (!r && !(r = drv_outputs(c, p.buf, &drv, err))) {
		conn_last(c);
		cix_wire_write_u64(&c->w, drv->nr_outputs);
		for (size_t i = 0; i < drv->nr_outputs; i++) {
			cix_wire_write_str(&c->w, drv->outputs[i].name);
			cix_wire_write_str(&c->w, drv->outputs[i].path);
		}
	}
	if (drv)
		cix_drv_free(drv);
	strbuf_release(&p);
	return r;
}

static int op_query_derivation_output_names(struct conn *c, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct cix_drv *drv = NULL;
	int r = conn_read_path(c, &p, err);
	if (!r && !(r = drv_outputs(c, p.buf, &drv, err))) {
		conn_last(c);
		cix_wire_write_u64(&c->w, drv->nr_outputs);
		for (size_t i = 0; i < drv->nr_outputs; i++)
			cix_wire_write_str(&c->w, drv->outputs[i].name);
	}
	if (drv)
		cix_drv_free(drv);
	strbuf_release(&p);
	return r;
}

struct hash_part {
	const char *prefix;   /* STORE/HASH- */
	size_t len;
	char *found;
};

static int match_hash_part(const char *path, void *opaque)
{
	struct hash_part *h = opaque;
	if (!strncmp(path, h->prefix, h->len)) {
		h->found = xstrdup(path);
		return -CIX_EEXIST;   /* stop */
	}
	return 0;
}

static int op_query_path_from_hash_part(struct conn *c, struct cix_err *err)
{
	struct strbuf part = STRBUF_INIT, prefix = STRBUF_INIT;
	struct hash_part h = { 0 };
	int r = cix_wire_read_string(&c->w, &part, CIX_WIRE_MAX_PATH, err);
	if (r)
		goto out;
	if (part.len != CIX_STORE_HASH_CHARS || strspn(part.buf, "0123456789abcdfghijklmnpqrsvwxyz") != part.len) {
		r = cix_error(err, -CIX_EINVAL, "invalid hash part");
		goto out;
	}
	strbuf_addf(&prefix, "%s/%s-", c->s->store_dir, part.buf);
	h.prefix = prefix.buf;
	h.len = prefix.len;
	r = cix_db_all_valid(c->s->db, match_hash_part, &h, err);
	if (r >= 0 || (r == -CIX_EEXIST && h.found)) {
		r = 0;
		conn_last(c);
		cix_wire_write_str(&c->w, h.found);
	}
	free(h.found);
out:
	strbuf_release(&part);
	strbuf_release(&prefix);
	return r;
}

static int op_query_all_valid_paths(struct conn *c, struct cix_err *err)
{
	struct strvec out = STRVEC_INIT;
	int r = cix_db_all_valid(c->s->db, strvec_push_fn, &out, err);
	if (r >= 0) {
		r = 0;
		conn_last(c);
		cix_wire_write_strings(&c->w, (const char *const *)out.v, out.nr);
	}
	strvec_clear(&out);
	return r;
}

/* There are no substituters yet (issue 9): nothing is substitutable. */
/* ---- what the caches have (the daemon's, or those the client chose) ---- */

/* The paths the caches have, with their narinfos (taken from conn_subst_query). */
struct subst_found {
	struct strvec paths;
	struct cix_narinfo *infos;
	size_t nr;
};

static void found(void *opaque, const char *path, struct cix_narinfo *ni)
{
	struct subst_found *f = opaque;
	strvec_push(&f->paths, path);
	f->infos = xrealloc(f->infos, (f->nr + 1) * sizeof(*f->infos));
	f->infos[f->nr++] = *ni;
	memset(ni, 0, sizeof(*ni));
}

static void found_release(struct subst_found *f)
{
	for (size_t i = 0; i < f->nr; i++)
		cix_narinfo_release(&f->infos[i]);
	free(f->infos);
	strvec_clear(&f->paths);
}

/* Deriver, references, download size, NAR size: a substitutable path's info. */
static void write_subst_info(struct conn *c, const struct cix_narinfo *ni)
{
	struct strbuf d = STRBUF_INIT;
	struct strvec refs = STRVEC_INIT;
	if (ni->deriver)
		strbuf_addf(&d, "%s/%s", c->s->store_dir, ni->deriver);
	cix_wire_write_str(&c->w, d.buf ? d.buf : "");
	for (size_t i = 0; i < ni->refs.nr; i++) {
		struct strbuf r = STRBUF_INIT;
		strbuf_addf(&r, "%s/%s", c->s->store_dir, ni->refs.v[i]);
		strvec_push(&refs, r.buf);
		strbuf_release(&r);
	}
	cix_wire_write_strings(&c->w, (const char *const *)refs.v, refs.nr);
	cix_wire_write_u64(&c->w, ni->has_file_size ? ni->file_size : 0);
	cix_wire_write_u64(&c->w, ni->nar_size);
	strvec_clear(&refs);
	strbuf_release(&d);
}

/* HasSubstitutes (3) and QuerySubstitutablePathInfo (21): one path. */
static int one_path_subst(struct conn *c, int infos, struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	struct subst_found f = { STRVEC_INIT, NULL, 0 };
	const char *one;
	int r = conn_read_path(c, &p, err);
	one = p.buf;
	if (!r)
		r = conn_subst_query(c, &one, 1, found, &f, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, f.nr ? 1 : 0);
		if (infos && f.nr)
			write_subst_info(c, &f.infos[0]);
	}
	found_release(&f);
	strbuf_release(&p);
	return r;
}

static int op_has_substitutes(struct conn *c, struct cix_err *err)
{
	return one_path_subst(c, 0, err);
}

static int op_query_substitutable_path_info(struct conn *c, struct cix_err *err)
{
	return one_path_subst(c, 1, err);
}

static int op_query_substitutable_paths(struct conn *c, struct cix_err *err)
{
	struct strvec in = STRVEC_INIT;
	struct subst_found f = { STRVEC_INIT, NULL, 0 };
	int r = conn_read_paths(c, &in, err);
	if (!r)
		r = conn_subst_query(c, (const char *const *)in.v, in.nr, found, &f, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_strings(&c->w, (const char *const *)f.paths.v, f.paths.nr);
	}
	found_release(&f);
	strvec_clear(&in);
	return r;
}

static int op_query_substitutable_path_infos(struct conn *c, struct cix_err *err)
{
	struct strvec in = STRVEC_INIT;
	struct subst_found f = { STRVEC_INIT, NULL, 0 };
	uint64_t n;
	int r = 0;
	if (c->minor < 22) {
		r = conn_read_paths(c, &in, err);
	} else {
		/* a map: path -> content address (which a narinfo says itself) */
		struct strbuf k = STRBUF_INIT;
		if (!(r = cix_wire_read_u64(&c->w, &n, err)) && n > CIX_WIRE_MAX_LIST)
			r = cix_error(err, -CIX_ELIMIT, "too many paths");
		for (uint64_t i = 0; !r && i < 2 * n; i++)
			if (!(r = cix_wire_read_string(&c->w, &k, CIX_WIRE_MAX_PATH, err)) && i % 2 == 0)
				strvec_push(&in, k.buf);
		strbuf_release(&k);
	}
	if (!r)
		r = conn_subst_query(c, (const char *const *)in.v, in.nr, found, &f, err);
	if (!r) {
		conn_last(c);
		cix_wire_write_u64(&c->w, f.nr);
		for (size_t i = 0; i < f.nr; i++) {
			cix_wire_write_str(&c->w, f.paths.v[i]);
			write_subst_info(c, &f.infos[i]);
		}
	}
	found_release(&f);
	strvec_clear(&in);
	return r;
}

/* Seconds of a build's limit: up to 10 years. */
#define MAX_SECONDS (10ULL * 365 * 86400)

/*
 * A limit of the daemon's (0: none) as a client sets it for its builds:
 * it may lower it, never raise or remove it (its 0 leaves the daemon's).
 * The same for trusted clients: the daemon's limits are its owner's.
 */
static unsigned long long lower_limit(unsigned long long daemon, unsigned long long client,
				      unsigned long long max)
{
	return cix_limit_lesser(daemon, client > max ? max : client);
}

/* maxBuildJobs: 0 builds nothing; -M given to the daemon is a ceiling. */
static void set_max_jobs(struct conn *c, unsigned long long v)
{
	c->build.no_build = v == 0;
	if (!v)
		return;
	c->build.max_jobs = c->settings->max_jobs_set
			    ? (unsigned)lower_limit(c->settings->max_jobs, v, 1024) : (unsigned)v;
}

static void replace_str(char **slot, const char *value)
{
	free(*slot);
	*slot = *value ? xstrdup(value) : NULL;
}

/*
 * A trusted client's settings for what follows its builds and its
 * collections (1: taken; 0: not one of them, or the client is not trusted).
 */
static int set_restricted(struct conn *c, const char *key, const char *value)
{
	int yes = !strcmp(value, "true"), no = !strcmp(value, "false");
	unsigned long long v;
	if (!c->trusted)
		return !strcmp(key, "auto-optimise-store") || !strcmp(key, "keep-outputs") ||
		       !strcmp(key, "keep-derivations") || !strcmp(key, "post-build-hook") ||
		       !strcmp(key, "secret-key-files") || !strcmp(key, "repeat") ||
		       !strcmp(key, "builders") ? 0 : 1;
	if (!strcmp(key, "auto-optimise-store") && (yes || no))
		c->trusted_set.auto_optimise = yes;
	else if (!strcmp(key, "keep-outputs") && (yes || no))
		c->trusted_set.keep_outputs = yes;
	else if (!strcmp(key, "keep-derivations") && (yes || no))
		c->trusted_set.keep_derivations = yes;
	else if (!strcmp(key, "post-build-hook"))
		replace_str(&c->trusted_set.post_build_hook, value);
	else if (!strcmp(key, "builders"))
		conn_set_builders(c, value);
	else if (!strcmp(key, "secret-key-files"))
		replace_str(&c->trusted_set.secret_key_files, value);
	else if (!strcmp(key, "repeat") && cix_parse_decimal(value, 64, &v) == 0)
		c->build.repeat = (unsigned)v;
	return 1;
}

static void warn_restricted(struct conn *c, const char *key)
{
	struct strbuf m = STRBUF_INIT;
	strbuf_addf(&m, "warning: ignoring the client-specified setting '%s', because it is a "
		    "restricted setting and you are not a trusted user\n", key);
	cix_wire_stderr_next(&c->w, m.buf);
	strbuf_release(&m);
}

/* A setting given by name; those that would weaken isolation are ignored. */
static void set_override(struct conn *c, const char *key, const char *value,
			 struct strbuf *subst, int *have_subst)
{
	unsigned long long v;
	int num = cix_parse_decimal(value, ULLONG_MAX, &v) == 0;
	const struct daemon_settings *d = c->settings;
	key = daemon_guix_option(c, key);
	if (!strcmp(key, "timeout") && num)
		c->build.timeout = (unsigned)lower_limit(d->timeout, v, MAX_SECONDS);
	else if (!strcmp(key, "max-silent-time") && num)
		c->build.max_silent = (unsigned)lower_limit(d->max_silent, v, MAX_SECONDS);
	else if (!strcmp(key, "max-build-log-size") && num)
		c->build.max_log = lower_limit(d->max_log, v, ULLONG_MAX);
	else if (!strcmp(key, "cores") && num && v <= 1024)
		c->build.cores = (unsigned)v;
	else if (!strcmp(key, "max-jobs") && num && v <= 1024)
		set_max_jobs(c, v);
	else if (!strcmp(key, "keep-failed"))
		c->build.keep_failed = !strcmp(value, "true");
	else if (!strcmp(key, "keep-going"))
		c->build.keep_going = !strcmp(value, "true");
	else if (!strcmp(key, "fallback"))
		c->fallback = !strcmp(value, "true");
	else if (!strcmp(key, "substituters") || !strcmp(key, "substitute-urls")) {
		strbuf_setlen(subst, 0);
		strbuf_addstr(subst, value);
		*have_subst = 1;
	}
	else if (!set_restricted(c, key, value))
		warn_restricted(c, key);
	/* sandbox, build-users-group, trusted-public-keys...: the daemon's own */
}

/* Is url one of the daemon's caches? */
static int daemon_has(const struct conn *c, const char *url)
{
	const char *list = c->settings->substitute_urls;
	size_t n = strlen(url);
	while (n > 1 && url[n - 1] == '/')
		n--;
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, " \t\n"), l = len;
		while (l > 1 && p[l - 1] == '/')
			l--;
		if (l == n && !strncmp(p, url, n))
			return 1;
		p += len;
		p += strspn(p, " \t\n");
	}
	return 0;
}

/*
 * The caches a client asks for: a trusted client's as they are; of an
 * untrusted one's, only those the daemon uses itself (so that no user
 * makes the daemon read a file:// directory or a server of their choice).
 */
static void choose_substituters(struct conn *c, const char *urls)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf ok = STRBUF_INIT;
	strvec_split(&v, urls, " \t\n");
	for (size_t i = 0; i < v.nr && i < 64; i++) {
		if (c->trusted || daemon_has(c, v.v[i])) {
			strbuf_addf(&ok, "%s%s", ok.len ? " " : "", v.v[i]);
		} else {
			struct strbuf m = STRBUF_INIT;
			strbuf_addf(&m, "warning: ignoring substitute URL '%s': only trusted users "
				    "may use caches the daemon does not\n", v.v[i]);
			cix_wire_stderr_next(&c->w, m.buf);
			strbuf_release(&m);
		}
	}
	free(c->substitute_urls);
	c->substitute_urls = ok.len ? strbuf_detach(&ok, NULL) : NULL;
	strbuf_release(&ok);
	strvec_clear(&v);
}

/*
 * Settings a client may change: what only affects its own builds. Others
 * (sandbox, build users...) are the daemon's: ignored unless the client
 * is trusted, and then still ignored when they would weaken isolation.
 */
static int op_set_options(struct conn *c, struct cix_err *err)
{
	uint64_t v[12], n;
	struct strbuf k = STRBUF_INIT, val = STRBUF_INIT, subst = STRBUF_INIT;
	int r = 0, have_subst = 0;
	/* keepFailed keepGoing tryFallback verbosity maxBuildJobs maxSilentTime
	   useBuildHook verboseBuild logType printBuildTrace buildCores useSubstitutes */
	for (int i = 0; !r && i < 12; i++)
		r = cix_wire_read_u64(&c->w, &v[i], err);
	if (r)
		goto out;
	c->build.keep_failed = v[0] != 0;
	c->build.keep_going = v[1] != 0;
	c->fallback = v[2] != 0;
	if (v[4] <= 1024)
		set_max_jobs(c, v[4]);
	c->build.max_silent = (unsigned)lower_limit(c->settings->max_silent, v[5], MAX_SECONDS);
	if (v[10] <= 1024)
		c->build.cores = (unsigned)v[10];
	daemon_guix_set_options(c, v[9]);
	if (c->minor >= 12) {
		if (!(r = cix_wire_read_u64(&c->w, &n, err)) && n > 1024) {
			c->broken = 1;
			r = cix_error(err, -CIX_ELIMIT, "too many settings");
		}
		for (uint64_t i = 0; !r && i < n; i++)
			if (!(r = cix_wire_read_string(&c->w, &k, 256, err)) &&
			    !(r = cix_wire_read_string(&c->w, &val, 65536, err)))
				set_override(c, k.buf, val.buf, &subst, &have_subst);
	}
	if (r)
		goto out;
	/* The daemon's caches, those the client chose among them, or none. */
	free(c->substitute_urls);
	c->substitute_urls = NULL;
	if (v[11] && !c->settings->no_substitutes) {
		if (have_subst)
			choose_substituters(c, subst.buf);
		else if (c->settings->substitute_urls)
			c->substitute_urls = xstrdup(c->settings->substitute_urls);
	}
	conn_last(c);
out:
	strbuf_release(&k);
	strbuf_release(&val);
	strbuf_release(&subst);
	return r;
}

static int op_sync_with_gc(struct conn *c, struct cix_err *err)
{
	conn_last(c);
	cix_wire_write_u64(&c->w, 1);
	return 0;
}

const struct op daemon_read_ops[] = {
	{ CIX_OP_IS_VALID_PATH, op_is_valid_path },
	{ CIX_OP_QUERY_PATH_HASH, op_query_path_hash },
	{ CIX_OP_QUERY_REFERENCES, op_query_references },
	{ CIX_OP_QUERY_REFERRERS, op_query_referrers },
	{ CIX_OP_QUERY_DERIVER, op_query_deriver },
	{ CIX_OP_QUERY_DERIVATION_OUTPUTS, op_query_derivation_outputs },
	{ CIX_OP_QUERY_ALL_VALID_PATHS, op_query_all_valid_paths },
	{ CIX_OP_QUERY_PATH_INFO, op_query_path_info },
	{ CIX_OP_QUERY_DERIVATION_OUTPUT_NAMES, op_query_derivation_output_names },
	{ CIX_OP_QUERY_PATH_FROM_HASH_PART, op_query_path_from_hash_part },
	{ CIX_OP_QUERY_VALID_PATHS, op_query_valid_paths },
	{ CIX_OP_QUERY_VALID_DERIVERS, op_query_valid_derivers },
	{ CIX_OP_QUERY_DERIVATION_OUTPUT_MAP, op_query_derivation_output_map },
	{ 0, NULL },
};

const struct op daemon_query_ops[] = {
	{ CIX_OP_HAS_SUBSTITUTES, op_has_substitutes },
	{ CIX_OP_SYNC_WITH_GC, op_sync_with_gc },
	{ CIX_OP_SET_OPTIONS, op_set_options },
	{ CIX_OP_QUERY_SUBSTITUTABLE_PATH_INFO, op_query_substitutable_path_info },
	{ CIX_OP_QUERY_SUBSTITUTABLE_PATH_INFOS, op_query_substitutable_path_infos },
	{ CIX_OP_QUERY_SUBSTITUTABLE_PATHS, op_query_substitutable_paths },
	{ 0, NULL },
};
