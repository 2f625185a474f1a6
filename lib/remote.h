/* remote.h - a client of cix-daemon (or nix-daemon): the worker protocol, client side */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_REMOTE_H
#define CIX_REMOTE_H

#include "build.h"
#include "db.h"
#include "nar.h"
#include "store.h"
#include "wire.h"
#include "worker-ops.h"

struct cix_remote {
	struct cix_wire w;
	int fd;
	unsigned minor;       /* the daemon's protocol minor version */
	int log_fd;           /* daemon messages and build output, or -1 */
	int broken;           /* the connection is out of step: refuse more */
	int send_err;         /* a write of data frames failed (-errno), or 0 */
};

/* A connection to the daemon's Unix socket: its descriptor, or negative. */
int cix_remote_connect(const char *socket_path, struct cix_err *err);
/* Connect to the daemon's socket and shake hands (protocol 1.34). */
int cix_remote_open(const char *socket_path, struct cix_remote **out, struct cix_err *err);
/*
 * Shake hands over fd, a connection made elsewhere (a socket to
 * `ssh HOST cix-daemon --stdio`, say), named name in messages; the
 * connection owns fd from then on, closed by cix_remote_close even when
 * this fails. Each answer of the handshake may take timeout_ms (0:
 * forever); the requests after it wait as long as they must.
 */
int cix_remote_open_fd(int fd, const char *name, int timeout_ms, struct cix_remote **out,
		       struct cix_err *err);
void cix_remote_close(struct cix_remote *r);

int cix_remote_is_valid(struct cix_remote *r, const char *path, struct cix_err *err);
/* -CIX_ENOTFOUND when path is not valid. */
int cix_remote_query(struct cix_remote *r, const char *path, struct cix_path_info *info,
		     struct cix_err *err);
/* QueryReferrers, QueryValidDerivers or QueryDerivationOutputs of path. */
int cix_remote_list(struct cix_remote *r, enum cix_worker_op op, const char *path,
		    cix_path_fn fn, void *opaque, struct cix_err *err);

/* AddToStore of the file or tree at src (recursive: its NAR; flat: its bytes). */
int cix_remote_add(struct cix_remote *r, const char *src, const char *name,
		   enum cix_add_method method, enum cix_hash_algo algo, struct strbuf *out,
		   struct cix_err *err);
/* AddToStore of text (a .drv) with its references. */
int cix_remote_add_text(struct cix_remote *r, const char *name, const void *text, size_t len,
			const char *const *refs, size_t nr_refs, struct strbuf *out,
			struct cix_err *err);
/* AddToStoreNar: info's path, its NAR from in (which must match info). */
int cix_remote_add_nar(struct cix_remote *r, const struct cix_path_info *info,
		       const struct cix_nar_input *in, struct cix_err *err);
/*
 * AddMultipleToStore (1.32+): infos[0..n) with the NARs np gives, in one
 * request, in that order (references first).
 */
int cix_remote_add_multiple(struct cix_remote *r, struct cix_path_info *infos, size_t n,
			    const struct cix_nar_provider *np, struct cix_err *err);
/* QueryValidPaths: which of paths[0..n) are valid there, appended to valid. */
int cix_remote_valid_paths(struct cix_remote *r, const char *const *paths, size_t n,
			   struct strvec *valid, struct cix_err *err);
/* NarFromPath: the path's NAR into sink. */
int cix_remote_nar(struct cix_remote *r, const char *path, cix_sink_fn sink, void *opaque,
		   struct cix_err *err);
/*
 * NarFromPath as a stream to read: begin sends the request, then
 * cix_remote_nar_read(rn, ...) gives the NAR's nar_size bytes (the size
 * the daemon gave for the path) and ends there; end puts the connection
 * out of use if the NAR was not read to its end.
 */
struct cix_remote_nar {
	struct cix_remote *r;
	struct cix_wire_source src;
	uint64_t left;
};
int cix_remote_nar_begin(struct cix_remote *r, const char *path, uint64_t nar_size,
			 struct cix_remote_nar *rn, struct cix_err *err);
ssize_t cix_remote_nar_read(void *opaque /* struct cix_remote_nar * */, void *buf, size_t len);
void cix_remote_nar_end(struct cix_remote_nar *rn);
/* SetOptions from opts, then QueryMissing of DRV!* for each derivation. */
int cix_remote_query_missing(struct cix_remote *r, const char *const *drvs, size_t n,
			     const struct cix_build_opts *opts, struct cix_build_missing *m,
			     struct cix_err *err);
/* SetOptions from opts, then BuildPaths of DRV!* for each derivation (mode 2: check). */
int cix_remote_build(struct cix_remote *r, const char *const *drvs, size_t n,
		     const struct cix_build_opts *opts, struct cix_err *err);
/*
 * SetOptions from opts, then BuildDerivation of drv (as drv_path, which
 * need not be in the daemon's store): sent whole, its input derivations
 * left out and inputs[0..n) (valid there) its input sources. The
 * daemon's message when the build failed.
 */
int cix_remote_build_derivation(struct cix_remote *r, const char *drv_path,
				const struct cix_drv *drv, const char *const *inputs,
				size_t nr_inputs, const struct cix_build_opts *opts,
				struct cix_err *err);
/* VerifyStore: *errors set when something was wrong. */
int cix_remote_verify(struct cix_remote *r, int check_contents, int repair, int *errors,
		      struct cix_err *err);
int cix_remote_optimise(struct cix_remote *r, struct cix_err *err);
/* Send what is buffered, then read the daemon's frames up to the reply. */
int cix_remote_call(struct cix_remote *r, struct cix_err *err);

/* lib/remote-gc.c: the garbage collector's operations. */
/*
 * CollectGarbage: action 0 lists the live paths, 1 the dead, 2 deletes the
 * dead (until max_freed bytes are freed), 3 deletes paths; the paths
 * listed or deleted are appended to out, the bytes freed to *freed.
 */
int cix_remote_collect_garbage(struct cix_remote *r, unsigned action, const char *const *paths,
			       size_t n, uint64_t max_freed, struct strvec *out,
			       uint64_t *freed, struct cix_err *err);
/* AddTempRoot: path stays alive while this connection lasts. */
int cix_remote_add_temp_root(struct cix_remote *r, const char *path, struct cix_err *err);
/* AddIndirectRoot: the symlink link (absolute) becomes a root while it exists. */
/* EnsurePath: path valid, substituted by the daemon if it can (else an error). */
int cix_remote_ensure_path(struct cix_remote *r, const char *path, struct cix_err *err);
int cix_remote_add_indirect_root(struct cix_remote *r, const char *link, struct cix_err *err);
/* FindRoots: the roots' links and the store paths they keep, pairwise. */
int cix_remote_find_roots(struct cix_remote *r, struct strvec *links, struct strvec *paths,
			  struct cix_err *err);

#endif
