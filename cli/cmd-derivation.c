/* cmd-derivation.c - cix derivation: inspect .drv files */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "drv.h"
#include "encoding.h"
#include "json.h"
#include "store-path.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cix derivation show [OPTION]... FILE.drv...\n"
		"Print the derivations in FILE.drv... as JSON, as 'nix show-derivation'\n"
		"does, keyed by their store paths, and check their output paths.\n\n"
		"  -s, --store-dir=DIR    the store directory of the derivations (default:\n"
		"                         the directory of their first output's path)\n"
		"  -n, --no-verify        do not recompute output paths; print exactly the\n"
		"                         fields 'nix show-derivation' prints\n"
		"  -a, --aterm            print each derivation back as ATerm instead\n"
		"  -h, --help             display this help and exit\n"
		"  -V, --version          display version information and exit\n\n"
		"Input derivations are read from the directory of the FILE that needs\n"
		"them, by their base names.\n");
}

struct entry {
	const char *file;
	struct cix_drv *drv;
	struct strbuf key;          /* the .drv store path */
	int verified;               /* the fields below are set */
	int valid;
	struct cix_hash modulo;
	struct strbuf *paths;       /* recomputed, one per output */
};

struct loader {
	const char *dir;            /* where the input .drv files are */
	const char *store_dir;
};

/* Load an input derivation by base name, checking that it matches its name. */
static int load_input(void *data, const char *drv_path, struct cix_drv **out,
		      struct cix_err *err)
{
	const struct loader *l = data;
	struct strbuf file = STRBUF_INIT, name = STRBUF_INIT, real = STRBUF_INIT;
	const char *base = strrchr(drv_path, '/');
	struct cix_drv *drv = NULL;
	int r;

	*out = NULL;
	strbuf_addf(&file, "%s/%s", l->dir, base ? base + 1 : drv_path);
	r = cix_drv_name_from_path(l->store_dir, drv_path, &name, err);
	if (!r)
		r = cix_drv_parse_file(file.buf, l->store_dir, &drv, err);
	if (r < 0 && err) {
		char msg[CIX_ERR_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		r = cix_error(err, r, "input %s: %s", drv_path, msg);
	}
	if (!r)
		r = cix_drv_store_path(drv, l->store_dir, name.buf, &real, err);
	if (!r && strcmp(real.buf, drv_path))
		r = cix_error(err, -CIX_EMISMATCH, "input %s: its content hashes to %s",
			      drv_path, real.buf);
	if (r < 0)
		cix_drv_free(drv);
	else
		*out = drv;
	strbuf_release(&file);
	strbuf_release(&name);
	strbuf_release(&real);
	return r;
}

/* The derivation name: from the file's base name if it is a store path, else $name. */
static int drv_name(const char *file, const struct cix_drv *drv, struct strbuf *name)
{
	const char *base = strrchr(file, '/');
	size_t n;
	const char *env;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (cix_store_basename_check(base, n, NULL) == 0 && n > CIX_STORE_HASH_CHARS + 5 &&
	    !strcmp(base + n - 4, ".drv")) {
		strbuf_add(name, base + CIX_STORE_HASH_CHARS + 1, n - CIX_STORE_HASH_CHARS - 5);
		return 0;
	}
	env = cix_drv_getenv(drv, "name");
	if (!env || cix_store_name_check(env, strlen(env), NULL) < 0)
		return -1;
	strbuf_addstr(name, env);
	return 0;
}

/* Parse, name and (unless no_verify) check one file; 0 or EXIT_FAIL. */
static int load_entry(struct entry *e, const char *opt_store_dir, int no_verify)
{
	struct cix_err err = { 0 };
	struct strbuf store = STRBUF_INIT, name = STRBUF_INIT, dir = STRBUF_INIT;
	struct cix_drv_hasher *h = NULL;
	const char *base;
	int status = 0;

	if (cix_drv_parse_file(e->file, opt_store_dir, &e->drv, &err) < 0)
		return error("%s: %s", e->file, err.msg);
	if (opt_store_dir)
		strbuf_addstr(&store, opt_store_dir);
	else if (cix_drv_store_dir(e->drv, &store, &err) < 0)
		goto fail;
	if (drv_name(e->file, e->drv, &name) < 0) {
		status = error("%s: cannot tell the derivation's name", e->file);
		goto out;
	}
	if (cix_drv_store_path(e->drv, store.buf, name.buf, &e->key, &err) < 0)
		goto fail;
	base = strrchr(e->file, '/');
	base = base ? base + 1 : e->file;
	if (strcmp(base, e->key.buf + store.len + 1))
		status = error("%s: file name does not match its content, which hashes to %s",
			       e->file, e->key.buf);
	if (no_verify)
		goto out;

	strbuf_add(&dir, e->file, base > e->file ? (size_t)(base - e->file - 1) : 0);
	if (base > e->file && !dir.len)
		strbuf_addch(&dir, '/');
	else if (!dir.len)
		strbuf_addch(&dir, '.');
	struct loader l = { dir.buf, store.buf };
	h = cix_drv_hasher_new(store.buf, load_input, &l);
	e->paths = xcalloc(e->drv->nr_outputs, sizeof(*e->paths));
	for (size_t i = 0; i < e->drv->nr_outputs; i++)
		strbuf_init(&e->paths[i], 0);
	if (cix_drv_hash_modulo(h, e->drv, name.buf, 0, &e->modulo, &err) < 0)
		goto fail;
	e->verified = 1;
	if (cix_drv_check_outputs(h, e->drv, name.buf, e->paths, &err) < 0) {
		if (err.code != -CIX_EMISMATCH)
			e->verified = 0;
		goto fail;
	}
	e->valid = 1;
	goto out;
fail:
	status = error("%s: %s", e->file, err.msg);
out:
	cix_drv_hasher_free(h);
	strbuf_release(&store);
	strbuf_release(&name);
	strbuf_release(&dir);
	return status;
}

static void print_strings(struct cix_json *j, char *const *v, size_t n)
{
	cix_json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		cix_json_string(j, v[i]);
	cix_json_end_array(j);
}

static void print_entry(struct cix_json *j, const struct entry *e)
{
	const struct cix_drv *drv = e->drv;

	cix_json_key(j, e->key.buf);
	cix_json_begin_object(j);
	cix_json_key(j, "outputs");
	cix_json_begin_object(j);
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		const struct cix_drv_output *o = &drv->outputs[i];
		cix_json_key(j, o->name);
		cix_json_begin_object(j);
		cix_json_key(j, "path");
		cix_json_string(j, o->path);
		if (*o->hash_algo) {
			cix_json_key(j, "hashAlgo");
			cix_json_string(j, o->hash_algo);
			cix_json_key(j, "hash");
			cix_json_string(j, o->hash);
		}
		cix_json_end_object(j);
	}
	cix_json_end_object(j);
	cix_json_key(j, "inputSrcs");
	print_strings(j, drv->input_srcs, drv->nr_input_srcs);
	cix_json_key(j, "inputDrvs");
	cix_json_begin_object(j);
	for (size_t i = 0; i < drv->nr_input_drvs; i++) {
		cix_json_key(j, drv->input_drvs[i].path);
		print_strings(j, drv->input_drvs[i].outputs, drv->input_drvs[i].nr_outputs);
	}
	cix_json_end_object(j);
	cix_json_key(j, "system");
	cix_json_string(j, drv->platform);
	cix_json_key(j, "builder");
	cix_json_string(j, drv->builder);
	cix_json_key(j, "args");
	print_strings(j, drv->args, drv->nr_args);
	cix_json_key(j, "env");
	cix_json_begin_object(j);
	for (size_t i = 0; i < drv->nr_env; i++) {
		cix_json_key(j, drv->env[i].key);
		cix_json_string(j, drv->env[i].value);
	}
	cix_json_end_object(j);
	if (e->verified) {
		struct strbuf hex = STRBUF_INIT;
		cix_base16_encode(&hex, e->modulo.bytes, e->modulo.len);
		cix_json_key(j, "cix");
		cix_json_begin_object(j);
		cix_json_key(j, "hashModulo");
		cix_json_string(j, hex.buf);
		cix_json_key(j, "recomputedPaths");
		cix_json_begin_object(j);
		for (size_t i = 0; i < drv->nr_outputs; i++) {
			cix_json_key(j, drv->outputs[i].name);
			cix_json_string(j, e->paths[i].buf);
		}
		cix_json_end_object(j);
		cix_json_key(j, "validOutputs");
		cix_json_bool(j, e->valid);
		cix_json_end_object(j);
		strbuf_release(&hex);
	}
	cix_json_end_object(j);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;
	return strcmp(x->key.buf, y->key.buf);
}

static int show_aterm(int argc, char **argv, const char *store_dir)
{
	int status = 0;
	for (int i = 0; i < argc; i++) {
		struct cix_err err = { 0 };
		struct cix_drv *drv;
		struct strbuf sb = STRBUF_INIT;
		if (cix_drv_parse_file(argv[i], store_dir, &drv, &err) < 0) {
			status = error("%s: %s", argv[i], err.msg);
			continue;
		}
		cix_drv_unparse(drv, &sb);
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
		cix_drv_free(drv);
	}
	return status;
}

static int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store-dir", required_argument, NULL, 's' },
		{ "no-verify", no_argument, NULL, 'n' },
		{ "aterm", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *store_dir = NULL;
	int no_verify = 0, aterm = 0, c, status = 0;
	struct entry *entries, **sorted;
	size_t nr = 0;

	while ((c = getopt_long(argc, argv, ":s:nahV", opts, NULL)) != -1) {
		switch (c) {
		case 's': store_dir = optarg; break;
		case 'n': no_verify = 1; break;
		case 'a': aterm = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': return print_version();
		default: return option_error(c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("no derivation given");
	if (store_dir) {
		struct cix_err err = { 0 };
		if (cix_store_dir_check(store_dir, &err) < 0)
			return usage_error("%s", err.msg);
	}
	if (aterm)
		return show_aterm(argc - optind, argv + optind, store_dir);

	entries = xcalloc((size_t)(argc - optind), sizeof(*entries));
	sorted = xcalloc((size_t)(argc - optind), sizeof(*sorted));
	for (int i = optind; i < argc; i++) {
		struct entry *e = &entries[i - optind];
		e->file = argv[i];
		strbuf_init(&e->key, 0);
		if (load_entry(e, store_dir, no_verify))
			status = EXIT_FAIL;
		if (e->drv && e->key.len)
			sorted[nr++] = e;
	}
	if (nr) {
		struct strbuf out = STRBUF_INIT;
		struct cix_json j;
		qsort(sorted, nr, sizeof(*sorted), cmp_entry);
		cix_json_init(&j, &out, 1);
		cix_json_begin_object(&j);
		for (size_t i = 0; i < nr; i++)
			if (!i || strcmp(sorted[i - 1]->key.buf, sorted[i]->key.buf))
				print_entry(&j, sorted[i]);
		cix_json_end_object(&j);
		strbuf_addch(&out, '\n');
		fwrite(out.buf, 1, out.len, stdout);
		strbuf_release(&out);
	}
	for (int i = 0; i < argc - optind; i++) {
		struct entry *e = &entries[i];
		if (e->paths)
			for (size_t k = 0; k < e->drv->nr_outputs; k++)
				strbuf_release(&e->paths[k]);
		free(e->paths);
		cix_drv_free(e->drv);
		strbuf_release(&e->key);
	}
	free(entries);
	free(sorted);
	return status;
}

int cmd_derivation(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("no subcommand given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return print_version();
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	return usage_error("unknown subcommand '%s'", argv[1]);
}
