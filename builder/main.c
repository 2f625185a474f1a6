/* main.c - gnu-build: the gnu-build-system driver: environment, phase list, snippets, log */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GB_VERSION "0.1.0"

static const char default_phases[] =
	"set-paths unpack patch-source-shebangs configure patch-generated-file-shebangs "
	"build check install patch-shebangs strip shrink-runpath validate-runpath";

/* A boolean variable: unset -> def, "1" -> 1, "" or "0" -> 0, else exit. */
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

static char *snippet_var(const char *phase)
{
	char *v = gb_xasprintf("phase_%s", phase), *p;
	for (p = v; *p; p++)
		if (*p == '-')
			*p = '_';
	return v;
}

static int run_snippet(struct gb_build *b, const char *snippet, char *err, size_t errlen)
{
	char *argv[5];
	if (gb_need_bash(b, err, errlen))
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

static void read_outputs(struct gb_build *b)
{
	struct strv names = { NULL, 0, 0 };
	size_t i;

	strv_split(&names, gb_env_or("outputs", "out"), " \t\n");
	if (!names.nr || strcmp(names.v[0], "out")) {
		if (!getenv("out")) {
			gb_note("no output 'out' (outputs='%s')", gb_quote(gb_env_or("outputs", "")));
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

/* ${NAME} in the flags: the variable's value. */
static int expand_flags(struct strv *flags, char *err, size_t errlen)
{
	size_t i;
	for (i = 0; i < flags->nr; i++) {
		char *x = gb_expand_vars(flags->v[i], err, errlen);
		if (!x)
			return -1;
		free(flags->v[i]);
		flags->v[i] = x;
	}
	return 0;
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
	struct gb_build b;
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
	b.top = gb_env_or("NIX_BUILD_TOP", ".");
	b.tests = env_bool("tests", 1);
	b.parallel_build = env_bool("parallelBuild", 1);
	b.parallel_tests = env_bool("parallelTests", 1);
	b.out_of_source = env_bool("outOfSource", 0);
	b.strip = env_bool("stripBinaries", 1);
	b.validate = env_bool("validateRunpath", 1);
	b.cores = read_cores();
	b.target = getenv("target");
	if (b.target && !*b.target)
		b.target = NULL;
	b.build = gb_env_or("build", NULL);
	strv_split(&b.configure_flags, getenv("configureFlags"), "\n");
	strv_split(&b.make_flags, getenv("makeFlags"), "\n");
	if (expand_flags(&b.configure_flags, err, sizeof(err)) ||
	    expand_flags(&b.make_flags, err, sizeof(err))) {
		gb_note("%s", err);
		return 1;
	}

	strv_split(&phases, gb_env_or("phases", default_phases), " \t\n");
	for (i = 0; i < phases.nr; i++) {
		char *var;
		int known = 0;
		if (!valid_phase_name(phases.v[i])) {
			gb_note("invalid phase name '%s'", gb_quote(phases.v[i]));
			return 1;
		}
		var = snippet_var(phases.v[i]);
		for (j = 0; gb_builtin_phases[j].name; j++)
			known |= !strcmp(gb_builtin_phases[j].name, phases.v[i]);
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
			for (j = 0; gb_builtin_phases[j].name; j++)
				if (!strcmp(gb_builtin_phases[j].name, name))
					ret = gb_builtin_phases[j].fn(&b, err, sizeof(err));
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

