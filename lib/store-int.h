/* store-int.h - internals shared by the local store's files */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STORE_INT_H
#define CIX_STORE_INT_H

#include "store.h"

/* Temporaries, STORE/.cix-tmp/tmp-PID-N (cix_store_tmp_name). */
#define TMP_DIR ".cix-tmp"

/*
 * Under the path's lock, unless it became valid meanwhile: drop an invalid
 * leftover of an earlier crash, rename the canonical tree TMP_DIR/tmp to
 * info->path, register info. The caller removes tmp if it is still there.
 * Returns 1 when info was registered here, 0 when the path was valid.
 */
int cix_store_install(struct cix_store *s, const char *tmp, struct cix_path_info *info,
		      struct cix_err *err);


/* BASE.lock into lock->name (allocated). */
void cix_path_lock_name(const char *base, struct cix_path_lock *lock);
/* Take lock->name (blocking unless nonblock: then -EWOULDBLOCK). */
int cix_path_lock_take(struct cix_store *s, struct cix_path_lock *lock, int nonblock,
		       struct cix_err *err);

/*
 * A claim keeps many paths from other writers with O(1) descriptors (see
 * path-lock.c). Begin it (waiting for other claims to end), claim each
 * path in ascending order (waits while another holds the path's lock), or
 * all at once (cix_path_claim_all), then, with nobody else at the paths,
 * check, move in, register; end it.
 */
struct cix_path_claim {
	int fd, dir_fd, turn_fd;
	char *name;   /* PID-N in STATE/claims */
	size_t nr;
};
int cix_path_claim_begin(struct cix_store *s, struct cix_path_claim *c, struct cix_err *err);
int cix_path_claim(struct cix_store *s, struct cix_path_claim *c, const char *path,
		   struct cix_err *err);
/* paths[0..n): ascending, without repeats, none claimed yet. */
int cix_path_claim_all(struct cix_store *s, struct cix_path_claim *c, const char *const *paths,
		       size_t n, struct cix_err *err);
void cix_path_claim_end(struct cix_store *s, struct cix_path_claim *c);
/* STATE/claims, its name into p (reset first), or opened (-1: missing). */
void cix_claims_dir(struct cix_store *s, struct strbuf *p);
int cix_claims_dir_open(struct cix_store *s);

#endif
