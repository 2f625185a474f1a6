/* gc.c - garbage collector roots, and what they keep alive */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 32
#define MAX_HOPS 8

/* If p is in the store, push the store path it is in (STORE/HASH-NAME). */
static void add_store_path(struct cix_store *s, const char *p, struct strvec *roots)
{
	size_t n = strlen(s->store_dir);
	if (strncmp(p, s->store_dir, n) || p[n] != '/' || !p[n + 1])
		return;
	const char *end = strchrnul(p + n + 1, '/');
	char *path = xstrndup(p, (size_t)(end - p));
	if (cix_store_check_path(s, path, NULL) == 0)
		strvec_push(roots, path);
	free(path);
}

static void scan(struct cix_store *s, const char *path, int depth, struct strvec *roots);

/* A symlink: follow it (a few hops) until it leaves for the store or a directory. */
static void follow(struct cix_store *s, const char *link, int depth, struct strvec *roots)
{
	char target[PATH_MAX], cur[PATH_MAX];
	snprintf(cur, sizeof(cur), "%s", link);
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		ssize_t n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0)
			return;
		target[n] = '\0';
		if (target[0] != '/') {
			/* relative to the link's directory */
			char *slash = strrchr(cur, '/');
			char joined[PATH_MAX];
			if (!slash || snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - cur), cur,
					       target) >= (int)sizeof(joined))
				return;
			snprintf(target, sizeof(target), "%s", joined);
		}
		size_t sn = strlen(s->store_dir);
		if (!strncmp(target, s->store_dir, sn) && target[sn] == '/') {
			add_store_path(s, target, roots);
			return;
		}
		struct stat st;
		if (lstat(target, &st) < 0)
			return;
		if (S_ISDIR(st.st_mode)) {
			/* Only the state directory's own trees (profiles) are walked:
			   a root pointing at / or /etc is not a reason to read them. */
			size_t sd = strlen(s->state_dir);
			if (!strncmp(target, s->state_dir, sd) && target[sd] == '/' &&
			    !strstr(target, "/../") && !strstr(target, "/./"))
				scan(s, target, depth + 1, roots);
			return;
		}
		if (!S_ISLNK(st.st_mode))
			return;
		snprintf(cur, sizeof(cur), "%s", target);
	}
}

static void scan(struct cix_store *s, const char *path, int depth, struct strvec *roots)
{
	DIR *d;
	struct dirent *de;
	if (depth > MAX_DEPTH || !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", path, de->d_name) >= (int)sizeof(p) ||
		    lstat(p, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			follow(s, p, depth, roots);
		else if (S_ISDIR(st.st_mode))
			scan(s, p, depth + 1, roots);
	}
	closedir(d);
}

static void temp_roots(struct cix_store *s, struct strvec *roots)
{
	struct strbuf dir = STRBUF_INIT;
	DIR *d;
	struct dirent *de;
	strbuf_addf(&dir, "%s/temproots", s->state_dir);
	if (!(d = opendir(dir.buf))) {
		strbuf_release(&dir);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || cix_name_of_dead_process(de->d_name, ""))
			continue;
		struct strbuf f = STRBUF_INIT, data = STRBUF_INIT;
		strbuf_addf(&f, "%s/%s", dir.buf, de->d_name);
		int fd = open(f.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			char buf[65536];
			ssize_t n;
			while ((n = read(fd, buf, sizeof(buf))) > 0 && data.len < (64u << 20))
				strbuf_add(&data, buf, (size_t)n);
			close(fd);
			for (size_t i = 0; i < data.len; i += strlen(data.buf + i) + 1)
				add_store_path(s, data.buf + i, roots);
		}
		strbuf_release(&f);
		strbuf_release(&data);
	}
	closedir(d);
	strbuf_release(&dir);
}

int cix_gc_roots(struct cix_store *s, struct strvec *roots, struct cix_err *err)
{
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/gcroots", s->state_dir);
	scan(s, dir.buf, 0, roots);
	strbuf_release(&dir);
	temp_roots(s, roots);
	strvec_sort_unique(roots);
	return 0;
}

int cix_gc_paths(struct cix_store *s, int dead, struct strvec *out, struct cix_err *err)
{
	struct strvec roots = STRVEC_INIT, valid_roots = STRVEC_INIT, all = STRVEC_INIT;
	struct cix_db_graph g = { 0 };
	int r = cix_gc_roots(s, &roots, err);
	for (size_t i = 0; !r && i < roots.nr; i++)
		if ((r = cix_db_is_valid(s->db, roots.v[i], err)) > 0) {
			strvec_push(&valid_roots, roots.v[i]);
			r = 0;
		}
	if (!r)
		r = cix_db_graph(s->db, (const char *const *)valid_roots.v, valid_roots.nr,
				 CIX_DB_EDGES_REQUISITES, &g, err);
	if (!r && (r = cix_db_all_valid(s->db, strvec_push_fn, &all, err)) >= 0) {
		r = 0;
		/* both sorted bytewise: one merge */
		size_t j = 0;
		for (size_t i = 0; i < all.nr; i++) {
			while (j < g.nr && strcmp(g.paths[j], all.v[i]) < 0)
				j++;
			int live = j < g.nr && !strcmp(g.paths[j], all.v[i]);
			if (live != dead)
				strvec_push(out, all.v[i]);
		}
	}
	if (g.paths)
		cix_db_graph_release(&g);
	strvec_clear(&roots);
	strvec_clear(&valid_roots);
	strvec_clear(&all);
	return r;
}
