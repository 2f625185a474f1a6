/* buildenv.c - builtin:buildenv: the user environments of Nix's nix-env */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "buildenv.h"
#include "profile-union.h"
#include "quote.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Nix 2.8's nix-env builds a profile generation with a derivation whose
 * builder is builtin:buildenv. Its "derivations" attribute lists, for each
 * package, "ACTIVE PRIORITY N OUT1 ... OUTN" (whitespace-separated); its
 * "manifest" is the store path of the generation's manifest.nix. The
 * outputs of the active packages are joined as symlinks (lib/profile-
 * union.c), in the order of their priorities (lower first, then by path),
 * then the packages they list in nix-support/propagated-user-env-packages
 * (priorities 1000, 1001...). For a name in several packages, as Nix does:
 *  - directories are merged (a link to the first, replaced by a directory
 *    when a second comes);
 *  - a file (or a link to one) against a link already made: the one of
 *    lower priority number stays; the same priority is a collision;
 *  - a directory against a file already linked, or a file against a
 *    directory merged, is a collision.
 * Dangling links, names starting with a dot and the files Nix leaves out
 * (nix-support, log, manifest.nix...) are not linked.
 */

#define MAX_PROPAGATED_FILE (1u << 20)
#define PROPAGATED_PRIO 1000

struct pkg {
	char *path;
	int prio;
};

struct pkgs {
	struct pkg *v;
	size_t nr, alloc;
};

/* One source of the name being decided. */
struct cand {
	char *from;   /* SOURCE/NAME */
	char *real;   /* its resolved name */
	int isdir;    /* a directory in the store */
	int prio;
	size_t pkg;
};

static void pkgs_add(struct pkgs *p, const char *path, size_t len, int prio)
{
	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr].path = xstrndup(path, len);
	p->v[p->nr++].prio = prio;
}

static void pkgs_release(struct pkgs *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->v[i].path);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static int cmp_pkg(const void *a, const void *b)
{
	const struct pkg *x = a, *y = b;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The next whitespace-separated token of *p (its length in *len), or NULL. */
static const char *next_token(const char **p, size_t *len)
{
	const char *s = *p + strspn(*p, " \t\n\r");
	if (!*s)
		return NULL;
	*len = strcspn(s, " \t\n\r");
	*p = s + *len;
	return s;
}

static int parse_int(const char *tok, size_t len, long min, long max, long *out)
{
	char buf[24], *end;
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtol(buf, &end, 10);
	return errno || *end || *out < min || *out > max ? -1 : 0;
}

/* The "derivations" attribute: the outputs of the active packages, in p. */
static int parse_derivations(const char *text, struct pkgs *p, struct cix_err *err)
{
	const char *s = text, *tok;
	size_t len;
	while ((tok = next_token(&s, &len))) {
		int active = !(len == 5 && !memcmp(tok, "false", 5));
		const char *ptok = next_token(&s, &len);
		long prio, n;
		if (!ptok || parse_int(ptok, len, INT_MIN, INT_MAX, &prio) < 0)
			return cix_error(err, -CIX_EFORMAT, "bad priority in 'derivations'");
		if (!(tok = next_token(&s, &len)) || parse_int(tok, len, 0, INT_MAX, &n) < 0)
			return cix_error(err, -CIX_EFORMAT, "bad number of outputs in 'derivations'");
		for (long i = 0; i < n; i++) {
			if (!(tok = next_token(&s, &len)))
				return cix_error(err, -CIX_EFORMAT, "missing outputs in 'derivations'");
			if (active)
				pkgs_add(p, tok, len, (int)prio);
		}
	}
	return 0;
}

static int check_input(const struct cix_db_graph *inputs, const char *path, size_t len,
		       const char *drv_path, struct cix_err *err)
{
	struct strbuf q = STRBUF_INIT;
	if (cix_build_is_input(inputs, path, len))
		return 0;
	strbuf_add_quoted(&q, path, len);
	int r = cix_error(err, -CIX_EINVAL, "'%s' is not an input of '%s'", q.buf, drv_path);
	strbuf_release(&q);
	return r;
}

/*
 * PKG/nix-support/propagated-user-env-packages, when it is a file of the
 * store: its paths (inputs of the build, all of them) into next.
 */
static int read_propagated(const char *pkg, const struct union_ctx *c,
			   const struct cix_db_graph *inputs, const char *drv_path,
			   struct pkgs *next, struct cix_err *err)
{
	char *name = cix_union_join(pkg, "nix-support/propagated-user-env-packages");
	char *real = realpath(name, NULL), buf[4096];
	struct strbuf data = STRBUF_INIT;
	const char *s, *tok;
	size_t len;
	ssize_t n;
	int fd = -1, r = 0;
	if (real && cix_union_under_roots(c, real))
		fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	while (fd >= 0 && data.len < MAX_PROPAGATED_FILE && (n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&data, buf, (size_t)n);
	for (s = data.buf; !r && (tok = next_token(&s, &len)); )
		if (!(r = check_input(inputs, tok, len, drv_path, err)))
			pkgs_add(next, tok, len, 0);
	if (fd >= 0)
		close(fd);
	free(name);
	free(real);
	strbuf_release(&data);
	return r;
}

static int seen(const struct union_ctx *c, const char *path)
{
	for (size_t i = 0; i < c->pkgs.nr; i++)
		if (!strcmp(c->pkgs.v[i], path))
			return 1;
	return 0;
}

/* Add p (a directory, once) to the sources; its propagated packages to next. */
static int add_pkg(struct union_ctx *c, struct pkgs *srcs, const struct pkg *p,
		   const struct cix_db_graph *inputs, const char *drv_path, struct pkgs *next)
{
	struct stat st;
	char q[128];
	if (seen(c, p->path))
		return 0;
	if (stat(p->path, &st) < 0)
		return cix_error_errno(c->err, -errno, "cannot stat '%s'",
				       cix_quote(q, sizeof(q), p->path, strlen(p->path)));
	strvec_push(&c->pkgs, p->path);
	if (!S_ISDIR(st.st_mode))
		return 0;   /* Nix leaves it out, with a warning */
	pkgs_add(srcs, p->path, strlen(p->path), p->prio);
	int r = cix_union_add_root(c, p->path);
	return r < 0 ? r : read_propagated(p->path, c, inputs, drv_path, next, c->err);
}

/*
 * The packages in the order they are linked: the listed ones by priority
 * and path, then rounds of the ones they propagate, sorted, each once.
 */
static int order_pkgs(struct union_ctx *c, struct pkgs *listed, struct pkgs *srcs,
		      const struct cix_db_graph *inputs, const char *drv_path)
{
	struct pkgs next = { 0 };
	int prio = PROPAGATED_PRIO, r = 0;
	if (listed->nr)
		qsort(listed->v, listed->nr, sizeof(*listed->v), cmp_pkg);
	for (size_t i = 0; !r && i < listed->nr; i++)
		r = add_pkg(c, srcs, &listed->v[i], inputs, drv_path, &next);
	while (!r && next.nr) {
		struct pkgs round = next;
		memset(&next, 0, sizeof(next));
		qsort(round.v, round.nr, sizeof(*round.v), cmp_pkg);
		for (size_t i = 0; !r && i < round.nr; i++) {
			if (i && !strcmp(round.v[i].path, round.v[i - 1].path))
				continue;
			if (!seen(c, round.v[i].path))
				round.v[i].prio = prio++;
			r = add_pkg(c, srcs, &round.v[i], inputs, drv_path, &next);
		}
		pkgs_release(&round);
	}
	pkgs_release(&next);
	return r;
}

/* The files Nix leaves out of user environments (useless, or colliding). */
static int buildenv_skip(const struct union_ctx *c, const char *name, int depth)
{
	static const char *const left_out[] = {
		"propagated-build-inputs", "nix-support", "perllocal.pod", "log",
		"manifest.nix", "manifest.json",
	};
	size_t n = c->rel.len;
	if (name[0] == '.')
		return 1;
	for (size_t i = 0; i < sizeof(left_out) / sizeof(left_out[0]); i++)
		if (!strcmp(name, left_out[i]))
			return 1;
	/* info/dir, the index of every package's info manuals */
	return !strcmp(name, "dir") && n >= 4 && !strcmp(c->rel.buf + n - 4, "info") &&
	       (n == 4 || c->rel.buf[n - 5] == '/');
}

static int collision(struct union_ctx *c, const struct cand *a, const struct cand *b)
{
	char qa[128], qb[128];
	if (a->isdir == b->isdir)
		return cix_error(c->err, -CIX_EEXIST,
				 "'%s' and '%s' collide: both packages have priority %d; give one"
				 " of them another (nix-env --set-flag priority NUMBER NAME;"
				 " 0 is the highest)",
				 cix_quote(qa, sizeof(qa), b->from, strlen(b->from)),
				 cix_quote(qb, sizeof(qb), a->from, strlen(a->from)), a->prio);
	return cix_error(c->err, -CIX_EEXIST, "'%s' and '%s' collide: a directory and a file",
			 cix_quote(qa, sizeof(qa), b->from, strlen(b->from)),
			 cix_quote(qb, sizeof(qb), a->from, strlen(a->from)));
}

/* Merge the directory of cand into a directory of OUT: its sources so far in sub. */
static void sub_add(struct union_src **sub, size_t *nr, const struct cand *k, const char *dir)
{
	*sub = xrealloc(*sub, (*nr + 1) * sizeof(**sub));
	(*sub)[*nr].pkg = k->pkg;
	(*sub)[*nr].dir = xstrdup(dir);
	(*sub)[(*nr)++].prio = k->prio;
}

/*
 * Nix's rules for one name, over its sources in order: *link is the
 * source linked so far (or NULL), sub the sources of a directory of OUT
 * once two directories met.
 */
static int decide(struct union_ctx *c, struct cand *k, struct cand **link,
		  struct union_src **sub, size_t *nr_sub)
{
	struct cand *l = *link;
	if (!l && !*nr_sub) {
		*link = k;
	} else if (k->isdir && *nr_sub) {
		sub_add(sub, nr_sub, k, k->from);
	} else if (k->isdir) {
		if (!l->isdir)
			return collision(c, l, k);
		/* The first directory's tree, as the link resolved it, then this one. */
		sub_add(sub, nr_sub, l, l->real);
		sub_add(sub, nr_sub, k, k->from);
		*link = NULL;
	} else if (*nr_sub) {
		return collision(c, &(struct cand){ .isdir = 1, .from = (*sub)[0].dir }, k);
	} else if (l->prio == k->prio) {
		return collision(c, l, k);
	} else if (k->prio < l->prio) {
		*link = k;
	}
	return 0;
}

static int buildenv_name(struct union_ctx *c, int outfd, const struct union_src *srcs,
			 const struct union_ent *ents, size_t k, int depth)
{
	const char *name = ents[0].name;
	struct cand *v = xcalloc(k, sizeof(*v)), *link = NULL;
	struct union_src *sub = NULL;
	size_t nr_sub = 0;
	int r = 0, fd;

	for (size_t x = 0; !r && x < k; x++) {
		struct stat st;
		const struct union_src *s = &srcs[ents[x].src];
		v[x].from = cix_union_join(s->dir, name);
		v[x].pkg = s->pkg;
		v[x].prio = s->prio;
		/* Dangling: left out, as Nix does (with a warning). */
		if (!(v[x].real = realpath(v[x].from, NULL)) || stat(v[x].real, &st) < 0)
			continue;
		/* A directory outside the store is linked, never read. */
		v[x].isdir = S_ISDIR(st.st_mode) && cix_union_under_roots(c, v[x].real);
		r = decide(c, &v[x], &link, &sub, &nr_sub);
	}
	if (!r && link)
		r = cix_union_link(c, outfd, name, link->from);
	else if (!r && nr_sub && (r = fd = cix_union_subdir(c, outfd, name, depth)) >= 0) {
		r = cix_union_merge(c, fd, sub, nr_sub, depth + 1);
		close(fd);
	}
	for (size_t x = 0; x < k; x++) {
		free(v[x].from);
		free(v[x].real);
	}
	for (size_t x = 0; x < nr_sub; x++)
		free(sub[x].dir);
	free(sub);
	free(v);
	return r;
}

static int make_env(struct union_ctx *c, const struct pkgs *srcs, const char *manifest,
		    const char *out)
{
	struct union_src *v = xcalloc(srcs->nr + 1, sizeof(*v));
	int outfd = cix_union_make_out(out, c->err), r = outfd;
	for (size_t i = 0; i < srcs->nr; i++) {
		v[i].pkg = i;
		v[i].dir = srcs->v[i].path;
		v[i].prio = srcs->v[i].prio;
	}
	if (outfd >= 0 && (r = cix_union_merge(c, outfd, v, srcs->nr, 0)) >= 0) {
		strbuf_setlen(&c->rel, 0);
		strbuf_addstr(&c->rel, "manifest.nix");
		r = cix_union_link(c, outfd, "manifest.nix", manifest);
	}
	if (outfd >= 0)
		close(outfd);
	free(v);
	return r;
}

int cix_build_run_buildenv(const struct cix_drv *drv, const char *drv_path,
			   const char *store_dir, const char *root,
			   const struct cix_db_graph *inputs, struct cix_err *err)
{
	const char *derivations = cix_drv_getenv(drv, "derivations");
	const char *manifest = cix_drv_getenv(drv, "manifest");
	struct union_ctx c = { STRVEC_INIT, STRVEC_INIT, STRBUF_INIT, err, buildenv_skip,
			       buildenv_name };
	struct pkgs listed = { 0 }, srcs = { 0 };
	struct strbuf out = STRBUF_INIT;
	int r;

	if (!derivations || !manifest)
		return cix_error(err, -CIX_EINVAL, "attribute '%s' missing",
				 derivations ? "manifest" : "derivations");
	if ((r = parse_derivations(derivations, &listed, err)) < 0)
		goto out;
	/* Only what the build may see: its input closure. */
	for (size_t i = 0; !r && i < listed.nr; i++)
		r = check_input(inputs, listed.v[i].path, strlen(listed.v[i].path), drv_path, err);
	if (r < 0 || (r = order_pkgs(&c, &listed, &srcs, inputs, drv_path)) < 0 ||
	    (r = cix_union_out_path(drv, drv_path, store_dir, root, &out, err)) < 0)
		goto out;
	/* Package names in messages are the sources' (c.pkgs holds every one seen). */
	strvec_clear(&c.pkgs);
	for (size_t i = 0; i < srcs.nr; i++)
		strvec_push(&c.pkgs, srcs.v[i].path);
	r = make_env(&c, &srcs, manifest, out.buf);
out:
	pkgs_release(&listed);
	pkgs_release(&srcs);
	strbuf_release(&out);
	cix_union_release(&c);
	return r;
}
