/* cmd-hash.c - cix hash: print the hash of files, flat or as a NAR */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "encoding.h"
#include "hash.h"
#include "nar.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>


static const char *const fmt_names[] = {
	[F_NIXBASE32] = "nix-base32", [F_BASE32] = "base32",
	[F_BASE16] = "base16", [F_BASE64] = "base64",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix hash [OPTION]... FILE...\n"
		"Print the cryptographic hash of each FILE ('-' for standard input).\n\n"
		"  -r, --recursive        hash the NAR serialisation of FILE (a file,\n"
		"                         symlink or directory tree), as nix-hash does\n"
		"  -f, --format=FMT       print in FMT: nix-base32 (default), base32,\n"
		"                         base16 (also hex, hexadecimal) or base64\n"
		"  -H, --hash=ALGO        use ALGO: sha256 (default), sha1, sha512, md5\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n");
}

int hash_format_parse(const char *s, enum hash_fmt *f)
{
	if (!strcmp(s, "hex") || !strcmp(s, "hexadecimal")) {
		*f = F_BASE16;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fmt_names); i++)
		if (!strcmp(s, fmt_names[i])) {
			*f = (enum hash_fmt)i;
			return 0;
		}
	return -1;
}

void hash_format_print(const struct cix_hash *h, enum hash_fmt f)
{
	struct strbuf sb = STRBUF_INIT;
	switch (f) {
	case F_NIXBASE32: cix_nixbase32_encode(&sb, h->bytes, h->len); break;
	case F_BASE32: cix_base32_encode(&sb, h->bytes, h->len); break;
	case F_BASE16: cix_base16_encode(&sb, h->bytes, h->len); break;
	case F_BASE64: cix_base64_encode(&sb, h->bytes, h->len); break;
	}
	puts(sb.buf);
	strbuf_release(&sb);
}

static int hash_stdin(enum cix_hash_algo algo, struct cix_hash *out, struct cix_err *err)
{
	struct cix_hash_ctx ctx;
	static unsigned char buf[1 << 16];
	int fd = 0;
	cix_hash_init(&ctx, algo);
	for (;;) {
		ssize_t n = cix_fd_source_read(&fd, buf, sizeof(buf));
		if (n < 0) {
			cix_hash_abort(&ctx);
			return cix_error_errno(err, (int)n, "cannot read standard input");
		}
		if (n == 0)
			break;
		cix_hash_update(&ctx, buf, (size_t)n);
	}
	cix_hash_final(&ctx, out);
	return 0;
}

int cmd_hash(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "recursive", no_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "hash", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum cix_hash_algo algo = CIX_HASH_SHA256;
	enum hash_fmt fmt = F_NIXBASE32;
	int recursive = 0, c, status = 0;

	while ((c = getopt_long(argc, argv, ":rf:H:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': recursive = 1; break;
		case 'f':
			if (hash_format_parse(optarg, &fmt) < 0)
				return usage_error("unknown format '%s'", optarg);
			break;
		case 'H':
			if (cix_hash_algo_parse(optarg, &algo) < 0)
				return usage_error("unknown hash algorithm '%s'", optarg);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("no file given");

	for (int i = optind; i < argc; i++) {
		struct cix_err err = { 0 };
		struct cix_hash h;
		int r;
		if (recursive)
			r = cix_nar_hash_path(argv[i], algo, &h, NULL, &err);
		else if (!strcmp(argv[i], "-"))
			r = hash_stdin(algo, &h, &err);
		else
			r = cix_hash_file(algo, argv[i], &h, &err);
		if (r < 0)
			status = error_err(&err);
		else
			hash_format_print(&h, fmt);
	}
	return status;
}
