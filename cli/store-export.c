/* store-export.c - cix store --export and --import */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int out_sink(void *opaque, const void *data, size_t len)
{
	return cix_write_full(1, data, len);
}

int op_export(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct pathset ps = { 0 };
	struct strbuf order = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = 0;

	for (int i = 0; !r && i < nargs; i++) {
		if ((r = cix_store_check_path(s, args[i], &err)) < 0)
			break;
		if ((r = cix_db_is_valid(s->db, args[i], &err)) == 0)
			r = cix_error(&err, -CIX_ENOTFOUND, "path '%s' is not valid", args[i]);
		if (r > 0)
			r = set_add(args[i], &ps);
	}
	if (!r)
		r = topo_print(s, &ps, &order, &err);
	for (char *line = order.buf, *nl; !r && *line; line = nl + 1) {
		struct cix_path_info info;
		nl = strchr(line, '\n');
		*nl = '\0';
		if ((r = cix_db_query(s->db, line, &info, &err)) < 0)
			break;
		struct cix_export_meta m = { info.path, (const char *const *)info.refs,
					     info.nr_refs, info.deriver };
		r = cix_export_path(out_sink, NULL, info.path, &m, &err);
		cix_path_info_release(&info);
	}
	if (!r)
		r = cix_export_end(out_sink, NULL, &err);
	strbuf_release(&order);
	set_release(&ps);
	if (r < 0 && !err.msg[0])
		cix_error_errno(&err, r, "cannot write to standard output");
	return r < 0 ? error_err(&err) : 0;
}

static int print_path(const char *path, void *opaque)
{
	puts(path);
	return 0;
}

int op_import(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	static struct cix_buf_source in = CIX_BUF_SOURCE_INIT(0);
	struct cix_err err = { 0 };
	if (cix_store_import(s, cix_buf_source_read, &in, print_path, NULL, &err) < 0)
		return error_err(&err);
	return 0;
}
