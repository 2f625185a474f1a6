/* cmd-download.c - cix download: files from URLs into the store, with their hashes */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "fetch.h"
#include "hash.h"
#include "store.h"
#include "store-path.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix download [OPTION]... URL...\n"
		"Download each URL (file, http, https, ftp or mirror://NAME/...) into the\n"
		"store, as a fixed-output file named after the URL's last component, and\n"
		"print its store path and its sha256, as guix download does.\n\n"
		"  -f, --format=FMT       print the hash in FMT: nix-base32 (default),\n"
		"                         base32, base16 (also hex, hexadecimal) or base64\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n");
}

/* The store name of what url names: its last path component, without query. */
static int url_name(const char *url, struct strbuf *name, struct cix_err *err)
{
	const char *start = strstr(url, "://");
	start = start ? start + 3 : url;
	size_t len = strcspn(start, "?#");
	const char *end = start + len, *slash = end;
	while (slash > start && slash[-1] != '/')
		slash--;
	if (slash == start || slash == end)
		return cix_error(err, -CIX_EINVAL, "'%s' names no file", url);
	strbuf_add(name, slash, (size_t)(end - slash));
	return cix_store_name_check(name->buf, name->len, err);
}

static int supported(const char *url)
{
	static const char *const schemes[] = { "file://", "http://", "https://", "ftp://",
					       "mirror://" };
	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++)
		if (!strncmp(url, schemes[i], strlen(schemes[i])))
			return 1;
	return 0;
}

static int download_one(struct cix_store *s, const char *url, const struct cix_fetch_opts *fo,
			enum hash_fmt fmt, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT, dir = STRBUF_INIT, file = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	struct cix_hash h;
	int r;

	if (!supported(url))
		return cix_error(err, -CIX_EUNSUPPORTED,
				 "'%s': only file, http, https, ftp and mirror:// URLs are supported",
				 url);
	if ((r = url_name(url, &name, err)) < 0)
		goto out;
	/* A private directory: the file keeps its name, for cix_store_add. */
	strbuf_addf(&dir, "%s/cix-download.XXXXXX", cix_env(CIX_ENV_TMPDIR));
	if (!mkdtemp(dir.buf)) {
		r = cix_error_errno(err, -errno, "cannot create a directory in '%s'",
				    cix_env(CIX_ENV_TMPDIR));
		strbuf_reset(&dir);
		goto out;
	}
	strbuf_addf(&file, "%s/%s", dir.buf, name.buf);
	if ((r = cix_fetch_url(url, file.buf, NULL, 0, 0, fo, err)) < 0 ||
	    (r = cix_hash_file(CIX_HASH_SHA256, file.buf, &h, err)) < 0 ||
	    (r = cix_store_add(s, file.buf, CIX_ADD_FLAT, CIX_HASH_SHA256, &out, err)) < 0)
		goto out;
	puts(out.buf);
	hash_format_print(&h, fmt);
	fflush(stdout);
out:
	if (file.len)
		unlink(file.buf);
	if (dir.len)
		rmdir(dir.buf);
	strbuf_release(&name);
	strbuf_release(&dir);
	strbuf_release(&file);
	strbuf_release(&out);
	return r;
}

int cmd_download(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum hash_fmt fmt = F_NIXBASE32;
	int c;

	while ((c = getopt_long(argc, argv, ":f:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (hash_format_parse(optarg, &fmt) < 0)
				return usage_error("unknown format '%s'", optarg);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("no URL given");

	/* The mirror list builds use (content-addressed mirrors need the hash). */
	const char *mirrors[2] = { cix_env(CIX_ENV_MIRRORS_FILE), NULL };
	struct cix_fetch_opts fo;
	cix_fetch_opts_init(&fo);
	fo.mirror_files = mirrors;
	fo.progress_fd = isatty(2) ? 2 : -1;

	struct cix_err err = { 0 };
	struct cix_store *s = NULL;
	int status = 0;
	if (cix_store_open_client(&s, &err) < 0)
		return error_err(&err);
	for (int i = optind; i < argc; i++) {
		if (download_one(s, argv[i], &fo, fmt, &err) < 0) {
			error_err(&err);
			cix_err_clear(&err);
			status = 1;
		}
	}
	cix_store_close(s);
	return status;
}
