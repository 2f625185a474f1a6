/* profile.c - profiles: the manifest file and the generations' symlinks */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "profile.h"
#include "quote.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "cix-manifest 1"
#define MANIFEST_MAX_LINE ((size_t)1 << 20)
#define MANIFEST_MAX_ENTRIES 100000
#define MANIFEST_MAX_FILE ((size_t)1 << 30)
#define NR_FIELDS 5

/* ---- the manifest ---- */

static void entry_release(struct cix_manifest_entry *e)
{
	free(e->name);
	free(e->version);
	free(e->output);
	free(e->path);
	strvec_clear(&e->deps);
}

void cix_manifest_release(struct cix_manifest *m)
{
	for (size_t i = 0; i < m->nr; i++)
		entry_release(&m->v[i]);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static struct cix_manifest_entry *new_entry(struct cix_manifest *m)
{
	ALLOC_GROW(m->v, m->nr + 1, m->alloc);
	struct cix_manifest_entry *e = &m->v[m->nr++];
	memset(e, 0, sizeof(*e));
	return e;
}

struct cix_manifest_entry *cix_manifest_add(struct cix_manifest *m, const char *name,
					    const char *version, const char *output,
					    const char *path)
{
	struct cix_manifest_entry *e = new_entry(m);
	e->name = xstrdup(name);
	e->version = xstrdup(version ? version : "");
	e->output = xstrdup(output);
	e->path = xstrdup(path);
	return e;
}

size_t cix_manifest_remove(struct cix_manifest *m, const char *name, const char *output)
{
	size_t k = 0, gone = 0;
	/* Copies: NAME and OUTPUT may well be an entry's own, freed below. */
	char *n = xstrdup(name), *o = output ? xstrdup(output) : NULL;
	for (size_t i = 0; i < m->nr; i++) {
		struct cix_manifest_entry *e = &m->v[i];
		if (!strcmp(e->name, n) && (!o || !strcmp(e->output, o))) {
			entry_release(e);
			gone++;
			continue;
		}
		if (k != i)
			m->v[k] = *e;
		k++;
	}
	m->nr = k;
	free(n);
	free(o);
	return gone;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct cix_manifest_entry *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->output, b->output);
	/* The rest only makes the order total, whatever qsort does. */
	if (!c)
		c = strcmp(a->version, b->version);
	if (!c)
		c = strcmp(a->path, b->path);
	for (size_t i = 0; !c && (i < a->deps.nr || i < b->deps.nr); i++)
		c = i == a->deps.nr ? -1 : i == b->deps.nr ? 1 : strcmp(a->deps.v[i], b->deps.v[i]);
	return c;
}

void cix_manifest_sort(struct cix_manifest *m)
{
	if (m->nr > 1)
		qsort(m->v, m->nr, sizeof(*m->v), entry_cmp);
}

static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addstr(sb, "\\\\");
		else if (*s == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*s == '\n')
			strbuf_addstr(sb, "\\n");
		else
			strbuf_addch(sb, *s);
	}
}

void cix_manifest_format(const struct cix_manifest *m, struct strbuf *out)
{
	strbuf_addstr(out, MAGIC "\n");
	for (size_t i = 0; i < m->nr; i++) {
		const struct cix_manifest_entry *e = &m->v[i];
		add_escaped(out, e->name);
		strbuf_addch(out, '\t');
		add_escaped(out, e->version);
		strbuf_addch(out, '\t');
		add_escaped(out, e->output);
		strbuf_addch(out, '\t');
		add_escaped(out, e->path);
		strbuf_addch(out, '\t');
		for (size_t k = 0; k < e->deps.nr; k++) {
			if (k)
				strbuf_addch(out, ' ');
			add_escaped(out, e->deps.v[k]);
		}
		strbuf_addch(out, '\n');
	}
}

/*
 * Split one line (no newline in it) into exactly NR_FIELDS unescaped
 * fields; NULL, or a message.
 */
static const char *split_line(const char *p, size_t len, char **f)
{
	struct strbuf cur = STRBUF_INIT;
	const char *why = NULL;
	size_t n = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || p[i] == '\t') {
			if (n == NR_FIELDS) {
				why = "too many fields";
				goto bad;
			}
			f[n++] = strbuf_detach(&cur, NULL);
			continue;
		}
		if (!p[i]) {
			why = "a NUL byte";
			goto bad;
		}
		if (p[i] != '\\') {
			strbuf_addch(&cur, p[i]);
			continue;
		}
		if (++i == len) {
			why = "a backslash at the end";
			goto bad;
		}
		if (p[i] == '\\')
			strbuf_addch(&cur, '\\');
		else if (p[i] == 't')
			strbuf_addch(&cur, '\t');
		else if (p[i] == 'n')
			strbuf_addch(&cur, '\n');
		else {
			why = "a bad escape";
			goto bad;
		}
	}
	if (n == NR_FIELDS)
		return NULL;
	why = "too few fields";
bad:
	strbuf_release(&cur);
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	return why;
}

/* DEPS: absolute paths separated by single spaces, or nothing. */
static const char *split_deps(const char *s, struct strvec *deps)
{
	while (*s) {
		size_t l = strcspn(s, " ");
		if (*s != '/')
			return "a dependency not absolute";
		char *d = xstrndup(s, l);
		strvec_push(deps, d);
		free(d);
		s += l;
		if (*s && !*++s)
			return "a space at the end of the dependencies";
	}
	return NULL;
}

static const char *parse_entry(struct cix_manifest *m, char **f)
{
	if (!*f[0])
		return "an empty name";
	if (!*f[2])
		return "an empty output";
	if (f[3][0] != '/')
		return "a path not absolute";
	if (m->nr >= MANIFEST_MAX_ENTRIES)
		return "too many entries";
	struct cix_manifest_entry *e = new_entry(m);
	e->name = f[0];
	e->version = f[1];
	e->output = f[2];
	e->path = f[3];
	f[0] = f[1] = f[2] = f[3] = NULL;
	return split_deps(f[4], &e->deps);
}

int cix_manifest_parse(const char *buf, size_t len, struct cix_manifest *m, struct cix_err *err)
{
	size_t pos = 0, lineno = 0;
	const char *why = NULL;
	memset(m, 0, sizeof(*m));
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		char *f[NR_FIELDS];
		lineno++;
		if (!nl)
			why = "no newline at the end";
		else if (l > MANIFEST_MAX_LINE)
			why = "a line too long";
		else if (lineno == 1 && (l != strlen(MAGIC) || memcmp(buf, MAGIC, l)))
			why = "not a cix manifest of version 1";
		else if (lineno > 1 && !(why = split_line(buf + pos, l, f))) {
			why = parse_entry(m, f);
			for (size_t i = 0; i < NR_FIELDS; i++)
				free(f[i]);
		}
		if (why)
			goto bad;
		pos += l + 1;
	}
	if (!lineno) {
		why = "empty";
		goto bad;
	}
	return 0;
bad:
	cix_manifest_release(m);
	if (lineno)
		return cix_error(err, -CIX_EFORMAT, "manifest: line %zu: %s", lineno, why);
	return cix_error(err, -CIX_EFORMAT, "manifest: %s", why);
}

int cix_manifest_read(const char *profile, struct cix_manifest *m, struct cix_err *err)
{
	struct strbuf file = STRBUF_INIT, sb = STRBUF_INIT;
	struct stat st;
	int r;
	memset(m, 0, sizeof(*m));
	strbuf_addf(&file, "%s/manifest", profile);
	r = strbuf_read_file(&sb, file.buf, MANIFEST_MAX_FILE);
	if (r == -ENOENT && lstat(profile, &st) < 0 && errno == ENOENT)
		r = 0;             /* no profile yet: nothing in it */
	else if (r == -CIX_ELIMIT)
		r = cix_error(err, r, "'%s' is too large", file.buf);
	else if (r < 0)
		r = cix_error_errno(err, r, "cannot read '%s'", file.buf);
	else
		r = cix_manifest_parse(sb.buf, sb.len, m, err);
	strbuf_release(&file);
	strbuf_release(&sb);
	return r;
}

/* ---- generations ---- */

/* PROFILE's directory, opened, and its base name. */
struct prof {
	int dfd;
	char *dir, *base;
	const char *profile;
};

static int prof_open(struct prof *p, const char *profile, struct cix_err *err)
{
	const char *slash = strrchr(profile, '/');
	const char *base = slash ? slash + 1 : profile;
	memset(p, 0, sizeof(*p));
	p->dfd = -1;
	p->profile = profile;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX - 32)
		return cix_error(err, -CIX_EINVAL, "'%s' is not a profile's name", profile);
	p->base = xstrdup(base);
	if (!slash)
		p->dir = xstrdup(".");
	else if (slash == profile)
		p->dir = xstrdup("/");
	else
		p->dir = xstrndup(profile, (size_t)(slash - profile));
	p->dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dfd < 0) {
		int r = -errno;
		free(p->base);
		free(p->dir);
		p->base = p->dir = NULL;
		return cix_error_errno(err, r, "cannot open the directory of '%s'", profile);
	}
	return 0;
}

static void prof_close(struct prof *p)
{
	if (p->dfd >= 0)
		close(p->dfd);
	free(p->base);
	free(p->dir);
	p->dfd = -1;
	p->base = p->dir = NULL;
}

/*
 * The number N of NAME when it is exactly BASE-N-link (N decimal, no
 * leading zero) followed by the string tail; -1 when not.
 */
static long link_number(const char *name, const char *base, const char *tail)
{
	size_t bl = strlen(base), dl;
	unsigned long long v;
	char digits[24];
	if (strncmp(name, base, bl) || name[bl] != '-')
		return -1;
	name += bl + 1;
	dl = strspn(name, "0123456789");
	if (!dl || dl >= sizeof(digits) || (name[0] == '0' && dl > 1) ||
	    strncmp(name + dl, "-link", 5) || strcmp(name + dl + 5, tail))
		return -1;
	memcpy(digits, name, dl);
	digits[dl] = 0;
	if (cix_parse_decimal(digits, LONG_MAX, &v))
		return -1;
	return (long)v;
}

static void link_name(struct strbuf *sb, const struct prof *p, long number)
{
	strbuf_addf(sb, "%s-%ld-link", p->base, number);
}

/* The target of the symlink NAME (relative to dfd) into sb: 0 or -errno. */
static int read_link(int dfd, const char *name, struct strbuf *sb)
{
	size_t size = 256;
	for (;;) {
		strbuf_reset(sb);
		strbuf_grow(sb, size);
		ssize_t l = readlinkat(dfd, name, sb->buf, size);
		if (l < 0)
			return -errno;
		if ((size_t)l < size) {
			strbuf_setlen(sb, (size_t)l);
			return 0;
		}
		if (size >= 65536)
			return -ENAMETOOLONG;
		size *= 2;
	}
}

/* Is NAME a temporary of ours (.BASE.tmp-PID or .BASE-N-link.tmp-PID) of a dead process? */
static int stale_temporary(const char *name, const char *base)
{
	size_t bl = strlen(base);
	const char *t;
	if (name[0] != '.' || strncmp(name + 1, base, bl) || !(t = strstr(name + 1 + bl, ".tmp-")))
		return 0;
	char *prefix = xstrndup(name, (size_t)(t - name) + 5);
	int r = t == name + 1 + bl || link_number(prefix + 1, base, ".tmp-") >= 0;
	r = r && cix_name_of_dead_process(name, prefix);
	free(prefix);
	return r;
}

static int gen_cmp(const void *a, const void *b)
{
	long x = ((const struct cix_generation *)a)->number;
	long y = ((const struct cix_generation *)b)->number;
	return x < y ? -1 : x > y;
}

void cix_generations_release(struct cix_generation *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].target);
	free(v);
}

/* The generations in p's directory, sorted; stale temporaries removed when clean is set. */
static int list_generations(struct prof *p, struct cix_generation **out, size_t *nr, int clean,
			    struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0, alloc = 0;
	struct strbuf target = STRBUF_INIT;
	struct dirent *de;
	DIR *d = cix_fdopendir_dup(p->dfd);
	*out = NULL;
	*nr = 0;
	if (!d)
		return cix_error_errno(err, -errno, "cannot read the directory of '%s'", p->profile);
	while ((errno = 0, de = readdir(d))) {
		long number = link_number(de->d_name, p->base, "");
		struct stat st;
		if (number < 0) {
			if (clean && stale_temporary(de->d_name, p->base))
				unlinkat(p->dfd, de->d_name, 0);
			continue;
		}
		if (fstatat(p->dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode) || read_link(p->dfd, de->d_name, &target) < 0)
			continue;  /* not a generation, or gone meanwhile */
		ALLOC_GROW(v, n + 1, alloc);
		v[n].number = number;
		v[n].time = st.st_mtim.tv_sec;
		v[n].target = strbuf_detach(&target, NULL);
		n++;
	}
	int e = errno;
	closedir(d);
	strbuf_release(&target);
	if (e) {
		cix_generations_release(v, n);
		return cix_error_errno(err, -e, "cannot read the directory of '%s'", p->profile);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), gen_cmp);
	*out = v;
	*nr = n;
	return 0;
}

int cix_profile_generations(const char *profile, struct cix_generation **v, size_t *n,
			    struct cix_err *err)
{
	struct prof p;
	int r;
	*v = NULL;
	*n = 0;
	if ((r = prof_open(&p, profile, err)) < 0) {
		if (r != -ENOENT)
			return r;
		cix_err_clear(err);        /* no directory: no profile */
		return 0;
	}
	r = list_generations(&p, v, n, 0, err);
	prof_close(&p);
	return r;
}

/* The current generation, or -1 when PROFILE does not exist. */
static int current(struct prof *p, long *number, struct cix_err *err)
{
	struct strbuf target = STRBUF_INIT;
	int r = read_link(p->dfd, p->base, &target);
	*number = -1;
	if (r == -ENOENT) {
		r = 0;
	} else if (r == -EINVAL) {
		r = cix_error(err, -CIX_EFORMAT, "'%s' is not a symlink", p->profile);
	} else if (r < 0) {
		r = cix_error_errno(err, r, "cannot read the link '%s'", p->profile);
	} else if ((*number = link_number(target.buf, p->base, "")) < 0) {
		char q[128];
		cix_quote(q, sizeof(q), target.buf, target.len);
		r = cix_error(err, -CIX_EFORMAT, "'%s' points to '%s', not to a generation",
			      p->profile, q);
	}
	strbuf_release(&target);
	return r;
}

int cix_profile_current(const char *profile, long *number, struct cix_err *err)
{
	struct prof p;
	int r;
	*number = -1;
	if ((r = prof_open(&p, profile, err)) < 0) {
		if (r != -ENOENT)
			return r;
		cix_err_clear(err);        /* no directory: no profile */
		return 0;
	}
	r = current(&p, number, err);
	prof_close(&p);
	return r;
}

int cix_profile_lock(const char *profile, int *fd, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r = 0;
	strbuf_addf(&name, "%s.lock", profile);
	*fd = open(name.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (*fd < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", name.buf);
		goto out;
	}
	while (flock(*fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		r = cix_error_errno(err, -errno, "cannot lock '%s'", name.buf);
		close(*fd);
		*fd = -1;
		break;
	}
out:
	strbuf_release(&name);
	return r;
}

void cix_profile_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/*
 * Make NAME (in p's directory) a symlink to TARGET, atomically: a
 * temporary symlink, renamed over NAME. NAME, when there, must be a symlink.
 */
static int replace_link(struct prof *p, const char *name, const char *target,
			struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	struct stat st;
	int r = 0;
	if (fstatat(p->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode))
		return cix_error(err, -CIX_EEXIST, "'%s/%s' exists and is not a symlink", p->dir,
				 name);
	strbuf_addf(&tmp, ".%s.tmp-%ld", name, (long)getpid());
	unlinkat(p->dfd, tmp.buf, 0);       /* a crashed run's, of the same pid */
	if (symlinkat(target, p->dfd, tmp.buf) < 0) {
		r = cix_error_errno(err, -errno, "cannot make the symlink '%s/%s'", p->dir,
				    tmp.buf);
	} else if (renameat(p->dfd, tmp.buf, p->dfd, name) < 0) {
		r = cix_error_errno(err, -errno, "cannot rename '%s/%s'", p->dir, tmp.buf);
		unlinkat(p->dfd, tmp.buf, 0);
	}
	strbuf_release(&tmp);
	return r;
}

static int exists(struct prof *p, long number)
{
	struct strbuf name = STRBUF_INIT;
	struct stat st;
	link_name(&name, p, number);
	int r = fstatat(p->dfd, name.buf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
	strbuf_release(&name);
	return r;
}

static int switch_to(struct prof *p, long number, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r;
	if (!exists(p, number))
		return cix_error(err, -CIX_ENOTFOUND, "generation %ld does not exist", number);
	link_name(&name, p, number);
	r = replace_link(p, p->base, name.buf, err);
	strbuf_release(&name);
	return r;
}

static int make_generation(struct prof *p, long number, const char *store_path,
			   struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r;
	if (!store_path || store_path[0] != '/')
		return cix_error(err, -CIX_EINVAL, "a generation's target must be absolute");
	link_name(&name, p, number);
	r = replace_link(p, name.buf, store_path, err);
	strbuf_release(&name);
	return r;
}

int cix_profile_add_generation(const char *profile, const char *store_path, long *number,
			       struct cix_err *err)
{
	struct cix_generation *v;
	size_t n;
	struct prof p;
	long next = 1;
	int r;
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	if ((r = list_generations(&p, &v, &n, 1, err)) < 0)
		goto out;
	if (n && v[n - 1].number == LONG_MAX)
		r = cix_error(err, -CIX_ELIMIT, "too many generations in '%s'", profile);
	else if (n)
		next = v[n - 1].number + 1;
	cix_generations_release(v, n);
	if (r < 0 || (r = make_generation(&p, next, store_path, err)) < 0 ||
	    (r = switch_to(&p, next, err)) < 0)
		goto out;
	if (number)
		*number = next;
out:
	prof_close(&p);
	return r;
}

int cix_profile_switch(const char *profile, long number, struct cix_err *err)
{
	struct prof p;
	int r;
	if (number < 0)
		return cix_error(err, -CIX_ENOTFOUND, "generation %ld does not exist", number);
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	r = switch_to(&p, number, err);
	prof_close(&p);
	return r;
}

int cix_profile_roll_back(const char *profile, const char *empty, long *number,
			  struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0;
	struct prof p;
	long cur, prev = -1;
	int r;
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	if ((r = current(&p, &cur, err)) < 0 || (r = list_generations(&p, &v, &n, 1, err)) < 0)
		goto out;
	for (size_t i = 0; i < n && v[i].number < cur; i++)
		prev = v[i].number;
	if (prev < 0 && cur > 0) {
		prev = 0;
		r = make_generation(&p, 0, empty, err);
	} else if (prev < 0) {
		r = cix_error(err, -CIX_ENOTFOUND, "no previous generation");
	}
	if (r == 0)
		r = switch_to(&p, prev, err);
	if (r == 0 && number)
		*number = prev;
out:
	cix_generations_release(v, n);
	prof_close(&p);
	return r;
}

int cix_profile_delete_generations(const char *profile, const long *numbers, size_t n,
				   struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	struct prof p;
	long cur;
	int r;
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	if ((r = current(&p, &cur, err)) < 0)
		goto out;
	/* All or nothing: every number is checked before any link goes. */
	for (size_t i = 0; i < n; i++) {
		if (numbers[i] == cur) {
			r = cix_error(err, -CIX_EINVAL, "cannot delete the current generation %ld",
				      cur);
			goto out;
		}
		if (numbers[i] < 0 || !exists(&p, numbers[i])) {
			r = cix_error(err, -CIX_ENOTFOUND, "generation %ld does not exist",
				      numbers[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&name);
		link_name(&name, &p, numbers[i]);
		if (unlinkat(p.dfd, name.buf, 0) < 0 && errno != ENOENT) {
			r = cix_error_errno(err, -errno, "cannot delete '%s/%s'", p.dir, name.buf);
			goto out;
		}
	}
out:
	strbuf_release(&name);
	prof_close(&p);
	return r;
}
