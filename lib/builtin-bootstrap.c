/* builtin-bootstrap.c - builtin:bootstrap: a seed from STATE/bootstrap, taken only with its hash */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builtins.h"
#include "drv.h"
#include "encoding.h"
#include "hash.h"
#include "nar.h"
#include "remove.h"
#include "profile-union.h"
#include "store-path.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The seeds (bootstrap binaries) are fixed-output derivations whose
 * builder is builtin:bootstrap: a cache that has the output gives it (the
 * scheduler asks the caches first), else this copies the file or tree
 * that scripts/make-bootstrap left as STATE/bootstrap/NAME, refusing it
 * unless it has the derivation's hash. It runs as the daemon, outside
 * the sandbox, reading that one name: no symlink is followed.
 */

/* The output's expected hash, and whether it is a NAR's. */
static int wanted(const struct cix_builtin_call *c, struct cix_hash *h, int *recursive,
		  struct cix_err *err)
{
	const struct cix_drv_output *o = c->drv->nr_outputs == 1 ? &c->drv->outputs[0] : NULL;
	const char *algo = o ? o->hash_algo : "";
	*recursive = !strncmp(algo, "r:", 2);
	if (*recursive)
		algo += 2;
	if (!o || strcmp(algo, "sha256") || strlen(o->hash) != 64 ||
	    cix_base16_decode(o->hash, 64, h->bytes, sizeof(h->bytes)) != 32)
		return cix_error(err, -CIX_EINVAL, "'%s': builtin:bootstrap makes one output of "
				 "a known sha256", c->drv_path);
	h->algo = CIX_HASH_SHA256;
	h->len = 32;
	return 0;
}

static int not_here(const struct cix_builtin_call *c, const char *why, struct cix_err *err)
{
	const char *out = cix_drv_getenv(c->drv, "out");
	return cix_error(err, -CIX_ENOTFOUND, "'%s' is not in the store: make the bootstrap "
			 "binaries first (scripts/make-bootstrap), or name a cache that has it (%s)",
			 out ? out : c->drv_path, why);
}

/* What was copied to target has the hash wanted? */
static int same_hash(const char *target, int recursive, const struct cix_hash *nar,
		     const struct cix_hash *want, struct cix_err *err)
{
	struct cix_hash flat;
	const struct cix_hash *got = nar;
	int r;
	if (!recursive) {
		if ((r = cix_hash_file(CIX_HASH_SHA256, target, &flat, err)) < 0)
			return r;
		got = &flat;
	}
	return !memcmp(got->bytes, want->bytes, 32);
}

int cix_builtin_bootstrap(const struct cix_builtin_call *c, struct cix_err *err)
{
	const char *name = cix_drv_getenv(c->drv, "name");
	struct strbuf dir = STRBUF_INIT, target = STRBUF_INIT;
	struct cix_hash want, nar;
	struct stat st;
	int recursive, dfd = -1, r;

	if ((r = wanted(c, &want, &recursive, err)) < 0)
		return r;
	if (!name || cix_store_name_check(name, strlen(name), NULL) < 0)
		return cix_error(err, -CIX_EINVAL, "'%s': builtin:bootstrap needs a store name",
				 c->drv_path);
	strbuf_addf(&dir, "%s/bootstrap", c->state_dir);
	dfd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = not_here(c, "no such file in STATE/bootstrap", err);
		goto out;
	}
	if (!recursive && !S_ISREG(st.st_mode)) {
		r = not_here(c, "STATE/bootstrap has no file of that name", err);
		goto out;
	}
	if ((r = cix_union_out_path(c->drv, c->drv_path, c->store_dir, c->root, &target, err)) < 0 ||
	    (r = cix_nar_copy_at(dfd, name, target.buf, CIX_RESTORE_CANONICAL, &nar, NULL,
				 err)) < 0)
		goto out;
	if ((r = same_hash(target.buf, recursive, &nar, &want, err)) == 0) {
		cix_remove_tree_at(AT_FDCWD, target.buf, NULL);
		r = not_here(c, "the file of that name in STATE/bootstrap has another hash", err);
	}
	r = r < 0 ? r : 0;
out:
	if (dfd >= 0)
		close(dfd);
	strbuf_release(&dir);
	strbuf_release(&target);
	return r;
}
