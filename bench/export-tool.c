/* export-tool.c - test driver of the export stream writer and parser */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "encoding.h"
#include "export.h"
#include "remove.h"
#include "store-path.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Until `cix store --export/--import` exist, this drives lib/export.c and
 * lib/import.c for t/t0110-export-format.sh:
 *
 *   export-tool write {FS-PATH STORE-PATH DERIVER NREFS REF...}... >STREAM
 *       one entry per group (DERIVER "" for none), then the final 0
 *   export-tool read [-s STORE-DIR] [-r DIR] <STREAM
 *       parse STREAM, printing for each entry its store path, NAR hash
 *       (sha256:nix-base32), NAR size, deriver (unknown-deriver if none),
 *       references and legacy signature length; with -r restore each NAR
 *       into DIR/.tmp-N and rename it to DIR/BASENAME. Finally prints how
 *       many bytes follow the stream ("trailing N").
 * Errors: one line on stderr, exit 1; usage errors exit 2.
 */

static int out_sink(void *opaque, const void *data, size_t len)
{
	return cix_write_full(1, data, len);
}

static int do_write(int argc, char **argv)
{
	struct cix_err err;
	int i = 0;

	while (i < argc) {
		struct cix_export_meta m;
		char *end;
		unsigned long n;

		if (argc - i < 4)
			goto usage;
		errno = 0;
		n = strtoul(argv[i + 3], &end, 10);
		if (errno || *end || !*argv[i + 3] || n > (unsigned long)(argc - i - 4))
			goto usage;
		m.path = argv[i + 1];
		m.deriver = argv[i + 2];
		m.refs = (const char *const *)argv + i + 4;
		m.nr_refs = n;
		if (cix_export_path(out_sink, NULL, argv[i], &m, &err) < 0) {
			fprintf(stderr, "error: %s\n", err.msg);
			return 1;
		}
		i += 4 + (int)n;
	}
	if (cix_export_end(out_sink, NULL, &err) < 0) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: export-tool write {FS-PATH STORE-PATH DERIVER NREFS REF...}...\n");
	return 2;
}

struct reader {
	const char *dir;
	unsigned n;
};

static int r_target(void *opaque, char **target, struct cix_err *err)
{
	struct reader *rd = opaque;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/.tmp-%u", rd->dir, rd->n++);
	*target = strbuf_detach(&sb, NULL);
	return 0;
}

static void r_discard(void *opaque, const char *target)
{
	cix_remove_tree_at(AT_FDCWD, target, NULL);
}

static int r_done(void *opaque, const char *target,
		  const struct cix_import_info *info, struct cix_err *err)
{
	struct reader *rd = opaque;
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	cix_nixbase32_encode(&sb, info->nar_hash.bytes, info->nar_hash.len);
	printf("path %s\nhash sha256:%s\nsize %llu\nderiver %s\n",
	       info->meta.path, sb.buf, (unsigned long long)info->nar_size,
	       info->meta.deriver ? info->meta.deriver : "unknown-deriver");
	for (size_t i = 0; i < info->meta.nr_refs; i++)
		printf("ref %s\n", info->meta.refs[i]);
	if (info->sig)
		printf("sig %zu\n", info->sig_len);
	if (target) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/%s", rd->dir, strrchr(info->meta.path, '/') + 1);
		if (renameat2(AT_FDCWD, target, AT_FDCWD, sb.buf, RENAME_NOREPLACE) < 0) {
			r = cix_error_errno(err, -errno, "cannot rename '%s' to '%s'",
					    target, sb.buf);
			cix_remove_tree_at(AT_FDCWD, target, NULL);
		}
	}
	strbuf_release(&sb);
	return r;
}

static int do_read(int argc, char **argv)
{
	struct reader rd = { 0 };
	struct cix_import_ops ops = { .path_done = r_done };
	const char *store_dir = cix_store_dir();
	struct cix_err err;
	char buf[4096];
	unsigned long long trailing = 0;
	ssize_t k;
	int fd = 0, c;

	optind = 1;
	while ((c = getopt(argc, argv, "s:r:")) != -1) {
		switch (c) {
		case 's': store_dir = optarg; break;
		case 'r': rd.dir = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if (rd.dir) {
		ops.nar_target = r_target;
		ops.discard = r_discard;
	}
	if (cix_import_parse(cix_fd_source_read, &fd, store_dir, &ops, &rd, &err) < 0) {
		fflush(stdout);
		fprintf(stderr, "error: %s\n", err.msg);
		return 1;
	}
	while ((k = read(0, buf, sizeof(buf))) > 0)
		trailing += (unsigned long long)k;
	printf("trailing %llu\n", trailing);
	return 0;
usage:
	fprintf(stderr, "usage: export-tool read [-s STORE-DIR] [-r DIR] <STREAM\n");
	return 2;
}

int main(int argc, char **argv)
{
	cix_hash_global_init();
	if (argc >= 2 && !strcmp(argv[1], "write"))
		return do_write(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "read"))
		return do_read(argc - 1, argv + 1);
	fprintf(stderr, "usage: export-tool (write|read) ARGS...\n");
	return 2;
}
