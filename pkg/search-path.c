/* search-path.c - search paths: their values in a profile, as shell lines */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "search-path.h"
#include "quote.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Below a search path's file, with a pattern: how deep, how many entries. */
#define WALK_MAX_DEPTH 64
#define WALK_MAX_ENTRIES ((size_t)1 << 20)

static char *path_files[] = { "bin", "sbin", NULL };
const struct cix_search_path cix_search_path_PATH = {
	.variable = "PATH",
	.files = { path_files, 2, 0 },
	.separator = ":",
	.file_type = CIX_FILE_DIRECTORY,
	.file_pattern = NULL,
};

void cix_search_path_release(struct cix_search_path *sp)
{
	free(sp->variable);
	free(sp->separator);
	free(sp->file_pattern);
	strvec_clear(&sp->files);
	memset(sp, 0, sizeof(*sp));
}

void cix_search_path_copy(struct cix_search_path *dst, const struct cix_search_path *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->variable = xstrdup(src->variable);
	for (size_t i = 0; i < src->files.nr; i++)
		strvec_push(&dst->files, src->files.v[i]);
	dst->separator = src->separator ? xstrdup(src->separator) : NULL;
	dst->file_type = src->file_type;
	dst->file_pattern = src->file_pattern ? xstrdup(src->file_pattern) : NULL;
}

/* NULL first. */
static int opt_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : !a ? -1 : 1;
	return strcmp(a, b);
}

int cix_search_path_cmp(const struct cix_search_path *a, const struct cix_search_path *b)
{
	int c = strcmp(a->variable, b->variable);
	if (!c)
		c = opt_cmp(a->separator, b->separator);
	if (!c)
		c = (int)a->file_type - (int)b->file_type;
	if (!c)
		c = opt_cmp(a->file_pattern, b->file_pattern);
	for (size_t i = 0; !c && (i < a->files.nr || i < b->files.nr); i++)
		c = i == a->files.nr ? -1 : i == b->files.nr ? 1 :
		    strcmp(a->files.v[i], b->files.v[i]);
	return c;
}

static const char *const type_names[] = {
	[CIX_FILE_DIRECTORY] = "directory",
	[CIX_FILE_REGULAR] = "regular",
	[CIX_FILE_SYMLINK] = "symlink",
};

const char *cix_file_type_name(enum cix_file_type t)
{
	return (size_t)t < ARRAY_SIZE(type_names) ? type_names[t] : "?";
}

int cix_file_type_parse(const char *s, enum cix_file_type *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(type_names); i++)
		if (!strcmp(s, type_names[i])) {
			*t = (enum cix_file_type)i;
			return 0;
		}
	return -CIX_EINVAL;
}

int cix_search_path_kind_parse(const char *s, enum cix_search_path_kind *kind)
{
	if (!strcmp(s, "exact"))
		*kind = CIX_SEARCH_PATH_EXACT;
	else if (!strcmp(s, "prefix"))
		*kind = CIX_SEARCH_PATH_PREFIX;
	else if (!strcmp(s, "suffix"))
		*kind = CIX_SEARCH_PATH_SUFFIX;
	else
		return -CIX_EINVAL;
	return 0;
}

static int is_shell_name(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

const char *cix_search_path_check(const struct cix_search_path *sp)
{
	if (!sp->variable || !is_shell_name(sp->variable))
		return "a search path's variable is not a shell name";
	if (strlen(sp->variable) > CIX_SEARCH_PATH_MAX_VARIABLE)
		return "a search path's variable too long";
	if (sp->files.nr > CIX_SEARCH_PATH_MAX_FILES)
		return "a search path of too many files";
	for (size_t i = 0; i < sp->files.nr; i++) {
		if (!*sp->files.v[i])
			return "a search path's file empty";
		if (sp->files.v[i][0] == '/')
			return "a search path's file not relative";
	}
	if (sp->separator) {
		if (!*sp->separator)
			return "a search path's separator empty";
		/* It is written in a shell's ${VAR:+SEP}, inside double quotes. */
		for (const unsigned char *p = (const unsigned char *)sp->separator; *p; p++)
			if (*p < 0x20 || *p == 0x7f || strchr("\"\\$`}", *p))
				return "a search path's separator has a shell character";
	}
	if ((unsigned)sp->file_type >= ARRAY_SIZE(type_names))
		return "a search path's file type unknown";
	if (sp->file_pattern) {
		if (!*sp->file_pattern)
			return "a search path's file pattern empty";
		if (strlen(sp->file_pattern) > CIX_SEARCH_PATH_MAX_PATTERN)
			return "a search path's file pattern too long";
	}
	return NULL;
}

/* ---- the files a search path finds ---- */

static int is_type(mode_t mode, enum cix_file_type t)
{
	switch (t) {
	case CIX_FILE_DIRECTORY: return S_ISDIR(mode);
	case CIX_FILE_REGULAR: return S_ISREG(mode);
	case CIX_FILE_SYMLINK: return S_ISLNK(mode);
	}
	return 0;
}

struct dev_ino {
	dev_t dev;
	ino_t ino;
};

struct walk {
	const struct cix_search_path *sp;
	regex_t rx;
	struct strvec found;
	struct dev_ino *dirs;      /* visited, sorted: a symlink loop is entered once */
	size_t nr_dirs, alloc_dirs;
	size_t entries;
	struct cix_err *err;
};

static int di_cmp(const struct dev_ino *a, const struct dev_ino *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

/* 1 when added, 0 when already visited. */
static int visit_dir(struct walk *w, const struct stat *st)
{
	struct dev_ino key = { st->st_dev, st->st_ino };
	size_t lo = 0, hi = w->nr_dirs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = di_cmp(&w->dirs[mid], &key);
		if (!c)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	ALLOC_GROW(w->dirs, w->nr_dirs + 1, w->alloc_dirs);
	memmove(w->dirs + lo + 1, w->dirs + lo, (w->nr_dirs - lo) * sizeof(*w->dirs));
	w->dirs[lo] = key;
	w->nr_dirs++;
	return 1;
}

/* path, and below it when a directory (symlinks followed, as stat does). */
static int walk(struct walk *w, struct strbuf *path, int depth)
{
	struct stat st;
	const char *base = strrchr(path->buf, '/');
	char q[128];
	int r = 0;

	if (++w->entries > WALK_MAX_ENTRIES)
		return cix_error(w->err, -CIX_ELIMIT, "search path %s: too many files, at '%s'",
				 w->sp->variable, cix_quote(q, sizeof(q), path->buf, path->len));
	if (stat(path->buf, &st) < 0)
		return 0;          /* gone, or a dangling link: nothing */
	base = base ? base + 1 : path->buf;
	if (is_type(st.st_mode, w->sp->file_type) && !regexec(&w->rx, base, 0, NULL, 0))
		strvec_push(&w->found, path->buf);
	if (!S_ISDIR(st.st_mode) || !visit_dir(w, &st))
		return 0;
	if (depth >= WALK_MAX_DEPTH)
		return cix_error(w->err, -CIX_ELIMIT, "search path %s: directories too deep at '%s'",
				 w->sp->variable, cix_quote(q, sizeof(q), path->buf, path->len));
	DIR *d = opendir(path->buf);
	if (!d)
		return 0;
	size_t len = path->len;
	struct dirent *de;
	while (!r && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strbuf_addch(path, '/');
		strbuf_addstr(path, de->d_name);
		r = walk(w, path, depth + 1);
		strbuf_setlen(path, len);
	}
	closedir(d);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The paths sp finds in profile, in its order (each file's finds sorted). */
static int find(const char *profile, const struct cix_search_path *sp, struct strvec *out,
		struct cix_err *err)
{
	struct walk w = { .sp = sp, .err = err };
	struct strbuf path = STRBUF_INIT;
	int r = 0;

	if (sp->file_pattern) {
		int e = regcomp(&w.rx, sp->file_pattern, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char q[128];
			return cix_error(err, -CIX_EINVAL, "search path %s: bad file pattern '%s'",
					 sp->variable, cix_quote(q, sizeof(q), sp->file_pattern,
								 strlen(sp->file_pattern)));
		}
	}
	for (size_t i = 0; !r && i < sp->files.nr; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", profile, sp->files.v[i]);
		if (!sp->file_pattern) {
			struct stat st;
			if (stat(path.buf, &st) == 0 && is_type(st.st_mode, sp->file_type))
				strvec_push(out, path.buf);
			continue;
		}
		size_t before = w.found.nr;
		w.nr_dirs = 0;
		r = walk(&w, &path, 0);
		if (w.found.nr > before)
			qsort(w.found.v + before, w.found.nr - before, sizeof(char *), cmp_str);
	}
	if (sp->file_pattern) {
		for (size_t i = 0; !r && i < w.found.nr; i++)
			strvec_push(out, w.found.v[i]);
		regfree(&w.rx);
	}
	strvec_clear(&w.found);
	free(w.dirs);
	strbuf_release(&path);
	return r;
}

int cix_search_path_value(const char *profile, const struct cix_search_path *sp,
			  struct strbuf *value, struct cix_err *err)
{
	struct strvec found = STRVEC_INIT;
	const char *why = cix_search_path_check(sp);
	if (why)
		return cix_error(err, -CIX_EINVAL, "%s", why);
	int r = find(profile, sp, &found, err);
	if (!r && found.nr) {
		size_t n = sp->separator ? found.nr : 1;
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addstr(value, sp->separator);
			strbuf_addstr(value, found.v[i]);
		}
		r = 1;
	}
	strvec_clear(&found);
	return r;
}

/* ---- as shell lines ---- */

/* s inside a shell's double quotes. */
static void add_dquoted(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (strchr("\"\\$`", *s))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
}

struct ranked {
	const struct cix_search_path *sp;
	size_t rank;
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	int c = cix_search_path_cmp(a->sp, b->sp);
	if (c)
		return c;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int by_rank(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

int cix_search_paths_export(const char *profile, const struct cix_search_path *const *sps,
			    size_t n, enum cix_search_path_kind kind, struct strbuf *out,
			    struct cix_err *err)
{
	struct ranked *v = xcalloc(n + 1, sizeof(*v));
	struct strbuf value = STRBUF_INIT;
	size_t k = 0;
	int r = 0;

	/* Each specification once, at its first place. */
	v[0].sp = &cix_search_path_PATH;
	for (size_t i = 0; i < n; i++) {
		v[i + 1].sp = sps[i];
		v[i + 1].rank = i + 1;
	}
	qsort(v, n + 1, sizeof(*v), ranked_cmp);
	for (size_t i = 0; i < n + 1; i++)
		if (!k || cix_search_path_cmp(v[k - 1].sp, v[i].sp))
			v[k++] = v[i];
	qsort(v, k, sizeof(*v), by_rank);

	for (size_t i = 0; i < k; i++) {
		const struct cix_search_path *sp = v[i].sp;
		strbuf_reset(&value);
		if ((r = cix_search_path_value(profile, sp, &value, err)) < 0)
			break;
		r = 0;
		if (!value.len)
			continue;
		enum cix_search_path_kind how = sp->separator ? kind : CIX_SEARCH_PATH_EXACT;
		strbuf_addf(out, "export %s=\"", sp->variable);
		if (how == CIX_SEARCH_PATH_SUFFIX) {
			strbuf_addf(out, "$%s${%s:+", sp->variable, sp->variable);
			add_dquoted(out, sp->separator);
			strbuf_addch(out, '}');
		}
		add_dquoted(out, value.buf);
		if (how == CIX_SEARCH_PATH_PREFIX) {
			strbuf_addf(out, "${%s:+", sp->variable);
			add_dquoted(out, sp->separator);
			strbuf_addf(out, "}$%s", sp->variable);
		}
		strbuf_addstr(out, "\"\n");
	}
	strbuf_release(&value);
	free(v);
	return r;
}
