/* package-tx.c - cix package's transactions on profiles: install, remove, generations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "index.h"
#include "package.h"
#include "build.h"
#include "lower.h"
#include "pkg-index.h"
#include "profile.h"
#include "scheme.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <pwd.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The default profile's directory, STATE/profiles/per-user/USER: made
 * here when the store is ours, by cix-daemon (as the user's, when they
 * connect) when it is the daemon's. Either way it must be the user's own
 * directory: one that somebody else made for them could be used to give
 * them a profile of that somebody's choosing.
 */
static int user_dir(struct cix_store *s, const char *dir, struct cix_err *err)
{
	struct stat st;
	int r;
	if (stat(dir, &st) < 0) {
		if (errno != ENOENT)
			return cix_error_errno(err, -errno, "cannot use '%s'", dir);
		if (!cix_store_has(s, CIX_STORE_OWNS_STATE))
			return cix_error(err, -ENOENT, "'%s' does not exist; is cix-daemon running?",
					 dir);
		if ((r = cix_mkdirs(dir, err)) < 0) {
			if (r == -EACCES)
				r = cix_error(err, r, "'%s' does not exist and you cannot create it;"
					      " is cix-daemon running?", dir);
			return r;
		}
		if (stat(dir, &st) < 0)
			return cix_error_errno(err, -errno, "cannot use '%s'", dir);
	}
	if (!S_ISDIR(st.st_mode))
		return cix_error(err, -ENOTDIR, "'%s' is not a directory", dir);
	if (st.st_uid != getuid())
		return cix_error(err, -EPERM, "'%s' is not owned by you but by uid %u", dir,
				 (unsigned)st.st_uid);
	return 0;
}

/*
 * The profile: -p PROFILE, or STATE/profiles/per-user/USER/cix-profile,
 * with ~/.cix-profile linking to it, and STATE/gcroots/profiles making
 * every generation a GC root (the daemon's work when the store is its).
 */
static int profile_path(struct cix_store *s, const char *given, struct strbuf *out,
			struct cix_err *err)
{
	struct strbuf dir = STRBUF_INIT, link = STRBUF_INIT;
	int r = 0;
	if (given) {
		char *slash;
		strbuf_addstr(out, given);
		if ((slash = strrchr(out->buf, '/')) && slash != out->buf) {
			strbuf_add(&dir, out->buf, (size_t)(slash - out->buf));
			r = cix_mkdirs(dir.buf, err);
		}
		strbuf_release(&dir);
		return r;
	}
	struct passwd *pw = getpwuid(getuid());
	const char *user = pw ? pw->pw_name : getenv("USER");
	if (!user || !*user || *user == '.' || strchr(user, '/'))
		return cix_error(err, -CIX_EINVAL, "cannot tell the user's name");
	strbuf_addf(&dir, "%s/profiles/per-user/%s", s->state_dir, user);
	if ((r = user_dir(s, dir.buf, err)) < 0)
		goto out;
	strbuf_addf(out, "%s/cix-profile", dir.buf);
	/* The profiles, roots of the garbage collector. */
	if (cix_store_has(s, CIX_STORE_OWNS_STATE)) {
		strbuf_addf(&link, "%s/gcroots", s->state_dir);
		mkdir(link.buf, 0755);
		strbuf_addstr(&link, "/profiles");
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/profiles", s->state_dir);
		if (symlink(dir.buf, link.buf) < 0 && errno != EEXIST && errno != EACCES)
			r = cix_error(err, -errno, "cannot create '%s'", link.buf);
	}
	/* ~/.cix-profile, when the user has none. */
	const char *home = cix_env(CIX_ENV_HOME);
	if (!r && home && *home == '/') {
		strbuf_reset(&link);
		strbuf_addf(&link, "%s/.cix-profile", home);
		struct stat st;
		if (lstat(link.buf, &st) < 0 && errno == ENOENT && symlink(out->buf, link.buf) < 0)
			fprintf(stderr, "%s: warning: cannot create '%s': %s\n", cix_progname,
				link.buf, strerror(errno));
	}
out:
	strbuf_release(&dir);
	strbuf_release(&link);
	return r;
}

/*
 * A transaction writes in the profile's directory (its links and its
 * lock): one that is not ours to write, another user's profile, is
 * refused in one line before anything is made there.
 */
static int check_writable(const char *profile, struct cix_err *err)
{
	const char *slash = strrchr(profile, '/');
	char *dir = !slash ? xstrdup(".") : slash == profile ? xstrdup("/")
			   : xstrndup(profile, (size_t)(slash - profile));
	struct stat st;
	int r = 0;
	if (access(dir, W_OK | X_OK) < 0) {
		r = -errno;
		if (r == -EACCES && stat(dir, &st) == 0 && st.st_uid != getuid()) {
			struct passwd *pw = getpwuid(st.st_uid);
			char q[128] = "another user";
			if (pw)
				snprintf(q, sizeof(q), "'%s'", pw->pw_name);
			r = cix_error(err, -EACCES, "cannot change the profile '%s': its directory"
				      " belongs to %s (uid %u), not to you", profile, q,
				      (unsigned)st.st_uid);
		} else {
			r = cix_error_errno(err, r, "cannot change the profile '%s'", profile);
		}
	}
	free(dir);
	return r;
}

static int build(struct cix_store *s, const char **drvs, size_t n, const struct pkg_opts *o,
		 struct cix_err *err)
{
	struct cix_build_opts bo = {
		.max_jobs = 1, .log_fd = 2, .max_silent = o->max_silent,
	};
	subst_cli_apply(o->subst, &bo);
	if (o->dry_run)
		return print_missing(s, drvs, n, &bo, err);
	return cix_store_build(s, drvs, n, &bo, err);
}

/* The outputs a package propagates (transitively), installed along with it. */
static void propagated(const struct cix_package *p, struct strvec *deps, int depth)
{
	if (depth > 64)
		return;
	for (size_t i = p->nr_inputs - p->nr_propagated; i < p->nr_inputs; i++) {
		const struct cix_input *in = &p->inputs[i];
		const char *path = cix_input_path(in);
		if (path)
			strvec_push(deps, path);
		if (in->kind == CIX_INPUT_PACKAGE)
			propagated(in->u.package, deps, depth + 1);
	}
}

/*
 * drv added to those to build unless it is built already (every output
 * valid, nothing propagated that may not be): the builder would read the
 * .drv again to find the same. Through the daemon, where each question is
 * a round trip, the builder is asked about all of them in one.
 */
int need_build(struct cix_store *s, const char *drv, const struct strvec *outs,
	       int propagates, struct strvec *drvs, struct cix_err *err)
{
	int built = !propagates && cix_store_has(s, CIX_STORE_LOCAL_DB), r;
	for (size_t i = 0; built && i < outs->nr; i++) {
		if ((r = cix_store_is_valid(s, outs->v[i], err)) < 0)
			return r;
		built = r > 0;
	}
	if (!built)
		strvec_push(drvs, drv);
	return 0;
}

/*
 * A package to install (-i, -e, -u, an entry of -m): its manifest entry,
 * and its derivation added to those to build (all at once, before the
 * profile).
 */
static int install_target(struct cix_lower *l, const struct cix_scheme_target *t,
			  struct cix_manifest *m, struct strvec *drvs, const struct pkg_opts *o,
			  struct cix_manifest_entry **added, struct cix_err *err)
{
	struct cix_package *p = t->package;
	int r;
	if ((r = cix_lower_package(l, p, err)) < 0)
		return r;
	const char *output = t->output ? t->output : "out";
	const char *name = t->name ? t->name : p->name;
	const char *version = t->version ? t->version : p->version;
	const char *path = NULL;
	for (size_t i = 0; i < p->outputs.nr && i < p->out_paths.nr; i++)
		if (!strcmp(p->outputs.v[i], output))
			path = p->out_paths.v[i];
	if (!path)
		return cix_error(err, -CIX_ENOTFOUND, "package '%s' has no output '%s'", p->name,
				 output);
	if (o->dry_run)
		fprintf(stderr, "would install %s-%s:%s (%s)\n", name, version, output, path);
	if ((r = need_build(l->store, p->drv_path, &p->out_paths, p->nr_propagated, drvs,
			     err)) < 0)
		return r;
	cix_manifest_remove(m, name, output);
	struct cix_manifest_entry *e = cix_manifest_add(m, name, version, output, path);
	propagated(p, &e->deps, 0);
	strvec_sort_unique(&e->deps);
	for (size_t i = 0; i < t->nr_search_paths; i++)
		cix_manifest_entry_add_search_path(e, &t->search_paths[i]);
	if (added)
		*added = e;
	return 0;
}

/* -i SPEC, -e EXPR (is_expr). */
static int install_one(struct cix_lower *l, struct cix_scheme_session *ss, const char *spec,
		       int is_expr, struct cix_manifest *m, struct strvec *drvs, const struct pkg_opts *o,
		       struct cix_err *err)
{
	struct cix_scheme_target t;
	struct cix_manifest_entry *e = NULL;
	int r;
	/* The evaluation cache knows native packages only. */
	if (!is_expr && !o->target) {
		if ((r = pkg_eval_install(l, spec, m, drvs, o, err)) != 0)
			return r < 0 ? r : 0;
		index_hint_lookups();
	}
	r = is_expr ? cix_scheme_read_expr(ss, spec, &t, err)
		    : cix_scheme_read_spec(ss, spec, &t, err);
	if (!r && !t.package)   /* an expression may give a derivation's file name */
		r = cix_error(err, -CIX_EINVAL, "'%s' gives a derivation, not a package", spec);
	if (!r)
		r = install_target(l, &t, m, drvs, o, &e, err);
	if (!r && !is_expr && !o->target)
		pkg_eval_record(spec, t.package, e);
	cix_scheme_target_release(&t);
	return r;
}

/*
 * -u [REGEXP]: each installed package whose name matches, replaced by the
 * newest version of that name when it is newer.
 */
static int upgrade(struct cix_lower *l, struct cix_scheme_session *ss, struct cix_manifest *m,
		   struct strvec *drvs, const struct pkg_opts *o, struct cix_err *err)
{
	struct strvec specs = STRVEC_INIT;
	regex_t rx;
	int r = 0;
	if (o->upgrade_rx && regcomp(&rx, o->upgrade_rx, REG_EXTENDED | REG_NOSUB))
		return cix_error(err, -CIX_EINVAL, "invalid regular expression '%s'", o->upgrade_rx);
	for (size_t i = 0; i < m->nr; i++) {
		const struct cix_manifest_entry *e = &m->v[i];
		struct cix_scheme_target t;
		if (o->upgrade_rx && regexec(&rx, e->name, 0, NULL, 0))
			continue;
		/* A package the distribution no longer has is left as it is. */
		if (cix_scheme_read_spec(ss, e->name, &t, err) < 0) {
			fprintf(stderr, "%s: warning: %s\n", cix_progname, err->msg);
			cix_err_clear(err);
			cix_scheme_target_release(&t);
			continue;
		}
		if (cix_version_cmp(t.package->version, e->version) > 0) {
			struct strbuf spec = STRBUF_INIT;
			strbuf_addf(&spec, "%s-%s:%s", e->name, t.package->version, e->output);
			strvec_push(&specs, spec.buf);
			fprintf(stderr, "upgrading %s %s to %s\n", e->name, e->version,
				t.package->version);
			strbuf_release(&spec);
		}
		cix_scheme_target_release(&t);
	}
	for (size_t i = 0; !r && i < specs.nr; i++)
		r = install_one(l, ss, specs.v[i], 0, m, drvs, o, err);
	if (o->upgrade_rx)
		regfree(&rx);
	strvec_clear(&specs);
	return r;
}

static int name_output_cmp(const void *pa, const void *pb)
{
	const struct cix_manifest_entry *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->output, b->output);
}

/* -n -m: the installed entries the manifests leave out (m gets sorted). */
static void say_removed(const struct cix_manifest *old, struct cix_manifest *m)
{
	cix_manifest_sort(m);
	for (size_t i = 0; i < old->nr; i++) {
		const struct cix_manifest_entry *e = &old->v[i];
		if (!m->nr || !bsearch(e, m->v, m->nr, sizeof(*m->v), name_output_cmp))
			fprintf(stderr, "would remove %s-%s:%s (%s)\n", e->name, e->version,
				e->output, e->path);
	}
}

/*
 * -m FILE...: m, empty, becomes their entries (a later entry of the same
 * name and output replacing an earlier one, as -i does).
 */
static int from_manifests(struct cix_lower *l, struct cix_scheme_session *ss,
			  const char *profile, struct cix_manifest *m, struct strvec *drvs,
			  const struct pkg_opts *o, struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < o->manifests.nr; i++) {
		struct cix_scheme_target *v;
		size_t n;
		index_hint_lookups();
		if ((r = cix_scheme_read_manifest(ss, o->manifests.v[i], &v, &n, err)) < 0)
			break;
		for (size_t k = 0; !r && k < n; k++)
			r = install_target(l, &v[k], m, drvs, o, NULL, err);
		for (size_t k = 0; k < n; k++)
			cix_scheme_target_release(&v[k]);
		free(v);
	}
	if (!r && o->dry_run) {
		struct cix_manifest old;
		if ((r = cix_manifest_read(profile, &old, err)) == 0)
			say_removed(&old, m);
		cix_manifest_release(&old);
	}
	return r;
}

/* -r, -i, -e, -u: the profile's manifest, changed. */
static int edit_manifest(struct cix_lower *l, struct cix_scheme_session *ss,
			 const char *profile, struct cix_manifest *m, struct strvec *drvs,
			 const struct pkg_opts *o, struct cix_err *err)
{
	int r;
	if ((r = cix_manifest_read(profile, m, err)) < 0)
		return r;
	for (size_t i = 0; i < o->removes.nr; i++) {
		const char *spec = o->removes.v[i], *colon = strrchr(spec, ':');
		char *name = colon ? xmemdup(spec, (size_t)(colon - spec)) : xstrdup(spec);
		size_t gone = cix_manifest_remove(m, name, colon ? colon + 1 : NULL);
		free(name);
		if (!gone)
			return cix_error(err, -CIX_ENOTFOUND, "package '%s' is not installed", spec);
	}
	if (o->upgrade)
		index_hint_lookups();
	for (size_t i = 0; i < o->installs.nr; i++)
		if ((r = install_one(l, ss, o->installs.v[i], 0, m, drvs, o, err)) < 0)
			return r;
	for (size_t i = 0; i < o->exprs.nr; i++)
		if ((r = install_one(l, ss, o->exprs.v[i], 1, m, drvs, o, err)) < 0)
			return r;
	if (o->upgrade && (r = upgrade(l, ss, m, drvs, o, err)) < 0)
		return r;
	return 0;
}

/*
 * --search-paths[=KIND]: PATH and the search paths the installed entries
 * declare, for the files of the profile that exist (named absolutely).
 */
static int search_paths(const char *profile, enum cix_search_path_kind kind,
			struct cix_err *err)
{
	struct cix_manifest m;
	struct strbuf out = STRBUF_INIT, abs = STRBUF_INIT;
	const struct cix_search_path **sps = NULL;
	size_t n = 0, alloc = 0;
	int r;
	if ((r = cix_manifest_read(profile, &m, err)) < 0)
		return r;
	if (profile[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (cwd)
			strbuf_addf(&abs, "%s/", cwd);
		free(cwd);
	}
	strbuf_addstr(&abs, profile);
	profile = abs.buf;
	for (size_t i = 0; i < m.nr; i++)
		for (size_t k = 0; k < m.v[i].nr_search_paths; k++) {
			ALLOC_GROW(sps, n + 1, alloc);
			sps[n++] = &m.v[i].search_paths[k];
		}
	r = cix_search_paths_export(profile, sps, n, kind, &out, err);
	if (!r)
		fputs(out.buf, stdout);
	free(sps);
	strbuf_release(&out);
	strbuf_release(&abs);
	cix_manifest_release(&m);
	return r;
}

/* Build the generation for m and switch to it. */
static int commit(struct cix_store *s, struct cix_lower *l, const char *profile,
		  struct cix_manifest *m, const struct pkg_opts *o, struct cix_err *err)
{
	struct strvec paths = STRVEC_INIT, seen = STRVEC_INIT;
	struct strbuf text = STRBUF_INIT;
	char *drv = NULL, *out = NULL;
	long number;
	int r;

	/* Each path once, at its first place. */
	cix_manifest_sort(m);
	for (size_t i = 0; i < m->nr; i++) {
		if (strvec_insert_sorted(&seen, m->v[i].path))
			strvec_push(&paths, m->v[i].path);
		for (size_t k = 0; k < m->v[i].deps.nr; k++)
			if (strvec_insert_sorted(&seen, m->v[i].deps.v[k]))
				strvec_push(&paths, m->v[i].deps.v[k]);
	}
	cix_manifest_format(m, &text);
	if ((r = cix_lower_profile(l, (const char *const *)paths.v, paths.nr, text.buf, &drv, &out,
				   err)) < 0)
		goto out;
	if (o->dry_run) {
		fprintf(stderr, "would make a new generation: %s\n", out);
		goto out;
	}
	if ((r = build(s, (const char **)&drv, 1, o, err)) < 0)
		goto out;
	/* The same profile as the current generation's: no new generation. */
	char *cur = realpath(profile, NULL);
	int same = cur && !strcmp(cur, out);
	free(cur);
	if (same) {
		fprintf(stderr, "nothing to be done\n");
		goto out;
	}
	if ((r = cix_profile_add_generation(profile, out, &number, err)) < 0)
		goto out;
	fprintf(stderr, "generation %ld: %s\n", number, out);
out:
	strvec_clear(&paths);
	strvec_clear(&seen);
	strbuf_release(&text);
	free(drv);
	free(out);
	return r;
}

/* The empty profile, for generation 0. */
static int empty_profile(struct cix_store *s, struct cix_lower *l, const struct pkg_opts *o,
			 char **out, struct cix_err *err)
{
	struct cix_manifest m = { 0 };
	struct strbuf text = STRBUF_INIT;
	char *drv = NULL;
	int r;
	cix_manifest_format(&m, &text);
	r = cix_lower_profile(l, NULL, 0, text.buf, &drv, out, err);
	if (!r)
		r = build(s, (const char **)&drv, 1, o, err);
	free(drv);
	strbuf_release(&text);
	return r;
}

static void print_manifest(const struct cix_manifest *m, const regex_t *rx, const char *indent)
{
	for (size_t i = 0; i < m->nr; i++)
		if (!rx || !regexec(rx, m->v[i].name, 0, NULL, 0))
			printf("%s%s\t%s\t%s\t%s\n", indent, m->v[i].name, m->v[i].version,
			       m->v[i].output, m->v[i].path);
}

static int list_generations(const char *profile, struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0;
	long current = 0;
	int r;
	if ((r = cix_profile_generations(profile, &v, &n, err)) < 0 ||
	    (r = cix_profile_current(profile, &current, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct cix_manifest m = { 0 };
		char when[64];
		struct tm tm;
		localtime_r(&v[i].time, &tm);
		strftime(when, sizeof(when), "%b %d %Y %H:%M:%S", &tm);
		printf("Generation %ld\t%s%s\n", v[i].number, when,
		       v[i].number == current ? "\t(current)" : "");
		if (cix_manifest_read(v[i].target, &m, err) == 0)
			print_manifest(&m, NULL, "  ");
		cix_manifest_release(&m);
		putchar('\n');
	}
out:
	cix_generations_release(v, n);
	return r;
}

/* "3", "+1", "-1": the generation -S names. */
static int switch_target(const char *profile, const char *arg, long *number, struct cix_err *err)
{
	unsigned long long v;
	long current = 0;
	int sign = arg[0] == '+' ? 1 : arg[0] == '-' ? -1 : 0;
	if (cix_parse_decimal(arg + (sign != 0), 1000000000, &v) < 0)
		return cix_error(err, -CIX_EINVAL, "invalid generation '%s'", arg);
	if (!sign) {
		*number = (long)v;
		return 0;
	}
	int r = cix_profile_current(profile, &current, err);
	*number = current + sign * (long)v;
	return r;
}

/* --delete-generations[=N,M,A..B]: without a pattern, every one but the current. */
static int delete_generations(const char *profile, const char *pattern, struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0, nr = 0;
	long current = 0, *del = NULL;
	int r;
	if ((r = cix_profile_generations(profile, &v, &n, err)) < 0 ||
	    (r = cix_profile_current(profile, &current, err)) < 0)
		goto out;
	del = xcalloc(n + 1, sizeof(*del));
	for (size_t i = 0; i < n; i++) {
		int want = 0;
		if (!pattern) {
			want = v[i].number != current;
		} else {
			char *copy = xstrdup(pattern), *save = NULL;
			for (char *t = strtok_r(copy, ",", &save); t && !want;
			     t = strtok_r(NULL, ",", &save)) {
				char *dots = strstr(t, "..");
				unsigned long long a, b;
				if (dots) {
					*dots = '\0';
					if (cix_parse_decimal(t, 1000000000, &a) < 0 ||
					    cix_parse_decimal(dots + 2, 1000000000, &b) < 0) {
						free(copy);
						r = cix_error(err, -CIX_EINVAL, "invalid pattern '%s'", pattern);
						goto out;
					}
				} else if (cix_parse_decimal(t, 1000000000, &a) < 0) {
					free(copy);
					r = cix_error(err, -CIX_EINVAL, "invalid pattern '%s'", pattern);
					goto out;
				} else {
					b = a;
				}
				want = v[i].number >= (long)a && v[i].number <= (long)b;
			}
			free(copy);
		}
		if (want)
			del[nr++] = v[i].number;
	}
	r = cix_profile_delete_generations(profile, del, nr, err);
	for (size_t i = 0; !r && i < nr; i++)
		fprintf(stderr, "deleted generation %ld\n", del[i]);
out:
	free(del);
	cix_generations_release(v, n);
	return r;
}

int package_run(const struct pkg_opts *o)
{
	struct cix_err err = { 0 };
	struct cix_store *s = NULL;
	struct strbuf profile = STRBUF_INIT;
	struct strvec drvs = STRVEC_INIT;
	struct cix_manifest m = { 0 };
	struct cix_scheme_session *ss = NULL;
	int lock = -1, r;

	/* Queries need no lock: a generation is switched to in one rename. */
	int changes = o->roll_back || o->switch_to || o->delete_generations ||
		      (!o->dry_run && (o->installs.nr || o->removes.nr || o->exprs.nr ||
				       o->upgrade));
	if ((r = cix_store_open_client(&s, &err)) < 0 ||
	    (r = profile_path(s, o->profile, &profile, &err)) < 0)
		goto out;
	if (changes && ((r = check_writable(profile.buf, &err)) < 0 ||
			(r = cix_profile_lock(profile.buf, &lock, &err)) < 0))
		goto out;
	struct cix_lower l = { .store = s, .system = cix_build_this_system(), .dry_run = o->dry_run,
			       .files_read = pkg_eval_files() };
	if (o->roll_back) {
		char *empty = NULL;
		long number = 0;
		if ((r = empty_profile(s, &l, o, &empty, &err)) == 0 &&
		    (r = cix_profile_roll_back(profile.buf, empty, &number, &err)) == 0)
			fprintf(stderr, "switched to generation %ld\n", number);
		free(empty);
		if (r < 0)
			goto out;
	}
	if (o->switch_to) {
		long number = 0;
		if ((r = switch_target(profile.buf, o->switch_to, &number, &err)) < 0 ||
		    (r = cix_profile_switch(profile.buf, number, &err)) < 0)
			goto out;
		fprintf(stderr, "switched to generation %ld\n", number);
	}
	if (o->manifests.nr || o->installs.nr || o->removes.nr || o->exprs.nr || o->upgrade) {
		/* No lowering for package-derivation: a profile takes packages only. */
		ss = cix_scheme_session_new(NULL, o->target);
		if ((r = o->manifests.nr ? from_manifests(&l, ss, profile.buf, &m, &drvs, o, &err)
					 : edit_manifest(&l, ss, profile.buf, &m, &drvs, o, &err)) < 0)
			goto out;
		index_hint_done();
		pkg_eval_save();
		if (drvs.nr && (r = build(s, (const char **)drvs.v, drvs.nr, o, &err)) < 0)
			goto out;
		if ((r = commit(s, &l, profile.buf, &m, o, &err)) < 0)
			goto out;
	}
	if (o->delete_generations &&
	    (r = delete_generations(profile.buf, o->delete_pattern, &err)) < 0)
		goto out;
	if (o->list_installed) {
		regex_t rx;
		cix_manifest_release(&m);
		if ((r = cix_manifest_read(profile.buf, &m, &err)) < 0)
			goto out;
		if (o->installed_rx && regcomp(&rx, o->installed_rx, REG_EXTENDED | REG_NOSUB)) {
			r = cix_error(&err, -CIX_EINVAL, "invalid regular expression '%s'",
				      o->installed_rx);
			goto out;
		}
		print_manifest(&m, o->installed_rx ? &rx : NULL, "");
		if (o->installed_rx)
			regfree(&rx);
	}
	if (o->list_generations && (r = list_generations(profile.buf, &err)) < 0)
		goto out;
	if (o->search_paths && (r = search_paths(profile.buf, o->search_paths_kind, &err)) < 0)
		goto out;
out:
	if (lock >= 0)
		cix_profile_unlock(lock);
	cix_manifest_release(&m);
	strvec_clear(&drvs);
	strbuf_release(&profile);
	pkg_eval_release();
	cix_scheme_session_free(ss);
	cix_store_close(s);
	return r < 0 ? error_err(&err) : 0;
}
