/* cmd-pull.c - cix pull: the package collection updated from a git repository */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "gc.h"
#include "remove.h"
#include "profile.h"
#include "pull-ops.h"
#include "pull.h"
#include "store.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Where cix is developed. The project has no public repository yet: the
 * default names none that could answer (.invalid never resolves), so that
 * a plain `cix pull` fails cleanly rather than running someone else's
 * code; give --url, set CIX_PULL_URL, or build with
 * -DCIX_PULL_DEFAULT_URL='"URL"'.
 */
#ifndef CIX_PULL_DEFAULT_URL
#define CIX_PULL_DEFAULT_URL "https://git.cix.invalid/cix.git"
#endif

struct pull_opts {
	const char *url, *branch, *commit;
	const char *switch_to;        /* -S N|+N|-N */
	int list, roll_back;
	int build_cix;                /* --build-cix */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix pull [OPTION]...\n"
		"Update cix's package collection (its Scheme modules) from a git repository,\n"
		"build it into the store and use it from now on: a new generation of\n"
		"~/.config/cix/current.\n\n"
		"      --url=URL          the repository (default: $CIX_PULL_URL, else\n"
		"                         " CIX_PULL_DEFAULT_URL ")\n"
		"      --branch=BRANCH    the head of BRANCH (default: the remote's HEAD)\n"
		"      --commit=COMMIT    that commit (full or abbreviated)\n"
		"      --build-cix        also build the commit's own cix from its source:\n"
		"                         its programs in ~/.config/cix/current/bin\n"
		"  -l, --list-generations list the generations, with their commits\n"
		"      --roll-back        switch to the previous generation\n"
		"  -S, --switch-generation=N  switch to generation N (+N, -N: relative)\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n");
}

/* The commit a generation holds (its file), or "?" (malloc'd). */
static char *gen_commit(const char *path)
{
	struct strbuf sb = STRBUF_INIT, file = STRBUF_INIT;
	strbuf_addf(&file, "%s/" CIX_PULL_COMMIT, path);
	if (strbuf_read_file(&sb, file.buf, 256) < 0 || !sb.len ||
	    strspn(sb.buf, "0123456789abcdef") != sb.len - 1 || sb.buf[sb.len - 1] != '\n') {
		strbuf_reset(&sb);
		strbuf_addch(&sb, '?');
	} else {
		strbuf_setlen(&sb, sb.len - 1);
	}
	strbuf_release(&file);
	return strbuf_detach(&sb, NULL);
}

static int list_generations(const char *profile, struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0;
	long current = -1;
	int r;
	if ((r = cix_profile_generations(profile, &v, &n, err)) < 0 ||
	    (r = cix_profile_current(profile, &current, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char when[64], *commit = gen_commit(v[i].target);
		struct tm tm;
		localtime_r(&v[i].time, &tm);
		strftime(when, sizeof(when), "%b %d %Y %H:%M:%S", &tm);
		printf("Generation %ld\t%s%s\n  commit %s\n  %s\n\n", v[i].number, when,
		       v[i].number == current ? "\t(current)" : "", commit, v[i].target);
		free(commit);
	}
out:
	cix_generations_release(v, n);
	return r;
}

/* --roll-back (to the previous existing generation) or -S ARG, under the profile's lock. */
static int switch_generation(const char *profile, const char *arg, struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0;
	long cur = -1, to = -1;
	int fd = -1, r;
	if ((r = cix_profile_lock(profile, &fd, err)) < 0 ||
	    (r = cix_profile_current(profile, &cur, err)) < 0 ||
	    (r = cix_profile_generations(profile, &v, &n, err)) < 0)
		goto out;
	if (cur < 0) {
		r = cix_error(err, -CIX_ENOTFOUND, "no generation yet: run cix pull first");
		goto out;
	}
	if (!arg) {
		for (size_t i = 0; i < n && v[i].number < cur; i++)
			to = v[i].number;
		if (to < 0) {
			r = cix_error(err, -CIX_ENOTFOUND, "no generation before %ld", cur);
			goto out;
		}
	} else {
		int sign = arg[0] == '+' ? 1 : arg[0] == '-' ? -1 : 0;
		unsigned long long k;
		if (cix_parse_decimal(arg + (sign != 0), 1000000000, &k) < 0) {
			r = cix_error(err, -CIX_EINVAL, "invalid generation '%s'", arg);
			goto out;
		}
		to = sign ? cur + sign * (long)k : (long)k;
	}
	if ((r = cix_profile_switch(profile, to, err)) == 0)
		fprintf(stderr, "%s: switched from generation %ld to %ld\n", cix_progname, cur, to);
out:
	cix_generations_release(v, n);
	cix_profile_unlock(fd);
	return r;
}

/* A temporary directory of the pull cache, CACHE/tmp-PID-XXXXXX (those of dead runs removed). */
static int make_work(const char *cache, struct strbuf *work, struct cix_err *err)
{
	DIR *d = opendir(cache);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (cix_name_of_dead_process(de->d_name, "tmp")) {
			struct strbuf p = STRBUF_INIT;
			strbuf_addf(&p, "%s/%s", cache, de->d_name);
			cix_remove_tree_at(AT_FDCWD, p.buf, NULL);
			strbuf_release(&p);
		}
	if (d)
		closedir(d);
	strbuf_addf(work, "%s/tmp-%ld-XXXXXX", cache, (long)getpid());
	if (!mkdtemp(work->buf))
		return cix_error_errno(err, -errno, "cannot create '%s'", work->buf);
	return 0;
}

/*
 * The store item the next generation, each generation's link an indirect
 * GC root (registered before the link is made: the item is a temporary
 * root of this process meanwhile), under the profile's lock.
 */
static int add_generation(struct cix_store *s, const char *profile, const char *path,
			  long *number, struct cix_err *err)
{
	struct cix_generation *v = NULL;
	struct strbuf link = STRBUF_INIT;
	size_t n = 0;
	long next = 1;
	int fd = -1, r;
	if ((r = cix_profile_lock(profile, &fd, err)) < 0 ||
	    (r = cix_profile_generations(profile, &v, &n, err)) < 0)
		goto out;
	if (n && v[n - 1].number == LONG_MAX) {
		r = cix_error(err, -CIX_ELIMIT, "too many generations in '%s'", profile);
		goto out;
	}
	if (n)
		next = v[n - 1].number + 1;
	for (size_t i = 0; i <= n; i++) {
		strbuf_reset(&link);
		strbuf_addf(&link, "%s-%ld-link", profile, i < n ? v[i].number : next);
		if ((r = cix_store_add_indirect_root(s, link.buf, err)) < 0)
			goto out;
	}
	if ((r = cix_profile_add_generation(profile, path, number, err)) == 0 && *number != next)
		r = cix_error(err, -CIX_EINVAL, "'%s' changed meanwhile", profile);
out:
	cix_generations_release(v, n);
	strbuf_release(&link);
	cix_profile_unlock(fd);
	return r;
}

/* Has the current generation programs of its own (made with --build-cix)? */
static int current_has_cix(const char *profile)
{
	struct strbuf p = STRBUF_INIT;
	strbuf_addf(&p, "%s/bin/cix", profile);
	int has = access(p.buf, X_OK) == 0;
	strbuf_release(&p);
	return has;
}

/* The commit of the current generation, or NULL. */
static char *current_commit(const char *profile)
{
	char *tree = realpath(profile, NULL), *c;
	if (!tree)
		return NULL;
	c = gen_commit(tree);
	free(tree);
	return c;
}

static int pull(const struct pull_opts *o, const char *profile)
{
	struct cix_err err = { 0 };
	struct pull_repo repo = { NULL, -1, 0 };
	struct strbuf commit = STRBUF_INIT, work = STRBUF_INIT, tree = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT, dir = STRBUF_INIT;
	struct cix_store *s = NULL;
	char *cache = NULL, *cur = NULL;
	size_t nr_modules = 0, nr_packages = 0;
	long number = 0;
	int r, status = EXIT_FAIL, has_cix, build_cix;

	setenv("GIT_TERMINAL_PROMPT", "0", 1);
	strbuf_add(&dir, profile, (size_t)(strrchr(profile, '/') - profile));
	if ((r = cix_mkdirs(dir.buf, &err)) < 0 || (r = pull_cache_dir(&cache, &err)) < 0)
		goto fail;
	fprintf(stderr, "%s: fetching %s\n", cix_progname, o->url);
	if ((r = pull_fetch(&repo, o->url, o->branch, o->commit, &commit, &err)) < 0)
		goto fail;
	/* Once a generation has programs, the next one has them too. */
	has_cix = current_has_cix(profile);
	build_cix = o->build_cix || has_cix;
	if ((cur = current_commit(profile)) && !strcmp(cur, commit.buf) && (!build_cix || has_cix)) {
		fprintf(stderr, "%s: already at commit %s\n", cix_progname, commit.buf);
		status = 0;
		goto out;
	}
	if ((r = make_work(cache, &work, &err)) < 0)
		goto fail;
	strbuf_addf(&tree, "%s/cix-pull-%.7s", work.buf, commit.buf);
	fprintf(stderr, "%s: building commit %s\n", cix_progname, commit.buf);
	if ((r = pull_extract(&repo, commit.buf, work.buf, tree.buf, &err)) < 0)
		goto fail;
	pull_repo_close(&repo);
	if ((r = pull_compile(tree.buf, &nr_modules, &err)) < 0)
		goto broken;
	if ((r = cix_store_open_client(&s, &err)) < 0 ||
	    (r = cix_store_add(s, tree.buf, CIX_ADD_RECURSIVE, CIX_HASH_SHA256, &path, &err)) < 0)
		goto fail;
	if ((r = pull_validate(path.buf, &nr_packages, &err)) < 0)
		goto broken;
	if (build_cix) {
		char *gen = NULL;
		r = pull_build_cix(s, path.buf, tree.buf, commit.buf, work.buf, &gen, &err);
		if (!r) {
			strbuf_reset(&path);
			strbuf_addstr(&path, gen);
		}
		free(gen);
		if (r < 0)
			goto broken;
	}
	if ((r = add_generation(s, profile, path.buf, &number, &err)) < 0)
		goto fail;
	fprintf(stderr, "%s: generation %ld: %s (%zu modules, %zu packages)\n", cix_progname,
		number, path.buf, nr_modules, nr_packages);
	if (build_cix)
		fprintf(stderr, "%s: its cix is %s/bin/cix: put that directory first in PATH\n",
			cix_progname, profile);
	status = 0;
	goto out;
broken:
	error("commit %.12s is broken (the current generation stays): %s", commit.buf, err.msg);
	goto out;
fail:
	error_err(&err);
out:
	if (work.len)
		cix_remove_tree_at(AT_FDCWD, work.buf, NULL);
	if (s)
		cix_store_close(s);
	pull_repo_close(&repo);
	free(cache);
	free(cur);
	strbuf_release(&commit);
	strbuf_release(&work);
	strbuf_release(&tree);
	strbuf_release(&path);
	strbuf_release(&dir);
	return status;
}

int cmd_pull(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "branch", required_argument, NULL, 'b' },
		{ "commit", required_argument, NULL, 'c' },
		{ "build-cix", no_argument, NULL, 'B' },
		{ "list-generations", no_argument, NULL, 'l' },
		{ "roll-back", no_argument, NULL, 'R' },
		{ "switch-generation", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct pull_opts o = { 0 };
	struct cix_err err = { 0 };
	char *profile;
	int c, status = 0;

	while ((c = getopt_long(argc, argv, ":lS:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'u': o.url = optarg; break;
		case 'b': o.branch = optarg; break;
		case 'c': o.commit = optarg; break;
		case 'B': o.build_cix = 1; break;
		case 'l': o.list = 1; break;
		case 'R': o.roll_back = 1; break;
		case 'S': o.switch_to = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o.list + o.roll_back + !!o.switch_to > 1 ||
	    ((o.list || o.roll_back || o.switch_to) && (o.url || o.branch || o.commit || o.build_cix)))
		return usage_error("-l, --roll-back, -S and pulling are separate");
	if (o.branch && o.commit)
		return usage_error("--branch and --commit are exclusive");
	if (o.branch && !pull_branch_ok(o.branch))
		return usage_error("invalid branch name '%s'", o.branch);
	if (o.commit && !pull_commit_ok(o.commit))
		return usage_error("invalid commit '%s': 4 to 64 hexadecimal digits", o.commit);
	if (!o.url)
		o.url = cix_env(CIX_ENV_PULL_URL) ? cix_env(CIX_ENV_PULL_URL) : CIX_PULL_DEFAULT_URL;
	if (!*o.url || o.url[0] == '-')
		return usage_error("invalid URL '%s'", o.url);
	if (!(profile = cix_pull_profile()))
		return error("HOME is not set: nowhere to keep the generations");
	if (o.list)
		status = list_generations(profile, &err) < 0 ? error_err(&err) : 0;
	else if (o.roll_back || o.switch_to)
		status = switch_generation(profile, o.switch_to, &err) < 0 ? error_err(&err) : 0;
	else
		status = pull(&o, profile);
	free(profile);
	return status;
}
