/* cmd-package.c - cix package: the package index's queries (-A, -s) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "index.h"
#include "package.h"
#include "pkg-index.h"
#include "scheme.h"
#include "strbuf.h"
#include "util.h"

#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix package [OPTION]...\n"
		"Install and remove packages in a profile, switch its generations, and\n"
		"query the packages of the distribution. The actions of one command are\n"
		"one transaction: one new generation.\n\n"
		"  -i, --install=PACKAGE  install PACKAGE (NAME, NAME-VERSION, NAME:OUTPUT);\n"
		"                         the words after it are more (-i gcc gdb)\n"
		"  -e, --install-from-expression=EXPR\n"
		"                         install the package EXPR evaluates to\n"
		"  -u, --upgrade[=REGEXP] upgrade the installed packages matching REGEXP\n"
		"  -r, --remove=PACKAGE   remove PACKAGE (NAME or NAME:OUTPUT); the words\n"
		"                         after it are more\n"
		"  -m, --manifest=FILE    make the profile hold exactly the entries of the\n"
		"                         manifest FILE evaluates to\n"
		"  -p, --profile=PROFILE  use PROFILE (default: the user's, ~/.cix-profile)\n"
		"      --roll-back        switch to the previous generation\n"
		"  -S, --switch-generation=N  switch to generation N (+N, -N: relative)\n"
		"      --delete-generations[=N,M,A..B]\n"
		"                         delete those generations (all but the current)\n"
		"  -l, --list-generations list the generations and what they hold\n"
		"  -I, --list-installed[=REGEXP]\n"
		"                         list the installed packages (name, version,\n"
		"                         output, path)\n"
		"  -n, --dry-run          say what would be done, do nothing\n"
		"      --target=TRIPLET   install packages cross-built for TRIPLET\n"
		"      --search-paths[=KIND]\n"
		"                         print the environment variables the profile's\n"
		"                         packages need; KIND: exact (default), prefix or suffix\n"
		"      --max-silent-time=S  fail a build silent for S seconds\n"
		SUBST_CLI_HELP
		"  -A, --list-available[=REGEXP]\n"
		"                         list the packages whose name matches REGEXP (all\n"
		"                         without it): name, version, outputs, place\n"
		"  -s, --search=REGEXP    show, as recutils records, the packages whose name,\n"
		"                         synopsis or description match REGEXP\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n\n"
		"REGEXPs are POSIX extended regular expressions, matched ignoring case.\n"
		"Answers come from an index of the package modules kept in\n"
		"$XDG_CACHE_HOME/cix/packages; a module is evaluated again only when its\n"
		"file has changed.\n");
}

struct query {
	char kind;                 /* 'A' or 's' */
	const char *regexp;        /* NULL: everything */
	regex_t rx;
};

static int matches(const struct query *q, const char *s)
{
	return !q->regexp || (s && !regexec(&q->rx, s, 0, NULL, 0));
}

/* A recutils field: continuation lines start with "+ ". */
static void print_field(const char *name, const char *value)
{
	printf("%s: ", name);
	for (const char *p = value; p && *p; p++) {
		putchar(*p);
		if (*p == '\n')
			fputs("+ ", stdout);
	}
	putchar('\n');
}

static void answer(const struct query *q, const struct cix_pkg_entry **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct cix_pkg_entry *e = v[i];
		if (q->kind == 'A') {
			if (matches(q, e->name))
				printf("%s\t%s\t%s\t%s:%lu\n", e->name, e->version, e->outputs,
				       e->file, e->line);
			continue;
		}
		if (!matches(q, e->name) && !matches(q, e->synopsis) &&
		    !matches(q, e->description))
			continue;
		print_field("name", e->name);
		print_field("version", e->version);
		print_field("outputs", e->outputs);
		printf("location: %s:%lu\n", e->file, e->line);
		print_field("homepage", e->home_page);
		print_field("license", e->license);
		print_field("synopsis", e->synopsis);
		print_field("description", e->description);
		putchar('\n');
	}
}

static int done(struct pkg_opts *po, struct query *qs, int r)
{
	strvec_clear(&po->installs);
	strvec_clear(&po->removes);
	strvec_clear(&po->exprs);
	strvec_clear(&po->manifests);
	free(qs);
	return r;
}

int cmd_package(int argc, char **argv)
{
	enum { OPT_ROLLBACK = 0x100, OPT_DELETE, OPT_SILENT, OPT_FALLBACK, OPT_NOSUBST,
	       OPT_SEARCH_PATHS, OPT_SUBST_URLS, OPT_TARGET, OPT_BUILDERS };
	static const struct option longopts[] = {
		{ "install", required_argument, NULL, 'i' },
		{ "install-from-expression", required_argument, NULL, 'e' },
		{ "upgrade", optional_argument, NULL, 'u' },
		{ "search-paths", optional_argument, NULL, OPT_SEARCH_PATHS },
		{ "manifest", required_argument, NULL, 'm' },
		{ "remove", required_argument, NULL, 'r' },
		{ "profile", required_argument, NULL, 'p' },
		{ "roll-back", no_argument, NULL, OPT_ROLLBACK },
		{ "switch-generation", required_argument, NULL, 'S' },
		{ "delete-generations", optional_argument, NULL, OPT_DELETE },
		{ "list-generations", optional_argument, NULL, 'l' },
		{ "list-installed", optional_argument, NULL, 'I' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "max-silent-time", required_argument, NULL, OPT_SILENT },
		{ "fallback", no_argument, NULL, OPT_FALLBACK },
		{ "no-substitutes", no_argument, NULL, OPT_NOSUBST },
		{ "substitute-urls", required_argument, NULL, OPT_SUBST_URLS },
		{ "builders", required_argument, NULL, OPT_BUILDERS },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "list-available", optional_argument, NULL, 'A' },
		{ "search", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct query *qs = NULL;
	size_t nr = 0, alloc = 0;
	struct cix_pkg_index idx;
	const struct cix_pkg_entry **v = NULL;
	int c, r = 0;

	static struct subst_cli subst;
	struct pkg_opts po = { .subst = &subst };
	int actions = 0;
	/* Words after -i or -r are more packages to install or remove, as
	 * Guix takes them ("-i gcc gdb"): getopt returns them in order (1). */
	struct strvec *more = NULL;
	while ((c = getopt_long(argc, argv, "-:A::s:i:e:u::r:m:p:S:l::I::nhV", longopts, NULL)) != -1) {
		if (c != 1 && c != 'i' && c != 'r')
			more = NULL;
		switch (c) {
		case 1:
			if (!more)
				return done(&po, qs, usage_error("unexpected argument '%s'", optarg));
			strvec_push(more, optarg);
			break;
		case 'i': strvec_push(more = &po.installs, optarg); actions++; break;
		case 'r': strvec_push(more = &po.removes, optarg); actions++; break;
		case 'e': strvec_push(&po.exprs, optarg); actions++; break;
		case 'u':
			po.upgrade = 1;
			po.upgrade_rx = optarg;
			if (!optarg && optind < argc && argv[optind][0] != '-')
				po.upgrade_rx = argv[optind++];
			actions++;
			break;
		case 'm': strvec_push(&po.manifests, optarg); actions++; break;
		case OPT_SEARCH_PATHS:
			po.search_paths = 1;
			if (optarg && cix_search_path_kind_parse(optarg, &po.search_paths_kind) < 0)
				return done(&po, qs, usage_error("unknown search path kind '%s'"
								 " (exact, prefix or suffix)",
								 optarg));
			actions++;
			break;
		case 'p': po.profile = optarg; break;
		case OPT_ROLLBACK: po.roll_back = 1; actions++; break;
		case 'S': po.switch_to = optarg; actions++; break;
		case OPT_DELETE: po.delete_generations = 1; po.delete_pattern = optarg; actions++; break;
		case 'l': po.list_generations = 1; actions++; break;
		case 'I':
			po.list_installed = 1;
			po.installed_rx = optarg;
			if (!optarg && optind < argc && argv[optind][0] != '-')
				po.installed_rx = argv[optind++];
			actions++;
			break;
		case 'n': po.dry_run = 1; break;
		case OPT_TARGET:
			if (!valid_triplet(optarg))
				return done(&po, qs, usage_error("--target: '%s' is not a GNU triplet"
								 " such as aarch64-linux-gnu", optarg));
			po.target = optarg;
			break;
		case OPT_FALLBACK: subst.fallback = 1; break;
		case OPT_NOSUBST: subst.no_subst = 1; break;
		case OPT_SUBST_URLS: subst.urls = optarg; break;
		case OPT_BUILDERS: subst.builders = optarg; break;
		case OPT_SILENT: {
			unsigned long long secs;
			if (cix_parse_decimal(optarg, 315360000, &secs) < 0) {
				return done(&po, qs, usage_error("invalid number '%s'", optarg));
			}
			po.max_silent = (unsigned)secs;
			break;
		}
		case 'A':
		case 's':
			ALLOC_GROW(qs, nr + 1, alloc);
			qs[nr].kind = (char)c;
			qs[nr].regexp = optarg;
			/* Guix's "-A REGEXP": the next word, when it is not an option. */
			if (c == 'A' && !optarg && optind < argc && argv[optind][0] != '-')
				qs[nr].regexp = argv[optind++];
			nr++;
			break;
		case 'h': usage(stdout); return done(&po, qs, 0);
		case 'V': return done(&po, qs, print_version());
		default: return done(&po, qs, option_error(c, argv));
		}
	}
	if (optind < argc) {
		return done(&po, qs, usage_error("unexpected argument '%s'", argv[optind]));
	}
	if (po.manifests.nr && (po.installs.nr || po.removes.nr || po.exprs.nr || po.upgrade))
		return done(&po, qs, usage_error("-m cannot be combined with -i, -e, -r or -u"));
	if (actions && nr)
		return done(&po, qs, usage_error("queries (-A, -s) and profile actions are separate"
						 " commands"));
	if (actions)
		return done(&po, qs, package_run(&po));
	if (!nr)
		return done(&po, qs, usage_error("nothing to do (try -i, -r, -I, -A or -s)"));
	for (size_t i = 0; i < nr; i++) {
		int e;
		if (!qs[i].regexp)
			continue;
		e = regcomp(&qs[i].rx, qs[i].regexp, REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (e) {
			char msg[256];
			regerror(e, &qs[i].rx, msg, sizeof(msg));
			r = error("invalid regular expression '%s': %s", qs[i].regexp, msg);
			for (size_t k = 0; k < i; k++)
				if (qs[k].regexp)
					regfree(&qs[k].rx);
			free(qs);
			return r;
		}
	}
	struct cix_err err = { 0 };
	if ((r = index_load(&idx, 1, &err)) < 0)
		r = error_err(&err);
	else {
		size_t n = cix_pkg_index_list(&idx, &v);
		for (size_t i = 0; i < nr; i++)
			answer(&qs[i], v, n);
		if (fflush(stdout) || ferror(stdout))
			r = error("cannot write the answer");
		free(v);
	}
	cix_pkg_index_release(&idx);
	for (size_t i = 0; i < nr; i++)
		if (qs[i].regexp)
			regfree(&qs[i].rx);
	free(qs);
	return r;
}
