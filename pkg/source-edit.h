/* source-edit.h - a package's version and source hash rewritten in its module's text */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SOURCE_EDIT_H
#define CIX_SOURCE_EDIT_H

#include <stddef.h>
#include "err.h"
#include "strbuf.h"

/* What `cix refresh -u` changes in a package definition. */
struct cix_pkg_edit {
	const char *old_version, *new_version;
	const char *old_hash, *new_hash;    /* the source's sha256, nix-base32 */
};

/*
 * The package form (package ...) that starts at line:column of text
 * (counted as Guile does: lines from 1, columns from 0 in characters, a
 * tab advancing to the next multiple of 8), with its field (version
 * "OLD") and the (base32 "OLD-HASH") inside it (its origin's) changed to
 * the new ones; the rest of text is copied as it is, byte for byte, into
 * out. Strings, comments (;, #| |#, #;) and character literals are
 * skipped over as Scheme reads them. It fails, saying why, when the form
 * is not there, when its version is not the string literal old_version,
 * when old_hash is not there exactly once, or when its (uri ...) spells
 * the old version out (so that the new one would not be fetched).
 */
int cix_source_edit_package(const char *text, size_t len, unsigned long line,
			    unsigned long column, const struct cix_pkg_edit *e,
			    struct strbuf *out, struct cix_err *err);

/*
 * The same on a file (a symlink is followed), replaced atomically: the new
 * text is written to a temporary file beside it, with the same mode, synced,
 * and renamed over it. Nothing changes on failure, nor when the file
 * changed while it was being edited.
 */
int cix_source_edit_file(const char *file, unsigned long line, unsigned long column,
			 const struct cix_pkg_edit *e, struct cix_err *err);

#endif
