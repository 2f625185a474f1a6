/* manifest.c - a profile's manifest: a versioned, escaped text file */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "manifest.h"
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

#define MAGIC_V1 "cix-manifest 1"
#define MAGIC "cix-manifest 2"
#define MANIFEST_MAX_LINE ((size_t)1 << 20)
#define MANIFEST_MAX_ENTRIES 100000
#define MANIFEST_MAX_FILE ((size_t)1 << 30)
#define NR_FIELDS 5
/* A search path's line: "", "search-path", variable, separator, type, pattern, files. */
#define SP_FIELDS 6
#define MAX_FIELDS (SP_FIELDS + CIX_SEARCH_PATH_MAX_FILES)

/* ---- the manifest ---- */

static void entry_release(struct cix_manifest_entry *e)
{
	free(e->name);
	free(e->version);
	free(e->output);
	free(e->path);
	strvec_clear(&e->deps);
	for (size_t i = 0; i < e->nr_search_paths; i++)
		cix_search_path_release(&e->search_paths[i]);
	free(e->search_paths);
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

void cix_manifest_entry_add_search_path(struct cix_manifest_entry *e,
					const struct cix_search_path *sp)
{
	ALLOC_GROW(e->search_paths, e->nr_search_paths + 1, e->alloc_search_paths);
	cix_search_path_copy(&e->search_paths[e->nr_search_paths++], sp);
}

struct cix_manifest_entry *cix_manifest_add_copy(struct cix_manifest *m,
						 const struct cix_manifest_entry *from)
{
	struct cix_manifest_entry *e = cix_manifest_add(m, from->name, from->version,
							from->output, from->path);
	for (size_t i = 0; i < from->deps.nr; i++)
		strvec_push(&e->deps, from->deps.v[i]);
	for (size_t i = 0; i < from->nr_search_paths; i++)
		cix_manifest_entry_add_search_path(e, &from->search_paths[i]);
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
	for (size_t i = 0; !c && (i < a->nr_search_paths || i < b->nr_search_paths); i++)
		c = i == a->nr_search_paths ? -1 : i == b->nr_search_paths ? 1 :
		    cix_search_path_cmp(&a->search_paths[i], &b->search_paths[i]);
	return c;
}

void cix_manifest_sort(struct cix_manifest *m)
{
	if (m->nr > 1)
		qsort(m->v, m->nr, sizeof(*m->v), entry_cmp);
}

static void format_search_path(struct strbuf *out, const struct cix_search_path *sp)
{
	strbuf_addstr(out, "\tsearch-path\t");
	strbuf_add_tab_escaped(out, sp->variable);
	strbuf_addch(out, '\t');
	strbuf_add_tab_escaped(out, sp->separator ? sp->separator : "");
	strbuf_addch(out, '\t');
	strbuf_addstr(out, cix_file_type_name(sp->file_type));
	strbuf_addch(out, '\t');
	strbuf_add_tab_escaped(out, sp->file_pattern ? sp->file_pattern : "");
	for (size_t i = 0; i < sp->files.nr; i++) {
		strbuf_addch(out, '\t');
		strbuf_add_tab_escaped(out, sp->files.v[i]);
	}
	strbuf_addch(out, '\n');
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
		for (size_t k = 0; k < e->nr_search_paths; k++)
			format_search_path(out, &e->search_paths[k]);
	}
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

/* NAME VERSION OUTPUT PATH DEPS; the fields taken are set to NULL. */
static const char *parse_entry(struct cix_manifest *m, char **f, size_t n)
{
	if (n < NR_FIELDS)
		return "too few fields";
	if (n > NR_FIELDS)
		return "too many fields";
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

/* "" "search-path" VARIABLE SEPARATOR FILE-TYPE FILE-PATTERN FILE...: the last entry's. */
static const char *parse_search_path(struct cix_manifest *m, char **f, size_t n)
{
	struct cix_search_path sp = { 0 };
	const char *why;
	if (n < SP_FIELDS || strcmp(f[1], "search-path"))
		return "a line of an unknown kind";
	if (!m->nr)
		return "a search path before any entry";
	struct cix_manifest_entry *e = &m->v[m->nr - 1];
	if (e->nr_search_paths >= CIX_MANIFEST_MAX_SEARCH_PATHS)
		return "too many search paths";
	if (cix_file_type_parse(f[4], &sp.file_type) < 0)
		return "an unknown file type";
	sp.variable = f[2];
	sp.separator = *f[3] ? f[3] : NULL;
	sp.file_pattern = *f[5] ? f[5] : NULL;
	for (size_t i = SP_FIELDS; i < n; i++)
		strvec_push(&sp.files, f[i]);
	if (!(why = cix_search_path_check(&sp))) {
		ALLOC_GROW(e->search_paths, e->nr_search_paths + 1, e->alloc_search_paths);
		e->search_paths[e->nr_search_paths++] = sp;
		f[2] = NULL;
		if (sp.separator)
			f[3] = NULL;
		if (sp.file_pattern)
			f[5] = NULL;
	} else {
		strvec_clear(&sp.files);
	}
	return why;
}

struct parse_state {
	struct cix_manifest *m;
	int version;
};

static const char *parse_head(void *opaque, const char *line, size_t l)
{
	struct parse_state *ps = opaque;
	if (l == strlen(MAGIC) && !memcmp(line, MAGIC, l))
		ps->version = 2;
	else if (l == strlen(MAGIC_V1) && !memcmp(line, MAGIC_V1, l))
		ps->version = 1;
	else
		return "not a cix manifest of version 1 or 2";
	return NULL;
}

static const char *parse_body(void *opaque, char **f, size_t n)
{
	struct parse_state *ps = opaque;
	/* Version 1 has no search paths: an empty name is just that. */
	if (ps->version >= 2 && n && !*f[0])
		return parse_search_path(ps->m, f, n);
	return parse_entry(ps->m, f, n);
}

int cix_manifest_parse(const char *buf, size_t len, struct cix_manifest *m, struct cix_err *err)
{
	struct parse_state ps = { m, 0 };
	size_t lineno;
	const char *why;
	memset(m, 0, sizeof(*m));
	why = strbuf_tab_lines(buf, len, MANIFEST_MAX_LINE, MAX_FIELDS, parse_head, parse_body,
			       &ps, &lineno);
	if (!why)
		return 0;
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
