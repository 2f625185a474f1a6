/* cmd-publish.c - cix publish: the store served over HTTP as a binary cache */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "publish.h"
#include "compress.h"
#include "sign.h"
#include "store.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix publish [OPTION]...\n"
		"Serve the store over HTTP as a binary cache that cix and Nix substitute\n"
		"from: /nix-cache-info, /HASH.narinfo (signed) and the compressed NARs.\n\n"
		"  -p, --port=PORT        listen on PORT (default 8080; 0: any free port)\n"
		"  -l, --listen=ADDRESS   listen on ADDRESS (default 0.0.0.0)\n"
		"  -C, --compression=TYPE[:LEVEL]\n"
		"                         compress NARs with TYPE: zstd (default), xz or none\n"
		"  -c, --cache=DIR        keep the compressed NARs in DIR, and give their\n"
		"                         size and hash in the narinfos\n"
		"      --ttl=SECONDS      let clients keep narinfos SECONDS (Cache-Control)\n"
		"  -k, --secret-key=FILE  sign with the key in FILE (default\n"
		"                         $CIX_CONF_DIR/signing-key.sec, /etc/cix by default)\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n\n"
		"The address it listens on is printed on standard error once it does.\n");
}

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int load_key(const char *file, int given, struct cix_secret_key *k, int *signing)
{
	struct cix_err err = { 0 };
	int r = cix_secret_key_load(file, k, &err);
	*signing = r == 0;
	if (r == -ENOENT && !given) {
		fprintf(stderr, "%s: warning: no signing key (%s): narinfos are not signed\n",
			cix_progname, file);
		return 0;
	}
	return r < 0 ? error("%s", err.msg) : 0;
}

int cmd_publish(int argc, char **argv)
{
	enum { OPT_TTL = 256 };
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'l' },
		{ "compression", required_argument, NULL, 'C' },
		{ "cache", required_argument, NULL, 'c' },
		{ "ttl", required_argument, NULL, OPT_TTL },
		{ "secret-key", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cix_publish_opts po = { .port = 8080, .address = "0.0.0.0",
				       .comp = CIX_COMP_ZSTD, .level = -1 };
	struct cix_err err = { 0 };
	struct cix_publish *pub = NULL;
	struct strbuf keyfile = STRBUF_INIT;
	const char *key_given = NULL;
	unsigned long long v;
	int c, r;

	while ((c = getopt_long(argc, argv, "p:l:C:c:k:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (cix_parse_decimal(optarg, 65535, &v) < 0)
				return usage_error("invalid port '%s'", optarg);
			po.port = (unsigned)v;
			break;
		case 'l':
			po.address = optarg;
			break;
		case 'C':
			if (cix_comp_parse(optarg, &po.comp, &po.level, &err) < 0)
				return usage_error("%s", err.msg);
			break;
		case 'c':
			po.cache_dir = optarg;
			break;
		case OPT_TTL:
			if (cix_parse_decimal(optarg, 10UL * 365 * 24 * 3600, &v) < 0)
				return usage_error("invalid time to live '%s'", optarg);
			po.ttl = (unsigned long)v;
			break;
		case 'k':
			key_given = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return print_version();
		default:
			return option_error(c, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (key_given) {
		strbuf_addstr(&keyfile, key_given);
	} else {
		strbuf_addf(&keyfile, "%s/signing-key.sec", cix_env(CIX_ENV_CONF_DIR));
	}
	r = load_key(keyfile.buf, key_given != NULL, &po.key, &po.signing);
	strbuf_release(&keyfile);
	if (r)
		return r;

	signal(SIGPIPE, SIG_IGN);    /* a client gone: a failed write, not our end */
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if ((r = cix_publish_start(&po, &pub, &err)) < 0)
		return error_err(&err);
	fprintf(stderr, "publishing %s on http://%s:%u/\n", cix_publish_store_dir(pub), po.address,
		cix_publish_port(pub));
	fflush(stderr);
	while (!stopping)
		pause();
	cix_publish_stop(pub);
	return 0;
}
