/* nar.h - Nix ARchives: writing, hostile-input-safe reading and restoring */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_NAR_H
#define CIX_NAR_H

#include <stdint.h>
#include <sys/types.h>
#include "err.h"
#include "hash.h"

/* Bounds applied to every NAR read (as Nix since GHSA-vh5x-56v6-4368). */
#define CIX_NAR_MAX_DEPTH 64      /* nested directories */
#define CIX_NAR_MAX_NAME 255      /* bytes in an entry name */
#define CIX_NAR_MAX_TARGET 4095   /* bytes in a symlink target */
#define CIX_NAR_MAX_TAG 32        /* bytes in a structural token */

/*
 * A sink receives the bytes of a NAR as they are produced. It returns 0, or a
 * negative code that aborts the dump and is returned by it.
 */
typedef int (*cix_sink_fn)(void *opaque, const void *data, size_t len);

/*
 * A source hands out input: it fills buf with up to len bytes and returns how
 * many (0 at end of input), or a negative code.
 */
typedef ssize_t (*cix_source_fn)(void *opaque, void *buf, size_t len);

/* ---- Writer (lib/nar-write.c) ---- */

/*
 * Serialise the file, symlink or directory at path (never following a
 * symlink, path itself included) into sink. Sockets, FIFOs and devices are
 * refused with -CIX_EUNSUPPORTED naming the file.
 */
int cix_nar_dump(const char *path, cix_sink_fn sink, void *opaque,
		 struct cix_err *err);

/* Same, for a path relative to dirfd (AT_FDCWD allowed). */
int cix_nar_dump_at(int dirfd, const char *path, cix_sink_fn sink,
		    void *opaque, struct cix_err *err);

/*
 * Copy src (relative to dirfd) to target, which must not exist, through
 * its NAR in one pass (lib/nar-copy.c): restored with flags
 * (CIX_RESTORE_*), the NAR's hash and size (either may be NULL) are
 * those of what was written. Nothing is left at target on failure.
 */
int cix_nar_copy_at(int dirfd, const char *src, const char *target, int flags,
		    struct cix_hash *nar_hash, uint64_t *nar_size, struct cix_err *err);

/*
 * Hash the NAR serialisation of path without materialising it; size (may be
 * NULL) receives the NAR's length in bytes. This is `nix-hash` / `cix hash -r`.
 */
int cix_nar_hash_path(const char *path, enum cix_hash_algo algo,
		      struct cix_hash *out, uint64_t *size, struct cix_err *err);

/* ---- Reader (lib/nar-read.c, lib/nar-restore.c) ---- */

/*
 * Read exactly one NAR from src, validating it strictly (see the checks
 * in nar-read.c), and materialise it at target, which must not exist.
 * Writes happen only below target, through directory file descriptors,
 * never through a symlink. On any error the partial target is removed.
 * The reader consumes exactly the NAR's bytes and nothing after it.
 * hash/size (either may be NULL) receive the sha256 and length of the NAR.
 */
int cix_nar_restore(cix_source_fn src, void *opaque, const char *target,
		    struct cix_hash *hash, uint64_t *size, struct cix_err *err);

/*
 * As cix_nar_restore; with CIX_RESTORE_CANONICAL, what is created gets the
 * store's canonical metadata as it is written (files 0444 or 0555,
 * directories 0555, mtime 1 on everything, symlinks included), so that a
 * tree restored for the store needs no second pass.
 */
#define CIX_RESTORE_CANONICAL 1
/*
 * CIX_RESTORE_WRITEBACK: each large file's pages start on their way to
 * the disk as soon as it is complete, so that the flush that comes before
 * a path is registered (cix_store_register) waits for what is left, not
 * for the whole tree: the disk works while the rest is restored.
 */
#define CIX_RESTORE_WRITEBACK 2
int cix_nar_restore_flags(cix_source_fn src, void *opaque, const char *target, int flags,
			  struct cix_hash *hash, uint64_t *size, struct cix_err *err);

/*
 * As cix_nar_restore_flags, into name (one file name, made exclusively) in
 * the directory dir_fd, which stays open: one open directory for many
 * restores.
 */
int cix_nar_restore_at(cix_source_fn src, void *opaque, int dir_fd, const char *name,
		       int flags, struct cix_hash *hash, uint64_t *size, struct cix_err *err);

/*
 * After a NAR read from src, when nothing may follow it: 0 if src is at
 * its end, -CIX_EFORMAT if it has more, or src's error.
 */
int cix_source_expect_end(cix_source_fn src, void *opaque, struct cix_err *err);

/* Validate one NAR from src without writing anything; hash/size as above. */
int cix_nar_check(cix_source_fn src, void *opaque,
		  struct cix_hash *hash, uint64_t *size, struct cix_err *err);

/* A source over a memory buffer. */
struct cix_mem_source {
	const unsigned char *data;
	size_t len, pos;
};
ssize_t cix_mem_source_read(void *opaque, void *buf, size_t len);

/* A source over a file descriptor: one read() per call. */
ssize_t cix_fd_source_read(void *opaque /* int * */, void *buf, size_t len);

/*
 * A source over a file descriptor through a 64 KiB buffer: far fewer
 * system calls for parsers that ask for a few bytes at a time, but it may
 * read past what they consume (fine when the stream ends there).
 */
struct cix_buf_source {
	int fd;
	size_t pos, len;
	unsigned char buf[64 * 1024];
};
#define CIX_BUF_SOURCE_INIT(fd_) { .fd = (fd_) }
ssize_t cix_buf_source_read(void *opaque /* struct cix_buf_source * */, void *buf, size_t len);

#endif
