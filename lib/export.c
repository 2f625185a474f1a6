/* export.c - writing Nix export streams (nix-store --export) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "export.h"
#include "quote.h"
#include "store-path.h"

#include <stdlib.h>
#include <fcntl.h>
#include <string.h>

static int put_u64(cix_sink_fn sink, void *opaque, uint64_t v)
{
	unsigned char b[8];
	cix_put_u64le(b, v);
	return sink(opaque, b, 8);
}

static int put_str(cix_sink_fn sink, void *opaque, const char *s)
{
	static const unsigned char zero[8];
	size_t n = strlen(s);
	int r;

	if ((r = put_u64(sink, opaque, n)) < 0)
		return r;
	if (n && (r = sink(opaque, s, n)) < 0)
		return r;
	if (n % 8 && (r = sink(opaque, zero, 8 - n % 8)) < 0)
		return r;
	return 0;
}

static int sink_error(struct cix_err *err, int r)
{
	return cix_error_errno(err, r, "cannot write export stream");
}

static int ends_with_drv(const char *s)
{
	size_t n = strlen(s);
	return n > 4 && !memcmp(s + n - 4, ".drv", 4);
}

int cix_export_meta_check(const struct cix_export_meta *m, struct cix_err *err)
{
	const char *slash;
	char *dir;
	int r;

	if (!m || !m->path)
		return cix_error(err, -CIX_EINVAL, "export entry without a store path");
	if (m->nr_refs && !m->refs)
		return cix_error(err, -CIX_EINVAL, "export entry without its references");
	slash = strrchr(m->path, '/');
	if (!slash) {
		char q[96];
		return cix_error(err, -CIX_EINVAL, "'%s' is not a store path",
				 cix_quote(q, sizeof(q), m->path, strlen(m->path)));
	}
	dir = xstrndup(m->path, (size_t)(slash - m->path));
	if ((r = cix_store_dir_check(dir, err)) < 0 ||
	    (r = cix_store_path_parse(dir, m->path, NULL, err)) < 0)
		goto out;
	for (size_t i = 0; i < m->nr_refs; i++)
		if (!m->refs[i]) {
			r = cix_error(err, -CIX_EINVAL, "reference %zu is missing", i);
			goto out;
		} else if ((r = cix_store_path_parse(dir, m->refs[i], NULL, err)) < 0) {
			goto out;
		}
	if (m->deriver && *m->deriver) {
		if ((r = cix_store_path_parse(dir, m->deriver, NULL, err)) < 0)
			goto out;
		if (!ends_with_drv(m->deriver)) {
			char q[96];
			r = cix_error(err, -CIX_EFORMAT, "deriver '%s' is not a .drv",
				      cix_quote(q, sizeof(q), m->deriver,
						strlen(m->deriver)));
			goto out;
		}
	}
out:
	free(dir);
	return r < 0 ? r : 0;
}

int cix_export_begin(cix_sink_fn sink, void *opaque, struct cix_err *err)
{
	int r = put_u64(sink, opaque, 1);
	return r < 0 ? sink_error(err, r) : 0;
}

/* Whether refs[0..n) ascend strictly: as the store gives them, nothing to sort. */
static int ascending(const char *const *refs, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(refs[i - 1], refs[i]) >= 0)
			return 0;
	return 1;
}

/* The entry's end, m checked already. */
static int put_meta(cix_sink_fn sink, void *opaque, const struct cix_export_meta *m,
		    struct cix_err *err)
{
	const char **refs = (const char **)m->refs, **copy = NULL;
	size_t nr = m->nr_refs;
	int r;

	if (!ascending(m->refs, m->nr_refs)) {
		refs = copy = xmalloc(m->nr_refs * sizeof(*refs));
		memcpy(copy, m->refs, m->nr_refs * sizeof(*refs));
		qsort(copy, m->nr_refs, sizeof(*refs), cix_cmp_str);
		nr = 0;
		for (size_t i = 0; i < m->nr_refs; i++)
			if (!nr || strcmp(copy[nr - 1], copy[i]))
				copy[nr++] = copy[i];
	}
	if ((r = put_u64(sink, opaque, CIX_EXPORT_MAGIC)) < 0 ||
	    (r = put_str(sink, opaque, m->path)) < 0 ||
	    (r = put_u64(sink, opaque, nr)) < 0)
		goto out;
	for (size_t i = 0; i < nr; i++)
		if ((r = put_str(sink, opaque, refs[i])) < 0)
			goto out;
	if ((r = put_str(sink, opaque, m->deriver ? m->deriver : "")) < 0 ||
	    (r = put_u64(sink, opaque, 0)) < 0)
		goto out;
out:
	free(copy);
	return r < 0 ? sink_error(err, r) : 0;
}

int cix_export_meta(cix_sink_fn sink, void *opaque,
		    const struct cix_export_meta *m, struct cix_err *err)
{
	int r = cix_export_meta_check(m, err);
	return r < 0 ? r : put_meta(sink, opaque, m, err);
}

/* An entry's start: m checked before anything is written, then the marker 1. */
static int entry_begin(cix_sink_fn sink, void *opaque, const struct cix_export_meta *m,
		       struct cix_err *err)
{
	int r;
	cix_err_clear(err);
	if ((r = cix_export_meta_check(m, err)) < 0)
		return r;
	return cix_export_begin(sink, opaque, err);
}

int cix_export_path_at(cix_sink_fn sink, void *opaque, int dir_fd, const char *name,
		       const struct cix_export_meta *m, struct cix_err *err)
{
	int r;
	if ((r = entry_begin(sink, opaque, m, err)) < 0 ||
	    (r = cix_nar_dump_at(dir_fd, name, sink, opaque, err)) < 0)
		return r;
	return put_meta(sink, opaque, m, err);
}

int cix_export_path_mem(cix_sink_fn sink, void *opaque, const void *nar, size_t len,
			const struct cix_export_meta *m, struct cix_err *err)
{
	int r;
	if ((r = entry_begin(sink, opaque, m, err)) < 0)
		return r;
	if ((r = sink(opaque, nar, len)) < 0)
		return sink_error(err, r);
	return put_meta(sink, opaque, m, err);
}

int cix_export_path(cix_sink_fn sink, void *opaque, const char *fs_path,
		    const struct cix_export_meta *m, struct cix_err *err)
{
	return cix_export_path_at(sink, opaque, AT_FDCWD, fs_path, m, err);
}

int cix_export_end(cix_sink_fn sink, void *opaque, struct cix_err *err)
{
	int r = put_u64(sink, opaque, 0);
	return r < 0 ? sink_error(err, r) : 0;
}
