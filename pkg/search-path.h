/* search-path.h - search paths: the environment variables a profile's packages ask for */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SEARCH_PATH_H
#define CIX_SEARCH_PATH_H

#include <stddef.h>

#include "err.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * A package declares the variables its programs read, as Guix's
 * search-path-specification: TERMINFO_DIRS is the profile's
 * share/terminfo when that is a directory. A profile's manifest keeps each
 * entry's, and `cix package --search-paths` prints their values.
 */

enum cix_file_type {
	CIX_FILE_DIRECTORY,
	CIX_FILE_REGULAR,
	CIX_FILE_SYMLINK,
};

struct cix_search_path {
	char *variable;            /* a shell name: "TERMINFO_DIRS" */
	struct strvec files;       /* relative to the profile: "share/terminfo" */
	char *separator;           /* ":"; NULL: the first file found, alone */
	enum cix_file_type file_type;
	/*
	 * NULL: the files themselves, when of file_type. Otherwise a POSIX
	 * extended regular expression: the files of file_type below them
	 * (and they themselves) whose base name matches it, sorted.
	 */
	char *file_pattern;
};

/* The bounds a search path is held to (manifests are hostile input too). */
#define CIX_SEARCH_PATH_MAX_FILES 256
#define CIX_SEARCH_PATH_MAX_VARIABLE 256
#define CIX_SEARCH_PATH_MAX_PATTERN 1024

enum cix_search_path_kind {
	CIX_SEARCH_PATH_EXACT,     /* export VAR="VALUE" */
	CIX_SEARCH_PATH_PREFIX,    /* export VAR="VALUE${VAR:+SEP}$VAR" */
	CIX_SEARCH_PATH_SUFFIX,    /* export VAR="$VAR${VAR:+SEP}VALUE" */
};

void cix_search_path_release(struct cix_search_path *sp);
/* dst (uninitialised) becomes a deep copy of src. */
void cix_search_path_copy(struct cix_search_path *dst, const struct cix_search_path *src);
/* A total order; 0 when every field is the same. */
int cix_search_path_cmp(const struct cix_search_path *a, const struct cix_search_path *b);

/* "directory", "regular", "symlink" and back (-CIX_EINVAL when unknown). */
const char *cix_file_type_name(enum cix_file_type t);
int cix_file_type_parse(const char *s, enum cix_file_type *t);
/* "exact", "prefix", "suffix" (-CIX_EINVAL when unknown). */
int cix_search_path_kind_parse(const char *s, enum cix_search_path_kind *kind);

/*
 * NULL when sp is well formed, or what is wrong: the variable a shell name
 * of at most CIX_SEARCH_PATH_MAX_VARIABLE bytes, files non-empty, relative
 * and at most CIX_SEARCH_PATH_MAX_FILES, a separator and a pattern
 * non-empty when given, the pattern at most CIX_SEARCH_PATH_MAX_PATTERN.
 */
const char *cix_search_path_check(const struct cix_search_path *sp);

/* Guix's $PATH: PATH, for bin and sbin. */
extern const struct cix_search_path cix_search_path_PATH;

/*
 * The value of sp in profile: the paths found, joined by its separator
 * (only the first without one), appended to value. 1 when something was
 * found, 0 when nothing, or a negative code (a bad pattern, too many
 * files below a directory).
 */
int cix_search_path_value(const char *profile, const struct cix_search_path *sp,
			  struct strbuf *value, struct cix_err *err);

/*
 * The shell lines that set the search paths of profile: PATH first, then
 * each of sps[0..n) once (the same specification twice counts once), in
 * their order, those with a value only; values in double quotes, with ",
 * \, $ and ` escaped.
 */
int cix_search_paths_export(const char *profile, const struct cix_search_path *const *sps,
			    size_t n, enum cix_search_path_kind kind, struct strbuf *out,
			    struct cix_err *err);

#endif
