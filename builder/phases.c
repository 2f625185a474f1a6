/* phases.c - gnu-build: the built-in phases */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gb_need_bash(struct gb_build *b, char *err, size_t errlen)
{
	if (!b->bash)
		b->bash = gb_which("bash");
	if (!b->bash) {
		snprintf(err, errlen, "no 'bash' in PATH");
		return -1;
	}
	return 0;
}

static void push_flags(struct strv *argv, const struct strv *flags)
{
	size_t i;
	for (i = 0; i < flags->nr; i++)
		strv_push(argv, flags->v[i]);
}

static void add_search_path(char **var, const char *dir)
{
	struct stat st;
	char *n;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	n = *var ? gb_xasprintf("%s:%s", *var, dir) : gb_xstrdup(dir);
	free(*var);
	*var = n;
}

static int phase_set_paths(struct gb_build *b, char *err, size_t errlen)
{
	static const struct { const char *var, *sub[2]; } paths[] = {
		{ "PATH", { "bin", "sbin" } },
		{ "CPATH", { "include", NULL } },
		{ "LIBRARY_PATH", { "lib", NULL } },
		{ "PKG_CONFIG_PATH", { "lib/pkgconfig", "share/pkgconfig" } },
		{ "ACLOCAL_PATH", { "share/aclocal", NULL } },
	};
	/*
	 * Cross-building, the build machine's inputs give PATH and
	 * ACLOCAL_PATH only; the target's (targetInputs) give the headers and
	 * libraries, to the cross compiler's wrapper, and pkg-config's path.
	 */
	static const struct { const char *var, *sub[2]; } cross_paths[] = {
		{ "CROSS_CPATH", { "include", NULL } },
		{ "CROSS_LIBRARY_PATH", { "lib", NULL } },
		{ "PKG_CONFIG_PATH", { "lib/pkgconfig", "share/pkgconfig" } },
	};
	struct strv inputs = { NULL, 0, 0 }, target = { NULL, 0, 0 };
	size_t i, j, k;

	(void)err;
	(void)errlen;
	strv_split(&inputs, getenv("buildInputs"), " \t\n");
	strv_split(&target, getenv("targetInputs"), " \t\n");
	for (k = 0; k < sizeof(paths) / sizeof(*paths); k++) {
		char *val = NULL;
		if (b->target && (!strcmp(paths[k].var, "CPATH") ||
				  !strcmp(paths[k].var, "LIBRARY_PATH") ||
				  !strcmp(paths[k].var, "PKG_CONFIG_PATH"))) {
			unsetenv(paths[k].var);
			continue;
		}
		for (i = 0; i < inputs.nr; i++)
			for (j = 0; j < 2 && paths[k].sub[j]; j++) {
				char *d = gb_xasprintf("%s/%s", inputs.v[i], paths[k].sub[j]);
				add_search_path(&val, d);
				free(d);
			}
		if (val)
			setenv(paths[k].var, val, 1);
		else if (!strcmp(paths[k].var, "PATH"))
			setenv("PATH", "/path-not-set", 1);
		else
			unsetenv(paths[k].var);
		fprintf(stderr, "gnu-build: %s=", paths[k].var);
		gb_fput_escaped(stderr, val ? val : "(unset)");
		fputc('\n', stderr);
		free(val);
	}
	for (k = 0; b->target && k < sizeof(cross_paths) / sizeof(*cross_paths); k++) {
		char *val = NULL;
		for (i = 0; i < target.nr; i++)
			for (j = 0; j < 2 && cross_paths[k].sub[j]; j++) {
				char *d = gb_xasprintf("%s/%s", target.v[i], cross_paths[k].sub[j]);
				add_search_path(&val, d);
				free(d);
			}
		if (val)
			setenv(cross_paths[k].var, val, 1);
		else
			unsetenv(cross_paths[k].var);
		fprintf(stderr, "gnu-build: %s=", cross_paths[k].var);
		gb_fput_escaped(stderr, val ? val : "(unset)");
		fputc('\n', stderr);
		free(val);
	}
	strv_clear(&inputs);
	strv_clear(&target);
	free(b->bash);
	b->bash = gb_which("bash");
	return 0;
}

/* Name of a source without its store hash, as stdenv's stripHash. */
static const char *strip_hash(const char *base)
{
	size_t i;
	for (i = 0; i < 32; i++)
		if (!base[i] || base[i] == '/' || base[i] == '-')
			return base;
	return base[32] == '-' && base[33] ? base + 33 : base;
}

static int make_writable(int dirfd, const char *name, const char *path, const struct stat *st,
			 void *ctx, char *err, size_t errlen)
{
	mode_t want;
	(void)ctx;
	if (S_ISLNK(st->st_mode))
		return 0;
	want = (st->st_mode & 07777) | S_IWUSR | (S_ISDIR(st->st_mode) ? S_IRUSR | S_IXUSR : 0);
	if (want != (st->st_mode & 07777) && fchmodat(dirfd, name, want, 0)) {
		snprintf(err, errlen, "cannot make '%s' writable: %s", gb_quote(path), strerror(errno));
		return -1;
	}
	return 0;
}

static int make_tree_writable(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    chmod(dir, (st.st_mode & 07777) | S_IRWXU)) {
		snprintf(err, errlen, "cannot make '%s' writable: %s", gb_quote(dir), strerror(errno));
		return -1;
	}
	return gb_walk(dir, make_writable, NULL, err, errlen);
}

/* The names in the current directory, sorted. */
static int list_dir(struct strv *names, char *err, size_t errlen)
{
	struct dirent *de;
	DIR *d = opendir(".");
	if (!d) {
		snprintf(err, errlen, "cannot read the build directory: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strv_push(names, de->d_name);
	closedir(d);
	return 0;
}

static int in_strv(const struct strv *sv, const char *s)
{
	size_t i;
	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static int enter(const char *dir, char *err, size_t errlen)
{
	if (chdir(dir)) {
		snprintf(err, errlen, "cannot enter '%s': %s", gb_quote(dir), strerror(errno));
		return -1;
	}
	gb_note("source directory: %s", gb_quote(dir));
	return 0;
}

static int phase_unpack(struct gb_build *b, char *err, size_t errlen)
{
	const char *src = getenv("src");
	struct strv before = { NULL, 0, 0 }, after = { NULL, 0, 0 };
	struct stat st;
	char *dir = NULL;
	size_t i, nr_dirs = 0;
	int ret;

	if (!src || !*src) {
		gb_note("no source to unpack");
		return 0;
	}
	if (chdir(b->top)) {
		snprintf(err, errlen, "cannot enter '%s': %s", gb_quote(b->top), strerror(errno));
		return -1;
	}
	if (stat(src, &st)) {
		snprintf(err, errlen, "cannot stat source '%s': %s", gb_quote(src), strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
		char *argv[] = { "cp", "-PR", "--preserve=mode,timestamps", (char *)src, NULL, NULL };
		base = strip_hash(base);
		if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
			base = "source";
		argv[4] = (char *)base;
		if (!lstat(base, &st)) {
			snprintf(err, errlen, "'%s' already exists in the build directory",
				 gb_quote(base));
			return -1;
		}
		if (gb_run(argv, err, errlen) || make_tree_writable(base, err, errlen))
			return -1;
		return enter(base, err, errlen);
	}
	if (list_dir(&before, err, errlen))
		return -1;
	{
		char *argv[] = { "tar", "--no-same-owner", "-xf", (char *)src, NULL };
		ret = gb_run(argv, err, errlen);
	}
	if (!ret)
		ret = list_dir(&after, err, errlen);
	for (i = 0; !ret && i < after.nr; i++) {
		if (in_strv(&before, after.v[i]) || lstat(after.v[i], &st) || !S_ISDIR(st.st_mode))
			continue;
		nr_dirs++;
		dir = after.v[i];
	}
	if (!ret && nr_dirs != 1) {
		snprintf(err, errlen, "unpacking '%s' made %zu top directories, not one",
			 gb_quote(src), nr_dirs);
		ret = -1;
	}
	if (!ret)
		ret = make_tree_writable(dir, err, errlen);
	if (!ret)
		ret = enter(dir, err, errlen);
	strv_clear(&before);
	strv_clear(&after);
	return ret;
}

static int phase_patch_source_shebangs(struct gb_build *b, char *err, size_t errlen)
{
	(void)b;
	return gb_patch_shebangs_tree(".", err, errlen);
}

static int phase_configure(struct gb_build *b, char *err, size_t errlen)
{
	struct strv argv = { NULL, 0, 0 };
	char *script, *cwd;
	int ret;

	if (b->out_of_source) {
		const char *base;
		if (!(cwd = getcwd(NULL, 0))) {
			snprintf(err, errlen, "cannot get the current directory: %s", strerror(errno));
			return -1;
		}
		base = strrchr(cwd, '/') + 1;
		script = gb_xasprintf("../%s/configure", *base ? base : ".");
		free(cwd);
	} else {
		script = gb_xstrdup("./configure");
	}
	if (access(script, F_OK)) {
		gb_note("no %s script; nothing to configure", gb_quote(script));
		free(script);
		return 0;
	}
	if (gb_need_bash(b, err, errlen)) {
		free(script);
		return -1;
	}
	if (b->out_of_source) {
		if (mkdir("../build", 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create ../build: %s", strerror(errno));
			free(script);
			return -1;
		}
		if (enter("../build", err, errlen)) {
			free(script);
			return -1;
		}
	}
	setenv("CONFIG_SHELL", b->bash, 1);
	setenv("SHELL", b->bash, 1);
	strv_push(&argv, b->bash);
	strv_push_owned(&argv, script);
	strv_push_owned(&argv, gb_xasprintf("--prefix=%s", b->outs[0].path));
	if (b->target) {
		if (b->build)
			strv_push_owned(&argv, gb_xasprintf("--build=%s", b->build));
		strv_push_owned(&argv, gb_xasprintf("--host=%s", b->target));
	}
	push_flags(&argv, &b->configure_flags);
	ret = gb_run(argv.v, err, errlen);
	strv_clear(&argv);
	return ret;
}

static int phase_patch_generated_file_shebangs(struct gb_build *b, char *err, size_t errlen)
{
	if (gb_need_bash(b, err, errlen))
		gb_note("note: no 'bash' in PATH; Makefiles' SHELL not patched");
	else if (gb_patch_makefiles_tree(".", b->bash, err, errlen))
		return -1;
	return gb_patch_shebangs_tree(".", err, errlen);
}

static int run_make(struct gb_build *b, const char *target, long jobs, char *err, size_t errlen)
{
	struct strv argv = { NULL, 0, 0 };
	int ret;

	strv_push(&argv, "make");
	if (jobs)
		strv_push_owned(&argv, gb_xasprintf("-j%ld", jobs));
	if (target)
		strv_push(&argv, target);
	push_flags(&argv, &b->make_flags);
	if (!gb_need_bash(b, err, errlen))
		strv_push_owned(&argv, gb_xasprintf("SHELL=%s", b->bash));
	ret = gb_run(argv.v, err, errlen);
	strv_clear(&argv);
	return ret;
}

static int phase_build(struct gb_build *b, char *err, size_t errlen)
{
	return run_make(b, NULL, b->parallel_build ? b->cores : 1, err, errlen);
}

static int phase_check(struct gb_build *b, char *err, size_t errlen)
{
	if (!b->tests) {
		gb_note("tests disabled; not running them");
		return 0;
	}
	return run_make(b, gb_env_or("testTarget", "check"), b->parallel_tests ? b->cores : 1,
			err, errlen);
}

static int phase_install(struct gb_build *b, char *err, size_t errlen)
{
	return run_make(b, "install", 0, err, errlen);
}

static int phase_patch_shebangs(struct gb_build *b, char *err, size_t errlen)
{
	size_t i;
	for (i = 0; i < b->nr_outs; i++) {
		struct stat st;
		if (lstat(b->outs[i].path, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (gb_patch_shebangs_tree(b->outs[i].path, err, errlen))
			return -1;
	}
	return 0;
}

static int phase_strip(struct gb_build *b, char *err, size_t errlen)
{
	if (!b->strip) {
		gb_note("stripBinaries is off; not stripping");
		return 0;
	}
	if (b->target) {
		char *prefix = gb_xasprintf("%s-", b->target);
		int ret = gb_strip_outputs(b->outs, b->nr_outs, prefix, err, errlen);
		free(prefix);
		return ret;
	}
	return gb_strip_outputs(b->outs, b->nr_outs, "", err, errlen);
}

static int phase_shrink_runpath(struct gb_build *b, char *err, size_t errlen)
{
	return gb_shrink_runpath_outputs(b->outs, b->nr_outs, err, errlen);
}

static int phase_validate_runpath(struct gb_build *b, char *err, size_t errlen)
{
	if (!b->validate) {
		gb_note("validateRunpath is off; not validating");
		return 0;
	}
	return gb_validate_runpath_outputs(b->outs, b->nr_outs, err, errlen);
}

const struct gb_phase gb_builtin_phases[] = {
	{ "set-paths", phase_set_paths },
	{ "unpack", phase_unpack },
	{ "patch-source-shebangs", phase_patch_source_shebangs },
	{ "configure", phase_configure },
	{ "patch-generated-file-shebangs", phase_patch_generated_file_shebangs },
	{ "build", phase_build },
	{ "check", phase_check },
	{ "install", phase_install },
	{ "patch-shebangs", phase_patch_shebangs },
	{ "strip", phase_strip },
	{ "shrink-runpath", phase_shrink_runpath },
	{ "validate-runpath", phase_validate_runpath },
	{ NULL, NULL },
};
