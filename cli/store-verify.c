/* store-verify.c - cix store --verify, --verify-path and --optimise */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "build.h"
#include "remote.h"
#include "strvec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Findings: errors as cix store's, the rest as notes. */
static void report(void *opaque, int is_error, const char *msg)
{
	if (is_error)
		error("%s", msg);
	else
		fprintf(stderr, "%s\n", msg);
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

/* --repair: a modified path is built again from its deriver, here. */
static int repair_here(void *opaque, const char *path, struct cix_err *err)
{
	struct cix_build_opts o = { .max_jobs = 1, .log_fd = 2 };
	return cix_build_repair_path(opaque, path, &o, err);
}

int op_verify(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_verify_repair repair = { repair_here, s };
	struct cix_err err = { 0 };
	int problems;
	if (s->remote)
		return verify_remote(s, f);
	problems = cix_store_verify_all(s, f->check_contents, f->repair ? &repair : NULL, report,
					NULL, &err);
	if (problems < 0)
		return error_err(&err);
	return problems ? EXIT_FAIL : 0;
}

int op_verify_path(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	if (s->remote) {
		int status = 0;
		for (int i = 0; i < nargs; i++) {
			struct cix_err err = { 0 };
			if (verify_path_remote(s, args[i], &err) < 0)
				status = error_err(&err);
		}
		return status;
	}
	return cix_store_verify_paths(s, (const char *const *)args, (size_t)nargs, 1, NULL,
				      report, NULL) ? EXIT_FAIL : 0;
}

int op_optimise(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_store_optimise_stats st;
	struct cix_err err = { 0 };
	if (s->remote)
		return cix_remote_optimise(s->remote, &err) < 0 ? error_err(&err) : 0;
	if (cix_store_optimise(s, &st, &err) < 0)
		return error_err(&err);
	fprintf(stderr, "%.2f MiB freed by hard-linking %llu files\n",
	       (double)st.bytes_freed / (1024 * 1024), (unsigned long long)st.files_linked);
	return 0;
}
