/* read-package.c - the records of (guix packages) read into the C structures of pkg/lower.h */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"
#include "profile.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* (cix ui)'s procedures that the reading of every record calls, looked up once. */
static SCM record_ref, record_kind, lowered_arguments;

void scheme_reader_init(void)
{
	record_ref = scm_permanent_object(scm_c_public_ref("cix ui", "record-ref"));
	record_kind = scm_permanent_object(scm_c_public_ref("cix ui", "record-kind"));
	lowered_arguments =
		scm_permanent_object(scm_c_public_ref("cix ui", "package-lowered-arguments"));
}

/* A field of a record of (guix packages), by name (see (cix ui) record-ref). */
static SCM field(SCM obj, const char *name)
{
	return scm_call_2(record_ref, obj, scm_from_utf8_symbol(name));
}

int scheme_is(const char *kind, SCM obj)
{
	return scm_is_eq(scm_call_1(record_kind, obj), scm_from_utf8_symbol(kind));
}

static int read_package(struct reader *rd, SCM p, struct cix_package **out);

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
	if (scheme_is("origin", obj)) {
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
			o->file_name = scheme_string_or_null(field(obj, "file-name"));
			if (scheme_read_hash(field(obj, "sha256"), &o->hash) < 0)
				return cix_error(rd->err, -CIX_EINVAL, "%s: bad sha256 in origin", who);
			memo_put(rd, obj, o);
		}
		in->u.origin = o;
		return 0;
	}
	if (scheme_is("bootstrap-item", obj)) {
		struct cix_item *it = node;
		in->kind = CIX_INPUT_ITEM;
		if (!it) {
			it = xcalloc(1, sizeof(*it));
			it->name = scheme_string_or_null(field(obj, "name"));
			it->recursive = scm_is_true(field(obj, "recursive?"));
			if (!it->name || scheme_read_hash(field(obj, "sha256"), &it->hash) < 0)
				return cix_error(rd->err, -CIX_EINVAL, "%s: bad bootstrap item", who);
			memo_put(rd, obj, it);
		}
		in->u.item = it;
		return 0;
	}
	if (scheme_is("local-file", obj)) {
		struct cix_file *f = node;
		in->kind = CIX_INPUT_FILE;
		if (!f) {
			SCM file = field(obj, "file"), name = field(obj, "name");
			if (!scm_is_string(file))
				return cix_error(rd->err, -CIX_EINVAL, "%s: bad local file", who);
			/*
			 * "LENGTH:FILE", then "=NAME" when it has one, and "|" for
			 * a selection of its files: no two alike. (Two selections of
			 * one directory by two predicates share the first's.)
			 */
			SCM key = scm_string_append(scm_list_5(
				scm_number_to_string(scm_string_length(file), SCM_UNDEFINED),
				scm_from_utf8_string(":"), file,
				scm_is_string(name) ? scm_string_append(scm_list_2(
							      scm_from_utf8_string("="), name))
						    : scm_from_utf8_string(""),
				scm_is_true(field(obj, "select?")) ? scm_from_utf8_string("|")
								       : scm_from_utf8_string("")));
			SCM v = scm_hash_ref(rd->ss->local_files, key, SCM_BOOL_F);
			if (scm_is_true(v)) {
				f = scm_to_pointer(v);
			} else {
				SCM sel = field(obj, "selection");
				f = xcalloc(1, sizeof(*f));
				f->file = scheme_string_or_null(file);
				f->name = scheme_string_or_null(name);
				if (scm_is_true(sel)) {
					f->selected = 1;
					for (; scm_is_pair(sel); sel = SCM_CDR(sel)) {
						char *one = scm_to_utf8_string(SCM_CAR(sel));
						strvec_push(&f->select, one);
						free(one);
					}
				}
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
	if (scheme_is("package", thing)) {
		in->kind = CIX_INPUT_PACKAGE;
		if (!in->label)
			in->label = scheme_string_or_null(field(thing, "name"));
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
	p->name = scheme_string_or_null(field(obj, "name"));
	p->version = scheme_string_or_null(field(obj, "version"));
	p->location = scheme_string_or_null(field(obj, "location"));
	if (p->location)
		strbuf_addf(&who, "%s: ", p->location);
	strbuf_addf(&who, "package '%s'", p->name ? p->name : "?");

	SCM outputs = field(obj, "outputs");
	for (; scm_is_pair(outputs); outputs = SCM_CDR(outputs)) {
		char *o = scheme_string_or_null(SCM_CAR(outputs));
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

int scheme_read_whole(struct reader *rd, SCM obj, struct cix_package **out)
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
SCM scheme_prim_package_derivation(SCM pkg, SCM target)
{
	struct cix_err err = { 0 };
	struct cix_scheme_session *ss = scheme_current_session();
	char *t = scm_is_string(target) ? scm_to_utf8_string(target) : NULL;
	struct reader rd = { &err, 0, t, ss };
	struct cix_package *p = NULL;
	int r;

	if (!ss || !ss->lower)
		r = cix_error(&err, -CIX_EINVAL, "no store to write derivations to here");
	else if ((r = scheme_read_whole(&rd, pkg, &p)) == 0)
		r = cix_lower_package(ss->lower, p, &err);
	free(t);
	if (r < 0)
		scm_misc_error("package-derivation", "~a",
			       scm_list_1(scm_from_utf8_string(err.msg)));
	return scm_from_utf8_string(p->drv_path);
}

/* ---- search paths ---- */

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
	sp->variable = scheme_clean_string(SCM_CAR(x));
	if (!sp->variable || !scm_is_symbol(type) ||
	    (scm_is_true(sep) && !(sp->separator = scheme_clean_string(sep))) ||
	    (scm_is_true(pat) && !(sp->file_pattern = scheme_clean_string(pat))))
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
		char *f = scheme_clean_string(SCM_CAR(files));
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

int scheme_read_search_paths(struct reader *rd, SCM list, struct cix_scheme_target *t,
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

