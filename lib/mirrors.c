/* mirrors.c - mirror://NAME/REST expanded from mirror lists */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fetch.h"
#include "quote.h"
#include "strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIRRORS_FILE_MAX (1 << 20)
#define MIRRORS_MAX_URLS 1024

void cix_fetch_free_urls(char **urls)
{
	if (!urls)
		return;
	for (size_t i = 0; urls[i]; i++)
		free(urls[i]);
	free(urls);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

struct url_list {
	char **v;
	size_t n, alloc;
};

static void push(struct url_list *l, char *s)
{
	ALLOC_GROW(l->v, l->n + 2, l->alloc);
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

/* Append PREFIX/REST for each prefix of name in the text of one mirror file. */
static int scan_file(const char *path, const char *text, size_t len, const char *name,
		     size_t name_len, const char *rest, struct url_list *l, struct cix_err *err)
{
	size_t pos = 0;

	while (pos < len) {
		const char *line = text + pos, *end = memchr(line, '\n', len - pos);
		size_t ll = end ? (size_t)(end - line) : len - pos, i = 0;
		pos += ll + (end ? 1 : 0);

		while (i < ll && is_space(line[i]))
			i++;
		if (i == ll || line[i] == '#')
			continue;
		size_t ns = i;
		while (i < ll && !is_space(line[i]))
			i++;
		if (i - ns != name_len || memcmp(line + ns, name, name_len))
			continue;
		for (;;) {
			while (i < ll && is_space(line[i]))
				i++;
			if (i == ll || line[i] == '#')
				break;
			size_t ps = i;
			while (i < ll && !is_space(line[i]))
				i++;
			if (l->n >= MIRRORS_MAX_URLS)
				return cix_error(err, -CIX_ELIMIT, "too many mirrors in '%s'", path);
			struct strbuf u = STRBUF_INIT;
			strbuf_add(&u, line + ps, i - ps);
			if (u.buf[u.len - 1] != '/')
				strbuf_addch(&u, '/');
			strbuf_addstr(&u, rest);
			push(l, strbuf_detach(&u, NULL));
		}
	}
	return 0;
}

int cix_fetch_expand_url(const char *url, const struct cix_fetch_opts *opts,
			 char ***urls, size_t *n, struct cix_err *err)
{
	struct url_list l = { 0 };
	const char *name, *slash;
	size_t name_len;
	char q[128];
	int r = 0;

	*urls = NULL;
	*n = 0;
	if (strncasecmp(url, "mirror://", 9)) {
		push(&l, xstrdup(url));
		goto done;
	}
	name = url + 9;
	slash = strchr(name, '/');
	name_len = slash ? (size_t)(slash - name) : strlen(name);
	if (!name_len)
		return cix_error(err, -CIX_EINVAL, "no mirror name in '%s'",
				 cix_quote(q, sizeof(q), url, strlen(url)));
	for (size_t i = 0; opts && opts->mirror_files && opts->mirror_files[i]; i++) {
		const char *path = opts->mirror_files[i];
		struct strbuf sb = STRBUF_INIT;
		r = strbuf_read_file(&sb, path, MIRRORS_FILE_MAX);
		if (r == -ENOENT) {
			strbuf_release(&sb);
			r = 0;
			continue;
		}
		if (r < 0) {
			strbuf_release(&sb);
			if (r == -CIX_ELIMIT)
				r = cix_error(err, r, "mirror list '%s' is too large", path);
			else
				r = cix_error_errno(err, r, "cannot read '%s'", path);
			goto fail;
		}
		if (memchr(sb.buf, '\0', sb.len)) {
			strbuf_release(&sb);
			r = cix_error(err, -CIX_EFORMAT, "mirror list '%s' holds a NUL byte", path);
			goto fail;
		}
		r = scan_file(path, sb.buf, sb.len, name, name_len,
			      slash ? slash + 1 : "", &l, err);
		strbuf_release(&sb);
		if (r < 0)
			goto fail;
	}
	if (!l.n)
		return cix_error(err, -CIX_ENOTFOUND, "unknown mirror '%s'",
				 cix_quote(q, sizeof(q), name, name_len));
done:
	*urls = l.v;
	*n = l.n;
	return 0;
fail:
	cix_fetch_free_urls(l.v);
	return r;
}
