/* cmd-refresh.c - cix refresh: GNU packages with a newer upstream release, and their update */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "index.h"
#include "remove.h"
#include "refresh.h"
#include "strbuf.h"
#include "strvec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LISTING (16UL << 20)

/*
 * The core packages are those whose update rebuilds most of the
 * distribution: the ones defined in these modules (the bootstrap, and the
 * GNU tools every gnu-build-system package is built with).
 */
static const char *const core_modules[] = {
	"gnu/packages/base.scm",
	"gnu/packages/bootstrap.scm",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix refresh [OPTION]... [PACKAGE]...\n"
		"Show the GNU packages of the distribution (or the PACKAGEs named) that\n"
		"have a newer upstream release, or update their definitions to it.\n\n"
		"  -u, --update           download the new release and its signature,\n"
		"                         check it, and write the new version and sha256\n"
		"                         into the package's definition\n"
		"  -s, --select=SUBSET    only the packages of SUBSET: core (those of\n"
		"                         (gnu packages base) and (gnu packages bootstrap))\n"
		"                         or non-core (the others)\n"
		"      --key-download=POLICY\n"
		"                         when the signing key is missing from the keyring:\n"
		"                         interactive (ask; the default), always, never\n"
		"      --key-server=URL   fetch keys from URL (default %s)\n"
		"      --gpg=COMMAND      check signatures with COMMAND (default gpgv)\n"
		"      --keyring=FILE     the keys trusted to sign releases (default\n"
		"                         ~/.config/cix/upstream/trustedkeys.kbx)\n"
		"      --gnu-url=URL      GNU's releases are below URL (default $CIX_GNU_URL,\n"
		"                         or %s)\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n",
		"hkps://keyserver.ubuntu.com", CIX_GNU_URL_DEFAULT);
}

/* ---- options ---- */

static char *trimmed_url(const char *s)
{
	char *u = xstrdup(s);
	size_t n = strlen(u);
	while (n && u[n - 1] == '/')
		u[--n] = '\0';
	return u;
}

/* hkps://HOST, hkp://HOST[:PORT], http(s)://..., or a bare HOST (over https); NULL: bad. */
static char *key_server_url(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *host = NULL;
	if (!strncmp(s, "hkps://", 7))
		strbuf_addf(&sb, "https://%s", host = s + 7);
	else if (!strncmp(s, "hkp://", 6)) {
		host = s + 6;
		strbuf_addf(&sb, "http://%.*s", (int)strcspn(host, "/"), host);
		if (!memchr(host, ':', strcspn(host, "/")))
			strbuf_addstr(&sb, ":11371");
	} else if (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8))
		strbuf_addstr(&sb, host = s);
	else if (!strstr(s, "://"))
		strbuf_addf(&sb, "https://%s", host = s);
	if (!host || !*host || strpbrk(s, " \t\n?#")) {
		strbuf_release(&sb);
		return NULL;
	}
	char *u = trimmed_url(sb.buf);
	strbuf_release(&sb);
	return u;
}

static char *absolute(const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	char cwd[4096];
	if (file[0] != '/' && getcwd(cwd, sizeof(cwd)))
		strbuf_addf(&sb, "%s/", cwd);
	strbuf_addstr(&sb, file);
	return strbuf_detach(&sb, NULL);
}

static char *default_keyring(void)
{
	const char *xdg = cix_env(CIX_ENV_XDG_CONFIG_HOME), *home = cix_env(CIX_ENV_HOME);
	struct strbuf sb = STRBUF_INIT;
	if (xdg && *xdg == '/')
		strbuf_addf(&sb, "%s/cix/upstream/trustedkeys.kbx", xdg);
	else
		strbuf_addf(&sb, "%s/.config/cix/upstream/trustedkeys.kbx", home ? home : "");
	char *r = absolute(sb.buf);
	strbuf_release(&sb);
	return r;
}

char *refresh_temp_name(struct refresh_opts *o, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%lu", o->tmpdir, ++o->downloads);
	mkdir(sb.buf, 0700);
	strbuf_addf(&sb, "/%s", name);
	return strbuf_detach(&sb, NULL);
}

/* ---- the packages ---- */

/* "FILE:LINE:COLUMN" -> its parts; -1 when it is not so. */
static int split_location(const char *loc, char **file, unsigned long *line, unsigned long *col)
{
	const char *c2 = strrchr(loc, ':'), *c1;
	unsigned long long l, c;
	if (!c2 || c2 == loc)
		return -1;
	for (c1 = c2 - 1; c1 > loc && *c1 != ':'; c1--)
		;
	if (c1 == loc)
		return -1;
	char *ls = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
	int bad = cix_parse_decimal(ls, 1UL << 30, &l) < 0 || cix_parse_decimal(c2 + 1, 1UL << 30, &c) < 0;
	free(ls);
	if (bad)
		return -1;
	*file = xstrndup(loc, (size_t)(c1 - loc));
	*line = (unsigned long)l;
	*col = (unsigned long)c;
	return 0;
}

/*
 * A relative file (as compiled modules record them) is looked for in the
 * search directories, as Guile does: the first that has it; malloc'd.
 */
static char *found_file(const char *file, const struct strvec *dirs)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; file[0] != '/' && i < dirs->nr; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/%s", dirs->v[i], file);
		if (access(sb.buf, F_OK) == 0)
			return strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
	return xstrdup(file);
}

/* file relative to the search directory it is in, as Guix shows package locations. */
static const char *shown_file(const char *file, const struct strvec *dirs)
{
	for (size_t i = 0; i < dirs->nr; i++) {
		size_t n = strlen(dirs->v[i]);
		while (n > 1 && dirs->v[i][n - 1] == '/')
			n--;
		if (n && !strncmp(file, dirs->v[i], n) && file[n] == '/')
			return file + n + 1;
	}
	return file;
}

static int is_core(const char *shown)
{
	for (size_t i = 0; i < ARRAY_SIZE(core_modules); i++)
		if (!strcmp(shown, core_modules[i]))
			return 1;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct cix_refresh_pkg *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->location, y->location);
}

/* Every package, or those named (each once), into *v. 0, or the exit status. */
static int read_packages(char **names, int n, struct cix_refresh_pkg **v, size_t *nr)
{
	struct cix_err err = { 0 };
	size_t alloc = 0;
	*v = NULL;
	*nr = 0;
	if (!n) {
		if (cix_scheme_refresh_packages(NULL, v, nr, &err) < 0)
			return error_err(&err);
		qsort(*v, *nr, sizeof(**v), by_name);
		return 0;
	}
	index_hint_lookups();
	for (int i = 0; i < n; i++) {
		struct cix_refresh_pkg *one;
		size_t k;
		if (cix_scheme_refresh_packages(names[i], &one, &k, &err) < 0)
			return error_err(&err);
		for (size_t j = 0; j < k; j++) {
			int dup = 0;
			for (size_t m = 0; m < *nr && !dup; m++)
				dup = !by_name(&(*v)[m], &one[j]);
			if (dup) {
				cix_refresh_pkgs_free(&one[j], 1);
				continue;
			}
			ALLOC_GROW(*v, *nr + 1, alloc);
			(*v)[(*nr)++] = one[j];
		}
		free(one);
	}
	index_hint_done();
	return 0;
}

/* ---- the newest releases ---- */

struct listing {
	char *dir;
	char *version;      /* NULL: it could not be had */
	int exts;
};

static struct listing *listings;
static size_t nr_listings, alloc_listings;

/* The newest release in BASE/DIR/ (each directory fetched once); NULL when none (said). */
static const struct listing *newest(struct refresh_opts *o, const char *pkg,
				    const struct cix_gnu_source *src)
{
	struct strbuf url = STRBUF_INIT, text = STRBUF_INIT;
	struct cix_fetch_opts fo = o->fetch;
	struct cix_err err = { 0 };
	struct listing *l;

	for (size_t i = 0; i < nr_listings; i++)
		if (!strcmp(listings[i].dir, src->dir))
			return listings[i].version ? &listings[i] : NULL;
	ALLOC_GROW(listings, nr_listings + 1, alloc_listings);
	l = &listings[nr_listings++];
	memset(l, 0, sizeof(*l));
	l->dir = xstrdup(src->dir);
	strbuf_addf(&url, "%s/%s/", o->gnu_url, src->dir);
	char *file = refresh_temp_name(o, "listing");
	fo.max_size = MAX_LISTING;
	fo.progress_fd = -1;
	if (cix_fetch_url(url.buf, file, NULL, 0, 0, &fo, &err) < 0)
		error("%s: cannot list the releases: %s", pkg, err.msg);
	else if (strbuf_read_file(&text, file, MAX_LISTING) < 0)
		error("%s: cannot read the list of releases from %s", pkg, url.buf);
	else if (cix_gnu_latest_release(text.buf, text.len, src->project, &l->version, &l->exts,
					&err) < 0)
		error("%s: %s has no release of %s", pkg, url.buf, src->project);
	unlink(file);
	free(file);
	strbuf_release(&url);
	strbuf_release(&text);
	return l->version ? l : NULL;
}

/* One package: reported, or updated. 0, or -1 when something failed (said). */
static int refresh_one(struct refresh_opts *o, const struct cix_refresh_pkg *p,
		       const struct strvec *dirs, int named, int select)
{
	struct refresh_job job = { .pkg = p };
	const struct listing *l;
	int r = 0;

	if (split_location(p->location, &job.file, &job.line, &job.column) < 0) {
		if (!named)
			return 0;
		error("%s: where it is defined is not known", p->name);
		return -1;
	}
	char *rel = job.file;
	job.file = found_file(rel, dirs);
	free(rel);
	job.shown = shown_file(job.file, dirs);
	if (select && is_core(job.shown) != (select == 'c'))
		goto out;
	if (!cix_gnu_source_parse(p->uri, p->version, o->gnu_url, &job.src)) {
		if (named)
			fprintf(stderr, "%s: warning: %s: not a GNU package (its source is not a "
				"GNU release tarball): skipped\n", cix_progname, p->name);
		goto out;
	}
	if (!(l = newest(o, p->name, &job.src))) {
		r = -1;
		goto out;
	}
	if (cix_gnu_version_cmp(l->version, p->version) <= 0)
		goto out;
	if (!o->update) {
		printf("%s:%lu:%lu: %s would be upgraded from %s to %s\n", job.shown, job.line,
		       job.column, p->name, p->version, l->version);
		goto out;
	}
	fprintf(stderr, "%s:%lu:%lu: %s: updating from version %s to version %s...\n",
		job.shown, job.line, job.column, p->name, p->version, l->version);
	job.new_version = l->version;
	job.exts = l->exts;
	r = refresh_update(o, &job);
out:
	cix_gnu_source_release(&job.src);
	free(job.file);
	return r;
}

int cmd_refresh(int argc, char **argv)
{
	enum { OPT_KEY_DOWNLOAD = 256, OPT_KEY_SERVER, OPT_GPG, OPT_KEYRING, OPT_GNU_URL };
	static const struct option longopts[] = {
		{ "update", no_argument, NULL, 'u' },
		{ "select", required_argument, NULL, 's' },
		{ "key-download", required_argument, NULL, OPT_KEY_DOWNLOAD },
		{ "key-server", required_argument, NULL, OPT_KEY_SERVER },
		{ "gpg", required_argument, NULL, OPT_GPG },
		{ "keyring", required_argument, NULL, OPT_KEYRING },
		{ "gnu-url", required_argument, NULL, OPT_GNU_URL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct refresh_opts o = { .key_download = KEY_INTERACTIVE, .gpg = "gpgv" };
	const char *keyring = NULL, *key_server = "hkps://keyserver.ubuntu.com";
	const char *gnu_url = cix_env(CIX_ENV_GNU_URL);
	struct cix_refresh_pkg *pkgs = NULL;
	struct strvec dirs = STRVEC_INIT;
	struct strbuf sp = STRBUF_INIT;
	struct cix_err err = { 0 };
	int c, select = 0, status = 0;
	size_t n = 0;

	while ((c = getopt_long(argc, argv, ":us:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o.update = 1; break;
		case 's':
			if (!strcmp(optarg, "core"))
				select = 'c';
			else if (!strcmp(optarg, "non-core"))
				select = 'n';
			else
				return usage_error("%s: invalid selection; expected 'core' or 'non-core'",
						   optarg);
			break;
		case OPT_KEY_DOWNLOAD:
			if (!strcmp(optarg, "interactive"))
				o.key_download = KEY_INTERACTIVE;
			else if (!strcmp(optarg, "always"))
				o.key_download = KEY_ALWAYS;
			else if (!strcmp(optarg, "never"))
				o.key_download = KEY_NEVER;
			else
				return usage_error("%s: invalid key download policy; expected "
						   "'interactive', 'always' or 'never'", optarg);
			break;
		case OPT_KEY_SERVER: key_server = optarg; break;
		case OPT_GPG:
			if (!*optarg)
				return usage_error("--gpg needs a command");
			o.gpg = optarg;
			break;
		case OPT_KEYRING:
			if (!*optarg)
				return usage_error("--keyring needs a file");
			keyring = optarg;
			break;
		case OPT_GNU_URL: gnu_url = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (!gnu_url || !*gnu_url)
		gnu_url = CIX_GNU_URL_DEFAULT;
	if (!strstr(gnu_url, "://") || strpbrk(gnu_url, " \t\n?#"))
		return usage_error("%s: the GNU URL must be a URL (such as %s)", gnu_url,
				   CIX_GNU_URL_DEFAULT);
	if (!(o.key_server = key_server_url(key_server)))
		return usage_error("%s: the key server must be hkps://HOST, hkp://HOST, an http(s) "
				   "URL or a host name", key_server);
	o.gnu_url = trimmed_url(gnu_url);
	o.keyring = keyring ? absolute(keyring) : default_keyring();
	cix_fetch_opts_init(&o.fetch);
	o.fetch.progress_fd = 2;

	struct strbuf tmp = STRBUF_INIT;
	const char *t = cix_env(CIX_ENV_TMPDIR);
	strbuf_addf(&tmp, "%s/cix-refresh-XXXXXX", t);
	if (!mkdtemp(tmp.buf)) {
		status = error("cannot make a directory in %s: %s", t,
			       strerror(errno));
		strbuf_release(&tmp);
		goto out;
	}
	o.tmpdir = strbuf_detach(&tmp, NULL);

	if ((status = read_packages(argv + optind, argc - optind, &pkgs, &n)))
		goto out;
	cix_scheme_search_path(&sp);
	strvec_split(&dirs, sp.buf, ":");
	for (size_t i = 0; i < n; i++)
		if (refresh_one(&o, &pkgs[i], &dirs, optind < argc, optind < argc ? 0 : select) < 0)
			status = EXIT_FAIL;
out:
	if (o.tmpdir && cix_remove_tree_at(AT_FDCWD, o.tmpdir, &err) < 0)
		fprintf(stderr, "%s: warning: %s\n", cix_progname, err.msg);
	for (size_t i = 0; i < nr_listings; i++) {
		free(listings[i].dir);
		free(listings[i].version);
	}
	free(listings);
	if (o.store)
		cix_store_close(o.store);
	cix_refresh_pkgs_free(pkgs, n);
	strvec_clear(&dirs);
	strbuf_release(&sp);
	free(o.tmpdir);
	free(o.key_server);
	free(o.gnu_url);
	free(o.keyring);
	return status;
}
