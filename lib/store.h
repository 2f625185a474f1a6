/* store.h - the local store: layout, locking, adding and registering paths */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STORE_H
#define CIX_STORE_H

#include "db.h"
#include "nar.h"
#include "err.h"
#include "hash.h"
#include "strbuf.h"
#include <sys/types.h>

/*
 * A store is a directory of paths (default /cix/store, $CIX_STORE_DIR) and
 * a state directory (default /var/cix, $CIX_STATE_DIR) holding the
 * database db/db.sqlite. Content being added is restored from its NAR
 * into STORE/.cix-tmp/tmp-PID-N with canonical metadata, hashed on the
 * way, then renamed into place under the per-path lock STORE/BASE.lock,
 * and becomes valid when its database row commits. Leftovers of a crash
 * are removed: invalid paths when their lock is next taken, temporaries of
 * dead processes by cix_store_open.
 */
struct cix_store_ops;
struct strvec;

/*
 * A store, of whichever kind: its operations (lib/store-backend.h) are
 * chosen when it is opened, and the cix_store_* functions below work on
 * any of them. The fields other than ops and backend are the local
 * store's (the store directory's name is everyone's).
 */
struct cix_store {
	const struct cix_store_ops *ops;
	void *backend;          /* the backend's own state (the daemon's connection...) */
	char *store_dir;
	char *state_dir;
	int store_fd;           /* the store directory, O_PATH (-1 if not there) */
	int tmp_fd;             /* its temporaries' directory, share-locked (-1: none) */
	struct cix_db *db;      /* the local database; NULL for any other kind */
	int temproots_fd;       /* STATE/temproots/PID once a temporary root is added, or -1 */
};

/* What a kind of store is like, for the callers that do better knowing. */
enum cix_store_trait {
	/*
	 * This process keeps the state directory: it makes the users'
	 * profile directories and the roots' links itself (a daemon's
	 * store has the daemon do it).
	 */
	CIX_STORE_OWNS_STATE = 1,
	/*
	 * Queries read the database here, in a snapshot: they cost no round
	 * trip, and a path they show valid has its files whole in place.
	 */
	CIX_STORE_LOCAL_DB = 2,
};
/* Does the store have trait? */
int cix_store_has(const struct cix_store *s, enum cix_store_trait trait);
/* The kind of store, as "local" or "daemon". */
const char *cix_store_kind(const struct cix_store *s);

/* $CIX_STATE_DIR or "/var/cix". */
const char *cix_state_dir(void);

/*
 * Open the store, creating its directories and database if needed.
 * store_dir/state_dir may be NULL for the defaults.
 */
int cix_store_open(const char *store_dir, const char *state_dir,
		   struct cix_store **out, struct cix_err *err);
/*
 * The same, without removing dead processes' temporaries and temporary
 * roots: for a daemon's workers, which leave that to the daemon (a worker
 * opens the store for each connection).
 */
int cix_store_open_no_clean(const char *store_dir, const char *state_dir,
			    struct cix_store **out, struct cix_err *err);
void cix_store_close(struct cix_store *s);

/* How cix_store_add hashes content (nix-store --add / --add-fixed). */
enum cix_add_method {
	CIX_ADD_FLAT,        /* hash of the file's contents */
	CIX_ADD_RECURSIVE,   /* hash of the NAR */
	CIX_ADD_TEXT,        /* text with references (a .drv): cix_store_add_source */
};

/*
 * Copy the file or tree at src into the store as a content-addressed path
 * named after src's base name, and append that path to out. With
 * CIX_ADD_RECURSIVE and sha256 this is a "source" path, as nix-store --add
 * makes. A path already valid is not copied again. A derivation (NAME.drv)
 * must have the output paths its contents give (cix_store_admit_drv).
 */
int cix_store_add(struct cix_store *s, const char *src, enum cix_add_method method,
		  enum cix_hash_algo algo, struct strbuf *out, struct cix_err *err);

/*
 * The same for content read from src, named name: with CIX_ADD_RECURSIVE
 * src gives a NAR and must end there (a byte after it is refused),
 * otherwise the file's bytes. CIX_ADD_TEXT (sha256 only) makes a text
 * path with the references refs (valid paths). Whatever the method, a
 * derivation (NAME.drv) must have the output paths its contents give.
 * registered (may be NULL) receives what was registered, when the path
 * was not valid before (and is left zeroed when it was).
 */
int cix_store_add_source(struct cix_store *s, const char *name, enum cix_add_method method,
			 enum cix_hash_algo algo, const char *const *refs, size_t nr_refs,
			 cix_source_fn src, void *opaque, struct strbuf *out,
			 struct cix_path_info *registered, struct cix_err *err);

/*
 * Add text (a .drv, named name) with the references refs, locally or
 * through the daemon (cix_store_open_client); its path appended to out.
 */
int cix_store_add_text(struct cix_store *s, const char *name, const void *text, size_t len,
		       const char *const *refs, size_t nr_refs, struct strbuf *out,
		       struct cix_err *err);

/* ---- Derivations entering the store (lib/store-drv.c) ---- */

/* Does path name a derivation (NAME.drv)? */
int cix_store_is_drv_path(const char *path);

/*
 * Every path named *.drv passes here before it is registered, whichever
 * way it came: parse file (where its text is now: a regular file, not
 * followed if a symlink), check that its output paths are the ones its
 * contents and name give (input derivations valid, or among
 * pending[0..nr_pending), paths registered with it whose files are in
 * place), and fill info->outputs for the database (release them with
 * cix_store_admit_drv_release). A derivation claiming outputs that are
 * not its own is refused ("derivation '...' is refused: ..."). 0 for a
 * path that is not a derivation.
 */
int cix_store_admit_drv(struct cix_store *s, struct cix_path_info *info, const char *file,
			const char *const *pending, size_t nr_pending, struct cix_err *err);
void cix_store_admit_drv_release(struct cix_path_info *info);
/*
 * The same for many derivations registered together (pending[0..nr) must
 * stay as they are until the admission is freed): the hash modulo of each
 * input is computed once for all of them.
 */
struct cix_drv_admission;
struct cix_drv_admission *cix_store_admission_new(struct cix_store *s,
						  const char *const *pending, size_t nr_pending);
int cix_store_admit(struct cix_drv_admission *a, struct cix_path_info *info, const char *file,
		    struct cix_err *err);
void cix_store_admission_free(struct cix_drv_admission *a);

/* A hasher (lib/drv.h) whose input derivations are the store's valid ones. */
struct cix_drv_hasher;
struct cix_drv_hasher *cix_store_drv_hasher(struct cix_store *s);

/*
 * Check that drv, parsed from drv_path, has the output paths its
 * contents give (before building it): -CIX_EMISMATCH otherwise.
 */
struct cix_drv;
int cix_store_verify_drv(struct cix_store *s, struct cix_drv_hasher *h, const char *drv_path,
			 const struct cix_drv *drv, struct cix_err *err);

/*
 * Add the NAR read from src as info->path with info's metadata (the
 * daemon's AddToStoreNar): the NAR must have info's hash and size, the
 * references must be valid (or the path itself), a content address must
 * match the content and the path, and with need_ca there must be one (an
 * untrusted client's input-addressed path is refused). src must end with
 * the NAR. A path already valid is left as it is (the NAR is still read).
 */
int cix_store_add_nar(struct cix_store *s, struct cix_path_info *info, int need_ca,
		      cix_source_fn src, void *opaque, struct cix_err *err);
/*
 * The same in two steps, so that NARs can be restored in parallel and
 * registered one at a time: prepare restores and checks the NAR (hash and
 * size) into a temporary of the store, named in tmp (nothing is left on
 * failure); commit checks the rest, registers it and removes the temporary
 * in any case; abort removes it instead. Only commit touches the database.
 */
int cix_store_add_nar_prepare(struct cix_store *s, const struct cix_path_info *info,
			      cix_source_fn src, void *opaque, struct strbuf *tmp,
			      struct cix_err *err);
int cix_store_add_nar_commit(struct cix_store *s, struct cix_path_info *info, int need_ca,
			     const char *tmp, struct cix_err *err);
void cix_store_add_nar_abort(struct cix_store *s, const char *tmp);

/*
 * The store as a command sees it: through the daemon when
 * $CIX_DAEMON_SOCKET is set, or when the store exists and this user may
 * not write it (the daemon's socket is then
 * $CIX_STATE_DIR/daemon-socket/socket); the local store otherwise.
 */
int cix_store_open_client(struct cix_store **out, struct cix_err *err);
/* The store of the daemon listening on socket_path (lib/store-daemon.c). */
int cix_store_open_daemon(const char *socket_path, struct cix_store **out,
			  struct cix_err *err);

/*
 * A store named by a URI (lib/store-uri.c): "daemon" (or NULL or ""):
 * cix_store_open_client's; "local": this process's own; "unix://SOCKET":
 * the daemon listening there; "ssh-ng://[USER@]HOST[:PORT][?PARAMS]":
 * the store of `REMOTE-PROGRAM --stdio` run by OpenSSH on HOST
 * (lib/store-ssh.c, which says the PARAMS). Anything else is refused with
 * -CIX_EINVAL.
 */
int cix_store_open_uri(const char *uri, struct cix_store **out, struct cix_err *err);

/* Are the store's files on this machine (readable through store_fd)? */
int cix_store_files_here(const struct cix_store *s);

/*
 * Where the NAR of a path being copied in comes from: its tree on this
 * machine (fs_path), or else a stream (src, opaque) that ends with it.
 */
struct cix_nar_input {
	const char *fs_path;
	cix_source_fn src;
	void *opaque;
};

/*
 * The NARs of paths being copied, one at a time: open fills in the input
 * of the i-th, close ends it (after it was read, or not).
 */
struct cix_nar_provider {
	int (*open)(void *opaque, size_t i, struct cix_nar_input *in, struct cix_err *err);
	void (*close)(void *opaque, size_t i);
	void *opaque;
};

/*
 * Add info->path with info's metadata (deriver, references, signatures,
 * content address) and the NAR that in gives, which must have info's hash
 * and size; its references must be valid already. On a daemon's store
 * the daemon's trust rules apply (an untrusted user's path needs a
 * signature of a trusted key, or a content address).
 */
int cix_store_add_with_info(struct cix_store *s, struct cix_path_info *info,
			    const struct cix_nar_input *in, struct cix_err *err);

/* Which of paths[0..n) are valid, appended to valid (one request to a daemon). */
int cix_store_valid_paths(struct cix_store *s, const char *const *paths, size_t n,
			  struct strvec *valid, struct cix_err *err);
/*
 * cix_store_add_with_info of infos[0..n) (references first), the NARs
 * from np: in one request to a daemon that takes them so
 * (AddMultipleToStore), one by one otherwise.
 */
int cix_store_add_many(struct cix_store *s, struct cix_path_info *infos, size_t n,
		       const struct cix_nar_provider *np, struct cix_err *err);

/*
 * Copy the closure of paths[0..n) (valid in src) to dst, references
 * first, each path not valid in dst already (lib/store-copy.c); sending
 * (may be NULL) is called with each path as it is sent. The paths that
 * arrived whole before a failure stay.
 */
int cix_store_copy_closure(struct cix_store *src, struct cix_store *dst,
			   const char *const *paths, size_t n, cix_path_fn sending, void *opaque,
			   struct cix_err *err);

/*
 * Queries that work on either kind of store (lib/store-api.c); they
 * behave as the cix_db_* functions of the same names.
 */
int cix_store_is_valid(struct cix_store *s, const char *path, struct cix_err *err);
int cix_store_query(struct cix_store *s, const char *path, struct cix_path_info *info,
		    struct cix_err *err);
/*
 * cix_store_query of each of paths[0..n), all or nothing; all_valid (if
 * not NULL) once all are known valid (cix_db_query_many).
 */
int cix_store_query_many(struct cix_store *s, const char *const *paths, size_t n,
			 struct cix_path_info *infos, void (*all_valid)(void *opaque),
			 void *opaque, struct cix_err *err);
int cix_store_references(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			 struct cix_err *err);
int cix_store_referrers(struct cix_store *s, const char *path, cix_path_fn fn, void *opaque,
			struct cix_err *err);
int cix_store_valid_derivers(struct cix_store *s, const char *path, cix_path_fn fn,
			     void *opaque, struct cix_err *err);
int cix_store_drv_outputs_list(struct cix_store *s, const char *drv_path, cix_path_fn fn,
			       void *opaque, struct cix_err *err);
int cix_store_graph(struct cix_store *s, const char *const *paths, size_t n,
		    enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err);
/*
 * Many queries in one snapshot of the local database (nothing through the
 * daemon): a statement outside a transaction takes and drops SQLite's
 * locks itself, several system calls that cost more than the query.
 * Nothing may be written before cix_store_read_end.
 */
int cix_store_read_begin(struct cix_store *s, struct cix_err *err);
void cix_store_read_end(struct cix_store *s);
/* The NAR of a valid path into sink (read locally, or from the daemon). */
int cix_store_dump(struct cix_store *s, const char *path, cix_sink_fn sink, void *opaque,
		   struct cix_err *err);

/* Remove a store path's files (not its database row); missing is fine. */
int cix_remove_path(struct cix_store *s, const char *path, struct cix_err *err);

/*
 * Import one export stream (nix-store --export) from src: every path is
 * checked, its references must be valid or come earlier in the stream, and
 * then all of them become valid together, or none. imported (may be NULL)
 * is called with each path of the stream, in order.
 */
int cix_store_import(struct cix_store *s, cix_source_fn src, void *src_opaque,
		     cix_path_fn imported, void *opaque, struct cix_err *err);

/* What cix_store_optimise did. */
struct cix_store_optimise_stats {
	uint64_t files_linked;   /* files replaced by a link to an identical one */
	uint64_t bytes_freed;
};

/*
 * Hard-link identical files of all valid paths through STORE/.links. A
 * daemon does it without saying how much (st set to UINT64_MAX each).
 */
int cix_store_optimise(struct cix_store *s, struct cix_store_optimise_stats *st,
		       struct cix_err *err);
/* The same for some valid paths only (auto-optimise-store: a build's outputs). */
int cix_store_optimise_paths(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_store_optimise_stats *st, struct cix_err *err);

/* Check that path is a store path of s (syntax only); a message if not. */
int cix_store_check_path(struct cix_store *s, const char *path, struct cix_err *err);

/*
 * Check a valid path: that it exists and, with check_contents, that its NAR
 * still has the recorded hash and size. -ENOENT when it disappeared
 * (-CIX_ENOTFOUND when it is not valid), -CIX_EMISMATCH when modified.
 */
int cix_store_verify_path(struct cix_store *s, const char *path, int check_contents,
			  struct cix_err *err);

/*
 * Verify paths (or every valid path): each must exist and, with
 * check_contents, still have its NAR hash. A path that vanished and that
 * no other valid path refers to is dropped from the database. Each finding
 * goes to report (is_error 0 for what was put right). Returns the number
 * of problems left, or a negative code.
 */
typedef void (*cix_report_fn)(void *opaque, int is_error, const char *msg);
/*
 * How a modified path is repaired (NULL: it is not): fn puts the path
 * right (0) or says why it cannot (a negative code, err set).
 */
struct cix_verify_repair {
	int (*fn)(void *opaque, const char *path, struct cix_err *err);
	void *opaque;
};
int cix_store_verify_paths(struct cix_store *s, const char *const *paths, size_t n,
			   int check_contents, const struct cix_verify_repair *repair,
			   cix_report_fn report, void *opaque);
int cix_store_verify_all(struct cix_store *s, int check_contents,
			 const struct cix_verify_repair *repair,
			 cix_report_fn report, void *opaque, struct cix_err *err);

/* ---- Building and keeping, on any kind of store (lib/store-api.c) ---- */

struct cix_build_opts;
struct cix_build_missing;
struct cix_gc_opts;
struct cix_gc_result;
struct strvec;

/*
 * Make the outputs of drvs[0..n) valid, fetching from caches what they
 * have (opts' substitute_urls, no_substitutes and fallback: the local
 * store reads cix.conf's caches and the ACL once, at the first call that
 * needs them) and building the rest (lib/build.h). On a daemon's store
 * the daemon does it, with its own caches among those asked for.
 */
int cix_store_build(struct cix_store *s, const char *const *drvs, size_t n,
		    const struct cix_build_opts *opts, struct cix_err *err);
/* What cix_store_build would do, appended to m (nothing fetched or built). */
int cix_store_plan(struct cix_store *s, const char *const *drvs, size_t n,
		   const struct cix_build_opts *opts, struct cix_build_missing *m,
		   struct cix_err *err);
/*
 * Make paths[0..n), which are no derivations' outputs to build here,
 * valid from the caches: an error names the first no cache has.
 */
int cix_store_ensure_paths(struct cix_store *s, const char *const *paths, size_t n,
			   const struct cix_build_opts *opts, struct cix_err *err);
/*
 * Verify paths[0..n) (paths NULL: the whole store, as cix_store_verify_all;
 * a path's contents are always checked), repairing modified paths by
 * building them again with the options repair (NULL: no repair). The
 * number of problems left, or a negative code. A daemon checks the whole
 * store itself and says only whether something was wrong (1 problem),
 * its findings on the log.
 */
int cix_store_verify(struct cix_store *s, const char *const *paths, size_t n,
		     int check_contents, const struct cix_build_opts *repair,
		     cix_report_fn report, void *opaque,
		     struct cix_err *err);
/*
 * Run the garbage collector (lib/gc.h) with o; res (may be NULL) says
 * what it freed. A daemon applies its own keep-derivations/outputs.
 */
int cix_store_collect_garbage(struct cix_store *s, const struct cix_gc_opts *o,
			      struct cix_gc_result *res, struct cix_err *err);
/* The roots: their links (temporary roots as {temp:PID}...) and paths, pairwise. */
int cix_store_find_roots(struct cix_store *s, struct strvec *links, struct strvec *paths,
			 struct cix_err *err);
/*
 * Keep paths alive while this process (or its connection to the daemon)
 * lasts: a temporary root each.
 */
int cix_store_add_temp_roots(struct cix_store *s, const char *const *paths, size_t n,
			     struct cix_err *err);
/*
 * Make the symlink link (an absolute file name) a root while it exists,
 * through a link to it in STATE/gcroots/auto (made by the daemon for its
 * store).
 */
int cix_store_add_indirect_root(struct cix_store *s, const char *link, struct cix_err *err);

/*
 * Register infos[0..n), whose trees are in place: their files reach the
 * disk first, so that a power cut never leaves a valid path with missing
 * or empty files (the database's own sync can commit the renames without
 * the file data still in memory).
 */
int cix_store_register(struct cix_store *s, const struct cix_path_info *infos, size_t n,
		       struct cix_err *err);

/*
 * Rename the canonical tree tmp (in the directory tmp_fd) to STORE/base,
 * which must not exist, keeping its canonical metadata.
 */
int cix_store_move_in(struct cix_store *s, int tmp_fd, const char *tmp, const char *base,
		      struct cix_err *err);

/*
 * Copy src through its NAR, as a fresh canonical tree, to STORE/base
 * (which must not exist), without registering it.
 */
int cix_store_copy_in(struct cix_store *s, const char *src, const char *base,
		      struct cix_err *err);

/*
 * Let go of STORE/.cix-tmp (cix_store_close does it), for a process that
 * makes no temporaries and keeps the store open (the daemon's committer):
 * the last process to let go removes it when empty.
 */
void cix_store_close_tmp(struct cix_store *s);
/*
 * 0 when the store holds its temporaries' directory, STORE/.cix-tmp (taken
 * again, made when missing, after cix_store_close_tmp), else (a read-only
 * store, opened for queries) an error naming the reason: what writes
 * calls it first.
 */
int cix_store_need_tmp(struct cix_store *s, struct cix_err *err);

/* Append a fresh temporary name, tmp-PID-N, for STORE/.cix-tmp/. */
void cix_store_tmp_name(struct strbuf *base);
/* The same for the process pid (the caller's, looked up once for many). */
void cix_store_tmp_name_of(struct strbuf *base, long pid);

/* A held per-path lock. */
struct cix_path_lock {
	int fd;
	char *name;   /* BASE.lock, relative to the store directory */
};

/*
 * Take the lock of a store path (blocking). A lock file that its previous
 * holder unlinked is detected (nlink 0) and the lock taken again.
 */
int cix_path_lock(struct cix_store *s, const char *path, struct cix_path_lock *lock,
		  struct cix_err *err);
void cix_path_unlock(struct cix_store *s, struct cix_path_lock *lock);
/* The same without waiting: -EWOULDBLOCK (no message) while another holds it. */
int cix_path_trylock(struct cix_store *s, const char *path, struct cix_path_lock *lock,
		     struct cix_err *err);

/* Canonicalise a tree in place: mtime 1, 0444/0555, no setuid/setgid. */
int cix_canonicalise_at(int dirfd, const char *name, struct cix_err *err);
/*
 * The same, refusing the tree unless every file, directory and symlink in
 * it is owned by owner (a build user: what it did not make, say a hard
 * link to a file of root's, is not taken). owner (uid_t)-1: no check.
 */
int cix_canonicalise_owned_at(int dirfd, const char *name, uid_t owner, struct cix_err *err);

#endif
