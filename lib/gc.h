/* gc.h - the garbage collector: roots, temporary roots, what is alive, deletion */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_GC_H
#define CIX_GC_H

#include "store.h"
#include "strvec.h"

/*
 * Temporary roots (lib/gc-roots.c). A process that is about to use or make
 * a store path first adds it to STATE/temproots/PID: the collector keeps
 * it, and its closure, alive while the process lives. The file is held
 * under a read lock (an open file description lock) for the process's
 * life; adding a root takes the write lock for the moment of the write.
 * The collector takes read locks on all of them, so a root added while it
 * runs waits for its end; a file it can write-lock belongs to a dead
 * process and is deleted. Through the daemon, the root is the daemon
 * worker's and lasts as long as the connection. The calls are
 * thread-safe.
 */
int cix_store_add_temp_root(struct cix_store *s, const char *path, struct cix_err *err);
/* For each of paths[0..n): cix_store_add_temp_roots (store.h). */
/*
 * Delete the temporary roots of processes that died without closing the
 * store (cix_store_open does it); skipped while a collector runs or a
 * process makes its file (both hold the GC lock).
 */
void cix_store_clean_temp_roots(struct cix_store *s);
/* Drop this process's temporary roots (cix_store_close does it). */
void cix_store_drop_temp_roots(struct cix_store *s);

/*
 * An indirect root (cix_store_add_indirect_root): STATE/gcroots/auto/HASH
 * (of link) becomes a symlink to link, an absolute file name, replaced
 * atomically; link keeps whatever store path it points to alive while it
 * exists.
 */

/* A root: the file that makes it, and the store path it keeps alive. */
struct cix_gc_root {
	char *link;   /* a symlink below STATE/gcroots (or the link it leads to), {temp:PID},
			 or /proc/PID/{exe,cwd,fd/N,maps,environ} */
	char *path;   /* STORE/HASH-NAME, valid or not (always valid for runtime roots) */
	int runtime;  /* a running process uses it (link is in /proc) */
};

struct cix_gc_roots {
	struct cix_gc_root *v;
	size_t nr, alloc;
	int *fds;     /* the temporary roots' files, read-locked (lock_temp) */
	size_t nr_fds, alloc_fds;
	/* Set by the caller, or NULL: asked now and then, non-zero stops the search. */
	int (*cancelled)(void *opaque);
	void *cancel_opaque;
};

/*
 * The roots: the store paths that the symlinks below STATE/gcroots lead
 * to, and the temporary roots of live processes. A link is followed
 * through at most 8 links; it makes a root if it ends in the store. It
 * leads into a directory of the state directory (such as the profiles,
 * through gcroots/profiles), whose links and subdirectories are read in
 * turn, only when every link on the way lies in a directory that only
 * root, the collector's user or the state directory's owner can change:
 * the links of users (in their profiles' directories, those that
 * gcroots/auto leads to) count only when they lead into the store.
 * Subdirectories are read to a depth of 32, each directory once. Nothing
 * outside the store counts, and no directory outside the state directory
 * is read. The runtime roots are the valid store paths that processes
 * use: their executables, working directories, open files, mapped files,
 * and the store paths named in their environments (/proc, as Nix reads
 * it; lib/gc-proc.c). With lock_temp, the temporary roots' files stay read-locked
 * until cix_gc_roots_release, and those of dead processes are deleted.
 * Nothing else is written. -ECANCELED when roots->cancelled said so.
 */
int cix_gc_find_roots(struct cix_store *s, int lock_temp, struct cix_gc_roots *roots,
		      struct cix_err *err);
void cix_gc_roots_release(struct cix_gc_roots *roots);

/* The roots' store paths alone, sorted, unique. */
int cix_gc_roots(struct cix_store *s, struct strvec *roots, struct cix_err *err);

/* What cix_gc_collect does (the actions of the protocol's CollectGarbage). */
enum cix_gc_action {
	CIX_GC_LIST_LIVE,        /* list the valid paths the roots keep alive */
	CIX_GC_LIST_DEAD,        /* list the others */
	CIX_GC_DELETE_DEAD,      /* delete the dead paths (and invalid leftovers) */
	CIX_GC_DELETE_SPECIFIC,  /* delete paths[], all of them dead, or none */
};

struct cix_gc_opts {
	enum cix_gc_action action;
	const char *const *paths;   /* CIX_GC_DELETE_SPECIFIC */
	size_t nr_paths;
	uint64_t max_freed;         /* CIX_GC_DELETE_DEAD: stop after this many bytes (0: all) */
	int keep_derivations;       /* a live path's valid deriver is alive */
	int keep_outputs;           /* a live derivation's valid outputs are alive */
	/*
	 * CIX_GC_DELETE_SPECIFIC: this process's own temporary roots keep
	 * nothing alive (a daemon's client deleting paths it added itself on
	 * the same connection, as Nix's and Guix's daemons allow).
	 */
	int not_own_temp_roots;
	cix_path_fn each;           /* called with each path listed or deleted, or NULL */
	void *opaque;
	/*
	 * Or NULL: asked between paths (and while waiting for another
	 * collector, and finding the roots); non-zero stops the collection
	 * there, with -ECANCELED (a daemon's client that hung up).
	 */
	int (*cancelled)(void *opaque);
	void *cancel_opaque;
};

struct cix_gc_result {
	uint64_t bytes_freed;
	size_t nr_deleted;
};

/*
 * Run the collector on the local store s, one at a time (STATE/gc.lock).
 * A path is made invalid (in transactions of many) before its files are
 * deleted, so an interrupted collection leaves garbage, never a valid path
 * with missing files; the next one deletes what was left. Files are
 * deleted through openat/unlinkat on single names. Invalid entries of the
 * store (leftovers of crashes) are deleted unless they are temporary
 * roots or their lock is held (being built). Identical-file links
 * (STORE/.links) no longer shared are deleted too.
 */
int cix_gc_collect(struct cix_store *s, const struct cix_gc_opts *o, struct cix_gc_result *res,
		   struct cix_err *err);

/* "500MiB", "2G", "100k", "1000": bytes (1024-based units; KB/MB/GB 1000-based). */
int cix_parse_size(const char *text, uint64_t *out);

#endif
