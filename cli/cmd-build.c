/* cmd-build.c - cix build: packages, expressions, files and derivations, built */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "index.h"
#include "build.h"
#include "buildlog.h"
#include "drv.h"
#include "encoding.h"
#include "lower.h"
#include "gc.h"
#include "scheme.h"
#include "store.h"
#include "store-path.h"
#include "strvec.h"
#include "subst-opts.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix build [OPTION]... PACKAGE|DERIVATION...\n"
		"Build the packages (NAME, NAME-VERSION, NAME:OUTPUT) or derivations\n"
		"(.drv store paths) and print their output paths, one per line.\n\n"
		"  -e, --expression=EXPR  build the package EXPR evaluates to\n"
		"  -f, --file=FILE        build the package the last form of FILE gives\n"
		"  -S, --source           build the packages' sources, not the packages\n"
		"      --target=TRIPLET   cross-build for TRIPLET (aarch64-linux-gnu)\n"
		"  -s, --system=SYSTEM    build for SYSTEM (i686-linux), natively: the\n"
		"                         packages see it as %%current-system\n"
		"  -d, --derivations      print the derivation paths, build nothing\n"
		"  -n, --dry-run          print what would be built and downloaded\n"
		"  -K, --keep-failed      keep the build directory of a failed build\n"
		"  -k, --keep-going       after a failed build, go on with the builds that\n"
		"                         do not need it\n"
		"      --check            build again and compare with the outputs there\n"
		"  -r, --root=FILE        make FILE a symlink to the result, a GC root\n"
		SUBST_CLI_HELP
		"      --max-silent-time=S  fail a build silent for S seconds\n"
		"      --timeout=S        fail a build that runs for more than S seconds\n"
		"  -c, --cores=N          let each build use N cores (0: all)\n"
		"  -j, --max-jobs=N       run up to N builds at once (0: build nothing here)\n"
		"      --log-file         print the build log files of the derivations\n"
		"  -q, --quiet            do not show the build logs\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n");
}

struct opts {
	int source, derivations, dry_run, keep_failed, keep_going, check, quiet, log_file, no_build;
	struct subst_cli subst;
	const char *root;
	const char *target;        /* --target: the packages are cross-built for it */
	const char *system;        /* --system: their derivations' system */
	unsigned cores, max_jobs, timeout, max_silent;
	struct strvec exprs, files, specs;
};

/* What one argument comes to: a derivation and the outputs wanted of it. */
struct target {
	char *drv_path;
	struct strvec outputs;     /* the paths printed after building */
};

static int is_drv_path(const char *arg)
{
	size_t n = strlen(arg);
	return n > 4 && !strcmp(arg + n - 4, ".drv") && arg[0] == '/';
}

static void target_from_package(struct target *t, struct cix_package *p, const char *output)
{
	t->drv_path = xstrdup(p->drv_path);
	for (size_t i = 0; i < p->outputs.nr; i++)
		if (output ? !strcmp(p->outputs.v[i], output) : 1)
			strvec_push(&t->outputs, p->out_paths.v[i]);
}

static int target_from_drv(struct cix_store *s, const char *path, struct target *t,
			   struct cix_err *err)
{
	struct cix_drv *drv;
	int r = cix_store_check_path(s, path, err);
	if (r < 0 || (r = cix_drv_parse_file(path, s->store_dir, &drv, err)) < 0)
		return r;
	t->drv_path = xstrdup(path);
	for (size_t i = 0; i < drv->nr_outputs; i++)
		strvec_push(&t->outputs, drv->outputs[i].path);
	cix_drv_free(drv);
	return 0;
}

static int lower_target(struct cix_lower *l, const struct opts *o, struct cix_scheme_target *st,
			struct target *t, struct cix_err *err)
{
	struct cix_package *p = st->package;
	int r;
	if (st->drv_path) {
		if (o->source)
			return cix_error(err, -CIX_EINVAL, "-S needs packages, not '%s'",
					 st->drv_path);
		return target_from_drv(l->store, st->drv_path, t, err);
	}
	if (!o->source) {
		if ((r = cix_lower_package(l, p, err)) < 0)
			return r;
		target_from_package(t, p, st->output);
		return 0;
	}
	if (!p->has_source)
		return cix_error(err, -CIX_ENOTFOUND, "package '%s' has no source", p->name);
	/* A download or a seed has a derivation; a local file is its path only. */
	const char *drv = NULL;
	switch (p->source.kind) {
	case CIX_INPUT_ORIGIN:
		r = cix_lower_origin(l, p->source.u.origin, err);
		drv = p->source.u.origin->drv_path;
		break;
	case CIX_INPUT_ITEM:
		r = cix_lower_item(l, p->source.u.item, err);
		drv = p->source.u.item->drv_path;
		break;
	default:
		r = cix_lower_file(l, p->source.u.file, err);
	}
	if (r < 0)
		return r;
	if (drv)
		t->drv_path = xstrdup(drv);
	strvec_push(&t->outputs, cix_input_path(&p->source));
	return 0;
}

/* -r FILE: FILE links to the result, and is registered as an indirect GC root. */
static int make_root(struct cix_store *s, const char *file, const char *path, struct cix_err *err)
{
	struct strbuf abs = STRBUF_INIT;
	int r;
	unlink(file);
	if (symlink(path, file) < 0)
		return cix_error_errno(err, -errno, "cannot create '%s'", file);
	if (file[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		strbuf_addf(&abs, "%s/", cwd ? cwd : ".");
		free(cwd);
	}
	strbuf_addstr(&abs, file);
	r = cix_store_add_indirect_root(s, abs.buf, err);
	strbuf_release(&abs);
	return r;
}

static int run(struct opts *o)
{
	struct cix_err err = { 0 };
	struct cix_store *s = NULL;
	size_t n = o->exprs.nr + o->files.nr + o->specs.nr, k = 0;
	struct target *ts = xcalloc(n + 1, sizeof(*ts));
	struct cix_scheme_session *ss = NULL;
	int r;

	if ((r = cix_store_open_client(&s, &err)) < 0)
		goto fail;
	struct cix_build_opts bo = {
		.max_jobs = o->max_jobs, .cores = o->cores, .keep_failed = o->keep_failed,
		.keep_going = o->keep_going, .log_fd = o->quiet ? -1 : 2, .timeout = o->timeout,
		.max_silent = o->max_silent, .check = o->check, .no_build = o->no_build,
	};
	/* The caches the builds may fetch from (the store reads them when needed). */
	subst_cli_apply(&o->subst, &bo);
	struct cix_lower l = { .store = s, .system = o->system ? o->system : cix_build_this_system() };
	ss = cix_scheme_session_new(&l, o->target);
	for (size_t i = 0; i < o->specs.nr; i++, k++) {
		struct cix_scheme_target st;
		const char *a = o->specs.v[i];
		if (!is_drv_path(a))
			index_hint_lookups();
		if (is_drv_path(a))
			r = o->source ? cix_error(&err, -CIX_EINVAL, "-S needs packages, not '%s'", a)
				      : target_from_drv(s, a, &ts[k], &err);
		else if ((r = cix_scheme_read_spec(ss, a, &st, &err)) == 0)
			r = lower_target(&l, o, &st, &ts[k], &err);
		if (!is_drv_path(a))
			cix_scheme_target_release(&st);
		if (r < 0)
			goto fail;
	}
	index_hint_done();
	for (size_t i = 0; i < o->exprs.nr; i++, k++) {
		struct cix_scheme_target st;
		if ((r = cix_scheme_read_expr(ss, o->exprs.v[i], &st, &err)) == 0)
			r = lower_target(&l, o, &st, &ts[k], &err);
		cix_scheme_target_release(&st);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < o->files.nr; i++, k++) {
		struct cix_scheme_target st;
		if ((r = cix_scheme_read_file(ss, o->files.v[i], &st, &err)) == 0)
			r = lower_target(&l, o, &st, &ts[k], &err);
		cix_scheme_target_release(&st);
		if (r < 0)
			goto fail;
	}
	if (o->derivations) {
		for (size_t i = 0; i < n; i++)
			if (ts[i].drv_path)
				puts(ts[i].drv_path);
		goto done;
	}
	if (o->log_file) {
		for (size_t i = 0; i < n; i++) {
			struct strbuf p = STRBUF_INIT;
			if (ts[i].drv_path && cix_build_log_path(ts[i].drv_path, &p) == 0)
				puts(p.buf);
			else
				r = cix_error(&err, -CIX_ENOTFOUND, "no build log for '%s'",
					      ts[i].drv_path ? ts[i].drv_path : "?");
			strbuf_release(&p);
		}
		if (r < 0)
			goto fail;
		goto done;
	}
	{
		const char **drvs = xcalloc(n + 1, sizeof(*drvs));
		size_t nd = 0;
		for (size_t i = 0; i < n; i++)
			if (ts[i].drv_path)
				drvs[nd++] = ts[i].drv_path;
		if (o->dry_run)
			r = print_missing(s, drvs, nd, &bo, &err);
		else
			r = cix_store_build(s, drvs, nd, &bo, &err);
		free(drvs);
		if (r < 0)
			goto fail;
		if (o->dry_run)
			goto done;
	}
	/* -r FILE with several results: FILE-0, FILE-1... in the order printed. */
	k = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ts[i].outputs.nr; j++) {
			puts(ts[i].outputs.v[j]);
			if (o->root) {
				struct strbuf f = STRBUF_INIT;
				if (n == 1 && ts[i].outputs.nr == 1)
					strbuf_addstr(&f, o->root);
				else
					strbuf_addf(&f, "%s-%zu", o->root, k++);
				r = make_root(s, f.buf, ts[i].outputs.v[j], &err);
				strbuf_release(&f);
				if (r < 0)
					goto fail;
			}
		}
done:
	r = 0;
	goto out;
fail:
	r = error_err(&err);
out:
	cix_scheme_session_free(ss);
	for (size_t i = 0; i < n; i++) {
		free(ts[i].drv_path);
		strvec_clear(&ts[i].outputs);
	}
	free(ts);
	cix_store_close(s);
	return r;
}

int cmd_build(int argc, char **argv)
{
	enum { OPT_CHECK = 0x100, OPT_FALLBACK, OPT_NOSUBST, OPT_SILENT, OPT_TIMEOUT, OPT_LOG,
	       OPT_SUBST_URLS, OPT_TARGET, OPT_BUILDERS };
	static const struct option longopts[] = {
		{ "expression", required_argument, NULL, 'e' },
		{ "file", required_argument, NULL, 'f' },
		{ "source", no_argument, NULL, 'S' },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "system", required_argument, NULL, 's' },
		{ "derivations", no_argument, NULL, 'd' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "keep-failed", no_argument, NULL, 'K' },
		{ "keep-going", no_argument, NULL, 'k' },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "root", required_argument, NULL, 'r' },
		{ "fallback", no_argument, NULL, OPT_FALLBACK },
		{ "no-substitutes", no_argument, NULL, OPT_NOSUBST },
		{ "substitute-urls", required_argument, NULL, OPT_SUBST_URLS },
		{ "builders", required_argument, NULL, OPT_BUILDERS },
		{ "max-silent-time", required_argument, NULL, OPT_SILENT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "cores", required_argument, NULL, 'c' },
		{ "max-jobs", required_argument, NULL, 'j' },
		{ "log-file", no_argument, NULL, OPT_LOG },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .max_jobs = 1 };
	int c;

	cix_progname = "cix build";
	while ((c = getopt_long(argc, argv, ":e:f:Ss:dnKkr:c:j:M:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': strvec_push(&o.exprs, optarg); break;
		case 'f': strvec_push(&o.files, optarg); break;
		case 'S': o.source = 1; break;
		case 'd': o.derivations = 1; break;
		case 'n': o.dry_run = 1; break;
		case 'K': o.keep_failed = 1; break;
		case 'k': o.keep_going = 1; break;
		case OPT_CHECK: o.check = 1; break;
		case 'r': o.root = optarg; break;
		case OPT_TARGET:
			if (!valid_triplet(optarg))
				return usage_error("--target: '%s' is not a GNU triplet such as aarch64-linux-gnu",
						   optarg);
			o.target = optarg;
			break;
		case 's':
			if (!valid_system(optarg))
				return usage_error("--system: '%s' is not a system such as i686-linux",
						   optarg);
			o.system = optarg;
			break;
		case OPT_FALLBACK: o.subst.fallback = 1; break;
		case OPT_NOSUBST: o.subst.no_subst = 1; break;
		case OPT_SUBST_URLS: o.subst.urls = optarg; break;
		case OPT_BUILDERS: o.subst.builders = optarg; break;
		case OPT_LOG: o.log_file = 1; break;
		case 'q': o.quiet = 1; break;
		case OPT_SILENT: case OPT_TIMEOUT: case 'c': case 'j': case 'M': {
			/* The bounds of cix store --realise. */
			unsigned long long v;
			if (cix_parse_decimal(optarg, c == OPT_SILENT || c == OPT_TIMEOUT ?
					      10ULL * 365 * 86400 : 1024, &v) < 0)
				return usage_error("invalid number '%s'", optarg);
			if (c == OPT_SILENT) o.max_silent = (unsigned)v;
			else if (c == OPT_TIMEOUT) o.timeout = (unsigned)v;
			else if (c == 'c') o.cores = (unsigned)v;
			else {
				o.max_jobs = v ? (unsigned)v : 1;
				o.no_build = v == 0;
			}
			break;
		}
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	for (int i = optind; i < argc; i++)
		strvec_push(&o.specs, argv[i]);
	if (!o.specs.nr && !o.exprs.nr && !o.files.nr)
		return usage_error("nothing to build");
	int r = run(&o);
	strvec_clear(&o.exprs);
	strvec_clear(&o.files);
	strvec_clear(&o.specs);
	return r;
}
