/* store-verify.c - cix store --verify, --verify-path and --optimise */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "strvec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct verify {
	struct cix_store *s;
	const struct store_flags *f;
	struct strvec paths;
};

static int has_referrer(const char *path, void *opaque)
{
	if (strcmp(path, (const char *)opaque))
		return -CIX_EEXIST; /* stop: one other referrer is enough */
	return 0;
}

/* A path that vanished is dropped from the database unless others need it. */
static int disappeared(struct verify *v, const char *path)
{
	struct cix_err err = { 0 };
	int r = cix_db_referrers(v->s->db, path, has_referrer, (void *)path, &err);
	if (r == -CIX_EEXIST) {
		error("path '%s' disappeared, but it still has valid referrers!", path);
		return 1;
	}
	if (r < 0 || cix_db_invalidate(v->s->db, path, &err) < 0) {
		error_err(&err);
		return 1;
	}
	fprintf(stderr, "path '%s' disappeared, removing from database\n", path);
	return 0;
}

/* Returns the number of problems left. */
static int verify_paths(struct verify *v, int check_contents)
{
	int problems = 0;
	for (size_t i = 0; i < v->paths.nr; i++) {
		struct cix_err err = { 0 };
		int r = cix_store_verify_path(v->s, v->paths.v[i], check_contents, &err);
		if (r == -ENOENT)
			problems += disappeared(v, v->paths.v[i]);
		else if (r < 0) {
			error_err(&err);
			if (r == -CIX_EMISMATCH && v->f->repair)
				error("cannot repair '%s': no substitute is available", v->paths.v[i]);
			problems++;
		}
	}
	return problems;
}

int op_verify(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct verify v = { s, f, STRVEC_INIT };
	struct cix_err err = { 0 };
	int problems;
	if (cix_db_all_valid(s->db, strvec_push_fn, &v.paths, &err) < 0) {
		strvec_clear(&v.paths);
		return error_err(&err);
	}
	problems = verify_paths(&v, f->check_contents);
	strvec_clear(&v.paths);
	return problems ? EXIT_FAIL : 0;
}

int op_verify_path(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct verify v = { s, f, STRVEC_INIT };
	int problems;
	for (int i = 0; i < nargs; i++)
		strvec_push(&v.paths, args[i]);
	problems = verify_paths(&v, 1);
	strvec_clear(&v.paths);
	return problems ? EXIT_FAIL : 0;
}

int op_optimise(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_store_optimise_stats st;
	struct cix_err err = { 0 };
	if (cix_store_optimise(s, &st, &err) < 0)
		return error_err(&err);
	printf("%.2f MiB freed by hard-linking %llu files\n",
	       (double)st.bytes_freed / (1024 * 1024), (unsigned long long)st.files_linked);
	return 0;
}
