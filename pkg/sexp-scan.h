/* sexp-scan.h - bounds on Scheme source text, checked before Guile reads it */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SEXP_SCAN_H
#define CIX_SEXP_SCAN_H

#include "err.h"
#include "strbuf.h"

#include <stddef.h>

/*
 * Guile's expander takes time quadratic in the nesting of a form (50,000
 * parentheses run for minutes), its reader recurses once per element of a
 * list (a list of 4 million takes 15 s, of 30 million, gigabytes), and a
 * file has no size of its own. Package files, expressions and manifests
 * are therefore scanned here first: at most CIX_SEXP_MAX_SIZE bytes of
 * UTF-8, lists (and nested #| |# comments) at most CIX_SEXP_MAX_DEPTH
 * deep, at most CIX_SEXP_MAX_ITEMS data in one top-level form, strings,
 * comments and extended symbols terminated.
 *
 * The scanner follows the lexical syntax of Guile 3's reader with its
 * default options, and the reader directives a file may give
 * (#!curly-infix...): strings, character literals (#\( is no parenthesis),
 * ; #| |# #! !# comments, #{ }# symbols, arrays (#2u8(...)) and the
 * delimiters that end tokens. Where it cannot be sure how Guile reads
 * the text, it refuses it or counts more depth, never less. Reader options
 * changed by code that the file runs (read-enable, read-hash-extend) are
 * out of its reach: such code runs already, with the user's rights.
 */
#define CIX_SEXP_MAX_DEPTH 1000
#define CIX_SEXP_MAX_ITEMS 500000
/* Four times the largest package module of Guix (16 MiB read in seconds). */
#define CIX_SEXP_MAX_SIZE ((size_t)16 << 20)

/*
 * Check text (len bytes) against the bounds, max_depth for nesting; name
 * is the file (or "<expression>") for the message, which is one line:
 * "NAME:LINE:COLUMN: nesting deeper than 1000", "...: unterminated
 * string"... (lines and columns from 1, columns in characters).
 * Returns 0, -CIX_ELIMIT or -CIX_EFORMAT.
 */
int cix_sexp_scan(const char *name, const char *text, size_t len, unsigned max_depth,
		  struct cix_err *err);

/*
 * Read the source file path (at most CIX_SEXP_MAX_SIZE bytes, whatever
 * kind of file it is) into sb and check it with cix_sexp_scan.
 */
int cix_sexp_read_file(const char *path, struct strbuf *sb, struct cix_err *err);

#endif
