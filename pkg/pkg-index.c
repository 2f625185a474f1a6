/* pkg-index.c - the package index: its file, and what changed since it was made */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "pkg-index.h"
#include "cache-file.h"
#include "hash.h"
#include "strvec.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CIX_VERSION
#define CIX_VERSION "0"
#endif

#define MAGIC "cix-package-index 1 "

void cix_pkg_entry_release(struct cix_pkg_entry *e)
{
	free(e->name);
	free(e->version);
	free(e->outputs);
	free(e->file);
	free(e->home_page);
	free(e->license);
	free(e->synopsis);
	free(e->description);
	memset(e, 0, sizeof(*e));
}

static void module_release(struct cix_pkg_module *m)
{
	for (size_t i = 0; i < m->nr_pkgs; i++)
		cix_pkg_entry_release(&m->pkgs[i]);
	free(m->pkgs);
	free(m->rel);
	free(m->dir);
	free(m->error);
	memset(m, 0, sizeof(*m));
}

void cix_pkg_index_release(struct cix_pkg_index *idx)
{
	for (size_t i = 0; i < idx->nr_mods; i++)
		module_release(&idx->mods[i]);
	free(idx->mods);
	free(idx->search_path);
	memset(idx, 0, sizeof(*idx));
}

struct cix_pkg_entry *cix_pkg_module_add(struct cix_pkg_module *m)
{
	ALLOC_GROW(m->pkgs, m->nr_pkgs + 1, m->alloc_pkgs);
	struct cix_pkg_entry *e = &m->pkgs[m->nr_pkgs++];
	memset(e, 0, sizeof(*e));
	return e;
}

static struct cix_pkg_module *add_module(struct cix_pkg_index *idx)
{
	ALLOC_GROW(idx->mods, idx->nr_mods + 1, idx->alloc_mods);
	struct cix_pkg_module *m = &idx->mods[idx->nr_mods++];
	memset(m, 0, sizeof(*m));
	return m;
}

/* ---- the file ---- */

static void add_field(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\t');
	strbuf_add_tab_escaped(sb, s);
}

void cix_pkg_index_format(const struct cix_pkg_index *idx, struct strbuf *out)
{
	strbuf_addstr(out, MAGIC CIX_VERSION "\npath");
	add_field(out, idx->search_path);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < idx->nr_mods; i++) {
		const struct cix_pkg_module *m = &idx->mods[i];
		strbuf_addstr(out, "module");
		add_field(out, m->rel);
		add_field(out, m->dir);
		strbuf_addf(out, "\t%llu\t%llu\t%llu\t%lld\t%ld", (unsigned long long)m->dev,
			    (unsigned long long)m->ino, (unsigned long long)m->size,
			    (long long)m->mtime_sec, m->mtime_nsec);
		add_field(out, m->error);
		strbuf_addch(out, '\n');
		for (size_t k = 0; k < m->nr_pkgs; k++) {
			const struct cix_pkg_entry *e = &m->pkgs[k];
			strbuf_addstr(out, "package");
			add_field(out, e->name);
			add_field(out, e->version);
			add_field(out, e->outputs);
			add_field(out, e->file);
			strbuf_addf(out, "\t%lu\t%lu", e->line, e->column);
			add_field(out, e->home_page);
			add_field(out, e->license);
			add_field(out, e->synopsis);
			add_field(out, e->description);
			strbuf_addch(out, '\n');
		}
	}
}

#define MAX_FIELDS 11

/* A number as the index writes it: no leading zero. */
static int number(const char *s, unsigned long long max, unsigned long long *v)
{
	return (s[0] == '0' && s[1]) ? -1 : cix_parse_decimal(s, max, v);
}

static int parse_module(struct cix_pkg_index *idx, char **f, size_t n)
{
	unsigned long long dev, ino, size, sec, nsec;
	if (n != 9 || !*f[1] || !*f[2] || number(f[3], UINT64_MAX, &dev) ||
	    number(f[4], UINT64_MAX, &ino) || number(f[5], UINT64_MAX, &size) ||
	    number(f[6], INT64_MAX, &sec) || number(f[7], 999999999, &nsec) ||
	    idx->nr_mods >= CIX_PKG_INDEX_MAX_MODULES)
		return -1;
	struct cix_pkg_module *m = add_module(idx);
	m->rel = f[1];
	m->dir = f[2];
	f[1] = f[2] = NULL;
	m->dev = dev;
	m->ino = ino;
	m->size = size;
	m->mtime_sec = (int64_t)sec;
	m->mtime_nsec = (long)nsec;
	if (*f[8]) {
		m->error = f[8];
		f[8] = NULL;
	}
	return 0;
}

static int parse_package(struct cix_pkg_index *idx, char **f, size_t n, size_t *total)
{
	unsigned long long line, column;
	if (n != 11 || !idx->nr_mods || !*f[1] || number(f[5], 1UL << 30, &line) ||
	    number(f[6], 1UL << 30, &column) || ++*total > CIX_PKG_INDEX_MAX_PACKAGES)
		return -1;
	struct cix_pkg_entry *e = cix_pkg_module_add(&idx->mods[idx->nr_mods - 1]);
	char **dst[] = { &e->name, &e->version, &e->outputs, &e->file, NULL, NULL,
			 &e->home_page, &e->license, &e->synopsis, &e->description };
	for (size_t i = 0; i < ARRAY_SIZE(dst); i++) {
		if (!dst[i])
			continue;
		*dst[i] = f[i + 1];
		f[i + 1] = NULL;
	}
	e->line = line;
	e->column = column;
	return 0;
}

struct parse_state {
	struct cix_pkg_index *idx;
	size_t lines, total;
};

static const char *parse_head(void *opaque, const char *line, size_t l)
{
	(void)opaque;
	if (l != strlen(MAGIC CIX_VERSION) || memcmp(line, MAGIC CIX_VERSION, l))
		return "not an index of this version";
	return NULL;
}

static const char *parse_body(void *opaque, char **f, size_t n)
{
	struct parse_state *ps = opaque;
	int bad;
	if (++ps->lines == 1) {
		bad = n != 2 || strcmp(f[0], "path");
		if (!bad) {
			ps->idx->search_path = f[1];
			f[1] = NULL;
		}
	} else if (n && !strcmp(f[0], "module")) {
		bad = parse_module(ps->idx, f, n);
	} else if (n && !strcmp(f[0], "package")) {
		bad = parse_package(ps->idx, f, n, &ps->total);
	} else {
		bad = 1;
	}
	return bad ? "bad" : NULL;
}

int cix_pkg_index_parse(const char *buf, size_t len, struct cix_pkg_index *idx,
			struct cix_err *err)
{
	struct parse_state ps = { idx, 0, 0 };
	size_t lineno;
	memset(idx, 0, sizeof(*idx));
	if (!strbuf_tab_lines(buf, len, CIX_PKG_INDEX_MAX_LINE, MAX_FIELDS, parse_head,
			      parse_body, &ps, &lineno) &&
	    ps.lines >= 1)
		return 0;
	cix_pkg_index_release(idx);
	return cix_error(err, -CIX_EFORMAT, "package index: bad line %zu", lineno);
}

int cix_pkg_index_load(const char *file, struct cix_pkg_index *idx, struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	memset(idx, 0, sizeof(*idx));
	if (strbuf_read_file(&sb, file, (size_t)1 << 30) < 0) {
		r = -errno;
		strbuf_release(&sb);
		return cix_error(err, r, "cannot read '%s'", file);
	}
	r = cix_pkg_index_parse(sb.buf, sb.len, idx, err);
	strbuf_release(&sb);
	return r;
}

int cix_pkg_index_save(const char *file, const struct cix_pkg_index *idx, struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	cix_pkg_index_format(idx, &sb);
	r = cix_cache_write(file, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return r;
}

/* ---- what is there now ---- */

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct cix_pkg_module *)a)->rel,
		      ((const struct cix_pkg_module *)b)->rel);
}

static int scan_dir(struct cix_pkg_index *now, const char *dir, struct strvec *seen)
{
	struct strbuf sub = STRBUF_INIT;
	strbuf_addf(&sub, "%s/gnu/packages", dir);
	int dfd = open(sub.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	strbuf_release(&sub);
	if (dfd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct stat st;
		if (l < 5 || de->d_name[0] == '.' || strcmp(de->d_name + l - 4, ".scm") ||
		    fstatat(dfd, de->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		if (strvec_find_sorted(seen, de->d_name) >= 0)
			continue;      /* an earlier directory has it */
		if (now->nr_mods >= CIX_PKG_INDEX_MAX_MODULES)
			break;
		strvec_insert_sorted(seen, de->d_name);
		struct cix_pkg_module *m = add_module(now);
		struct strbuf rel = STRBUF_INIT;
		strbuf_addf(&rel, "gnu/packages/%s", de->d_name);
		m->rel = strbuf_detach(&rel, NULL);
		m->dir = xstrdup(dir);
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		m->size = (uint64_t)st.st_size;
		m->mtime_sec = st.st_mtim.tv_sec;
		m->mtime_nsec = st.st_mtim.tv_nsec;
	}
	closedir(d);
	return 0;
}

int cix_pkg_index_scan(const char *search_path, struct cix_pkg_index *now, struct cix_err *err)
{
	struct strvec dirs = STRVEC_INIT, seen = STRVEC_INIT;
	int r = 0;
	memset(now, 0, sizeof(*now));
	now->search_path = xstrdup(search_path);
	strvec_split(&dirs, search_path, ":");
	for (size_t i = 0; i < dirs.nr && !r; i++)
		if ((r = scan_dir(now, dirs.v[i], &seen)) < 0)
			r = cix_error(err, r, "cannot read '%s/gnu/packages'", dirs.v[i]);
	strvec_clear(&dirs);
	strvec_clear(&seen);
	if (r < 0) {
		cix_pkg_index_release(now);
		return r;
	}
	if (now->nr_mods)
		qsort(now->mods, now->nr_mods, sizeof(*now->mods), by_rel);
	return 0;
}

static int same_file(const struct cix_pkg_module *a, const struct cix_pkg_module *b)
{
	return !strcmp(a->rel, b->rel) && !strcmp(a->dir, b->dir) && a->dev == b->dev &&
	       a->ino == b->ino && a->size == b->size && a->mtime_sec == b->mtime_sec &&
	       a->mtime_nsec == b->mtime_nsec;
}

size_t cix_pkg_index_reuse(struct cix_pkg_index *now, struct cix_pkg_index *old)
{
	size_t stale = 0;
	int same_path = old->search_path && now->search_path &&
			!strcmp(old->search_path, now->search_path);
	for (size_t i = 0; i < now->nr_mods; i++) {
		struct cix_pkg_module *m = &now->mods[i], *o = NULL;
		for (size_t k = 0; same_path && k < old->nr_mods && !o; k++)
			if (old->mods[k].rel && same_file(m, &old->mods[k]))
				o = &old->mods[k];
		/* A module that failed may have failed for another's fault. */
		if (!o || o->error) {
			m->stale = 1;
			stale++;
			continue;
		}
		m->pkgs = o->pkgs;
		m->nr_pkgs = o->nr_pkgs;
		m->alloc_pkgs = o->alloc_pkgs;
		m->error = o->error;
		o->pkgs = NULL;
		o->nr_pkgs = o->alloc_pkgs = 0;
		o->error = NULL;
		free(o->rel);
		o->rel = NULL;     /* taken */
	}
	return stale;
}

/* ---- queries ---- */

/* One dot-separated part: numbers numerically (of any length), else bytes. */
static int part_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	size_t i;
	int digits = la && lb;
	for (i = 0; digits && i < la; i++)
		digits = a[i] >= '0' && a[i] <= '9';
	for (i = 0; digits && i < lb; i++)
		digits = b[i] >= '0' && b[i] <= '9';
	if (digits) {
		while (la > 1 && *a == '0')
			a++, la--;
		while (lb > 1 && *b == '0')
			b++, lb--;
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? (c < 0 ? -1 : 1) : la < lb ? -1 : la > lb;
}

int cix_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		int c = part_cmp(a, la, b, lb);
		if (c)
			return c;
		a += la + (a[la] == '.');
		b += lb + (b[lb] == '.');
	}
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct cix_pkg_entry *a = *(const struct cix_pkg_entry *const *)pa;
	const struct cix_pkg_entry *b = *(const struct cix_pkg_entry *const *)pb;
	int c = strcmp(a->name, b->name);
	if (!c)
		c = -cix_version_cmp(a->version, b->version);
	if (!c)
		c = strcmp(a->version, b->version);
	if (!c)
		c = strcmp(a->file, b->file);
	if (!c)
		c = a->line < b->line ? -1 : a->line > b->line;
	return c;
}

size_t cix_pkg_index_list(const struct cix_pkg_index *idx, const struct cix_pkg_entry ***out)
{
	const struct cix_pkg_entry **v = NULL;
	size_t n = 0, alloc = 0, k = 0;
	for (size_t i = 0; i < idx->nr_mods; i++)
		for (size_t j = 0; j < idx->mods[i].nr_pkgs; j++) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n++] = &idx->mods[i].pkgs[j];
		}
	if (n)
		qsort(v, n, sizeof(*v), entry_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || entry_cmp(&v[k - 1], &v[i]))
			v[k++] = v[i];
	*out = v;
	return k;
}

char *cix_pkg_index_file(const char *search_path)
{
	return cix_cache_file("packages", search_path);
}
