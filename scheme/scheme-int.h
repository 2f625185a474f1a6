/* scheme-int.h - what the files of scheme/ share; they alone include libguile.h */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SCHEME_INT_H
#define CIX_SCHEME_INT_H

#include "scheme.h"

#include <libguile.h>

/*
 * Package definitions are evaluated by Guile; the records of (guix
 * packages) are then read into the C structures of pkg/lower.h (Guile's GC
 * does not see malloc'd memory, so no SCM is kept there), and lowered in
 * C. Scheme errors come back as one line, with the place they come from.
 *
 * guile.c starts Guile and defines (cix primitives); read-package.c reads
 * the records into C; session.c reads the packages a command names,
 * manifest.c a manifest's; index.c and refresh.c list a distribution's
 * packages; compile.c compiles the modules cix pull brings.
 */

/* ---- guile.c ---- */

/* The module (cix primitives), whose procedures are written in C. */
void scheme_define_primitives(void *unused);

/*
 * The process compiles other modules than cix's (compile.c): an error if
 * Guile already runs, and cix_scheme_init fails from then on.
 */
int scheme_claim_for_compile(struct cix_err *err);

/*
 * body(data) under a catch of every error: SCM_UNDEFINED when one was
 * thrown, described in err as one line with its place.
 */
SCM scheme_catch(scm_t_catch_body body, void *data, struct cix_err *err);
/* The same in Guile mode: body sets *r (0 when done); an error leaves -CIX_EINVAL. */
void scheme_run_guarded(scm_t_catch_body body, void *data, int *r, struct cix_err *err);

/* Values from Scheme, malloc'd: a string, or NULL when s is none. */
char *scheme_string_or_null(SCM s);
/* The same, NULL too for a string with NUL bytes (which C would cut). */
char *scheme_clean_string(SCM s);
/* A string, "" when s is none. */
char *scheme_take_string(SCM s);
/* A sha256 as a bytevector of 32: 0, or -1 when bv is not one. */
int scheme_read_hash(SCM bv, struct cix_hash *h);
/* A copy of the bytes as a bytevector, for a port Guile reads. */
SCM scheme_bytevector_of(const struct strbuf *sb);

/* ---- session.c ---- */

/*
 * What a command reads packages with: the lowering and the target, and
 * the nodes read so far. Its Scheme tables are made when Guile first
 * reads for it, and protected from the collector until it is freed.
 */
struct cix_scheme_session {
	struct cix_lower *lower;   /* for %package-derivation; NULL: none */
	char *target;              /* the packages named are cross-built for it; NULL: native */
	int made;                  /* the tables below exist */
	SCM memo;   /* package, origin... -> the C node read from it (eq hash table) */
	/*
	 * A package cross-built is another node than the same package built
	 * natively: those of each target are memoised in their own table.
	 */
	SCM cross_memos;   /* (#f ("TRIPLET" . eq-hash-table) ...) */
	/*
	 * FILE and NAME -> the C node of a local-file: one node, so one addition to
	 * the store, for every local-file record naming the same file (a thousand
	 * packages each writing (local-file "builder") add it once).
	 */
	SCM local_files;
	/*
	 * (#f (TABLE . KEY) ...): the memo entries made by the reads under way,
	 * newest first; a read that fails removes those it made (see
	 * scheme_read_whole), as they may be half made.
	 */
	SCM pending;
	int reading;   /* scheme_read_whole calls under way */
};

/* Makes the fluid of the current session (with the primitives). */
void scheme_sessions_init(void);
/* The session reading, for %package-derivation; NULL outside a read. */
struct cix_scheme_session *scheme_current_session(void);
/* scheme_run_guarded, with ss the current session while body runs. */
void scheme_run_in_session(struct cix_scheme_session *ss, scm_t_catch_body body, void *data,
			   int *r, struct cix_err *err);
/* The session's target for %current-target-system: a string, or #f. */
SCM scheme_target_scm(const struct cix_scheme_session *ss);

/* ---- read-package.c ---- */

struct reader {
	struct cix_err *err;
	int depth;
	const char *target;   /* the packages read are cross-built for it; NULL: native */
	struct cix_scheme_session *ss;
};

/* Looks up (cix ui)'s procedures that reading every record calls (it is loaded). */
void scheme_reader_init(void);
/* (%package-derivation PACKAGE TARGET), of (cix primitives). */
SCM scheme_prim_package_derivation(SCM pkg, SCM target);
/* Is obj a package, an origin, a bootstrap-item, a local-file? (kind: "package"...) */
int scheme_is(const char *kind, SCM obj);
/*
 * The package record obj, read into C (once per session and target):
 * nothing is left in the session's tables by a read that fails.
 */
int scheme_read_whole(struct reader *rd, SCM obj, struct cix_package **out);
/* The search paths of (cix ui)'s list, into t; who names it in errors. */
int scheme_read_search_paths(struct reader *rd, SCM list, struct cix_scheme_target *t,
			     const char *who);

#endif
