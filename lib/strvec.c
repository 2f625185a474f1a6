/* strvec.c - growable arrays of owned strings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "strvec.h"
#include "strbuf.h"
#include "util.h"

#include <stdarg.h>

#include <stdlib.h>
#include <string.h>

void strvec_push(struct strvec *sv, const char *s)
{
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = xstrdup(s);
	sv->v[sv->nr] = NULL;
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;
	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf b = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = strbuf_detach(&b, NULL);
	sv->v[sv->nr] = NULL;
}

int strvec_push_fn(const char *s, void *opaque)
{
	strvec_push(opaque, s);
	return 0;
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}

size_t cix_sort_unique(char **v, size_t n)
{
	size_t kept = 0;
	if (n)
		qsort(v, n, sizeof(*v), cix_cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (kept && !strcmp(v[kept - 1], v[i]))
			free(v[i]);
		else
			v[kept++] = v[i];
	}
	return kept;
}

void strvec_sort_unique(struct strvec *sv)
{
	sv->nr = cix_sort_unique(sv->v, sv->nr);
	if (sv->v)
		sv->v[sv->nr] = NULL;
}

void strvec_split(struct strvec *sv, const char *s, const char *seps)
{
	while (s && *s) {
		s += strspn(s, seps);
		size_t len = strcspn(s, seps);
		if (!len)
			break;
		char *w = xstrndup(s, len);
		strvec_push(sv, w);
		free(w);
		s += len;
	}
}

int strvec_insert_sorted(struct strvec *sv, const char *s)
{
	size_t lo = 0, hi = sv->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(sv->v[mid], s);
		if (!c)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	strvec_push(sv, s);   /* at the end, then moved into place */
	char *added = sv->v[sv->nr - 1];
	memmove(sv->v + lo + 1, sv->v + lo, (sv->nr - 1 - lo) * sizeof(*sv->v));
	sv->v[lo] = added;
	return 1;
}

long strvec_find_sorted(const struct strvec *sv, const char *s)
{
	char **hit = sv->nr ? bsearch(&s, sv->v, sv->nr, sizeof(*sv->v), cix_cmp_str) : NULL;
	return hit ? hit - sv->v : -1;
}
