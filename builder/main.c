/* main.c - gnu-build: the gnu-build-system driver, its environment and its phases */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GB_VERSION "0.1.0"

static const char default_phases[] =
	"set-paths unpack patch-source-shebangs configure patch-generated-file-shebangs "
	"build check install patch-shebangs strip validate-runpath";

struct build {
	struct gb_output *outs;
	size_t nr_outs;
	const char *top;
	char *bash;
	struct strv configure_flags, make_flags;
	int tests, parallel_build, parallel_tests, out_of_source, strip, validate;
	long cores;
};

/* A boolean variable: unset -> def, "1" -> 1, "" or "0" -> 0, else -1. */
static int env_bool(const char *name, int def)
{
	const char *v = getenv(name);
	if (!v)
		return def;
	if (!strcmp(v, "1"))
		return 1;
	if (!*v || !strcmp(v, "0"))
		return 0;
	gb_note("invalid value '%s' for %s (want 1, 0 or empty)", gb_quote(v), name);
	exit(1);
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v ? v : def;
}

static int need_bash(struct build *b, char *err, size_t errlen)
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

/* ---- phases ---- */

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

static int phase_set_paths(struct build *b, char *err, size_t errlen)
{
	static const struct { const char *var, *sub[2]; } paths[] = {
		{ "PATH", { "bin", "sbin" } },
		{ "CPATH", { "include", NULL } },
		{ "LIBRARY_PATH", { "lib", NULL } },
		{ "PKG_CONFIG_PATH", { "lib/pkgconfig", "share/pkgconfig" } },
		{ "ACLOCAL_PATH", { "share/aclocal", NULL } },
	};
	struct strv inputs = { NULL, 0, 0 };
	size_t i, j, k;

	(void)err;
	(void)errlen;
	strv_split(&inputs, getenv("buildInputs"), " \t\n");
	for (k = 0; k < sizeof(paths) / sizeof(*paths); k++) {
		char *val = NULL;
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
	strv_clear(&inputs);
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

static int phase_unpack(struct build *b, char *err, size_t errlen)
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

static int phase_patch_source_shebangs(struct build *b, char *err, size_t errlen)
{
	(void)b;
	return gb_patch_shebangs_tree(".", err, errlen);
}

static int phase_configure(struct build *b, char *err, size_t errlen)
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
	if (need_bash(b, err, errlen)) {
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
	push_flags(&argv, &b->configure_flags);
	ret = gb_run(argv.v, err, errlen);
	strv_clear(&argv);
	return ret;
}

static int phase_patch_generated_file_shebangs(struct build *b, char *err, size_t errlen)
{
	if (need_bash(b, err, errlen))
		gb_note("note: no 'bash' in PATH; Makefiles' SHELL not patched");
	else if (gb_patch_makefiles_tree(".", b->bash, err, errlen))
		return -1;
	return gb_patch_shebangs_tree(".", err, errlen);
}

static int run_make(struct build *b, const char *target, long jobs, char *err, size_t errlen)
{
	struct strv argv = { NULL, 0, 0 };
	int ret;

	strv_push(&argv, "make");
	if (jobs)
		strv_push_owned(&argv, gb_xasprintf("-j%ld", jobs));
	if (target)
		strv_push(&argv, target);
	push_flags(&argv, &b->make_flags);
	if (!need_bash(b, err, errlen))
		strv_push_owned(&argv, gb_xasprintf("SHELL=%s", b->bash));
	ret = gb_run(argv.v, err, errlen);
	strv_clear(&argv);
	return ret;
}

static int phase_build(struct build *b, char *err, size_t errlen)
{
	return run_make(b, NULL, b->parallel_build ? b->cores : 1, err, errlen);
}

static int phase_check(struct build *b, char *err, size_t errlen)
{
	if (!b->tests) {
		gb_note("tests disabled; not running them");
		return 0;
	}
	return run_make(b, env_or("testTarget", "check"), b->parallel_tests ? b->cores : 1,
			err, errlen);
}

static int phase_install(struct build *b, char *err, size_t errlen)
{
	return run_make(b, "install", 0, err, errlen);
}

static int phase_patch_shebangs(struct build *b, char *err, size_t errlen)
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

static int phase_strip(struct build *b, char *err, size_t errlen)
{
	if (!b->strip) {
		gb_note("stripBinaries is off; not stripping");
		return 0;
	}
	return gb_strip_outputs(b->outs, b->nr_outs, err, errlen);
}

static int phase_validate_runpath(struct build *b, char *err, size_t errlen)
{
	if (!b->validate) {
		gb_note("validateRunpath is off; not validating");
		return 0;
	}
	return gb_validate_runpath_outputs(b->outs, b->nr_outs, err, errlen);
}

static const struct {
	const char *name;
	int (*fn)(struct build *, char *, size_t);
} builtins[] = {
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
	{ "validate-runpath", phase_validate_runpath },
};

/* ---- the driver ---- */

static char *snippet_var(const char *phase)
{
	char *v = gb_xasprintf("phase_%s", phase), *p;
	for (p = v; *p; p++)
		if (*p == '-')
			*p = '_';
	return v;
}

static int run_snippet(struct build *b, const char *snippet, char *err, size_t errlen)
{
	char *argv[5];
	if (need_bash(b, err, errlen))
		return -1;
	argv[0] = b->bash;
	argv[1] = "-e";
	argv[2] = "-c";
	argv[3] = (char *)snippet;
	argv[4] = NULL;
	return gb_run(argv, err, errlen);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fputs("usage: gnu-build\n"
	      "Build a package the GNU way (configure, make, make check, make install)\n"
	      "inside a derivation, as its builder; everything comes from the environment:\n"
	      "out, outputs, src, buildInputs, configureFlags, makeFlags, tests, testTarget,\n"
	      "parallelBuild, parallelTests, outOfSource, stripBinaries, validateRunpath,\n"
	      "phases and phase_NAME snippets.\n", f);
}

static void read_outputs(struct build *b)
{
	struct strv names = { NULL, 0, 0 };
	size_t i;

	strv_split(&names, env_or("outputs", "out"), " \t\n");
	if (!names.nr || strcmp(names.v[0], "out")) {
		if (!getenv("out")) {
			gb_note("no output 'out' (outputs='%s')", gb_quote(env_or("outputs", "")));
			exit(1);
		}
	}
	b->outs = gb_xmalloc((names.nr + 1) * sizeof(*b->outs));
	/* out first: configure's --prefix. */
	b->outs[b->nr_outs].name = gb_xstrdup("out");
	b->outs[b->nr_outs++].path = NULL;
	for (i = 0; i < names.nr; i++) {
		if (strcmp(names.v[i], "out")) {
			b->outs[b->nr_outs].name = gb_xstrdup(names.v[i]);
			b->outs[b->nr_outs++].path = NULL;
		}
	}
	for (i = 0; i < b->nr_outs; i++) {
		const char *p = getenv(b->outs[i].name);
		if (!p || p[0] != '/') {
			gb_note("output '%s' has no absolute path in the environment",
				gb_quote(b->outs[i].name));
			exit(1);
		}
		b->outs[i].path = gb_xstrdup(p);
	}
	strv_clear(&names);
}

static long read_cores(void)
{
	const char *v = getenv("NIX_BUILD_CORES");
	char *end;
	long n;

	if (!v || !*v)
		return 1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 0) {
		gb_note("note: ignoring NIX_BUILD_CORES='%s'", gb_quote(v));
		return 1;
	}
	if (!n)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

static int valid_phase_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct build b;
	struct strv phases = { NULL, 0, 0 };
	const char *store = getenv("NIX_STORE");
	double start = now();
	char err[1024];
	size_t i, j;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[1], "--version")) {
			puts("gnu-build (cix) " GB_VERSION);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	memset(&b, 0, sizeof(b));
	if (store && store[0] == '/')
		gb_store_dir = store;
	read_outputs(&b);
	b.top = env_or("NIX_BUILD_TOP", ".");
	b.tests = env_bool("tests", 1);
	b.parallel_build = env_bool("parallelBuild", 1);
	b.parallel_tests = env_bool("parallelTests", 1);
	b.out_of_source = env_bool("outOfSource", 0);
	b.strip = env_bool("stripBinaries", 1);
	b.validate = env_bool("validateRunpath", 1);
	b.cores = read_cores();
	strv_split(&b.configure_flags, getenv("configureFlags"), "\n");
	strv_split(&b.make_flags, getenv("makeFlags"), "\n");

	strv_split(&phases, env_or("phases", default_phases), " \t\n");
	for (i = 0; i < phases.nr; i++) {
		char *var;
		int known = 0;
		if (!valid_phase_name(phases.v[i])) {
			gb_note("invalid phase name '%s'", gb_quote(phases.v[i]));
			return 1;
		}
		var = snippet_var(phases.v[i]);
		for (j = 0; j < sizeof(builtins) / sizeof(*builtins); j++)
			known |= !strcmp(builtins[j].name, phases.v[i]);
		if (!known && !getenv(var)) {
			gb_note("unknown phase '%s' (neither built in nor given by %s)",
				phases.v[i], var);
			return 1;
		}
		free(var);
	}
	fprintf(stderr, "gnu-build: phases:");
	for (i = 0; i < phases.nr; i++)
		fprintf(stderr, " %s", phases.v[i]);
	fputc('\n', stderr);
	if (chdir(b.top)) {
		gb_note("cannot enter '%s': %s", gb_quote(b.top), strerror(errno));
		return 1;
	}

	for (i = 0; i < phases.nr; i++) {
		const char *name = phases.v[i];
		char *var = snippet_var(name);
		const char *snippet = getenv(var);
		double t = now();
		int ret = -1;

		fprintf(stderr, "starting phase `%s'\n", name);
		fflush(stderr);
		err[0] = 0;
		if (snippet) {
			ret = run_snippet(&b, snippet, err, sizeof(err));
		} else {
			for (j = 0; j < sizeof(builtins) / sizeof(*builtins); j++)
				if (!strcmp(builtins[j].name, name))
					ret = builtins[j].fn(&b, err, sizeof(err));
		}
		free(var);
		if (ret) {
			fprintf(stderr, "phase `%s' failed after %.1f seconds\n", name, now() - t);
			gb_note("phase '%s' failed: %s", name, err[0] ? err : "unknown error");
			return 1;
		}
		fprintf(stderr, "phase `%s' succeeded after %.1f seconds\n", name, now() - t);
		fflush(stderr);
	}
	gb_note("build succeeded after %.1f seconds", now() - start);
	for (i = 0; i < b.nr_outs; i++) {
		free(b.outs[i].name);
		free(b.outs[i].path);
	}
	free(b.outs);
	free(b.bash);
	strv_clear(&b.configure_flags);
	strv_clear(&b.make_flags);
	strv_clear(&phases);
	return 0;
}
