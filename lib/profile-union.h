/* profile-union.h - packages' trees joined as symlinks: builtin:profile and builtin:buildenv */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PROFILE_UNION_H
#define CIX_PROFILE_UNION_H

#include "db.h"
#include "drv.h"
#include "err.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * The union is made one directory level at a time: the names of all the
 * sources of a level, grouped by name in the sources' order, each group
 * given to the builder's rule (merge_name), which makes a link, or a
 * directory whose sources it merges in turn (cix_union_merge), or fails.
 */

/* One package's directory merged at the current level. */
struct union_src {
	size_t pkg;   /* its package: an index in union_ctx.pkgs */
	char *dir;    /* its file name, the package's path or below it */
	int prio;     /* builtin:buildenv's priority (lower wins) */
};

/* A name found in one of the level's sources. */
struct union_ent {
	char *name;
	size_t src;   /* index of its source: the packages' order */
};

struct union_ctx {
	struct strvec pkgs;   /* the packages' paths, in order */
	/*
	 * The real paths of the directories holding them (the store): only
	 * directories found below one of them are merged, so that a link in
	 * a package never gets a directory of the host listed.
	 */
	struct strvec roots;
	struct strbuf rel;    /* the name below OUT being made */
	struct cix_err *err;
	/* Is the name, in the directory c->rel of a source, left out? */
	int (*skip)(const struct union_ctx *c, const char *name, int depth);
	/* Make the name of ents[0..k) (all one name) in outfd. */
	int (*merge_name)(struct union_ctx *c, int outfd, const struct union_src *srcs,
			  const struct union_ent *ents, size_t k, int depth);
};

/* DIR/NAME, allocated. */
char *cix_union_join(const char *dir, const char *name);
/* Is real (a resolved name) below one of c->roots? */
int cix_union_under_roots(const struct union_ctx *c, const char *real);
/* The link name in outfd, to target. */
int cix_union_link(struct union_ctx *c, int outfd, const char *name, const char *target);
/* The directory name made in outfd (not there before), opened; depth bounded. */
int cix_union_subdir(struct union_ctx *c, int outfd, const char *name, int depth);
/* Make in outfd (c->rel below OUT) the union of the directories srcs[0..n). */
int cix_union_merge(struct union_ctx *c, int outfd, const struct union_src *srcs, size_t n,
		    int depth);
/* The real path of the directory holding path, into c->roots. */
int cix_union_add_root(struct union_ctx *c, const char *path);
/* OUT, made (it must not exist), opened. */
int cix_union_make_out(const char *out, struct cix_err *err);
/* The quoted name of package pkg of c, into sb. */
void cix_union_pkg_name(const struct union_ctx *c, size_t pkg, struct strbuf *sb);
void cix_union_release(struct union_ctx *c);

/*
 * ROOT/STORE_DIR/BASE into out, where the sandbox would have left the
 * output "out" (STORE_DIR/BASE) of drv; ROOT/STORE_DIR is made.
 */
int cix_union_out_path(const struct cix_drv *drv, const char *drv_path, const char *store_dir,
		       const char *root, struct strbuf *out, struct cix_err *err);

/* Is path[0..len) one of the paths of inputs (a build's input closure)? */
int cix_build_is_input(const struct cix_db_graph *inputs, const char *path, size_t len);

#endif
