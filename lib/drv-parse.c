/* drv-parse.c - strict parser for the ATerm .drv format */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"
#include "drv.h"
#include "store-path.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *buf;
	size_t len, pos;
	struct cix_drv *drv;
	struct strbuf tmp;
	struct cix_err *err;
};

CIX_PRINTF(3, 4)
static int fail(struct parser *p, int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cix_error(p->err, code, "invalid derivation at byte %zu: %s", p->pos, msg);
}

static int expect(struct parser *p, const char *lit)
{
	size_t n = strlen(lit);
	for (size_t i = 0; i < n; i++) {
		if (p->pos >= p->len)
			return fail(p, -CIX_EFORMAT, "unexpected end of input, expected '%s'", lit + i);
		if (p->buf[p->pos] != lit[i])
			return fail(p, -CIX_EFORMAT, "expected '%s'", lit + i);
		p->pos++;
	}
	return 0;
}

/* Consume c if it is next. */
static int accept(struct parser *p, char c)
{
	if (p->pos < p->len && p->buf[p->pos] == c) {
		p->pos++;
		return 1;
	}
	return 0;
}

static int parse_string(struct parser *p, char **out)
{
	int r = expect(p, "\"");
	if (r < 0)
		return r;
	strbuf_reset(&p->tmp);
	for (;;) {
		size_t start = p->pos;
		unsigned char c = 0;
		while (p->pos < p->len) {
			c = (unsigned char)p->buf[p->pos];
			if (c == '"' || c == '\\' || c == '\0' || c == '\n' ||
			    c == '\r' || c == '\t')
				break;
			p->pos++;
		}
		strbuf_add(&p->tmp, p->buf + start, p->pos - start);
		if (p->pos >= p->len)
			return fail(p, -CIX_EFORMAT, "unterminated string");
		if (c == '"')
			break;
		if (c != '\\')
			return fail(p, -CIX_EFORMAT, "%s in a string",
				    c == '\0' ? "NUL byte" : c == '\n' ? "unescaped newline" :
				    c == '\r' ? "unescaped carriage return" : "unescaped tab");
		if (p->pos + 1 >= p->len) {
			p->pos++;
			return fail(p, -CIX_EFORMAT, "unterminated string");
		}
		p->pos++;
		c = (unsigned char)p->buf[p->pos];
		switch (c) {
		case '"': case '\\': strbuf_addch(&p->tmp, c); break;
		case 'n': strbuf_addch(&p->tmp, '\n'); break;
		case 'r': strbuf_addch(&p->tmp, '\r'); break;
		case 't': strbuf_addch(&p->tmp, '\t'); break;
		default:
			if (c >= 0x21 && c < 0x7f)
				return fail(p, -CIX_EFORMAT, "invalid escape '\\%c'", c);
			return fail(p, -CIX_EFORMAT, "invalid escape '\\' followed by byte 0x%02x", c);
		}
		p->pos++;
	}
	p->pos++; /* closing quote */
	*out = cix_drv_strndup(p->drv, p->tmp.buf, p->tmp.len);
	return 0;
}

/* Prefix the message already in err (which may be NULL) with prefix. */
static int prefix_err(struct cix_err *err, int code, const char *prefix)
{
	char msg[CIX_ERR_MSG_MAX];
	if (!err)
		return code;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return cix_error(err, code, "%s%s", prefix, msg);
}

static const char *q(char *buf, size_t size, const char *s)
{
	return cix_quote(buf, size, s, strlen(s));
}

/*
 * Check that cur sorts strictly after prev (NULL for the first item);
 * what names the list in messages.
 */
static int check_order(struct parser *p, size_t at, const char *prev,
		       const char *cur, const char *what)
{
	char b[96];
	int c;
	if (!prev)
		return 0;
	c = strcmp(prev, cur);
	if (c < 0)
		return 0;
	p->pos = at;
	if (c == 0)
		return fail(p, -CIX_EFORMAT, "duplicate %s '%s'", what, q(b, sizeof(b), cur));
	return fail(p, -CIX_EFORMAT, "%s '%s' is out of order", what, q(b, sizeof(b), cur));
}

/* '[' string {',' string} ']' into a growing array; sorted if what != NULL. */
static int parse_string_list(struct parser *p, char ***v, size_t *nr, size_t *alloc,
			     const char *what)
{
	int r = expect(p, "[");
	if (r < 0)
		return r;
	if (accept(p, ']'))
		return 0;
	do {
		char *s;
		size_t at = p->pos;
		if ((r = parse_string(p, &s)) < 0)
			return r;
		if (what && (r = check_order(p, at, *nr ? (*v)[*nr - 1] : NULL, s, what)) < 0)
			return r;
		ALLOC_GROW(*v, *nr + 1, *alloc);
		(*v)[(*nr)++] = s;
	} while (accept(p, ','));
	return expect(p, "]");
}

static int parse_output(struct parser *p)
{
	struct cix_drv *drv = p->drv;
	struct cix_drv_output o;
	size_t at = p->pos + 1;
	int r;

	if ((r = expect(p, "(")) < 0 || (r = parse_string(p, &o.name)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_string(p, &o.path)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_string(p, &o.hash_algo)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_string(p, &o.hash)) < 0 ||
	    (r = expect(p, ")")) < 0)
		return r;
	if (drv->nr_outputs &&
	    (r = check_order(p, at, drv->outputs[drv->nr_outputs - 1].name, o.name, "output")) < 0)
		return r;
	ALLOC_GROW(drv->outputs, drv->nr_outputs + 1, drv->alloc_outputs);
	drv->outputs[drv->nr_outputs++] = o;
	return 0;
}

static int parse_input_drv(struct parser *p)
{
	struct cix_drv *drv = p->drv;
	struct cix_drv_input *in;
	size_t at = p->pos + 1, alloc = 0;
	char *path;
	int r;

	if ((r = expect(p, "(")) < 0 || (r = parse_string(p, &path)) < 0)
		return r;
	if (drv->nr_input_drvs &&
	    (r = check_order(p, at, drv->input_drvs[drv->nr_input_drvs - 1].path, path,
			     "input derivation")) < 0)
		return r;
	ALLOC_GROW(drv->input_drvs, drv->nr_input_drvs + 1, drv->alloc_input_drvs);
	in = &drv->input_drvs[drv->nr_input_drvs++];
	in->path = path;
	in->outputs = NULL;
	in->nr_outputs = 0;
	if ((r = expect(p, ",")) < 0 ||
	    (r = parse_string_list(p, &in->outputs, &in->nr_outputs, &alloc,
				   "input derivation output")) < 0)
		return r;
	return expect(p, ")");
}

static int parse_env(struct parser *p)
{
	struct cix_drv *drv = p->drv;
	struct cix_drv_env e;
	size_t at = p->pos + 1;
	int r;

	if ((r = expect(p, "(")) < 0 || (r = parse_string(p, &e.key)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_string(p, &e.value)) < 0 ||
	    (r = expect(p, ")")) < 0)
		return r;
	if (drv->nr_env &&
	    (r = check_order(p, at, drv->env[drv->nr_env - 1].key, e.key,
			     "environment variable")) < 0)
		return r;
	ALLOC_GROW(drv->env, drv->nr_env + 1, drv->alloc_env);
	drv->env[drv->nr_env++] = e;
	return 0;
}

/* '[' item {',' item} ']' for tuples. */
static int parse_tuples(struct parser *p, int (*item)(struct parser *))
{
	int r = expect(p, "[");
	if (r < 0)
		return r;
	if (accept(p, ']'))
		return 0;
	do {
		if ((r = item(p)) < 0)
			return r;
	} while (accept(p, ','));
	return expect(p, "]");
}

static int parse_syntax(struct parser *p)
{
	struct cix_drv *drv = p->drv;
	int r;

	if ((r = expect(p, "Derive(")) < 0 || (r = parse_tuples(p, parse_output)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_tuples(p, parse_input_drv)) < 0 ||
	    (r = expect(p, ",")) < 0 ||
	    (r = parse_string_list(p, &drv->input_srcs, &drv->nr_input_srcs,
				   &drv->alloc_input_srcs, "input source")) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_string(p, &drv->platform)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_string(p, &drv->builder)) < 0 ||
	    (r = expect(p, ",")) < 0 ||
	    (r = parse_string_list(p, &drv->args, &drv->nr_args, &drv->alloc_args, NULL)) < 0 ||
	    (r = expect(p, ",")) < 0 || (r = parse_tuples(p, parse_env)) < 0 ||
	    (r = expect(p, ")")) < 0)
		return r;
	if (p->pos != p->len)
		return fail(p, -CIX_EFORMAT, "trailing data after the derivation");
	return 0;
}

int cix_drv_store_dir(const struct cix_drv *drv, struct strbuf *out,
		      struct cix_err *err)
{
	const char *path = NULL, *slash;
	for (size_t i = 0; i < drv->nr_outputs && !path; i++)
		if (*drv->outputs[i].path)
			path = drv->outputs[i].path;
	if (!path)
		return cix_error(err, -CIX_EUNSUPPORTED, "derivation has no output paths");
	slash = strrchr(path, '/');
	if (!slash || slash == path)
		return cix_error(err, -CIX_EFORMAT,
				 "output path is not in a store directory");
	strbuf_add(out, path, (size_t)(slash - path));
	return 0;
}

static int is_lower_hex(const char *s, size_t n)
{
	if (strlen(s) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int check_output(const struct cix_drv *drv, const struct cix_drv_output *o,
			const char *store_dir, struct cix_err *err)
{
	char b[96];
	enum cix_hash_algo algo;
	const char *a = o->hash_algo;
	int r;

	if ((r = cix_store_name_check(o->name, strlen(o->name), err)) < 0)
		return prefix_err(err, r, "invalid derivation: bad output name: ");
	if (!*o->path)
		return cix_error(err, -CIX_EUNSUPPORTED,
				 "unsupported derivation: output '%s' has no path (ca-derivations)",
				 o->name);
	if ((r = cix_store_path_parse(store_dir, o->path, NULL, err)) < 0)
		return prefix_err(err, r, "invalid derivation: output path: ");
	if (!*a) {
		if (*o->hash)
			return cix_error(err, -CIX_EFORMAT,
					 "invalid derivation: output '%s' has a hash but no algorithm",
					 o->name);
		return 0;
	}
	if (!*o->hash)
		return cix_error(err, -CIX_EUNSUPPORTED,
				 "unsupported derivation: output '%s' is floating content-addressed",
				 o->name);
	if (!strncmp(a, "r:", 2))
		a += 2;
	if (cix_hash_algo_parse(a, &algo) < 0)
		return cix_error(err, -CIX_EFORMAT,
				 "invalid derivation: output '%s' has unknown hash algorithm '%s'",
				 o->name, q(b, sizeof(b), o->hash_algo));
	if (!is_lower_hex(o->hash, 2 * cix_hash_algo_size(algo)))
		return cix_error(err, -CIX_EFORMAT,
				 "invalid derivation: output '%s' has a malformed %s hash",
				 o->name, a);
	if (drv->nr_outputs != 1 || strcmp(o->name, "out"))
		return cix_error(err, -CIX_EFORMAT,
				 "invalid derivation: a fixed output must be the only output, named 'out'");
	return 0;
}

static int check_semantics(const struct cix_drv *drv, const char *store_dir,
			   struct cix_err *err)
{
	struct strbuf dir = STRBUF_INIT;
	char b[96];
	int r;

	if (!drv->nr_outputs)
		return cix_error(err, -CIX_EFORMAT, "invalid derivation: no outputs");
	if (!store_dir) {
		if ((r = cix_drv_store_dir(drv, &dir, err)) < 0)
			goto out;
		store_dir = dir.buf;
	}
	if ((r = cix_store_dir_check(store_dir, err)) < 0) {
		r = prefix_err(err, -CIX_EFORMAT, "invalid derivation: ");
		goto out;
	}
	for (size_t i = 0; i < drv->nr_outputs; i++)
		if ((r = check_output(drv, &drv->outputs[i], store_dir, err)) < 0)
			goto out;
	for (size_t i = 0; i < drv->nr_input_drvs; i++) {
		const char *path = drv->input_drvs[i].path;
		size_t n = strlen(path);
		if ((r = cix_store_path_parse(store_dir, path, NULL, err)) < 0) {
			r = prefix_err(err, r, "invalid derivation: input derivation: ");
			goto out;
		}
		for (size_t k = 0; k < drv->input_drvs[i].nr_outputs; k++) {
			const char *o = drv->input_drvs[i].outputs[k];
			if ((r = cix_store_name_check(o, strlen(o), err)) < 0) {
				r = prefix_err(err, r, "invalid derivation: input output name: ");
				goto out;
			}
		}
		if (n < 4 || strcmp(path + n - 4, ".drv")) {
			r = cix_error(err, -CIX_EFORMAT,
				      "invalid derivation: input '%s' is not a .drv",
				      q(b, sizeof(b), path));
			goto out;
		}
	}
	for (size_t i = 0; i < drv->nr_input_srcs; i++)
		if ((r = cix_store_path_parse(store_dir, drv->input_srcs[i], NULL, err)) < 0) {
			r = prefix_err(err, r, "invalid derivation: input source: ");
			goto out;
		}
	r = 0;
out:
	strbuf_release(&dir);
	return r;
}

int cix_drv_parse(const char *buf, size_t len, const char *store_dir,
		  struct cix_drv **out, struct cix_err *err)
{
	struct parser p = { .buf = buf, .len = len, .tmp = STRBUF_INIT, .err = err };
	int r;

	*out = NULL;
	if (len > CIX_DRV_MAX_SIZE)
		return cix_error(err, -CIX_ELIMIT, "derivation is larger than %u bytes",
				 CIX_DRV_MAX_SIZE);
	p.drv = cix_drv_new();
	r = parse_syntax(&p);
	strbuf_release(&p.tmp);
	if (!r)
		r = check_semantics(p.drv, store_dir, err);
	if (r < 0) {
		cix_drv_free(p.drv);
		return r;
	}
	*out = p.drv;
	return 0;
}

int cix_drv_parse_file(const char *file, const char *store_dir,
		       struct cix_drv **out, struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r = strbuf_read_file(&sb, file, CIX_DRV_MAX_SIZE);

	*out = NULL;
	if (r == -CIX_ELIMIT)
		r = cix_error(err, r, "'%s' is larger than %u bytes", file, CIX_DRV_MAX_SIZE);
	else if (r < 0)
		r = cix_error_errno(err, r, "cannot read '%s'", file);
	else
		r = cix_drv_parse(sb.buf, sb.len, store_dir, out, err);
	strbuf_release(&sb);
	return r;
}
