/* manifest.c - a profile's manifest: a versioned, escaped text file */
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

void cix_manifest_format(const struct cix_manifest *m, struct strbuf *out)
{
	strbuf_addstr(out, MAGIC "\n");
	for (size_t i = 0; i < m->nr; i++) {
		const struct cix_manifest_entry *e = &m->v[i];
		strbuf_add_tab_escaped(out, e->name);
		strbuf_addch(out, '\t');
		strbuf_add_tab_escaped(out, e->version);
		strbuf_addch(out, '\t');
		strbuf_add_tab_escaped(out, e->output);
		strbuf_addch(out, '\t');
		strbuf_add_tab_escaped(out, e->path);
		strbuf_addch(out, '\t');
		for (size_t k = 0; k < e->deps.nr; k++) {
			if (k)
				strbuf_addch(out, ' ');
			strbuf_add_tab_escaped(out, e->deps.v[k]);
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
	size_t n;
	const char *why = strbuf_tab_split(p, len, f, NR_FIELDS, &n);
	if (why || n == NR_FIELDS)
		return why;
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	return "too few fields";
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
