/* package.h - cix package: what its options ask (cmd-package.c), done by package-tx.c */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_PACKAGE_H
#define CIX_CLI_PACKAGE_H

#include "search-path.h"
#include "strvec.h"

struct pkg_opts {
	const char *profile;          /* -p, or NULL: the user's */
	struct strvec installs;       /* -i SPEC */
	struct strvec removes;        /* -r NAME[:OUTPUT] */
	struct strvec exprs;          /* -e EXPR */
	struct strvec manifests;      /* -m FILE: the profile holds exactly their entries */
	int upgrade;                  /* -u */
	const char *upgrade_rx;       /* -u REGEXP, or NULL: all */
	int search_paths;             /* --search-paths[=KIND] */
	enum cix_search_path_kind search_paths_kind;
	int roll_back, dry_run;
	const char *switch_to;        /* -S N|+N|-N */
	int delete_generations;
	const char *delete_pattern;   /* NULL: all but the current */
	int list_installed;
	const char *installed_rx;
	int list_generations;
	unsigned max_silent;
};

/* The transaction and the profile queries; returns an exit code. */
int package_run(const struct pkg_opts *o);

#endif
