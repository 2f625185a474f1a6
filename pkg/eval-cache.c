/* eval-cache.c - what package specifications evaluated to, kept between commands */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "eval-cache.h"
#include "env.h"
#include "hash.h"
#include "cache-file.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "cix-eval-cache 1 "
#define MAX_FIELDS 1024
#define MAX_DEPTH 16
#define MAX_STAMP_FILES 200000

/* ---- identities ---- */

static void id_from_stat(struct cix_file_id *id, const struct stat *st)
{
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
	id->ctime_sec = (int64_t)st->st_ctim.tv_sec;
	id->ctime_nsec = st->st_ctim.tv_nsec;
}

static void add_id(struct strbuf *sb, const struct cix_file_id *id)
{
	strbuf_addf(sb, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%ld\t%" PRId64 "\t%ld",
		    id->dev, id->ino, id->size, id->mtime_sec, id->mtime_nsec, id->ctime_sec,
		    id->ctime_nsec);
}

static int same_id(const struct cix_file_id *a, const struct cix_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

int cix_file_id_get(const char *path, struct cix_file_id *id)
{
	struct stat st;
	memset(id, 0, sizeof(*id));
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	id_from_stat(id, &st);
	id->path = xstrdup(path);
	return 1;
}

void cix_file_id_release(struct cix_file_id *id)
{
	free(id->path);
	id->path = NULL;
}

/* ---- the stamp ---- */

static int wanted(const char *name)
{
	size_t l = strlen(name);
	return (l > 4 && !strcmp(name + l - 4, ".scm")) || (l > 3 && !strcmp(name + l - 3, ".go"));
}

/*
 * The .scm and .go files below dir (rel: its name in the lines), each as a
 * line "REL DEV INO SIZE MTIME... CTIME..." in lines. Directories are
 * followed through symlinks (profiles are symlink trees), to a bounded
 * depth; what cannot be read is left out.
 */
static int walk(int dirfd, const char *rel, int depth, struct strvec *lines, struct cix_err *err)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int r = 0;
	if (!d) {
		close(dirfd);
		return 0;
	}
	while (!r && (de = readdir(d))) {
		struct stat st;
		struct strbuf line = STRBUF_INIT;
		struct cix_file_id id;
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd, de->d_name, &st, 0) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int fd;
			if (depth >= MAX_DEPTH)
				continue;
			fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				continue;
			strbuf_addf(&line, "%s/", rel);
			strbuf_add_tab_escaped(&line, de->d_name);
			r = walk(fd, line.buf, depth + 1, lines, err);
		} else if (S_ISREG(st.st_mode) && wanted(de->d_name)) {
			if (lines->nr >= MAX_STAMP_FILES)
				r = cix_error(err, -CIX_ELIMIT, "too many module files to stamp");
			strbuf_addstr(&line, rel);   /* escaped already */
			strbuf_addch(&line, '/');
			strbuf_add_tab_escaped(&line, de->d_name);
			strbuf_addch(&line, '\t');
			id_from_stat(&id, &st);
			add_id(&line, &id);
			strvec_push(lines, line.buf);
		}
		strbuf_release(&line);
	}
	closedir(d);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int stamp_dirs(const char *list, char tag, struct strvec *lines, struct cix_err *err)
{
	char *copy = xstrdup(list ? list : ""), *save = NULL;
	int i = 0, r = 0;
	for (char *d = strtok_r(copy, ":", &save); d && !r; d = strtok_r(NULL, ":", &save), i++) {
		struct strbuf rel = STRBUF_INIT;
		int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		strbuf_addf(&rel, "%c%d", tag, i);
		/* The directories themselves, by name: another list, another stamp. */
		strbuf_addf(&rel, ":");
		strbuf_add_tab_escaped(&rel, d);
		strvec_push(lines, rel.buf);
		if (fd >= 0)
			r = walk(fd, rel.buf, 0, lines, err);
		strbuf_release(&rel);
	}
	free(copy);
	return r;
}

int cix_eval_stamp(const char *search_path, const char *compiled_path, const char *store_dir,
		   const char *system, char stamp[65], struct cix_err *err)
{
	struct strvec lines = STRVEC_INIT;
	struct strbuf all = STRBUF_INIT, line = STRBUF_INIT;
	struct cix_file_id exe;
	struct cix_hash h;
	int r;

	if ((r = stamp_dirs(search_path, 's', &lines, err)) < 0 ||
	    (r = stamp_dirs(compiled_path, 'c', &lines, err)) < 0)
		goto out;
	if (lines.nr)
		qsort(lines.v, lines.nr, sizeof(*lines.v), cmp_str);
	strbuf_addf(&all, "cix %s\nstore %s\nsystem %s\n", CIX_VERSION, store_dir, system);
	/* Where the package modules find the bootstrap binaries (%cix-data-dir). */
	strbuf_addf(&all, "data %s\n", cix_env(CIX_ENV_DATA_DIR) ? cix_env(CIX_ENV_DATA_DIR) : "");
	/* The program: its C code lowers packages. */
	if (cix_file_id_get("/proc/self/exe", &exe) > 0) {
		add_id(&all, &exe);
		strbuf_addch(&all, '\n');
		cix_file_id_release(&exe);
	}
	for (size_t i = 0; i < lines.nr; i++) {
		strbuf_addstr(&all, lines.v[i]);
		strbuf_addch(&all, '\n');
	}
	cix_hash_buf(CIX_HASH_SHA256, all.buf, all.len, &h);
	for (int i = 0; i < 32; i++)
		snprintf(stamp + 2 * i, 3, "%02x", h.bytes[i]);
out:
	strvec_clear(&lines);
	strbuf_release(&all);
	strbuf_release(&line);
	return r;
}

char *cix_eval_cache_file(const char *search_path, const char *store_dir)
{
	struct strbuf key = STRBUF_INIT;
	char *file;
	strbuf_addf(&key, "%s\n%s", search_path, store_dir);
	file = cix_cache_file("eval", key.buf);
	strbuf_release(&key);
	return file;
}

/* ---- entries ---- */

static void entry_release(struct cix_eval_entry *e)
{
	free(e->spec);
	free(e->drv_path);
	strvec_clear(&e->out_paths);
	free(e->manifest);
	for (size_t i = 0; i < e->nr_files; i++)
		cix_file_id_release(&e->files[i]);
	free(e->files);
	memset(e, 0, sizeof(*e));
}

void cix_eval_cache_release(struct cix_eval_cache *c)
{
	for (size_t i = 0; i < c->nr; i++)
		entry_release(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->nr = c->alloc = c->nr_sorted = 0;
}

static int by_spec(const void *a, const void *b)
{
	return strcmp(((const struct cix_eval_entry *)a)->spec,
		      ((const struct cix_eval_entry *)b)->spec);
}

static struct cix_eval_entry *lookup(const struct cix_eval_cache *c, const char *spec)
{
	struct cix_eval_entry key = { .spec = (char *)spec };
	struct cix_eval_entry *e = c->nr_sorted
		? bsearch(&key, c->v, c->nr_sorted, sizeof(*c->v), by_spec) : NULL;
	for (size_t i = c->nr_sorted; !e && i < c->nr; i++)
		if (!strcmp(c->v[i].spec, spec))
			e = &c->v[i];
	return e;
}

const struct cix_eval_entry *cix_eval_cache_find(const struct cix_eval_cache *c,
						 const char *spec)
{
	const struct cix_eval_entry *e = lookup(c, spec);
	int ok = e && e->manifest && e->drv_path;
	for (size_t k = 0; ok && k < e->nr_files; k++) {
		struct cix_file_id now;
		ok = cix_file_id_get(e->files[k].path, &now) > 0 && same_id(&now, &e->files[k]);
		cix_file_id_release(&now);
	}
	return ok ? e : NULL;
}

struct cix_eval_entry *cix_eval_cache_put(struct cix_eval_cache *c, const char *spec)
{
	struct cix_eval_entry *e = lookup(c, spec);
	if (e) {
		entry_release(e);
		e->spec = xstrdup(spec);
		return e;
	}
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	e = &c->v[c->nr++];
	memset(e, 0, sizeof(*e));
	e->spec = xstrdup(spec);
	return e;
}

/* ---- the file ---- */

void cix_eval_cache_format(const struct cix_eval_cache *c, struct strbuf *out)
{
	strbuf_addf(out, MAGIC "%s\n", c->stamp);
	for (size_t i = 0; i < c->nr; i++) {
		const struct cix_eval_entry *e = &c->v[i];
		int ok = e->manifest && e->drv_path && e->drv_path[0] == '/' && *e->spec;
		for (size_t k = 0; ok && k < e->out_paths.nr; k++)
			ok = e->out_paths.v[k][0] == '/';
		for (size_t k = 0; ok && k < e->nr_files; k++)
			ok = e->files[k].path[0] == '/';
		if (!ok)
			continue;     /* what the parser would refuse is not written */
		strbuf_addstr(out, "spec\t");
		strbuf_add_tab_escaped(out, e->spec);
		strbuf_addch(out, '\t');
		strbuf_add_tab_escaped(out, e->drv_path);
		strbuf_addf(out, "\t%d", e->propagates ? 1 : 0);
		for (size_t k = 0; k < e->out_paths.nr; k++) {
			strbuf_addch(out, '\t');
			strbuf_add_tab_escaped(out, e->out_paths.v[k]);
		}
		strbuf_addch(out, '\n');
		for (size_t k = 0; k < e->nr_files; k++) {
			strbuf_addstr(out, "file\t");
			strbuf_add_tab_escaped(out, e->files[k].path);
			strbuf_addch(out, '\t');
			add_id(out, &e->files[k]);
			strbuf_addch(out, '\n');
		}
		strbuf_addstr(out, "manifest\t");
		strbuf_add_tab_escaped(out, e->manifest);
		strbuf_addch(out, '\n');
	}
}

static int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	if (cix_parse_decimal(s, UINT64_MAX, &x) < 0)
		return -1;
	*v = x;
	return 0;
}

/* An optional '-', then digits (times before 1970 are negative). */
static int parse_i64(const char *s, int64_t *v)
{
	unsigned long long x;
	int neg = *s == '-';
	if (cix_parse_decimal(s + neg, (unsigned long long)INT64_MAX, &x) < 0)
		return -1;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

static int parse_nsec(const char *s, long *v)
{
	int64_t x;
	if (parse_i64(s, &x) < 0 || x < 0 || x > 999999999)
		return -1;
	*v = (long)x;
	return 0;
}

/* f[0..n): one line's fields; 0, or -1 when it is not right where it is. */
static int parse_line(struct cix_eval_cache *c, char **f, size_t n)
{
	struct cix_eval_entry *e = c->nr ? &c->v[c->nr - 1] : NULL;
	if (!strcmp(f[0], "spec")) {
		if (n < 4 || c->nr >= CIX_EVAL_CACHE_MAX_ENTRIES || !*f[1] || f[2][0] != '/' ||
		    (strcmp(f[3], "0") && strcmp(f[3], "1")))
			return -1;
		/* (Appended: specs given twice are found once sorted.) */
		ALLOC_GROW(c->v, c->nr + 1, c->alloc);
		e = &c->v[c->nr++];
		memset(e, 0, sizeof(*e));
		e->spec = xstrdup(f[1]);
		e->drv_path = xstrdup(f[2]);
		e->propagates = f[3][0] == '1';
		for (size_t i = 4; i < n; i++) {
			if (f[i][0] != '/')
				return -1;
			strvec_push(&e->out_paths, f[i]);
		}
		return 0;
	}
	if (!e || e->manifest)
		return -1;
	if (!strcmp(f[0], "file")) {
		struct cix_file_id id = { 0 };
		if (n != 9 || f[1][0] != '/' || e->nr_files >= CIX_EVAL_CACHE_MAX_FILES ||
		    parse_u64(f[2], &id.dev) < 0 || parse_u64(f[3], &id.ino) < 0 ||
		    parse_u64(f[4], &id.size) < 0 || parse_i64(f[5], &id.mtime_sec) < 0 ||
		    parse_nsec(f[6], &id.mtime_nsec) < 0 || parse_i64(f[7], &id.ctime_sec) < 0 ||
		    parse_nsec(f[8], &id.ctime_nsec) < 0)
			return -1;
		id.path = xstrdup(f[1]);
		e->files = xrealloc(e->files, (e->nr_files + 1) * sizeof(*e->files));
		e->files[e->nr_files++] = id;
		return 0;
	}
	if (!strcmp(f[0], "manifest") && n == 2) {
		e->manifest = xstrdup(f[1]);
		return 0;
	}
	return -1;
}

static const char *parse_head(void *opaque, const char *line, size_t l)
{
	struct cix_eval_cache *c = opaque;
	if (l != strlen(MAGIC) + 64 || memcmp(line, MAGIC, strlen(MAGIC)))
		return "not an evaluation cache of this version";
	memcpy(c->stamp, line + strlen(MAGIC), 64);
	c->stamp[64] = '\0';
	for (int i = 0; i < 64; i++)
		if (!c->stamp[i] || !strchr("0123456789abcdef", c->stamp[i]))
			return "a bad stamp";
	return NULL;
}

static const char *parse_body(void *opaque, char **f, size_t n)
{
	return n && parse_line(opaque, f, n) == 0 ? NULL : "bad";
}

int cix_eval_cache_parse(const char *buf, size_t len, struct cix_eval_cache *c,
			 struct cix_err *err)
{
	size_t lineno;
	memset(c, 0, sizeof(*c));
	if (strbuf_tab_lines(buf, len, CIX_EVAL_CACHE_MAX_LINE, MAX_FIELDS, parse_head,
			     parse_body, c, &lineno))
		goto bad;
	for (size_t i = 0; i < c->nr; i++)
		if (!c->v[i].manifest)
			goto bad;
	if (c->nr)
		qsort(c->v, c->nr, sizeof(*c->v), by_spec);
	for (size_t i = 1; i < c->nr; i++)
		if (!strcmp(c->v[i - 1].spec, c->v[i].spec))
			goto bad;
	c->nr_sorted = c->nr;
	return 0;
bad:
	cix_eval_cache_release(c);
	memset(c, 0, sizeof(*c));
	return cix_error(err, -CIX_EFORMAT, "evaluation cache: bad line %zu", lineno);
}

void cix_eval_cache_load(const char *file, const char *stamp, struct cix_eval_cache *c)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err = { 0 };
	memset(c, 0, sizeof(*c));
	if (file && strbuf_read_file(&sb, file, (size_t)1 << 30) == 0 &&
	    cix_eval_cache_parse(sb.buf, sb.len, c, &err) == 0 && strcmp(c->stamp, stamp)) {
		cix_eval_cache_release(c);
		memset(c, 0, sizeof(*c));
	}
	cix_err_clear(&err);
	strbuf_release(&sb);
	snprintf(c->stamp, sizeof(c->stamp), "%s", stamp);
}

int cix_eval_cache_save(const char *file, const struct cix_eval_cache *c, struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	cix_eval_cache_format(c, &sb);
	r = cix_cache_write(file, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return r;
}
