/* refscan.h - find which store path hash parts occur in a byte stream */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_REFSCAN_H
#define CIX_REFSCAN_H

#include <stddef.h>
#include "err.h"

/*
 * After a build, the references of an output are the candidate store paths
 * (the build's inputs and outputs) whose 32-character nix-base32 hash part
 * occurs anywhere in the NAR serialisation of the output: file contents,
 * symlink targets and entry names alike. As in Nix, only the hash part
 * counts, and it counts wherever it occurs, also inside a longer run of
 * base-32 characters and across the pieces the stream arrives in.
 *
 * The scanner runs in time linear in the input, with no per-candidate
 * work per byte (only the tables' cache footprint grows with the number of
 * candidates): it looks only at 16-byte blocks at stream offsets
 * that are multiples of 16 (every 32-byte occurrence contains one), skips
 * blocks holding a byte outside the base-32 alphabet, and looks the others
 * up in a filter and a table of the 16 sixteen-byte slices of every
 * candidate, comparing the whole 32 bytes on a hit.
 */

#define CIX_REFSCAN_HASH_LEN 32
/* Most distinct candidates a scanner accepts (-CIX_ELIMIT beyond). */
#define CIX_REFSCAN_MAX (1u << 22)

struct cix_refscan;

/*
 * A scanner for the n hash parts (each a NUL-terminated string of exactly
 * 32 characters of the nix-base32 alphabet 0-9a-z without e o t u; the
 * same hash part may be given more than once). Returns NULL, with err
 * filled, when one is invalid (-CIX_EINVAL) or there are too many
 * (-CIX_ELIMIT). n may be 0.
 */
struct cix_refscan *cix_refscan_new(const char *const *hash_parts, size_t n,
				    struct cix_err *err);

/* Scan the next len bytes of the stream. */
void cix_refscan_feed(struct cix_refscan *s, const void *data, size_t len);

/* The same as a cix_sink_fn (nar.h), opaque being the scanner; returns 0. */
int cix_refscan_sink(void *opaque, const void *data, size_t len);

/*
 * Whether candidate i (an index into the array given to cix_refscan_new)
 * has occurred in the bytes fed so far.
 */
int cix_refscan_found(const struct cix_refscan *s, size_t i);

/* How many distinct hash parts have occurred so far. */
size_t cix_refscan_nfound(const struct cix_refscan *s);

/*
 * Scan the NAR serialisation of the file, symlink or directory at path
 * (never following symlinks), as cix_nar_dump writes it. Returns 0 or the
 * negative code of cix_nar_dump.
 */
int cix_refscan_path(struct cix_refscan *s, const char *path,
		     struct cix_err *err);

void cix_refscan_free(struct cix_refscan *s);

#endif
