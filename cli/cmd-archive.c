/* cmd-archive.c - cix archive: the signing key pair, the trusted keys, signed archives */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "archive-ops.h"
#include "sign.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_CONF_DIR "/etc/cix"
#define SECRET_NAME "signing-key.sec"
#define PUBLIC_NAME "signing-key.pub"
#define ACL_NAME "acl"
#define ACL_MAX_SIZE (1 << 20)
#define STDIN_MAX 4096

enum action { NONE, GENERATE, AUTHORIZE, PUBLIC_KEY, EXPORT, IMPORT, TO_CACHE };

static void usage(FILE *f)
{
	fprintf(f, "Usage: cix archive ACTION [OPTION]...\n"
		   "  or:  cix archive --export [-r] [--key-dir=DIR] PATH... >ARCHIVE\n"
		   "  or:  cix archive --import <ARCHIVE\n"
		   "  or:  cix archive --to-cache=DIR [-r] [-C TYPE] PATH...\n"
		   "Manage the signing key pair of this machine and the keys it trusts; export\n"
		   "and import store paths as signed archives.\n\n"
		   "      --generate-key[=NAME]  make a new key pair named NAME (default: the host\n"
		   "                             name followed by '-1'); existing keys are never\n"
		   "                             overwritten\n"
		   "      --authorize            add the public key read on standard input\n"
		   "                             (NAME:BASE64, as Nix writes it) to the trusted keys\n"
		   "      --public-key           print the public key of the key pair\n"
		   "      --export               write PATH... to standard output as an export\n"
		   "                             stream (nix-store --export), each path signed\n"
		   "                             with the secret key\n"
		   "      --to-cache=DIR         write PATH... into DIR as a static binary cache\n"
		   "                             (signed narinfos, compressed NARs), which any\n"
		   "                             HTTP server of files can serve\n"
		   "  -C, --compression=TYPE[:LEVEL]  with --to-cache: zstd (default), xz or none\n"
		   "  -r, --recursive            with --export or --to-cache, also every path PATH... refers\n"
		   "                             to, directly or not (dependencies first)\n"
		   "      --import               import the archive on standard input, all or\n"
		   "                             nothing, if every path in it is signed by a\n"
		   "                             trusted key; print the imported paths\n"
		   "      --key-dir=DIR          keep the key pair in DIR (default: the configuration\n"
		   "                             directory)\n"
		   "  -h, --help                 display this help and exit\n"
		   "  -V, --version              display version information and exit\n\n"
		   "The configuration directory is $CIX_CONF_DIR (default " DEFAULT_CONF_DIR "); it holds\n"
		   "the key pair, " SECRET_NAME " (mode 0600) and " PUBLIC_NAME ", and the\n"
		   "trusted keys, one per line, in the file " ACL_NAME ".\n");
	fprintf(f, "A signature is that of a narinfo (KEYNAME:BASE64 over the path's Nix\n"
		   "fingerprint); Nix 2.8's nix-store --import reads the archives and ignores it.\n");
}

static char *join(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", dir, name);
	return strbuf_detach(&sb, NULL);
}

/*
 * Write LEN bytes of BUF to a fresh temporary file next to PATH, with
 * exactly MODE, synced, then move it to PATH: by link() when exclusive
 * (an existing PATH is never replaced), else by rename(). 0 or -errno,
 * with a message printed.
 */
static int write_atomic(const char *path, const void *buf, size_t len, mode_t mode, int exclusive)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, r = 0;

	strbuf_addf(&tmp, "%s.tmp-%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0600);
	if (fd < 0 && errno == EEXIST && !unlink(tmp.buf))   /* a dead process's */
		fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  mode & 0600);
	if (fd < 0) {
		r = -errno;
		error("cannot create '%s': %s", tmp.buf, strerror(-r));
		goto out;
	}
	/* fchmod: exactly mode, whatever the umask. */
	if (fchmod(fd, mode) < 0 || cix_write_full(fd, buf, len) < 0 || fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r < 0) {
		error("cannot write '%s': %s", tmp.buf, strerror(-r));
	} else if (exclusive ? link(tmp.buf, path) < 0 : rename(tmp.buf, path) < 0) {
		r = -errno;
		if (r == -EEXIST)
			error("'%s' already exists: not overwriting it", path);
		else
			error("cannot create '%s': %s", path, strerror(-r));
	}
	if (exclusive || r < 0)
		unlink(tmp.buf);
out:
	strbuf_release(&tmp);
	return r;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int generate(const char *key_dir, const char *name_arg)
{
	char host[256];
	const char *name = name_arg;
	char *sec = join(key_dir, SECRET_NAME), *pub = join(key_dir, PUBLIC_NAME);
	struct cix_secret_key k;
	struct cix_public_key pk;
	struct cix_err err = { 0 };
	struct strbuf s = STRBUF_INIT, p = STRBUF_INIT, hostname = STRBUF_INIT;
	struct stat st;
	int r = EXIT_FAIL;

	if (!name) {
		if (gethostname(host, sizeof(host)) < 0) {
			error("cannot tell the host name: %s", strerror(errno));
			goto out;
		}
		host[sizeof(host) - 1] = '\0';
		strbuf_addf(&hostname, "%s-1", host);
		name = hostname.buf;
	}
	if (cix_key_name_check(name, strlen(name), &err) < 0) {
		error("invalid key name '%s': %s", name, err.msg);
		goto out;
	}
	if (!lstat(sec, &st) || !lstat(pub, &st)) {
		error("a key pair is already in '%s': not overwriting it (remove %s and %s first)",
		      key_dir, SECRET_NAME, PUBLIC_NAME);
		goto out;
	}
	if (cix_mkdirs(key_dir, &err) < 0 || cix_secret_key_generate(name, &k, &err) < 0) {
		error_err(&err);
		goto out;
	}
	cix_secret_key_format(&k, &s);
	cix_secret_key_public(&k, &pk);
	cix_public_key_format(&pk, &p);
	explicit_bzero(&k, sizeof(k));
	if (write_atomic(sec, s.buf, s.len, 0600, 1) < 0)
		goto out;
	if (write_atomic(pub, p.buf, p.len, 0644, 1) < 0) {
		unlink(sec);   /* ours: made just now */
		goto out;
	}
	sync_dir(key_dir);
	r = 0;
out:
	explicit_bzero(s.buf, s.len);
	strbuf_release(&s);
	strbuf_release(&p);
	strbuf_release(&hostname);
	free(sec);
	free(pub);
	return r;
}

static int public_key(const char *key_dir)
{
	char *pub = join(key_dir, PUBLIC_NAME);
	struct strbuf sb = STRBUF_INIT;
	struct cix_public_key pk;
	struct cix_err err = { 0 };
	int r = strbuf_read_file(&sb, pub, STDIN_MAX);

	if (r < 0) {
		r = r == -CIX_ELIMIT ? error("'%s' is too long for a public key", pub)
		    : r == -ENOENT ? error("no public key '%s' (make a key pair with --generate-key)", pub)
		    : error("cannot read '%s': %s", pub, strerror(-r));
		goto out;
	}
	/* Nix writes no newline; one added by hand is no harm. */
	if (sb.len && sb.buf[sb.len - 1] == '\n')
		strbuf_setlen(&sb, sb.len - 1);
	if (cix_public_key_parse(sb.buf, sb.len, &pk, &err) < 0) {
		r = error("%s: %s", pub, err.msg);
		goto out;
	}
	strbuf_reset(&sb);
	cix_public_key_format(&pk, &sb);
	puts(sb.buf);
	r = 0;
out:
	strbuf_release(&sb);
	free(pub);
	return r;
}

/* Read at most max bytes of standard input into sb; 0, or an exit status. */
static int read_stdin(struct strbuf *sb, size_t max)
{
	char buf[1024];
	for (;;) {
		ssize_t n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error("cannot read standard input: %s", strerror(errno));
		if (!n)
			return 0;
		if (sb->len + (size_t)n > max)
			return error("standard input: more than %zu bytes, not a public key", max);
		strbuf_add(sb, buf, (size_t)n);
	}
}

static int authorize(const char *conf_dir)
{
	char *acl_path = join(conf_dir, ACL_NAME);
	struct strbuf in = STRBUF_INIT, text = STRBUF_INIT;
	struct cix_public_key pk;
	struct cix_acl acl = CIX_ACL_INIT;
	struct cix_err err = { 0 };
	struct stat st;
	mode_t mode = 0644;
	int dfd = -1, r;

	if ((r = read_stdin(&in, STDIN_MAX)))
		goto out;
	while (in.len && (in.buf[in.len - 1] == '\n' || in.buf[in.len - 1] == ' '))
		strbuf_setlen(&in, in.len - 1);
	if (cix_public_key_parse(in.buf, in.len, &pk, &err) < 0) {
		r = error("standard input: %s", err.msg);
		goto out;
	}
	if (cix_mkdirs(conf_dir, &err) < 0) {
		r = error_err(&err);
		goto out;
	}
	/* Concurrent authorizations take turns: the lock is the directory's. */
	dfd = open(conf_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || flock(dfd, LOCK_EX) < 0) {
		r = error("cannot lock '%s': %s", conf_dir, strerror(errno));
		goto out;
	}
	r = strbuf_read_file(&text, acl_path, ACL_MAX_SIZE);
	if (r == -ENOENT) {
		r = 0;
	} else if (r < 0) {
		r = r == -CIX_ELIMIT ? error("'%s' is larger than %d bytes", acl_path, ACL_MAX_SIZE)
				     : error("cannot read '%s': %s", acl_path, strerror(-r));
		goto out;
	} else if (!stat(acl_path, &st)) {
		mode = st.st_mode & 07777;
	}
	if (cix_acl_parse(text.buf, text.len, &acl, &err) < 0) {
		r = error("%s: %s", acl_path, err.msg);
		goto out;
	}
	r = 0;
	if (cix_acl_has(&acl, &pk))
		goto out;     /* already trusted: nothing to do */
	if (cix_acl_add(&acl, &pk, &err) < 0) {
		r = error("%s: %s", acl_path, err.msg);
		goto out;
	}
	/* The file as it was, comments included, and the new key. */
	if (text.len && text.buf[text.len - 1] != '\n')
		strbuf_addch(&text, '\n');
	cix_public_key_format(&pk, &text);
	strbuf_addch(&text, '\n');
	if (write_atomic(acl_path, text.buf, text.len, mode, 0) < 0)
		r = EXIT_FAIL;
	else
		sync_dir(conf_dir);
out:
	if (dfd >= 0)
		close(dfd);
	cix_acl_release(&acl);
	strbuf_release(&in);
	strbuf_release(&text);
	free(acl_path);
	return r;
}

int cmd_archive(int argc, char **argv)
{
	enum { OPT_GENERATE = 0x100, OPT_AUTHORIZE, OPT_PUBLIC, OPT_KEY_DIR, OPT_EXPORT,
	       OPT_IMPORT, OPT_TO_CACHE };
	static const struct option opts[] = {
		{ "generate-key", optional_argument, NULL, OPT_GENERATE },
		{ "authorize", no_argument, NULL, OPT_AUTHORIZE },
		{ "public-key", no_argument, NULL, OPT_PUBLIC },
		{ "key-dir", required_argument, NULL, OPT_KEY_DIR },
		{ "export", no_argument, NULL, OPT_EXPORT },
		{ "import", no_argument, NULL, OPT_IMPORT },
		{ "to-cache", required_argument, NULL, OPT_TO_CACHE },
		{ "compression", required_argument, NULL, 'C' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum action a = NONE;
	const char *name = NULL, *key_dir = NULL, *conf_dir = cix_env(CIX_ENV_CONF_DIR);
	const char *cache_dir = NULL;
	enum cix_comp comp = CIX_COMP_ZSTD;
	int c, recursive = 0, status, level = -1, comp_given = 0;
	struct cix_err err = { 0 };
	char *file;

	while ((c = getopt_long(argc, argv, ":hVrC:", opts, NULL)) != -1) {
		enum action next;
		switch (c) {
		case OPT_GENERATE:
			next = GENERATE;
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];   /* --generate-key NAME */
			name = optarg;
			break;
		case OPT_AUTHORIZE: next = AUTHORIZE; break;
		case OPT_PUBLIC: next = PUBLIC_KEY; break;
		case OPT_EXPORT: next = EXPORT; break;
		case OPT_IMPORT: next = IMPORT; break;
		case OPT_TO_CACHE:
			if (!*optarg)
				return usage_error("empty cache directory");
			next = TO_CACHE;
			cache_dir = optarg;
			break;
		case 'C':
			if (cix_comp_parse(optarg, &comp, &level, &err) < 0)
				return usage_error("%s", err.msg);
			comp_given = 1;
			continue;
		case 'r':
			recursive = 1;
			continue;
		case OPT_KEY_DIR:
			if (!*optarg)
				return usage_error("empty key directory");
			key_dir = optarg;
			continue;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
		if (a != NONE && next != a)
			return usage_error("only one action at a time");
		a = next;
	}
	if (a == NONE)
		return usage_error("no action given (--generate-key, --authorize, --public-key, "
				   "--export, --import or --to-cache)");
	if (optind < argc && a != EXPORT && a != TO_CACHE)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if ((a == EXPORT || a == TO_CACHE) && optind == argc)
		return usage_error("%s needs store paths", a == EXPORT ? "--export" : "--to-cache");
	if (recursive && a != EXPORT && a != TO_CACHE)
		return usage_error("--recursive goes with --export or --to-cache only");
	if (comp_given && a != TO_CACHE)
		return usage_error("--compression goes with --to-cache only");
	if (!conf_dir || !*conf_dir)
		conf_dir = DEFAULT_CONF_DIR;
	if (!key_dir)
		key_dir = conf_dir;
	switch (a) {
	case GENERATE: return generate(key_dir, name);
	case PUBLIC_KEY: return public_key(key_dir);
	case AUTHORIZE: return authorize(conf_dir);
	case EXPORT:
		file = join(key_dir, SECRET_NAME);
		status = archive_export(file, recursive, argv + optind, argc - optind);
		break;
	case TO_CACHE:
		file = join(key_dir, SECRET_NAME);
		status = archive_to_cache(file, cache_dir, comp, level, recursive, argv + optind,
					  argc - optind);
		break;
	default:
		file = join(conf_dir, ACL_NAME);
		status = archive_import(file);
		break;
	}
	free(file);
	return status;
}
