/* guile.c - the package language: GNU Guile embedded, the only file that includes libguile.h */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme.h"
#include "encoding.h"
#include "pkg-index.h"
#include "profile.h"
#include "pull.h"
#include "sexp-scan.h"
#include "strbuf.h"
#include "util.h"

#include <libguile.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Package definitions are evaluated by Guile; the records of (guix
 * packages) are then read into the C structures of lib/lower.h (Guile's GC
 * does not see malloc'd memory, so no SCM is kept there), and lowered in
 * C. Scheme errors come back as one line, with the place they come from.
 */

#ifndef CIX_DATA_DIR
#define CIX_DATA_DIR "/usr/local/share/cix"
#endif
#ifndef CIX_GO_DIR
#define CIX_GO_DIR "/usr/local/lib/cix/scheme/go"
#endif

static int initialised;      /* 1: ready, -1: the modules could not be loaded */
static char init_error[CIX_ERR_MSG_MAX];

/*
 * What a command reads packages with: the lowering and the target, and
 * the nodes read so far. Its Scheme tables are made when Guile first
 * reads for it, and protected from the collector until it is freed.
 */
struct cix_scheme_session {
	struct cix_lower *lower;   /* for %package-derivation; NULL: none */
	char *target;              /* the packages named are cross-built for it; NULL: native */
	int made;                  /* the tables below exist */
	SCM memo;   /* package, origin... -> the C node read from it (eq hash table) */
	/*
	 * A package cross-built is another node than the same package built
	 * natively: those of each target are memoised in their own table.
	 */
	SCM cross_memos;   /* (#f ("TRIPLET" . eq-hash-table) ...) */
	/*
	 * FILE and NAME -> the C node of a local-file: one node, so one addition to
	 * the store, for every local-file record naming the same file (a thousand
	 * packages each writing (local-file "builder") add it once).
	 */
	SCM local_files;
	/*
	 * (#f (TABLE . KEY) ...): the memo entries made by the reads under way,
	 * newest first; a read that fails removes those it made (see
	 * read_whole), as they may be half made.
	 */
	SCM pending;
	int reading;   /* read_whole calls under way */
};

/*
 * The session of the reading under way, for %package-derivation: bound
 * (to a pointer object) for the dynamic extent of each read, #f outside.
 */
static SCM session_fluid;

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

/* (%package-derivation PACKAGE TARGET): below, with the readers. */
static SCM prim_package_derivation(SCM pkg, SCM target);

static SCM prim_data_dir(void)
{
	const char *d = getenv("CIX_DATA_DIR");
	char *pulled = d && *d ? NULL : cix_pull_tree();   /* cix pull's, with a builder */
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
 * lib/sexp-scan.h, or an error says where not; for modules that Guile
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

static void define_primitives(void *unused)
{
	session_fluid = scm_permanent_object(scm_make_fluid_with_default(SCM_BOOL_F));
	scm_c_define_gsubr("%nix-base32->bytevector", 1, 0, 0, prim_base32);
	scm_c_define_gsubr("%cix-data-dir", 0, 0, 0, prim_data_dir);
	scm_c_define_gsubr("%package-derivation", 2, 0, 0, prim_package_derivation);
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
	scm_c_define_module("cix primitives", define_primitives, NULL);
	cix_scheme_search_path(&def);
	prepend_path("%load-path", def.buf);
	cix_scheme_compiled_path(&compiled);
	prepend_path("%load-compiled-path", compiled.buf);
	strbuf_release(&def);
	strbuf_release(&compiled);
	(void)unused;
	return NULL;
}

/* (cix ui)'s procedures that the reading of every record calls, looked up once. */
static SCM record_ref, record_kind, lowered_arguments;

static SCM use_ui(void *unused)
{
	scm_c_use_module("cix ui");
	record_ref = scm_permanent_object(scm_c_public_ref("cix ui", "record-ref"));
	record_kind = scm_permanent_object(scm_c_public_ref("cix ui", "record-kind"));
	lowered_arguments =
		scm_permanent_object(scm_c_public_ref("cix ui", "package-lowered-arguments"));
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

struct call {
	SCM proc, args, result;
	struct cix_err *err;
};

/*
 * (cix ui) describes an error as one line with its place; the stack is
 * still there in the pre-unwind handler.
 */
static SCM call_preunwind(void *data, SCM key, SCM args)
{
	struct call *c = data;
	SCM describe = scm_c_public_ref("cix ui", "describe-error");
	SCM msg = scm_call_3(describe, key, args, scm_make_stack(SCM_BOOL_T, SCM_EOL));
	char *s = scm_to_utf8_string(msg);
	cix_error(c->err, -CIX_EINVAL, "%s", s);
	free(s);
	return SCM_UNSPECIFIED;
}

static SCM call_handler(void *data, SCM key, SCM args)
{
	(void)data; (void)key; (void)args;
	return SCM_UNDEFINED;
}

/*
 * A body run in Guile under a catch: it sets *r (0 when done); an error
 * thrown leaves -CIX_EINVAL there and its description in err.
 */
struct guarded {
	scm_t_catch_body body;
	void *data;
	int *r;
	struct cix_err *err;
};

static void *do_guarded(void *arg)
{
	struct guarded *g = arg;
	struct call c = { SCM_BOOL_F, SCM_EOL, SCM_UNDEFINED, g->err };
	*g->r = -CIX_EINVAL;
	if (SCM_UNBNDP(scm_c_catch(SCM_BOOL_T, g->body, g->data, call_handler, &c,
				   call_preunwind, &c)))
		*g->r = -CIX_EINVAL;
	return NULL;
}

static void run_guarded(scm_t_catch_body body, void *data, int *r, struct cix_err *err)
{
	struct guarded g = { body, data, r, err };
	scm_with_guile(do_guarded, &g);
}

/* ---- reading the records into C ---- */

/* A field of a record of (guix packages), by name (see (cix ui) record-ref). */
static SCM field(SCM obj, const char *name)
{
	return scm_call_2(record_ref, obj, scm_from_utf8_symbol(name));
}

static char *string_or_null(SCM s)
{
	return scm_is_string(s) ? scm_to_utf8_string(s) : NULL;
}

/* Is obj a package, an origin, a bootstrap-item, a local-file? */
static int is(const char *kind, SCM obj)
{
	return scm_is_eq(scm_call_1(record_kind, obj), scm_from_utf8_symbol(kind));
}

struct reader {
	struct cix_err *err;
	int depth;
	const char *target;   /* the packages read are cross-built for it; NULL: native */
	struct cix_scheme_session *ss;
};

static int read_package(struct reader *rd, SCM p, struct cix_package **out);

static int read_hash(SCM bv, struct cix_hash *h)
{
	if (!scm_is_bytevector(bv) || SCM_BYTEVECTOR_LENGTH(bv) != 32)
		return -1;
	h->algo = CIX_HASH_SHA256;
	h->len = 32;
	memcpy(h->bytes, SCM_BYTEVECTOR_CONTENTS(bv), 32);
	return 0;
}

static void *memo_get(struct reader *rd, SCM obj)
{
	SCM v = scm_hashq_ref(rd->ss->memo, obj, SCM_BOOL_F);
	return scm_is_false(v) ? NULL : scm_to_pointer(v);
}

static SCM package_memo(struct reader *rd)
{
	if (!rd->target)
		return rd->ss->memo;
	SCM key = scm_from_utf8_string(rd->target), memos = rd->ss->cross_memos;
	SCM t = scm_assoc_ref(SCM_CDR(memos), key);
	if (scm_is_false(t)) {
		t = scm_c_make_hash_table(64);
		scm_set_cdr_x(memos, scm_acons(key, t, SCM_CDR(memos)));
	}
	return t;
}

/*
 * The nodes live until the process ends. Listed here as well, in memory of
 * malloc's: a leak checker does not see into the collector's heap, where
 * the memo table keeps them.
 */
static void **nodes;
static size_t nr_nodes, alloc_nodes;

static void memo_put_in(struct reader *rd, SCM table, SCM obj, void *node)
{
	SCM pending = rd->ss->pending;
	scm_hashq_set_x(table, obj, scm_from_pointer(node, NULL));
	scm_set_cdr_x(pending, scm_cons(scm_cons(table, obj), SCM_CDR(pending)));
	ALLOC_GROW(nodes, nr_nodes + 1, alloc_nodes);
	nodes[nr_nodes++] = node;
}

static void memo_put(struct reader *rd, SCM obj, void *node)
{
	memo_put_in(rd, rd->ss->memo, obj, node);
}

/* A source or a non-package input: origin, bootstrap item, local file. */
static int read_thing(struct reader *rd, SCM obj, struct cix_input *in, const char *who)
{
	void *node = memo_get(rd, obj);
	if (is("origin", obj)) {
		struct cix_origin *o = node;
		in->kind = CIX_INPUT_ORIGIN;
		if (!o) {
			SCM uri = field(obj, "uri");
			if (scm_is_pair(uri))
				uri = SCM_CAR(uri);
			if (!scm_is_true(field(obj, "url-fetch?")))
				return cix_error(rd->err, -CIX_EUNSUPPORTED,
						 "%s: only url-fetch origins are supported", who);
			if (!scm_is_string(uri))
				return cix_error(rd->err, -CIX_EINVAL, "%s: an origin's uri is a string",
						 who);
			o = xcalloc(1, sizeof(*o));
			o->url = scm_to_utf8_string(uri);
			o->file_name = string_or_null(field(obj, "file-name"));
			if (read_hash(field(obj, "sha256"), &o->hash) < 0)
				return cix_error(rd->err, -CIX_EINVAL, "%s: bad sha256 in origin", who);
			memo_put(rd, obj, o);
		}
		in->u.origin = o;
		return 0;
	}
	if (is("bootstrap-item", obj)) {
		struct cix_item *it = node;
		in->kind = CIX_INPUT_ITEM;
		if (!it) {
			it = xcalloc(1, sizeof(*it));
			it->name = string_or_null(field(obj, "name"));
			it->recursive = scm_is_true(field(obj, "recursive?"));
			if (!it->name || read_hash(field(obj, "sha256"), &it->hash) < 0)
				return cix_error(rd->err, -CIX_EINVAL, "%s: bad bootstrap item", who);
			memo_put(rd, obj, it);
		}
		in->u.item = it;
		return 0;
	}
	if (is("local-file", obj)) {
		struct cix_file *f = node;
		in->kind = CIX_INPUT_FILE;
		if (!f) {
			SCM file = field(obj, "file"), name = field(obj, "name");
			if (!scm_is_string(file))
				return cix_error(rd->err, -CIX_EINVAL, "%s: bad local file", who);
			/* "LENGTH:FILE", then "=NAME" when it has one: no two alike. */
			SCM key = scm_string_append(scm_list_4(
				scm_number_to_string(scm_string_length(file), SCM_UNDEFINED),
				scm_from_utf8_string(":"), file,
				scm_is_string(name) ? scm_string_append(scm_list_2(
							      scm_from_utf8_string("="), name))
						    : scm_from_utf8_string("")));
			SCM v = scm_hash_ref(rd->ss->local_files, key, SCM_BOOL_F);
			if (scm_is_true(v)) {
				f = scm_to_pointer(v);
			} else {
				f = xcalloc(1, sizeof(*f));
				f->file = string_or_null(file);
				f->name = string_or_null(name);
				scm_hash_set_x(rd->ss->local_files, key, scm_from_pointer(f, NULL));
			}
			memo_put(rd, obj, f);
		}
		in->u.file = f;
		return 0;
	}
	return cix_error(rd->err, -CIX_EINVAL, "%s: not a package, origin or file", who);
}

/* One element of an input list: ("label" thing ["output"]), or a package. */
static int read_input(struct reader *rd, SCM item, struct cix_input *in, const char *who)
{
	SCM thing = item;
	memset(in, 0, sizeof(*in));
	if (scm_is_pair(item) && scm_is_string(SCM_CAR(item)) && scm_is_pair(SCM_CDR(item))) {
		in->label = scm_to_utf8_string(SCM_CAR(item));
		thing = SCM_CADR(item);
		if (scm_is_pair(SCM_CDDR(item))) {
			SCM o = SCM_CADDR(item);
			if (!scm_is_string(o))
				return cix_error(rd->err, -CIX_EINVAL, "%s: input '%s': bad output", who,
						 in->label);
			in->output = scm_to_utf8_string(o);
		}
	}
	if (is("package", thing)) {
		in->kind = CIX_INPUT_PACKAGE;
		if (!in->label)
			in->label = string_or_null(field(thing, "name"));
		return read_package(rd, thing, &in->u.package);
	}
	return read_thing(rd, thing, in, who);
}

static int read_inputs(struct reader *rd, SCM list, struct cix_input **v, size_t *nr,
		       size_t *alloc, const char *who)
{
	if (scm_is_false(scm_list_p(list)))
		return cix_error(rd->err, -CIX_EINVAL, "%s: inputs must be a list", who);
	for (; scm_is_pair(list); list = SCM_CDR(list)) {
		ALLOC_GROW(*v, *nr + 1, *alloc);
		int r = read_input(rd, SCM_CAR(list), &(*v)[*nr], who);
		if (r < 0)
			return r;
		(*nr)++;
	}
	return 0;
}

static int read_arg(struct reader *rd, SCM a, struct cix_arg *out, const char *who)
{
	memset(out, 0, sizeof(*out));
	if (scm_is_string(a)) {
		out->text = scm_to_utf8_string(a);
		return 0;
	}
	if (scm_is_pair(a) && scm_is_string(SCM_CAR(a)) && scm_is_string(SCM_CDR(a))) {
		out->label = scm_to_utf8_string(SCM_CAR(a));
		out->text = scm_to_utf8_string(SCM_CDR(a));
		return 0;
	}
	return cix_error(rd->err, -CIX_EINVAL, "%s: bad builder argument", who);
}

/* The build system's say: ((env ...) (builder . B) (args ...) (implicit ...)). */
static int read_lowered_args(struct reader *rd, SCM alist, struct cix_package *p,
			     const char *who)
{
	SCM env = scm_assq_ref(alist, scm_from_utf8_symbol("env"));
	SCM builder = scm_assq_ref(alist, scm_from_utf8_symbol("builder"));
	SCM args = scm_assq_ref(alist, scm_from_utf8_symbol("args"));
	SCM implicit = scm_assq_ref(alist, scm_from_utf8_symbol("implicit"));
	int r;

	for (; scm_is_pair(env); env = SCM_CDR(env)) {
		SCM kv = SCM_CAR(env);
		if (scm_is_pair(kv) && scm_is_string(SCM_CAR(kv)) && scm_is_pair(SCM_CDR(kv))) {
			/* (KEY LABEL . TEXT): an input's store path, then TEXT */
			struct cix_env_ref *e;
			ALLOC_GROW(p->env_refs, p->nr_env_refs + 1, p->alloc_env_refs);
			e = &p->env_refs[p->nr_env_refs];
			if ((r = read_arg(rd, SCM_CDR(kv), &e->value, who)) < 0)
				return r;
			e->key = scm_to_utf8_string(SCM_CAR(kv));
			p->nr_env_refs++;
			continue;
		}
		if (!scm_is_pair(kv) || !scm_is_string(SCM_CAR(kv)) || !scm_is_string(SCM_CDR(kv)))
			return cix_error(rd->err, -CIX_EINVAL, "%s: bad environment variable", who);
		char *k = scm_to_utf8_string(SCM_CAR(kv)), *v = scm_to_utf8_string(SCM_CDR(kv));
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s=%s", k, v);
		strvec_push(&p->env, sb.buf);
		strbuf_release(&sb);
		free(k);
		free(v);
	}
	if (scm_is_true(builder) && !SCM_UNBNDP(builder)) {
		p->builder = xcalloc(1, sizeof(*p->builder));
		if ((r = read_arg(rd, builder, p->builder, who)) < 0)
			return r;
	}
	for (; scm_is_pair(args); args = SCM_CDR(args)) {
		ALLOC_GROW(p->args, p->nr_args + 1, p->alloc_args);
		if ((r = read_arg(rd, SCM_CAR(args), &p->args[p->nr_args], who)) < 0)
			return r;
		p->nr_args++;
	}
	return read_inputs(rd, scm_is_false(implicit) ? SCM_EOL : implicit, &p->implicit,
			   &p->nr_implicit, &p->alloc_implicit, who);
}

static int read_package(struct reader *rd, SCM obj, struct cix_package **out)
{
	SCM table = package_memo(rd);
	SCM v = scm_hashq_ref(table, obj, SCM_BOOL_F);
	struct cix_package *p = scm_is_false(v) ? NULL : scm_to_pointer(v);
	const char *target = rd->target;
	struct strbuf who = STRBUF_INIT;
	int r = 0;

	if (p) {
		*out = p;
		return 0;
	}
	if (rd->depth > 256)
		return cix_error(rd->err, -CIX_ELIMIT, "packages nested too deep");
	p = xcalloc(1, sizeof(*p));
	memo_put_in(rd, table, obj, p);   /* (a package that needs itself is caught by lowering) */
	*out = p;
	rd->depth++;
	p->target = target ? xstrdup(target) : NULL;
	p->name = string_or_null(field(obj, "name"));
	p->version = string_or_null(field(obj, "version"));
	p->location = string_or_null(field(obj, "location"));
	if (p->location)
		strbuf_addf(&who, "%s: ", p->location);
	strbuf_addf(&who, "package '%s'", p->name ? p->name : "?");

	SCM outputs = field(obj, "outputs");
	for (; scm_is_pair(outputs); outputs = SCM_CDR(outputs)) {
		char *o = string_or_null(SCM_CAR(outputs));
		if (!o) {
			r = cix_error(rd->err, -CIX_EINVAL, "%s: outputs are strings", who.buf);
			goto out;
		}
		strvec_push(&p->outputs, o);
		free(o);
	}
	SCM src = field(obj, "source");
	if (scm_is_true(src)) {
		p->has_source = 1;
		if ((r = read_thing(rd, src, &p->source, who.buf)) < 0)
			goto out;
	}
	SCM bs_name = field(obj, "build-system-name");
	if (scm_is_eq(bs_name, scm_from_utf8_symbol("gnu")))
		p->build_system = CIX_BS_GNU;
	else if (scm_is_eq(bs_name, scm_from_utf8_symbol("trivial")))
		p->build_system = CIX_BS_TRIVIAL;
	else {
		r = cix_error(rd->err, -CIX_EUNSUPPORTED, "%s: unknown build system", who.buf);
		goto out;
	}
	/*
	 * The build system's say, and its implicit inputs (the bootstrap, the
	 * builder, a cross tool chain), are for the build machine; so are the
	 * native inputs. The inputs and propagated inputs are for the target.
	 */
	SCM lowered = scm_call_2(lowered_arguments, obj,
				 target ? scm_from_utf8_string(target) : SCM_BOOL_F);
	rd->target = NULL;
	r = read_lowered_args(rd, lowered, p, who.buf);
	rd->target = target;
	if (r < 0 ||
	    (r = read_inputs(rd, field(obj, "inputs"), &p->inputs, &p->nr_inputs,
			     &p->alloc_inputs, who.buf)) < 0)
		goto out;
	size_t native = p->nr_inputs;
	rd->target = NULL;
	r = read_inputs(rd, field(obj, "native-inputs"), &p->inputs, &p->nr_inputs,
			&p->alloc_inputs, who.buf);
	rd->target = target;
	if (r < 0)
		goto out;
	for (size_t i = native; i < p->nr_inputs; i++)
		p->inputs[i].native = 1;
	size_t before = p->nr_inputs;
	r = read_inputs(rd, field(obj, "propagated-inputs"), &p->inputs, &p->nr_inputs,
			&p->alloc_inputs, who.buf);
	p->nr_propagated = p->nr_inputs - before;
out:
	rd->target = target;
	rd->depth--;
	strbuf_release(&who);
	return r;
}

/*
 * The memo entries a read makes are kept when the outermost read under
 * way succeeds, and removed when it fails, by an error in C or a Scheme
 * error unwinding through it: no later read finds a package half read
 * (nor one that refers to it).
 */
struct read_mark {
	struct cix_scheme_session *ss;
	SCM mark;   /* SCM_CDR(ss->pending) when the read began */
};

static void read_failed(void *data)
{
	struct read_mark *m = data;
	SCM pending = m->ss->pending, e = SCM_CDR(pending);
	for (; !scm_is_eq(e, m->mark); e = SCM_CDR(e))
		scm_hashq_remove_x(SCM_CAAR(e), SCM_CDAR(e));
	scm_set_cdr_x(pending, m->mark);
	m->ss->reading--;
}

static int read_whole(struct reader *rd, SCM obj, struct cix_package **out)
{
	struct read_mark m = { rd->ss, SCM_CDR(rd->ss->pending) };
	int r;
	scm_dynwind_begin(0);
	rd->ss->reading++;
	scm_dynwind_unwind_handler(read_failed, &m, 0);   /* on a non-local exit */
	if ((r = read_package(rd, obj, out)) < 0) {
		read_failed(&m);
	} else if (--rd->ss->reading == 0) {
		scm_set_cdr_x(rd->ss->pending, SCM_EOL);   /* all whole: kept */
	}
	scm_dynwind_end();
	return r;
}

/*
 * (%package-derivation PACKAGE TARGET): the file name of its .drv, written
 * to the store by the lowering of the session reading.
 */
static SCM prim_package_derivation(SCM pkg, SCM target)
{
	struct cix_err err = { 0 };
	SCM cur = scm_fluid_ref(session_fluid);
	struct cix_scheme_session *ss = scm_is_false(cur) ? NULL : scm_to_pointer(cur);
	char *t = scm_is_string(target) ? scm_to_utf8_string(target) : NULL;
	struct reader rd = { &err, 0, t, ss };
	struct cix_package *p = NULL;
	int r;

	if (!ss || !ss->lower)
		r = cix_error(&err, -CIX_EINVAL, "no store to write derivations to here");
	else if ((r = read_whole(&rd, pkg, &p)) == 0)
		r = cix_lower_package(ss->lower, p, &err);
	free(t);
	if (r < 0)
		scm_misc_error("package-derivation", "~a",
			       scm_list_1(scm_from_utf8_string(err.msg)));
	return scm_from_utf8_string(p->drv_path);
}

/* ---- search paths ---- */

/* A string without NUL bytes (which C would cut), malloc'd; or NULL. */
static char *clean_string(SCM s)
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

/* (VARIABLE SEPARATOR FILE-TYPE FILE-PATTERN (FILE ...)), as (cix ui) gives it. */
static int read_search_path(struct reader *rd, SCM x, struct cix_search_path *sp,
			    const char *who)
{
	const char *why = "not (variable separator file-type file-pattern files)";
	memset(sp, 0, sizeof(*sp));
	if (scm_ilength(x) != 5)
		goto bad;
	SCM sep = SCM_CADR(x), type = SCM_CADDR(x), pat = scm_list_ref(x, scm_from_int(3));
	SCM files = scm_list_ref(x, scm_from_int(4));
	sp->variable = clean_string(SCM_CAR(x));
	if (!sp->variable || !scm_is_symbol(type) ||
	    (scm_is_true(sep) && !(sp->separator = clean_string(sep))) ||
	    (scm_is_true(pat) && !(sp->file_pattern = clean_string(pat))))
		goto bad;
	char *t = scm_to_utf8_string(scm_symbol_to_string(type));
	int r = cix_file_type_parse(t, &sp->file_type);
	free(t);
	if (r < 0) {
		why = "an unknown file type";
		goto bad;
	}
	long nfiles = scm_ilength(files);
	if (nfiles < 0 || nfiles > CIX_SEARCH_PATH_MAX_FILES) {
		why = "its files are not a list of at most 256";
		goto bad;
	}
	for (; scm_is_pair(files); files = SCM_CDR(files)) {
		char *f = clean_string(SCM_CAR(files));
		if (!f)
			goto bad;
		strvec_push(&sp->files, f);
		free(f);
	}
	if (!(why = cix_search_path_check(sp)))
		return 0;
bad:
	cix_search_path_release(sp);
	return cix_error(rd->err, -CIX_EINVAL, "%s: bad search path: %s", who, why);
}

static int read_search_paths(struct reader *rd, SCM list, struct cix_scheme_target *t,
			     const char *who)
{
	long n = scm_ilength(list);
	if (n < 0 || n > CIX_MANIFEST_MAX_SEARCH_PATHS)
		return cix_error(rd->err, -CIX_EINVAL, "%s: too many search paths", who);
	if (!n)
		return 0;
	t->search_paths = xcalloc((size_t)n, sizeof(*t->search_paths));
	for (; scm_is_pair(list); list = SCM_CDR(list)) {
		int r = read_search_path(rd, SCM_CAR(list), &t->search_paths[t->nr_search_paths],
					 who);
		if (r < 0)
			return r;
		t->nr_search_paths++;
	}
	return 0;
}

void cix_scheme_target_release(struct cix_scheme_target *t)
{
	free(t->output);
	free(t->drv_path);
	free(t->name);
	free(t->version);
	for (size_t i = 0; i < t->nr_search_paths; i++)
		cix_search_path_release(&t->search_paths[i]);
	free(t->search_paths);
	memset(t, 0, sizeof(*t));
}

/* ---- the API ---- */

void cix_scheme_search_path(struct strbuf *sb)
{
	const char *path = getenv("CIX_SCHEME_PATH");
	char *pulled = path && *path ? NULL : cix_pull_tree();   /* cix pull's */
	if (path && *path)
		strbuf_addstr(sb, path);
	else if (pulled)
		strbuf_addf(sb, "%s/" CIX_PULL_MODULES ":%s/" CIX_PULL_DISTRO, pulled, pulled);
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
	const char *compiled = getenv("CIX_SCHEME_COMPILED_PATH");
	char *pulled = compiled && *compiled ? NULL : cix_pull_tree();   /* cix pull's */
	if (pulled)
		strbuf_addf(sb, "%s/" CIX_PULL_GO, pulled);
	else
		strbuf_addstr(sb, compiled && *compiled ? compiled : CIX_GO_DIR);
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

/* ---- sessions ---- */

struct cix_scheme_session *cix_scheme_session_new(struct cix_lower *l, const char *triplet)
{
	struct cix_scheme_session *ss = xcalloc(1, sizeof(*ss));
	ss->lower = l;
	ss->target = triplet && *triplet ? xstrdup(triplet) : NULL;
	return ss;
}

static void *unprotect(void *data)
{
	struct cix_scheme_session *ss = data;
	scm_gc_unprotect_object(ss->memo);
	scm_gc_unprotect_object(ss->cross_memos);
	scm_gc_unprotect_object(ss->local_files);
	scm_gc_unprotect_object(ss->pending);
	return NULL;
}

/* The nodes read stay (see nodes): the targets given out point into them. */
void cix_scheme_session_free(struct cix_scheme_session *ss)
{
	if (!ss)
		return;
	if (ss->made)
		scm_with_guile(unprotect, ss);
	free(ss->target);
	free(ss);
}

static void make_tables(struct cix_scheme_session *ss)
{
	if (ss->made)
		return;
	ss->memo = scm_gc_protect_object(scm_c_make_hash_table(64));
	ss->cross_memos = scm_gc_protect_object(scm_list_1(SCM_BOOL_F));
	ss->local_files = scm_gc_protect_object(scm_c_make_hash_table(16));
	ss->pending = scm_gc_protect_object(scm_list_1(SCM_BOOL_F));
	ss->made = 1;
}

static SCM target_scm(const struct cix_scheme_session *ss)
{
	return ss->target ? scm_from_utf8_string(ss->target) : SCM_BOOL_F;
}

/* A body run in Guile, guarded, with ss the session of %package-derivation. */
struct in_session {
	struct cix_scheme_session *ss;
	scm_t_catch_body body;
	void *data;
};

static SCM session_body(void *arg)
{
	struct in_session *is = arg;
	make_tables(is->ss);
	return scm_c_with_fluid(session_fluid, scm_from_pointer(is->ss, NULL), is->body,
				is->data);
}

static void run_in_session(struct cix_scheme_session *ss, scm_t_catch_body body, void *data,
			   int *r, struct cix_err *err)
{
	struct in_session is = { ss, body, data };
	run_guarded(session_body, &is, r, err);
}

/* ---- reading packages ---- */

struct lower_call {
	struct cix_scheme_session *ss;
	const char *what;       /* "spec", "expr", "file" */
	const char *arg;
	const struct strbuf *src;   /* a file's bytes, read and checked */
	struct cix_scheme_target *t;
	struct cix_err *err;
	int r;
};

/* A copy of the bytes as a bytevector, for a port Guile reads. */
static SCM bytevector_of(const struct strbuf *sb)
{
	SCM bv = scm_c_make_bytevector(sb->len);
	memcpy(SCM_BYTEVECTOR_CONTENTS(bv), sb->buf, sb->len);
	return bv;
}

static SCM target_result(struct lower_call *lc)
{
	SCM with_target = scm_c_public_ref("cix ui", "with-target");
	SCM arg = scm_from_utf8_string(lc->arg);
	switch (lc->what[0]) {
	case 's':
		return scm_call_3(with_target, target_scm(lc->ss),
				  scm_c_public_ref("cix ui", "find-package-for-spec"), arg);
	case 'e':
		return scm_call_3(with_target, target_scm(lc->ss),
				  scm_c_public_ref("cix ui", "package-from-expression"), arg);
	default:
		return scm_call_4(with_target, target_scm(lc->ss),
				  scm_c_public_ref("cix ui", "package-from-file"), arg,
				  bytevector_of(lc->src));
	}
}

/* Inside the catch: Scheme errors while reading (bad arguments...) unwind to it. */
static SCM lower_body(void *data)
{
	struct lower_call *lc = data;
	struct reader rd = { lc->err, 0, lc->ss->target, lc->ss };
	SCM res = target_result(lc);
	/* (package . output), or (DRV-FILE-NAME . #f) */
	if (scm_is_pair(res) && scm_is_string(SCM_CAR(res))) {
		lc->t->drv_path = clean_string(SCM_CAR(res));
		lc->r = lc->t->drv_path ? 0 : cix_error(lc->err, -CIX_EINVAL, "%s: bad file name",
							 lc->arg);
		return SCM_BOOL_T;
	}
	if (!scm_is_pair(res) || !is("package", SCM_CAR(res))) {
		lc->r = cix_error(lc->err, -CIX_EINVAL, "%s does not give a package", lc->arg);
		return SCM_BOOL_F;
	}
	lc->t->output = string_or_null(SCM_CDR(res));
	if ((lc->r = read_whole(&rd, SCM_CAR(res), &lc->t->package)) < 0)
		return SCM_BOOL_T;
	SCM sps = scm_call_1(scm_c_public_ref("cix ui", "package-search-path-sexps"),
			     SCM_CAR(res));
	lc->r = read_search_paths(&rd, sps, lc->t, lc->t->package->name ? lc->t->package->name
									   : lc->arg);
	return SCM_BOOL_T;
}

/*
 * Expressions and files are checked (lib/sexp-scan.h) before Guile reads
 * them: its reader and expander have no bounds of their own.
 */
static int check_source(const char *what, const char *arg, struct strbuf *src,
			struct cix_err *err)
{
	if (what[0] == 'e')
		return cix_sexp_scan("<expression>", arg, strlen(arg), CIX_SEXP_MAX_DEPTH, err);
	if (what[0] == 'f')
		return cix_sexp_read_file(arg, src, err);
	return 0;
}

static int lower_with(struct cix_scheme_session *ss, const char *what, const char *arg,
		      struct cix_scheme_target *t, struct cix_err *err)
{
	struct strbuf src = STRBUF_INIT;
	struct lower_call lc = { ss, what, arg, &src, t, err, 0 };
	int r;
	memset(t, 0, sizeof(*t));
	if ((r = check_source(what, arg, &src, err)) < 0 || (r = cix_scheme_init(err)) < 0) {
		strbuf_release(&src);
		return r;
	}
	run_in_session(ss, lower_body, &lc, &lc.r, lc.err);
	strbuf_release(&src);
	return lc.r;
}

int cix_scheme_read_spec(struct cix_scheme_session *ss, const char *spec,
			 struct cix_scheme_target *t, struct cix_err *err)
{
	return lower_with(ss, "spec", spec, t, err);
}

int cix_scheme_read_expr(struct cix_scheme_session *ss, const char *expr,
			 struct cix_scheme_target *t, struct cix_err *err)
{
	return lower_with(ss, "expr", expr, t, err);
}

int cix_scheme_read_file(struct cix_scheme_session *ss, const char *file,
			 struct cix_scheme_target *t, struct cix_err *err)
{
	return lower_with(ss, "file", file, t, err);
}

/* ---- manifests ---- */

#define MAX_MANIFEST_ENTRIES 100000

struct manifest_call {
	struct cix_scheme_session *ss;
	const char *file;
	const struct strbuf *src;   /* its bytes, read and checked */
	struct cix_scheme_target *v;
	size_t n;
	struct cix_err *err;
	int r;
};

/* Each entry: (PACKAGE OUTPUT NAME VERSION SEARCH-PATHS), see (cix ui). */
static SCM manifest_body(void *data)
{
	struct manifest_call *mc = data;
	struct reader rd = { mc->err, 0, mc->ss->target, mc->ss };
	SCM entries = scm_call_4(scm_c_public_ref("cix ui", "with-target"), target_scm(mc->ss),
				 scm_c_public_ref("cix ui", "manifest-from-file"),
				 scm_from_utf8_string(mc->file), bytevector_of(mc->src));
	long n = scm_ilength(entries);
	if (n < 0 || n > MAX_MANIFEST_ENTRIES) {
		mc->r = cix_error(mc->err, -CIX_ELIMIT, "%s: too many entries", mc->file);
		return SCM_BOOL_T;
	}
	mc->v = xcalloc((size_t)n + 1, sizeof(*mc->v));
	for (; scm_is_pair(entries); entries = SCM_CDR(entries)) {
		SCM e = SCM_CAR(entries);
		struct cix_scheme_target *t = &mc->v[mc->n++];
		if (scm_ilength(e) != 5 || !is("package", SCM_CAR(e)) ||
		    !(t->output = clean_string(SCM_CADR(e))) ||
		    !(t->name = clean_string(SCM_CADDR(e))) ||
		    !(t->version = clean_string(scm_list_ref(e, scm_from_int(3))))) {
			mc->r = cix_error(mc->err, -CIX_EINVAL, "%s: a bad manifest entry", mc->file);
			return SCM_BOOL_T;
		}
		if ((mc->r = read_whole(&rd, SCM_CAR(e), &t->package)) < 0 ||
		    (mc->r = read_search_paths(&rd, scm_list_ref(e, scm_from_int(4)), t,
					       t->name)) < 0)
			return SCM_BOOL_T;
	}
	mc->r = 0;
	return SCM_BOOL_T;
}

int cix_scheme_read_manifest(struct cix_scheme_session *ss, const char *file,
			     struct cix_scheme_target **v, size_t *n, struct cix_err *err)
{
	struct strbuf src = STRBUF_INIT;
	struct manifest_call mc = { ss, file, &src, NULL, 0, err, 0 };
	int r;
	*v = NULL;
	*n = 0;
	if ((r = cix_sexp_read_file(file, &src, err)) < 0 || (r = cix_scheme_init(err)) < 0) {
		strbuf_release(&src);
		return r;
	}
	run_in_session(ss, manifest_body, &mc, &mc.r, mc.err);
	strbuf_release(&src);
	if (mc.r < 0) {
		/* The message names the file, as given or as Guile canonicalised it. */
		char *real = realpath(file, NULL);
		if (!strstr(err->msg, file) && !(real && strstr(err->msg, real))) {
			char msg[CIX_ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			cix_error(err, mc.r, "%s: %s", file, msg);
		}
		free(real);
		for (size_t i = 0; i < mc.n; i++)
			cix_scheme_target_release(&mc.v[i]);
		free(mc.v);
		return mc.r;
	}
	*v = mc.v;
	*n = mc.n;
	return 0;
}

/* ---- the package index ---- */

struct index_call {
	struct cix_pkg_module *m;
	struct cix_err *err;
	int r;
};

static char *take_string(SCM s)
{
	return scm_is_string(s) ? scm_to_utf8_string(s) : xstrdup("");
}

static unsigned long take_number(SCM n)
{
	return scm_is_unsigned_integer(n, 0, 1UL << 30) ? scm_to_ulong(n) : 0;
}

/* gnu/packages/base.scm -> (gnu packages base) */
static SCM module_name(const char *file)
{
	SCM name = SCM_EOL;
	char *rel = xstrdup(file), *save = NULL;
	size_t l = strlen(rel);
	if (l > 4 && !strcmp(rel + l - 4, ".scm"))
		rel[l - 4] = 0;
	for (char *part = strtok_r(rel, "/", &save); part; part = strtok_r(NULL, "/", &save))
		name = scm_cons(scm_from_utf8_symbol(part), name);
	free(rel);
	return scm_reverse_x(name, SCM_EOL);
}

static SCM index_body(void *data)
{
	struct index_call *ic = data;
	struct cix_pkg_module *m = ic->m;
	SCM entries = scm_call_1(scm_c_public_ref("cix ui", "module-package-entries"),
				 module_name(m->rel));
	size_t dl = strlen(m->dir);
	for (; scm_is_pair(entries); entries = SCM_CDR(entries)) {
		SCM e = SCM_CAR(entries);
		if (scm_ilength(e) != 10)
			continue;
		struct cix_pkg_entry *p = cix_pkg_module_add(m);
		p->name = take_string(scm_list_ref(e, scm_from_int(0)));
		p->version = take_string(scm_list_ref(e, scm_from_int(1)));
		p->outputs = take_string(scm_list_ref(e, scm_from_int(2)));
		p->file = take_string(scm_list_ref(e, scm_from_int(3)));
		p->line = take_number(scm_list_ref(e, scm_from_int(4)));
		p->column = take_number(scm_list_ref(e, scm_from_int(5)));
		p->home_page = take_string(scm_list_ref(e, scm_from_int(6)));
		p->license = take_string(scm_list_ref(e, scm_from_int(7)));
		p->synopsis = take_string(scm_list_ref(e, scm_from_int(8)));
		p->description = take_string(scm_list_ref(e, scm_from_int(9)));
		/* The place relative to its search directory, as Guix shows it. */
		if (!strncmp(p->file, m->dir, dl) && p->file[dl] == '/')
			memmove(p->file, p->file + dl + 1, strlen(p->file + dl + 1) + 1);
		else if (!*p->file) {
			free(p->file);
			p->file = xstrdup(m->rel);
		}
	}
	return SCM_BOOL_T;
}

static void *do_index(void *data)
{
	struct index_call *ic = data;
	struct cix_err err = { 0 };
	struct call c = { SCM_BOOL_F, SCM_EOL, SCM_UNDEFINED, &err };
	SCM res = scm_c_catch(SCM_BOOL_T, index_body, ic, call_handler, &c, call_preunwind, &c);
	if (SCM_UNBNDP(res)) {
		for (size_t i = 0; i < ic->m->nr_pkgs; i++)
			cix_pkg_entry_release(&ic->m->pkgs[i]);
		ic->m->nr_pkgs = 0;
		ic->m->error = xstrdup(err.msg[0] ? err.msg : "cannot be evaluated");
	}
	return NULL;
}

int cix_scheme_index_module(struct cix_pkg_module *m, struct cix_err *err)
{
	struct index_call ic = { m, err, 0 };
	int r;
	if ((r = cix_scheme_init(err)) < 0)
		return r;
	free(m->error);
	m->error = NULL;
	scm_with_guile(do_index, &ic);
	return 0;
}

/* ---- hints for lookups by name ---- */

/* table[key] = (module . table[key]), each module once. */
static void hint_add(SCM table, const char *key, SCM module)
{
	SCM k = scm_from_utf8_string(key);
	SCM mods = scm_hash_ref(table, k, SCM_EOL);
	if (scm_is_false(scm_member(module, mods)))
		scm_hash_set_x(table, k, scm_cons(module, mods));
}

static SCM hint_body(void *data)
{
	const struct cix_pkg_index *idx = data;
	SCM by_name = scm_c_make_hash_table(idx->nr_mods * 8 + 16);
	SCM by_full = scm_c_make_hash_table(idx->nr_mods * 8 + 16);
	struct strbuf full = STRBUF_INIT;
	for (size_t i = 0; i < idx->nr_mods; i++) {
		const struct cix_pkg_module *m = &idx->mods[i];
		SCM name = module_name(m->rel);
		for (size_t k = 0; k < m->nr_pkgs; k++) {
			strbuf_reset(&full);
			strbuf_addf(&full, "%s-%s", m->pkgs[k].name, m->pkgs[k].version);
			hint_add(by_name, m->pkgs[k].name, name);
			hint_add(by_full, full.buf, name);
		}
	}
	strbuf_release(&full);
	scm_call_2(scm_c_public_ref("gnu packages", "set-package-module-hints!"), by_name,
		   by_full);
	return SCM_BOOL_T;
}

static SCM hint_failed(void *data, SCM key, SCM args)
{
	(void)data, (void)key, (void)args;
	return SCM_BOOL_F;
}

static void *do_hint(void *data)
{
	scm_c_catch(SCM_BOOL_T, hint_body, data, hint_failed, NULL, NULL, NULL);
	return NULL;
}

void cix_scheme_hint_modules(const struct cix_pkg_index *idx)
{
	struct cix_err err = { 0 };
	if (cix_scheme_init(&err) == 0)
		scm_with_guile(do_hint, (void *)idx);
	cix_err_clear(&err);
}

/* ---- refresh ---- */

struct refresh_call {
	const char *spec;
	struct cix_refresh_pkg *v;
	size_t n;
	struct cix_err *err;
	int r;
};

#define MAX_REFRESH_PACKAGES 1000000

/* Each entry: (NAME VERSION URI-or-#f SHA256-or-#f LOCATION), see (cix ui). */
static SCM refresh_body(void *data)
{
	struct refresh_call *rc = data;
	SCM entries = scm_call_1(scm_c_public_ref("cix ui", "refresh-packages"),
				 rc->spec ? scm_from_utf8_string(rc->spec) : SCM_BOOL_F);
	long n = scm_ilength(entries);
	if (n < 0 || n > MAX_REFRESH_PACKAGES) {
		rc->r = cix_error(rc->err, -CIX_ELIMIT, "too many packages");
		return SCM_BOOL_T;
	}
	rc->v = xcalloc((size_t)n + 1, sizeof(*rc->v));
	for (; scm_is_pair(entries); entries = SCM_CDR(entries)) {
		SCM e = SCM_CAR(entries);
		if (scm_ilength(e) != 5)
			continue;
		struct cix_refresh_pkg *p = &rc->v[rc->n++];
		p->name = take_string(SCM_CAR(e));
		p->version = take_string(SCM_CADR(e));
		p->uri = clean_string(SCM_CADDR(e));
		if (read_hash(scm_list_ref(e, scm_from_int(3)), &p->hash) < 0)
			memset(&p->hash, 0, sizeof(p->hash));
		p->location = take_string(scm_list_ref(e, scm_from_int(4)));
	}
	rc->r = 0;
	return SCM_BOOL_T;
}

void cix_refresh_pkgs_free(struct cix_refresh_pkg *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].version);
		free(v[i].uri);
		free(v[i].location);
	}
	free(v);
}

int cix_scheme_refresh_packages(const char *spec, struct cix_refresh_pkg **v, size_t *n,
				struct cix_err *err)
{
	struct refresh_call rc = { spec, NULL, 0, err, 0 };
	int r;
	*v = NULL;
	*n = 0;
	if ((r = cix_scheme_init(err)) < 0)
		return r;
	run_guarded(refresh_body, &rc, &rc.r, rc.err);
	if (rc.r < 0) {
		cix_refresh_pkgs_free(rc.v, rc.n);
		return rc.r;
	}
	*v = rc.v;
	*n = rc.n;
	return 0;
}

/* ---- pull ---- */

/*
 * `cix pull` checks and compiles a collection in Scheme (given dirs and
 * go-dir): every module checked (lib/sexp-scan.h: before Guile reads
 * any, as loading one loads those it uses), then loaded, so that each is
 * whole (its procedures defined, not only its macros) when compiling
 * another needs it, then each compiled; the first error as one line naming
 * the file, or the number of modules.
 */
static const char pull_compile_code[] =
	"(lambda (dirs go-dir)\n"
	"  (define (scm-files dir)\n"
	"    ((@ (ice-9 ftw) file-system-fold)\n"
	"     (lambda (name stat result) #t)\n"
	"     (lambda (name stat result)\n"
	"       (if (string-suffix? \".scm\" name) (cons name result) result))\n"
	"     (lambda (name stat result) result)\n"
	"     (lambda (name stat result) result)\n"
	"     (lambda (name stat result) result)\n"
	"     (lambda (name stat errno result)\n"
	"       (error (string-append name \": \" (strerror errno))))\n"
	"     '() dir))\n"
	"  (define (module-name rel)\n"
	"    (map string->symbol (string-split (string-drop-right rel 4) #\\/)))\n"
	"  (define (one-line rel key args)\n"
	"    (let* ((text (false-if-exception\n"
	"                  (call-with-output-string\n"
	"                    (lambda (port) (print-exception port #f key args)))))\n"
	"           (text (string-trim-both\n"
	"                  (string-map (lambda (c) (if (char=? c #\\newline) #\\space c))\n"
	"                              (or text (format #f \"~a ~s\" key args))))))\n"
	"      (if (string-contains text rel) text (string-append rel \": \" text))))\n"
	"  ((@ (ice-9 control) call/ec)\n"
	"   (lambda (return)\n"
	"     (define (try rel thunk)\n"
	"       (catch #t thunk (lambda (key . args) (return (one-line rel key args)))))\n"
	"     (define files\n"
	"       (apply append\n"
	"              (map (lambda (dir)\n"
	"                     (try dir (lambda ()\n"
	"                                (map (lambda (file)\n"
	"                                       (cons file (substring file (+ 1 (string-length dir)))))\n"
	"                                     (sort (scm-files dir) string<?)))))\n"
	"                   dirs)))\n"
	"     (with-fluids ((%file-port-name-canonicalization 'relative))\n"
	"     (parameterize ((current-warning-port (%make-void-port \"w\")))\n"
	"       (for-each (lambda (f)\n"
	"                   (try (cdr f) (lambda () ((@ (cix primitives) %check-source) (car f)))))\n"
	"                 files)\n"
	"       (for-each (lambda (f)\n"
	"                   (try (cdr f) (lambda () (resolve-interface (module-name (cdr f))))))\n"
	"                 files)\n"
	"       (for-each (lambda (f)\n"
	"                   (try (cdr f)\n"
	"                        (lambda ()\n"
	"                          ((@ (system base compile) compile-file)\n"
	"                           (car f)\n"
	"                           #:output-file (string-append go-dir \"/\"\n"
	"                                                        (string-drop-right (cdr f) 4) \".go\")\n"
	"                           #:warning-level 0))))\n"
	"                 files)))\n"
	"     (length files))))\n";

struct pull_call {
	const char *const *dirs;
	size_t nr_dirs;
	const char *go_dir;
	size_t count;
	struct cix_err *err;
	int r;
};

static SCM pull_compile_body(void *data)
{
	struct pull_call *pc = data;
	SCM dirs = SCM_EOL, load_path = scm_c_lookup("%load-path");
	for (size_t i = pc->nr_dirs; i-- > 0;)
		dirs = scm_cons(scm_from_utf8_string(pc->dirs[i]), dirs);
	scm_variable_set_x(load_path, scm_append(scm_list_2(dirs, scm_variable_ref(load_path))));
	SCM res = scm_call_2(scm_c_eval_string(pull_compile_code), dirs,
			     scm_from_utf8_string(pc->go_dir));
	if (scm_is_string(res)) {
		char *s = scm_to_utf8_string(res);
		pc->r = cix_error(pc->err, -CIX_EINVAL, "%s", s);
		free(s);
	} else {
		pc->count = scm_to_size_t(res);
		pc->r = 0;
	}
	return SCM_BOOL_T;
}

static SCM pull_compile_failed(void *data, SCM key, SCM args)
{
	struct pull_call *pc = data;
	SCM msg = scm_simple_format(SCM_BOOL_F, scm_from_utf8_string("~a ~s"),
				    scm_list_2(key, args));
	char *s = scm_to_utf8_string(msg);
	pc->r = cix_error(pc->err, -CIX_EINVAL, "cannot compile the modules: %s", s);
	free(s);
	return SCM_BOOL_F;
}

static void *do_pull_compile(void *data)
{
	scm_variable_set_x(scm_c_lookup("%load-should-auto-compile"), SCM_BOOL_F);
	scm_c_define_module("cix primitives", define_primitives, NULL);
	scm_c_catch(SCM_BOOL_T, pull_compile_body, data, pull_compile_failed, data, NULL, NULL);
	return NULL;
}

int cix_scheme_compile_modules(const char *const *dirs, size_t nr_dirs, const char *go_dir,
			       size_t *count, struct cix_err *err)
{
	struct pull_call pc = { dirs, nr_dirs, go_dir, 0, err, -CIX_EINVAL };
	if (initialised)
		return cix_error(err, -CIX_EINVAL, "Guile is in use: modules are compiled in a"
				 " process of their own");
	/* The modules loaded are these ones: none of cix's own may be read after. */
	initialised = -1;
	snprintf(init_error, sizeof(init_error), "this process compiled other modules");
	scm_with_guile(do_pull_compile, &pc);
	*count = pc.count;
	return pc.r;
}
