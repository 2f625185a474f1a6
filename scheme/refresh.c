/* refresh.c - the packages `cix refresh` sees: their versions and sources */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct refresh_call {
	const char *spec;
	struct cix_refresh_pkg *v;
	size_t n;
	struct cix_err *err;
	int r;
};

#define MAX_REFRESH_PACKAGES 1000000

/* Each entry: (NAME VERSION URI-or-#f SHA256-or-#f LOCATION), see (cix ui). */
static SCM refresh_body(void *data)
{
	struct refresh_call *rc = data;
	SCM entries = scm_call_1(scm_c_public_ref("cix ui", "refresh-packages"),
				 rc->spec ? scm_from_utf8_string(rc->spec) : SCM_BOOL_F);
	long n = scm_ilength(entries);
	if (n < 0 || n > MAX_REFRESH_PACKAGES) {
		rc->r = cix_error(rc->err, -CIX_ELIMIT, "too many packages");
		return SCM_BOOL_T;
	}
	rc->v = xcalloc((size_t)n + 1, sizeof(*rc->v));
	for (; scm_is_pair(entries); entries = SCM_CDR(entries)) {
		SCM e = SCM_CAR(entries);
		if (scm_ilength(e) != 5)
			continue;
		struct cix_refresh_pkg *p = &rc->v[rc->n++];
		p->name = scheme_take_string(SCM_CAR(e));
		p->version = scheme_take_string(SCM_CADR(e));
		p->uri = scheme_clean_string(SCM_CADDR(e));
		if (scheme_read_hash(scm_list_ref(e, scm_from_int(3)), &p->hash) < 0)
			memset(&p->hash, 0, sizeof(p->hash));
		p->location = scheme_take_string(scm_list_ref(e, scm_from_int(4)));
	}
	rc->r = 0;
	return SCM_BOOL_T;
}

void cix_refresh_pkgs_free(struct cix_refresh_pkg *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].version);
		free(v[i].uri);
		free(v[i].location);
	}
	free(v);
}

int cix_scheme_refresh_packages(const char *spec, struct cix_refresh_pkg **v, size_t *n,
				struct cix_err *err)
{
	struct refresh_call rc = { spec, NULL, 0, err, 0 };
	int r;
	*v = NULL;
	*n = 0;
	if ((r = cix_scheme_init(err)) < 0)
		return r;
	scheme_run_guarded(refresh_body, &rc, &rc.r, rc.err);
	if (rc.r < 0) {
		cix_refresh_pkgs_free(rc.v, rc.n);
		return rc.r;
	}
	*v = rc.v;
	*n = rc.n;
	return 0;
}
