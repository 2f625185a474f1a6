/* store-verify.c - cix store --verify, --verify-path and --optimise */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "remote.h"
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

/* Through the daemon, which does the checking (and refuses repair to most). */
static int verify_remote(struct cix_store *s, const struct store_flags *f)
{
	struct cix_err err = { 0 };
	int errors = 0;
	if (cix_remote_verify(s->remote, f->check_contents, f->repair, &errors, &err) < 0)
		return error_err(&err);
	return errors ? EXIT_FAIL : 0;
}

/* A path's NAR hash, computed here, against the daemon's record. */
static int verify_path_remote(struct cix_store *s, const char *path, struct cix_err *err)
{
	struct cix_path_info info;
	struct cix_hash h;
	int r = cix_store_check_path(s, path, err);
	if (!r && !(r = cix_store_query(s, path, &info, err))) {
		if (!(r = cix_nar_hash_path(path, CIX_HASH_SHA256, &h, NULL, err)) &&
		    memcmp(h.bytes, info.nar_hash.bytes, 32))
			r = cix_error(err, -CIX_EMISMATCH, "path '%s' was modified! (its hash differs)",
				      path);
		cix_path_info_release(&info);
	}
	return r;
}

int op_verify(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct verify v = { s, f, STRVEC_INIT };
	struct cix_err err = { 0 };
	int problems;
	if (s->remote)
		return verify_remote(s, f);
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
	if (s->remote) {
		int status = 0;
		for (int i = 0; i < nargs; i++) {
			struct cix_err err = { 0 };
			if (verify_path_remote(s, args[i], &err) < 0)
				status = error_err(&err);
		}
		return status;
	}
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
	if (s->remote)
		return cix_remote_optimise(s->remote, &err) < 0 ? error_err(&err) : 0;
	if (cix_store_optimise(s, &st, &err) < 0)
		return error_err(&err);
	printf("%.2f MiB freed by hard-linking %llu files\n",
	       (double)st.bytes_freed / (1024 * 1024), (unsigned long long)st.files_linked);
	return 0;
}
