/* session.c - sessions, and the packages a command names read through them */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"
#include "sexp-scan.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* ---- sessions ---- */

/*
 * The session of the reading under way, for %package-derivation: bound
 * (to a pointer object) for the dynamic extent of each read, #f outside.
 */
static SCM session_fluid;

void scheme_sessions_init(void)
{
	session_fluid = scm_permanent_object(scm_make_fluid_with_default(SCM_BOOL_F));
}

struct cix_scheme_session *scheme_current_session(void)
{
	SCM cur = scm_fluid_ref(session_fluid);
	return scm_is_false(cur) ? NULL : scm_to_pointer(cur);
}

struct cix_scheme_session *cix_scheme_session_new(struct cix_lower *l, const char *triplet)
{
	struct cix_scheme_session *ss = xcalloc(1, sizeof(*ss));
	ss->lower = l;
	ss->target = triplet && *triplet ? xstrdup(triplet) : NULL;
	return ss;
}

static void *unprotect(void *data)
{
	struct cix_scheme_session *ss = data;
	scm_gc_unprotect_object(ss->memo);
	scm_gc_unprotect_object(ss->cross_memos);
	scm_gc_unprotect_object(ss->local_files);
	scm_gc_unprotect_object(ss->pending);
	return NULL;
}

/* The nodes read stay (see read-package.c): the targets given out point into them. */
void cix_scheme_session_free(struct cix_scheme_session *ss)
{
	if (!ss)
		return;
	if (ss->made)
		scm_with_guile(unprotect, ss);
	free(ss->target);
	free(ss);
}

static void make_tables(struct cix_scheme_session *ss)
{
	if (ss->made)
		return;
	ss->memo = scm_gc_protect_object(scm_c_make_hash_table(64));
	ss->cross_memos = scm_gc_protect_object(scm_list_1(SCM_BOOL_F));
	ss->local_files = scm_gc_protect_object(scm_c_make_hash_table(16));
	ss->pending = scm_gc_protect_object(scm_list_1(SCM_BOOL_F));
	ss->made = 1;
}

SCM scheme_target_scm(const struct cix_scheme_session *ss)
{
	return ss->target ? scm_from_utf8_string(ss->target) : SCM_BOOL_F;
}

/* A body run in Guile, guarded, with ss the session of %package-derivation. */
struct in_session {
	struct cix_scheme_session *ss;
	scm_t_catch_body body;
	void *data;
};

static SCM session_body(void *arg)
{
	struct in_session *is = arg;
	make_tables(is->ss);
	/* The system packages are lowered for: (guix packages)'s %current-system. */
	if (is->ss->lower && is->ss->lower->system)
		scm_call_1(scm_c_public_ref("guix packages", "%current-system"),
			   scm_from_utf8_string(is->ss->lower->system));
	return scm_c_with_fluid(session_fluid, scm_from_pointer(is->ss, NULL), is->body,
				is->data);
}

void scheme_run_in_session(struct cix_scheme_session *ss, scm_t_catch_body body, void *data,
			   int *r, struct cix_err *err)
{
	struct in_session is = { ss, body, data };
	scheme_run_guarded(session_body, &is, r, err);
}

/* ---- reading packages ---- */

struct lower_call {
	struct cix_scheme_session *ss;
	const char *what;       /* "spec", "expr", "file" */
	const char *arg;
	const struct strbuf *src;   /* a file's bytes, read and checked */
	struct cix_scheme_target *t;
	struct cix_err *err;
	int r;
};

static SCM target_result(struct lower_call *lc)
{
	SCM with_target = scm_c_public_ref("cix ui", "with-target");
	SCM arg = scm_from_utf8_string(lc->arg);
	switch (lc->what[0]) {
	case 's':
		return scm_call_3(with_target, scheme_target_scm(lc->ss),
				  scm_c_public_ref("cix ui", "find-package-for-spec"), arg);
	case 'e':
		return scm_call_3(with_target, scheme_target_scm(lc->ss),
				  scm_c_public_ref("cix ui", "package-from-expression"), arg);
	default:
		return scm_call_4(with_target, scheme_target_scm(lc->ss),
				  scm_c_public_ref("cix ui", "package-from-file"), arg,
				  scheme_bytevector_of(lc->src));
	}
}

/* Inside the catch: Scheme errors while reading (bad arguments...) unwind to it. */
static SCM lower_body(void *data)
{
	struct lower_call *lc = data;
	struct reader rd = { lc->err, 0, lc->ss->target, lc->ss };
	SCM res = target_result(lc);
	/* (package . output), or (DRV-FILE-NAME . #f) */
	if (scm_is_pair(res) && scm_is_string(SCM_CAR(res))) {
		lc->t->drv_path = scheme_clean_string(SCM_CAR(res));
		lc->r = lc->t->drv_path ? 0 : cix_error(lc->err, -CIX_EINVAL, "%s: bad file name",
							 lc->arg);
		return SCM_BOOL_T;
	}
	if (!scm_is_pair(res) || !scheme_is("package", SCM_CAR(res))) {
		lc->r = cix_error(lc->err, -CIX_EINVAL, "%s does not give a package", lc->arg);
		return SCM_BOOL_F;
	}
	lc->t->output = scheme_string_or_null(SCM_CDR(res));
	if ((lc->r = scheme_read_whole(&rd, SCM_CAR(res), &lc->t->package)) < 0)
		return SCM_BOOL_T;
	SCM sps = scm_call_1(scm_c_public_ref("cix ui", "package-search-path-sexps"),
			     SCM_CAR(res));
	const char *who = lc->t->package->name ? lc->t->package->name : lc->arg;
	lc->r = scheme_read_search_paths(&rd, sps, lc->t, who);
	return SCM_BOOL_T;
}

/*
 * Expressions and files are checked (pkg/sexp-scan.h) before Guile reads
 * them: its reader and expander have no bounds of their own.
 */
static int check_source(const char *what, const char *arg, struct strbuf *src,
			struct cix_err *err)
{
	if (what[0] == 'e')
		return cix_sexp_scan("<expression>", arg, strlen(arg), CIX_SEXP_MAX_DEPTH, err);
	if (what[0] == 'f')
		return cix_sexp_read_file(arg, src, err);
	return 0;
}

static int lower_with(struct cix_scheme_session *ss, const char *what, const char *arg,
		      struct cix_scheme_target *t, struct cix_err *err)
{
	struct strbuf src = STRBUF_INIT;
	struct lower_call lc = { ss, what, arg, &src, t, err, 0 };
	int r;
	memset(t, 0, sizeof(*t));
	if ((r = check_source(what, arg, &src, err)) < 0 || (r = cix_scheme_init(err)) < 0) {
		strbuf_release(&src);
		return r;
	}
	scheme_run_in_session(ss, lower_body, &lc, &lc.r, lc.err);
	strbuf_release(&src);
	return lc.r;
}

int cix_scheme_read_spec(struct cix_scheme_session *ss, const char *spec,
			 struct cix_scheme_target *t, struct cix_err *err)
{
	return lower_with(ss, "spec", spec, t, err);
}

int cix_scheme_read_expr(struct cix_scheme_session *ss, const char *expr,
			 struct cix_scheme_target *t, struct cix_err *err)
{
	return lower_with(ss, "expr", expr, t, err);
}

int cix_scheme_read_file(struct cix_scheme_session *ss, const char *file,
			 struct cix_scheme_target *t, struct cix_err *err)
{
	return lower_with(ss, "file", file, t, err);
}
