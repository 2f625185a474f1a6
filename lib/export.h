/* export.h - the Nix export stream of nix-store --export / --import */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_EXPORT_H
#define CIX_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "hash.h"
#include "nar.h"

/*
 * The stream (doc/formats.md §7; Nix 2.8 export-import.cc), every number a
 * u64 little-endian and every string a u64 length, the bytes, then zero
 * padding to a multiple of 8 (§1):
 *
 *   { 1  NAR  0x4558494e("NIXE")  path  nrefs ref...  deriver  0 }...  0
 *
 * one entry per store path, dependencies first. The references are a set:
 * sorted bytewise, without duplicates. The deriver is "" when there is
 * none. The 0 closing an entry is the "no signature" marker: Nix 2.8 still
 * reads a legacy form, 1 followed by a signature string, and ignores it
 * (guix archive puts its signature there).
 *
 * This layer only knows the format. The store plugs in through callbacks:
 * it supplies the file system location of each path to export and decides
 * where each imported NAR is restored and what becomes of it.
 */
#define CIX_EXPORT_MAGIC 0x4558494eu

/*
 * Bounds on what the parser accepts. Nix has none; these are far above
 * anything real (a path with thousands of references is already rare, and
 * a guix archive signature is a canonical s-expression of a few hundred
 * bytes), and keep the memory an entry can make us allocate near 20 MiB.
 */
#define CIX_EXPORT_MAX_REFS 65536      /* references of one path */
#define CIX_EXPORT_MAX_SIG 65536       /* bytes of a legacy signature */

/*
 * What the stream says about one store path. path, the references and the
 * deriver are full store paths of one store directory; deriver is NULL (or,
 * for the writer, "") when there is none.
 */
struct cix_export_meta {
	const char *path;
	const char *const *refs;
	size_t nr_refs;
	const char *deriver;
};

/* ---- Writer (lib/export.c) ---- */

/*
 * Write one entry to sink: the marker 1, the NAR of fs_path (a real file
 * system location, which may differ from the logical m->path; symlinks are
 * never followed) and the metadata of m. The references are written sorted
 * bytewise with duplicates dropped, as Nix writes its StorePathSet; m is not
 * modified. path, references and deriver must be store paths of the store
 * directory of m->path and the deriver must end in ".drv" (-CIX_EFORMAT
 * or -CIX_EINVAL otherwise, before anything is written). A failing sink's
 * code is returned; the stream is then unusable.
 */
int cix_export_path(cix_sink_fn sink, void *opaque, const char *fs_path,
		    const struct cix_export_meta *m, struct cix_err *err);
/* The same, the NAR of name in the directory dir_fd (one lookup, no path walk). */
int cix_export_path_at(cix_sink_fn sink, void *opaque, int dir_fd, const char *name,
		       const struct cix_export_meta *m, struct cix_err *err);
/* The same, with the NAR (len bytes at nar) read already. */
int cix_export_path_mem(cix_sink_fn sink, void *opaque, const void *nar, size_t len,
			const struct cix_export_meta *m, struct cix_err *err);

/*
 * The pieces of cix_export_path, for a caller that has the NAR some other
 * way (in memory, from a remote store): cix_export_begin writes the marker
 * 1, then the caller writes the NAR, then cix_export_meta writes the rest of
 * the entry (magic, path, references, deriver, 0). cix_export_meta_check
 * is the validation both apply.
 */
int cix_export_begin(cix_sink_fn sink, void *opaque, struct cix_err *err);
int cix_export_meta(cix_sink_fn sink, void *opaque,
		    const struct cix_export_meta *m, struct cix_err *err);
int cix_export_meta_check(const struct cix_export_meta *m, struct cix_err *err);

/* Write the final 0 that ends the stream. */
int cix_export_end(cix_sink_fn sink, void *opaque, struct cix_err *err);

/* ---- Parser (lib/import.c) ---- */

/* One parsed entry, as handed to path_done. */
struct cix_import_info {
	struct cix_export_meta meta;   /* refs sorted, deriver NULL if none */
	struct cix_hash nar_hash;      /* sha256 of the NAR bytes */
	uint64_t nar_size;             /* their number */
	const char *sig;               /* legacy signature (not verified), */
	size_t sig_len;                /* NUL-terminated; NULL if none */
	size_t index;                  /* 0 for the first entry of the stream */
};

/*
 * Callbacks of cix_import_parse; opaque is passed back to each.
 *
 * nar_target: NULL to only validate (each NAR is checked with cix_nar_check
 *   and nothing is written). Otherwise it is called at the start of each
 *   entry and sets *target to a malloc'd path that does not exist (a fresh
 *   temporary name inside the store's real location); the parser restores
 *   the NAR there with cix_nar_restore, owns the string and frees it.
 * path_done: called once an entry has been read and validated completely
 *   (may be NULL). target is where its NAR now is, or NULL when only
 *   validating. From this call on, the tree at target is the callee's, to
 *   move into place or remove, whether it succeeds or fails. A negative
 *   return stops the parse and is returned by it.
 * discard: when an entry fails after nar_target gave a target, and before
 *   path_done took it, the parser calls discard (may be NULL) so that the
 *   caller removes whatever may be at target (a missing target is then
 *   normal: cix_nar_restore removes its partial tree itself).
 *
 * restore_flags: flags of cix_nar_restore_flags, e.g. CIX_RESTORE_CANONICAL.
 * target_dir: NULL, or the directory (an fd the caller keeps open) in
 *   which every target is one file name (cix_nar_restore_at): no path to
 *   walk and no directory to open per entry.
 *
 * The references are not checked against the store: the caller decides
 * whether each one is valid or came earlier in the stream (a path may
 * refer to itself).
 */
struct cix_import_ops {
	int (*nar_target)(void *opaque, char **target, struct cix_err *err);
	int (*path_done)(void *opaque, const char *target,
			 const struct cix_import_info *info, struct cix_err *err);
	void (*discard)(void *opaque, const char *target);
	int restore_flags;   /* passed to cix_nar_restore_flags */
	int (*target_dir)(void *opaque);
};

/*
 * Read one export stream from src, up to and including its final 0, and
 * nothing after it: trailing bytes stay in src for the caller. store_dir
 * must pass cix_store_dir_check. The input is hostile; refused with
 * -CIX_EFORMAT or -CIX_ELIMIT and a one-line message naming the entry and
 * byte offset: a marker other than 1 or 0 (entry start, signature), a bad
 * magic, truncation anywhere (also between entries and before the final
 * 0), a malformed NAR (see nar-read.c), non-zero padding, a path, reference
 * or deriver that is not a store path of store_dir or longer than one can
 * be (checked on the announced length, before reading), a string holding a
 * NUL, unsorted or duplicate references, more than CIX_EXPORT_MAX_REFS of
 * them, a deriver not ending in ".drv" (stricter than Nix, which takes any
 * store path), a legacy signature over CIX_EXPORT_MAX_SIG bytes.
 * Entries before a failing one have been passed to path_done.
 * Returns 0 or a negative code.
 */
int cix_import_parse(cix_source_fn src, void *src_opaque, const char *store_dir,
		     const struct cix_import_ops *ops, void *opaque,
		     struct cix_err *err);

/*
 * Validate a stream without writing anything: cix_import_parse with only
 * path_done (may be NULL, then nothing is reported).
 */
int cix_import_check(cix_source_fn src, void *src_opaque, const char *store_dir,
		     int (*path_done)(void *opaque, const char *target,
				      const struct cix_import_info *info,
				      struct cix_err *err),
		     void *opaque, struct cix_err *err);

#endif
