/* manifest.c - the entries of a manifest file, read through a session */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"
#include "sexp-scan.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MANIFEST_ENTRIES 100000

struct manifest_call {
	struct cix_scheme_session *ss;
	const char *file;
	const struct strbuf *src;   /* its bytes, read and checked */
	struct cix_scheme_target *v;
	size_t n;
	struct cix_err *err;
	int r;
};

/* Each entry: (PACKAGE OUTPUT NAME VERSION SEARCH-PATHS), see (cix ui). */
static SCM manifest_body(void *data)
{
	struct manifest_call *mc = data;
	struct reader rd = { mc->err, 0, mc->ss->target, mc->ss };
	SCM entries = scm_call_4(scm_c_public_ref("cix ui", "with-target"),
				 scheme_target_scm(mc->ss),
				 scm_c_public_ref("cix ui", "manifest-from-file"),
				 scm_from_utf8_string(mc->file), scheme_bytevector_of(mc->src));
	long n = scm_ilength(entries);
	if (n < 0 || n > MAX_MANIFEST_ENTRIES) {
		mc->r = cix_error(mc->err, -CIX_ELIMIT, "%s: too many entries", mc->file);
		return SCM_BOOL_T;
	}
	mc->v = xcalloc((size_t)n + 1, sizeof(*mc->v));
	for (; scm_is_pair(entries); entries = SCM_CDR(entries)) {
		SCM e = SCM_CAR(entries);
		struct cix_scheme_target *t = &mc->v[mc->n++];
		if (scm_ilength(e) != 5 || !scheme_is("package", SCM_CAR(e)) ||
		    !(t->output = scheme_clean_string(SCM_CADR(e))) ||
		    !(t->name = scheme_clean_string(SCM_CADDR(e))) ||
		    !(t->version = scheme_clean_string(scm_list_ref(e, scm_from_int(3))))) {
			mc->r = cix_error(mc->err, -CIX_EINVAL, "%s: a bad manifest entry", mc->file);
			return SCM_BOOL_T;
		}
		if ((mc->r = scheme_read_whole(&rd, SCM_CAR(e), &t->package)) < 0 ||
		    (mc->r = scheme_read_search_paths(&rd, scm_list_ref(e, scm_from_int(4)), t,
					       t->name)) < 0)
			return SCM_BOOL_T;
	}
	mc->r = 0;
	return SCM_BOOL_T;
}

int cix_scheme_read_manifest(struct cix_scheme_session *ss, const char *file,
			     struct cix_scheme_target **v, size_t *n, struct cix_err *err)
{
	struct strbuf src = STRBUF_INIT;
	struct manifest_call mc = { ss, file, &src, NULL, 0, err, 0 };
	int r;
	*v = NULL;
	*n = 0;
	if ((r = cix_sexp_read_file(file, &src, err)) < 0 || (r = cix_scheme_init(err)) < 0) {
		strbuf_release(&src);
		return r;
	}
	scheme_run_in_session(ss, manifest_body, &mc, &mc.r, mc.err);
	strbuf_release(&src);
	if (mc.r < 0) {
		/* The message names the file, as given or as Guile canonicalised it. */
		char *real = realpath(file, NULL);
		if (!strstr(err->msg, file) && !(real && strstr(err->msg, real))) {
			char msg[CIX_ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			cix_error(err, mc.r, "%s: %s", file, msg);
		}
		free(real);
		for (size_t i = 0; i < mc.n; i++)
			cix_scheme_target_release(&mc.v[i]);
		free(mc.v);
		return mc.r;
	}
	*v = mc.v;
	*n = mc.n;
	return 0;
}
