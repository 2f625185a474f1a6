/* guile.c - the package language: GNU Guile started, (cix primitives), errors and values */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"
#include "env.h"
#include "encoding.h"
#include "pull.h"
#include "sexp-scan.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CIX_DATA_DIR
#define CIX_DATA_DIR "/usr/local/share/cix"
#endif
#ifndef CIX_GO_DIR
#define CIX_GO_DIR "/usr/local/lib/cix/scheme/go"
#endif

static int initialised;      /* 1: ready, -1: the modules could not be loaded */
static char init_error[CIX_ERR_MSG_MAX];

/* ---- primitives: (cix primitives) ---- */

static SCM prim_base32(SCM str)
{
	SCM_ASSERT_TYPE(scm_is_string(str), str, SCM_ARG1, "%nix-base32->bytevector", "string");
	char *s = scm_to_utf8_string(str);
	unsigned char out[64];
	size_t len = strlen(s), n = len * 5 / 8;
	int bad = n > sizeof(out) || cix_nixbase32_len(n) != len ||
		  cix_nixbase32_decode(s, len, out, n) < 0;
	free(s);
	if (bad)
		scm_misc_error("base32", "invalid nix-base32 string: ~S", scm_list_1(str));
	SCM bv = scm_c_make_bytevector(n);
	memcpy(SCM_BYTEVECTOR_CONTENTS(bv), out, n);
	return bv;
}

static SCM prim_data_dir(void)
{
	const char *d = cix_env(CIX_ENV_DATA_DIR);
	char *pulled = d ? NULL : cix_pull_tree();   /* cix pull's, with a builder */
	struct strbuf sb = STRBUF_INIT;
	if (pulled)
		strbuf_addf(&sb, "%s/" CIX_PULL_BUILDER, pulled);
	if (pulled && access(sb.buf, F_OK) == 0) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/" CIX_PULL_DATA, pulled);
	} else {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, d && *d ? d : CIX_DATA_DIR);
	}
	free(pulled);
	SCM s = scm_from_utf8_string(sb.buf);
	strbuf_release(&sb);
	return s;
}

/*
 * (%check-source FILE): the text of FILE is within the bounds of
 * pkg/sexp-scan.h, or an error says where not; for modules that Guile
 * loads by itself (cix pull's).
 */
static SCM prim_check_source(SCM file)
{
	SCM_ASSERT_TYPE(scm_is_string(file), file, SCM_ARG1, "%check-source", "string");
	char *f = scm_to_utf8_string(file);
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = cix_sexp_read_file(f, &sb, &err);
	free(f);
	strbuf_release(&sb);
	if (r < 0)
		scm_misc_error("check-source", "~a", scm_list_1(scm_from_utf8_string(err.msg)));
	return SCM_UNSPECIFIED;
}

void scheme_define_primitives(void *unused)
{
	scheme_sessions_init();
	scm_c_define_gsubr("%nix-base32->bytevector", 1, 0, 0, prim_base32);
	scm_c_define_gsubr("%cix-data-dir", 0, 0, 0, prim_data_dir);
	scm_c_define_gsubr("%package-derivation", 2, 0, 0, scheme_prim_package_derivation);
	scm_c_define_gsubr("%check-source", 1, 0, 0, prim_check_source);
	scm_c_export("%nix-base32->bytevector", "%cix-data-dir", "%package-derivation",
		     "%check-source", NULL);
	(void)unused;
}

/* Prepend each directory of the colon-separated list to the variable. */
static void prepend_path(const char *var, const char *list)
{
	if (!list || !*list)
		return;
	char *copy = xstrdup(list), *save = NULL;
	SCM dirs = SCM_EOL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
		dirs = scm_cons(scm_from_utf8_string(d), dirs);
	free(copy);
	SCM v = scm_c_lookup(var);
	scm_variable_set_x(v, scm_append(scm_list_2(scm_reverse(dirs), scm_variable_ref(v))));
}

static void *init(void *unused)
{
	struct strbuf def = STRBUF_INIT;
	struct strbuf compiled = STRBUF_INIT;

	scm_variable_set_x(scm_c_lookup("%load-should-auto-compile"), SCM_BOOL_F);
	scm_c_define_module("cix primitives", scheme_define_primitives, NULL);
	cix_scheme_search_path(&def);
	prepend_path("%load-path", def.buf);
	cix_scheme_compiled_path(&compiled);
	prepend_path("%load-compiled-path", compiled.buf);
	strbuf_release(&def);
	strbuf_release(&compiled);
	(void)unused;
	return NULL;
}

static SCM use_ui(void *unused)
{
	scm_c_use_module("cix ui");
	scheme_reader_init();
	(void)unused;
	return SCM_BOOL_T;
}

/* The modules are missing or broken: say so, with where they were looked for. */
static SCM use_ui_failed(void *unused, SCM key, SCM args)
{
	SCM msg = scm_simple_format(SCM_BOOL_F, scm_from_utf8_string("~a ~s"),
				    scm_list_2(key, args));
	char *s = scm_to_utf8_string(msg);
	snprintf(init_error, sizeof(init_error),
		 "cannot load cix's Scheme modules (is CIX_SCHEME_PATH right?): %s", s);
	free(s);
	(void)unused;
	return SCM_BOOL_F;
}

static void *load_ui(void *unused)
{
	SCM ok = scm_c_catch(SCM_BOOL_T, use_ui, NULL, use_ui_failed, NULL, NULL, NULL);
	initialised = scm_is_true(ok) ? 1 : -1;
	(void)unused;
	return NULL;
}

/* ---- errors ---- */

/*
 * (cix ui) describes an error as one line with its place; the stack is
 * still there in the pre-unwind handler.
 */
static SCM call_preunwind(void *data, SCM key, SCM args)
{
	struct cix_err *err = data;
	SCM describe = scm_c_public_ref("cix ui", "describe-error");
	SCM msg = scm_call_3(describe, key, args, scm_make_stack(SCM_BOOL_T, SCM_EOL));
	char *s = scm_to_utf8_string(msg);
	cix_error(err, -CIX_EINVAL, "%s", s);
	free(s);
	return SCM_UNSPECIFIED;
}

static SCM call_handler(void *data, SCM key, SCM args)
{
	(void)data; (void)key; (void)args;
	return SCM_UNDEFINED;
}

SCM scheme_catch(scm_t_catch_body body, void *data, struct cix_err *err)
{
	return scm_c_catch(SCM_BOOL_T, body, data, call_handler, err, call_preunwind, err);
}

struct guarded {
	scm_t_catch_body body;
	void *data;
	int *r;
	struct cix_err *err;
};

static void *do_guarded(void *arg)
{
	struct guarded *g = arg;
	*g->r = -CIX_EINVAL;
	if (SCM_UNBNDP(scheme_catch(g->body, g->data, g->err)))
		*g->r = -CIX_EINVAL;
	return NULL;
}

void scheme_run_guarded(scm_t_catch_body body, void *data, int *r, struct cix_err *err)
{
	struct guarded g = { body, data, r, err };
	scm_with_guile(do_guarded, &g);
}

/* ---- values from Scheme ---- */

char *scheme_string_or_null(SCM s)
{
	return scm_is_string(s) ? scm_to_utf8_string(s) : NULL;
}

char *scheme_clean_string(SCM s)
{
	size_t len;
	if (!scm_is_string(s))
		return NULL;
	char *c = scm_to_utf8_stringn(s, &len);
	if (strlen(c) != len) {
		free(c);
		return NULL;
	}
	return c;
}

char *scheme_take_string(SCM s)
{
	return scm_is_string(s) ? scm_to_utf8_string(s) : xstrdup("");
}

int scheme_read_hash(SCM bv, struct cix_hash *h)
{
	if (!scm_is_bytevector(bv) || SCM_BYTEVECTOR_LENGTH(bv) != 32)
		return -1;
	h->algo = CIX_HASH_SHA256;
	h->len = 32;
	memcpy(h->bytes, SCM_BYTEVECTOR_CONTENTS(bv), 32);
	return 0;
}

SCM scheme_bytevector_of(const struct strbuf *sb)
{
	SCM bv = scm_c_make_bytevector(sb->len);
	memcpy(SCM_BYTEVECTOR_CONTENTS(bv), sb->buf, sb->len);
	return bv;
}

/* ---- starting ---- */

void cix_scheme_search_path(struct strbuf *sb)
{
	const char *path = cix_env(CIX_ENV_SCHEME_PATH);
	char *pulled = path ? NULL : cix_pull_tree();   /* cix pull's */
	if (path)
		strbuf_addstr(sb, path);
	else if (pulled)
		cix_pull_search_path(pulled, sb);
	else
		strbuf_addf(sb, "%s/scheme:%s/distro", CIX_DATA_DIR, CIX_DATA_DIR);
	free(pulled);
}

static void start_guile(void)
{
	scm_with_guile(init, NULL);
	scm_with_guile(load_ui, NULL);
}

void cix_scheme_compiled_path(struct strbuf *sb)
{
	const char *compiled = cix_env(CIX_ENV_SCHEME_COMPILED_PATH);
	char *pulled = compiled ? NULL : cix_pull_tree();   /* cix pull's */
	if (pulled)
		cix_pull_compiled_path(pulled, sb);
	else
		strbuf_addstr(sb, compiled ? compiled : CIX_GO_DIR);
	free(pulled);
}

int cix_scheme_init(struct cix_err *err)
{
	if (!initialised)
		start_guile();
	if (initialised < 0)
		return cix_error(err, -CIX_ENOTFOUND, "%s", init_error);
	return 0;
}

int scheme_claim_for_compile(struct cix_err *err)
{
	if (initialised)
		return cix_error(err, -CIX_EINVAL, "Guile is in use: modules are compiled in a"
				 " process of their own");
	/* The modules loaded are these ones: none of cix's own may be read after. */
	initialised = -1;
	snprintf(init_error, sizeof(init_error), "this process compiled other modules");
	return 0;
}
