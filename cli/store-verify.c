/* store-verify.c - cix store --verify, --verify-path and --optimise */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "build.h"
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

int op_verify(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_build_opts repair = { .max_jobs = 1, .log_fd = 2 };
	struct cix_err err = { 0 };
	int problems = cix_store_verify(s, NULL, 0, f->check_contents, f->repair ? &repair : NULL,
					report, NULL, &err);
	if (problems < 0)
		return error_err(&err);
	return problems ? EXIT_FAIL : 0;
}

int op_verify_path(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_err err = { 0 };
	int problems = cix_store_verify(s, (const char *const *)args, (size_t)nargs, 1, NULL,
					report, NULL, &err);
	if (problems < 0)
		return error_err(&err);
	return problems ? EXIT_FAIL : 0;
}

int op_optimise(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_store_optimise_stats st;
	struct cix_err err = { 0 };
	if (cix_store_optimise(s, &st, &err) < 0)
		return error_err(&err);
	if (st.files_linked == UINT64_MAX)
		return 0;   /* the daemon's: it does not say */
	fprintf(stderr, "%.2f MiB freed by hard-linking %llu files\n",
	       (double)st.bytes_freed / (1024 * 1024), (unsigned long long)st.files_linked);
	return 0;
}
