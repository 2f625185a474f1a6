/* drv.c - unit tests for the ATerm parser, printer and derivation hashing */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "drv.h"
#include "encoding.h"
#include "json.h"
#include "store-path.h"

#include <stdlib.h>
#include <string.h>

#define SD "/nix/store"
#define H0 "00000000000000000000000000000000"
#define H1 "11111111111111111111111111111111"
#define H2 "22222222222222222222222222222222"
/* sha256("hello\n"), doc/formats.md §2 */
#define HELLO_SHA256 "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
/* doc/formats.md §5: the fixed flat sha256 output of "hello\n" named "fixed" */
#define FIXED_OUT SD "/ilghkg8sqnh9275b62zcvsq9kpkym8yl-fixed"

/* A canonical derivation using every feature of the format. */
static const char base[] =
	"Derive([(\"doc\",\"" SD "/" H0 "-x-doc\",\"\",\"\"),(\"out\",\"" SD "/" H1 "-x\",\"\",\"\")],"
	"[(\"" SD "/" H1 "-a.drv\",[\"doc\",\"out\"]),(\"" SD "/" H2 "-b.drv\",[\"out\"])],"
	"[\"" SD "/" H0 "-src\",\"" SD "/" H2 "-src\"],\"x86_64-linux\",\"/bin/sh\","
	"[\"-c\",\"a\\\"b\\\\c\\nd\\re\\tf\",\"\",\"\xc3\xa9\x01\x7f\"],"
	"[(\"a\",\"1\"),(\"b\",\"\"),(\"doc\",\"" SD "/" H0 "-x-doc\"),(\"out\",\"" SD "/" H1 "-x\")])";

static const char fixed[] =
	"Derive([(\"out\",\"" FIXED_OUT "\",\"sha256\",\"" HELLO_SHA256 "\")],[],[],"
	"\"x86_64-linux\",\"/bin/sh\",[\"-c\",\"echo hello > $out\"],"
	"[(\"builder\",\"/bin/sh\"),(\"name\",\"fixed\"),(\"out\",\"" FIXED_OUT "\"),"
	"(\"outputHash\",\"" HELLO_SHA256 "\"),(\"outputHashAlgo\",\"sha256\"),"
	"(\"system\",\"x86_64-linux\")])";

/* Parse exactly len bytes from a private heap copy, so that ASan sees overreads. */
static int parse(const char *text, size_t len, const char *store_dir, struct cix_drv **drv,
		 struct cix_err *err)
{
	char *copy = xmalloc(len ? len : 1);
	int r;
	memcpy(copy, text, len);
	r = cix_drv_parse(copy, len, store_dir, drv, err);
	free(copy);
	return r;
}

static void test_round_trip(const char *text, const char *what)
{
	struct cix_drv *drv;
	struct cix_err err = { 0 };
	struct strbuf sb = STRBUF_INIT;
	int r = parse(text, strlen(text), NULL, &drv, &err);

	if (!ok(r == 0, "parse %s", what)) {
		diag("%s", err.msg);
		return;
	}
	cix_drv_unparse(drv, &sb);
	ok(sb.len == strlen(text) && !memcmp(sb.buf, text, sb.len), "%s prints back byte for byte", what);
	strbuf_release(&sb);
	cix_drv_free(drv);
}

static void test_fields(void)
{
	struct cix_drv *drv;
	struct cix_err err = { 0 };

	if (parse(base, strlen(base), SD, &drv, &err)) {
		ok(0, "parse base: %s", err.msg);
		return;
	}
	is_int(drv->nr_outputs, 2, "two outputs");
	is_str(drv->outputs[0].name, "doc", "outputs sorted");
	is_str(drv->outputs[1].path, SD "/" H1 "-x", "output path");
	is_int(drv->nr_input_drvs, 2, "two input derivations");
	is_int(drv->input_drvs[0].nr_outputs, 2, "outputs of an input");
	is_str(drv->input_drvs[0].outputs[1], "out", "input output name");
	is_int(drv->nr_input_srcs, 2, "input sources");
	is_str(drv->platform, "x86_64-linux", "platform");
	is_str(drv->builder, "/bin/sh", "builder");
	is_int(drv->nr_args, 4, "arguments");
	is_str(drv->args[1], "a\"b\\c\nd\re\tf", "escapes decoded");
	is_str(drv->args[2], "", "empty argument");
	is_str(drv->args[3], "\xc3\xa9\x01\x7f", "other bytes kept as they are");
	is_str(cix_drv_getenv(drv, "a"), "1", "getenv");
	ok(cix_drv_getenv(drv, "zz") == NULL, "getenv of a missing key");
	ok(!cix_drv_is_fixed(drv), "not fixed");
	cix_drv_free(drv);
}

struct bad {
	const char *from, *to;   /* mutation of base (first occurrence) */
	int code;
	const char *what;
	size_t tolen;            /* length of to, if it holds a NUL */
};

static const struct bad bads[] = {
	{ "Derive(", "Derive (", -CIX_EFORMAT, "space after Derive", 0 },
	{ "Derive(", "derive(", -CIX_EFORMAT, "wrong constructor", 0 },
	{ "Derive(", "Derive((", -CIX_EFORMAT, "unbalanced open paren", 0 },
	{ "\")])", "\"))])", -CIX_EFORMAT, "extra close paren", 0 },
	{ "\")])", "\")]", -CIX_EFORMAT, "missing final paren", 0 },
	{ "\")])", "\")])\n", -CIX_EFORMAT, "trailing newline", 0 },
	{ "\")])", "\")])x", -CIX_EFORMAT, "trailing data", 0 },
	{ "\")])", "\")])Derive([],[],[],\"\",\"\",[],[])", -CIX_EFORMAT, "two derivations", 0 },
	{ "\"-c\",", "\"-c\" ,", -CIX_EFORMAT, "whitespace between items", 0 },
	{ "\"-c\",", "\"-c\",,", -CIX_EFORMAT, "empty list item", 0 },
	{ "\\\"b", "\\xb", -CIX_EFORMAT, "escape \\x", 0 },
	{ "\\\"b", "\\0b", -CIX_EFORMAT, "escape \\0", 0 },
	{ "\\\"b", "\\ab", -CIX_EFORMAT, "escape \\a", 0 },
	{ "\\\"b", "\\\nb", -CIX_EFORMAT, "backslash newline", 0 },
	{ "\\\"b", "\nb", -CIX_EFORMAT, "raw newline in a string", 0 },
	{ "\\\"b", "\tb", -CIX_EFORMAT, "raw tab in a string", 0 },
	{ "\\\"b", "\rb", -CIX_EFORMAT, "raw carriage return in a string", 0 },
	{ "\"x86_64-linux\"", "\"x86_64-linux", -CIX_EFORMAT, "unterminated string", 0 },
	{ "(\"doc\",", "(\"out\",", -CIX_EFORMAT, "duplicate outputs", 0 },
	{ "(\"doc\",", "(\"pdf\",", -CIX_EFORMAT, "unsorted outputs", 0 },
	{ "(\"a\",\"1\")", "(\"b\",\"1\")", -CIX_EFORMAT, "duplicate env keys", 0 },
	{ "(\"a\",\"1\")", "(\"c\",\"1\")", -CIX_EFORMAT, "unsorted env", 0 },
	{ "[\"doc\",\"out\"]", "[\"out\",\"doc\"]", -CIX_EFORMAT, "unsorted input outputs", 0 },
	{ "[\"doc\",\"out\"]", "[\"out\",\"out\"]", -CIX_EFORMAT, "duplicate input outputs", 0 },
	{ "[\"doc\",\"out\"]", "[\"a b\"]", -CIX_EFORMAT, "bad input output name", 0 },
	{ H2 "-b.drv", H1 "-a.drv", -CIX_EFORMAT, "duplicate input derivations", 0 },
	{ H2 "-b.drv", H0 "-b.drv", -CIX_EFORMAT, "unsorted input derivations", 0 },
	{ H2 "-src", H0 "-src", -CIX_EFORMAT, "duplicate input sources", 0 },
	{ H0 "-src", H2 "-srd", -CIX_EFORMAT, "unsorted input sources", 0 },
	{ H0 "-src", H0 "-src/../../etc", -CIX_EFORMAT, "input source with ..", 0 },
	{ SD "/" H0 "-src", "/etc/" H0 "-src", -CIX_EFORMAT, "input source outside the store", 0 },
	{ H1 "-a.drv", H1 "-a.dr", -CIX_EFORMAT, "input derivation not a .drv", 0 },
	{ H1 "-a.drv", H1 "-a b.drv", -CIX_EFORMAT, "bad input derivation name", 0 },
	{ SD "/" H0 "-x-doc\",\"\"", "/gnu/store/" H0 "-x-doc\",\"\"", -CIX_EFORMAT,
	  "outputs in different stores", 0 },
	{ H0 "-x-doc\",\"\",\"\"", H0 "-x-doc\",\"sha256\",\"\"", -CIX_EUNSUPPORTED,
	  "floating content-addressed output", 0 },
	{ H0 "-x-doc\",\"\",\"\"", H0 "-x-doc\",\"\",\"00\"", -CIX_EFORMAT,
	  "hash without algorithm", 0 },
	{ H0 "-x-doc\",\"\",\"\"", H0 "-x-doc\",\"sha256\",\"" HELLO_SHA256 "\"", -CIX_EFORMAT,
	  "fixed output next to another output", 0 },
	{ "(\"doc\",\"" SD "/" H0 "-x-doc\"", "(\"doc\",\"\"", -CIX_EUNSUPPORTED,
	  "deferred output", 0 },
	{ "(\"doc\",", "(\"d c\",", -CIX_EFORMAT, "bad output name", 0 },
	{ "(\"doc\",", "(\"\",", -CIX_EFORMAT, "empty output name", 0 },
	{ "\"-c\"", "\"-\0c\"", -CIX_EFORMAT, "NUL in a string", 5 },
};

static void test_hostile(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bads); i++) {
		const struct bad *b = &bads[i];
		const char *at = strstr(base, b->from);
		struct strbuf sb = STRBUF_INIT;
		struct cix_err err = { 0 };
		struct cix_drv *drv = (struct cix_drv *)1;
		size_t tolen = b->tolen ? b->tolen : strlen(b->to);
		int r;

		if (!at)
			BUG("mutation '%s' not found", b->from);
		strbuf_add(&sb, base, (size_t)(at - base));
		strbuf_add(&sb, b->to, tolen);
		strbuf_addstr(&sb, at + strlen(b->from));
		r = parse(sb.buf, sb.len, NULL, &drv, &err);
		is_int(r, b->code, "reject: %s", b->what);
		ok(drv == NULL && err.msg[0] && !strchr(err.msg, '\n'), "  message: %s", err.msg);
		strbuf_release(&sb);
	}
}

static void test_fixed_hostile(void)
{
	static const struct bad fb[] = {
		{ "\"sha256\",\"5891", "\"sha255\",\"5891", -CIX_EFORMAT, "unknown algorithm", 0 },
		{ "\"sha256\",\"5891", "\"R:sha256\",\"5891", -CIX_EFORMAT, "bad r: prefix", 0 },
		{ "\"sha256\",\"5891", "\"sha256\",\"5891B", -CIX_EFORMAT, "uppercase hex", 0 },
		{ "\"sha256\",\"5891", "\"sha256\",\"591", -CIX_EFORMAT, "short hash", 0 },
		{ "\"sha256\",\"5891", "\"sha1\",\"5891", -CIX_EFORMAT, "hash of the wrong length", 0 },
		{ "(\"out\",\"" FIXED_OUT, "(\"dev\",\"" FIXED_OUT, -CIX_EFORMAT,
		  "fixed output not named out", 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fb); i++) {
		const char *at = strstr(fixed, fb[i].from);
		struct strbuf sb = STRBUF_INIT;
		struct cix_err err = { 0 };
		struct cix_drv *drv;
		if (!at)
			BUG("mutation '%s' not found", fb[i].from);
		strbuf_add(&sb, fixed, (size_t)(at - fixed));
		strbuf_addstr(&sb, fb[i].to);
		strbuf_addstr(&sb, at + strlen(fb[i].from));
		is_int(parse(sb.buf, sb.len, NULL, &drv, &err), fb[i].code, "reject fixed: %s",
		       fb[i].what);
		strbuf_release(&sb);
	}
}

static void test_prefixes(void)
{
	size_t len = strlen(base), failed = 0;
	struct cix_drv *drv;

	for (size_t n = 0; n < len; n++)
		if (parse(base, n, NULL, &drv, NULL) >= 0) {
			failed++;
			cix_drv_free(drv);
		}
	is_int(failed, 0, "every truncated prefix is refused");
}

static void test_store_dir(void)
{
	struct cix_drv *drv;
	struct cix_err err = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char *big;

	is_int(parse(base, strlen(base), SD, &drv, &err), 0, "explicit store dir");
	cix_drv_free(drv);
	is_int(parse(base, strlen(base), "/gnu/store", &drv, &err), -CIX_EFORMAT,
	       "paths must be in the given store dir");
	is_int(parse(base, strlen(base), "/nix/store/", &drv, &err), -CIX_EFORMAT,
	       "non-canonical store dir");
	is_int(parse(base, strlen(base), NULL, &drv, &err), 0, "inferred store dir");
	cix_drv_store_dir(drv, &sb, &err);
	is_str(sb.buf, SD, "store dir of the outputs");
	cix_drv_free(drv);
	strbuf_release(&sb);
	is_int(parse("Derive([],[],[],\"\",\"\",[],[])", 29, NULL, &drv, &err), -CIX_EFORMAT,
	       "no outputs");
	big = xcalloc(1, (size_t)CIX_DRV_MAX_SIZE + 1);
	is_int(cix_drv_parse(big, (size_t)CIX_DRV_MAX_SIZE + 1, NULL, &drv, &err), -CIX_ELIMIT,
	       "size limit");
	free(big);
}

/* ---- hashing ---- */

struct memstore {
	size_t nr;
	char *paths[16];
	char *texts[16];
	int loads[16];
};

static void mem_add(struct memstore *m, const char *path, const struct cix_drv *drv)
{
	struct strbuf sb = STRBUF_INIT;
	cix_drv_unparse(drv, &sb);
	m->paths[m->nr] = xstrdup(path);
	m->texts[m->nr] = strbuf_detach(&sb, NULL);
	m->loads[m->nr++] = 0;
}

static int mem_load(void *data, const char *path, struct cix_drv **out, struct cix_err *err)
{
	struct memstore *m = data;
	for (size_t i = 0; i < m->nr; i++)
		if (!strcmp(m->paths[i], path)) {
			m->loads[i]++;
			return cix_drv_parse(m->texts[i], strlen(m->texts[i]), SD, out, err);
		}
	return cix_error(err, -CIX_ENOTFOUND, "no derivation '%s'", path);
}

static int mem_loads(struct memstore *m, const char *path)
{
	for (size_t i = 0; i < m->nr; i++)
		if (!strcmp(m->paths[i], path))
			return m->loads[i];
	return -1;
}

static void mem_free(struct memstore *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->paths[i]);
		free(m->texts[i]);
	}
}

static struct cix_drv *make_fixed(const char *builder)
{
	struct cix_drv *d = cix_drv_new();
	cix_drv_add_output(d, "out", "", "sha256", HELLO_SHA256);
	cix_drv_set_platform(d, "x86_64-linux");
	cix_drv_set_builder(d, builder);
	cix_drv_setenv(d, "name", "fixed");
	return d;
}

/* A regular derivation named name depending on the given inputs (all "out"). */
static struct cix_drv *make_regular(const char *name, const char *const *inputs, size_t n)
{
	static const char *const out[] = { "out" };
	struct cix_drv *d = cix_drv_new();
	cix_drv_add_output(d, "out", "", "", "");
	cix_drv_add_output(d, "dev", "", "", "");
	for (size_t i = n; i-- > 0;)
		cix_drv_add_input_drv(d, inputs[i], out, 1);
	cix_drv_set_platform(d, "x86_64-linux");
	cix_drv_set_builder(d, "/bin/sh");
	cix_drv_add_arg(d, "-c");
	cix_drv_add_arg(d, "true");
	cix_drv_setenv(d, "name", name);
	return d;
}

static void drv_path(const struct cix_drv *d, const char *name, struct strbuf *out)
{
	if (cix_drv_store_path(d, SD, name, out, NULL) < 0)
		BUG("cannot compute .drv path");
}

static void test_hashing(void)
{
	struct memstore m = { 0 };
	struct cix_drv_hasher *h = cix_drv_hasher_new(SD, mem_load, &m);
	struct cix_err err = { 0 };
	struct strbuf pa = STRBUF_INIT, pa2 = STRBUF_INIT, pb = STRBUF_INIT, sb = STRBUF_INIT;
	struct strbuf paths[2] = { STRBUF_INIT, STRBUF_INIT };
	struct cix_drv *a, *a2, *b, *c, *c2, *parsed;
	struct cix_hash mod, mod2, expect;
	const char *in[2];

	/* A fixed-output derivation: its path is the doc/formats.md §5 vector. */
	a = make_fixed("/bin/sh");
	is_int(cix_drv_fill_outputs(h, a, "fixed", &err), 0, "fill fixed outputs");
	is_str(a->outputs[0].path, FIXED_OUT, "fixed output path");
	is_str(cix_drv_getenv(a, "out"), FIXED_OUT, "fixed output env var");
	ok(cix_drv_is_fixed(a), "is fixed");
	is_int(cix_drv_hash_modulo(h, a, "fixed", 0, &mod, &err), 0, "hash modulo of fixed");
	strbuf_addstr(&sb, "fixed:out:sha256:" HELLO_SHA256 ":" FIXED_OUT);
	cix_hash_buf(CIX_HASH_SHA256, sb.buf, sb.len, &expect);
	is_mem(mod.bytes, 32, expect.bytes, 32, "fixed modulo is sha256(fixed:out:algo:hash:path)");
	drv_path(a, "fixed", &pa);
	mem_add(&m, pa.buf, a);

	/* The same output made another way: another .drv path. */
	a2 = make_fixed("/bin/bash");
	cix_drv_fill_outputs(h, a2, "fixed", &err);
	is_str(a2->outputs[0].path, FIXED_OUT, "same fixed output from another builder");
	drv_path(a2, "fixed", &pa2);
	ok(strcmp(pa.buf, pa2.buf), "but another .drv path");
	mem_add(&m, pa2.buf, a2);

	/* A regular derivation without inputs: modulo is sha256 of the masked ATerm. */
	b = make_regular("b", NULL, 0);
	is_int(cix_drv_fill_outputs(h, b, "b", &err), 0, "fill regular outputs");
	ok(!strncmp(b->outputs[0].path, SD "/", 11) && !strcmp(b->outputs[0].path + 43, "-b-dev"),
	   "dev output named b-dev: %s", b->outputs[0].path);
	is_str(cix_drv_getenv(b, "out"), b->outputs[1].path, "env var out set");
	strbuf_reset(&sb);
	cix_drv_unparse_ext(b, &sb, 1, NULL, 0);
	cix_hash_buf(CIX_HASH_SHA256, sb.buf, sb.len, &expect);
	strbuf_reset(&sb);
	cix_store_path_make_output(&sb, SD, "b", "out", &expect, NULL);
	is_str(b->outputs[1].path, sb.buf, "output path from the masked ATerm");
	is_int(cix_drv_check_outputs(h, b, "b", NULL, &err), 0, "check outputs");
	drv_path(b, "b", &pb);
	mem_add(&m, pb.buf, b);

	/* c depends on a (fixed) and b: both loaded once, even when asked twice. */
	in[0] = pa.buf;
	in[1] = pb.buf;
	c = make_regular("c", in, 2);
	is_int(cix_drv_fill_outputs(h, c, "c", &err), 0, "fill outputs with inputs");
	is_int(cix_drv_check_outputs(h, c, "c", paths, &err), 0, "check outputs with inputs");
	is_str(paths[1].buf, c->outputs[1].path, "recomputed paths returned");
	is_int(cix_drv_hash_modulo(h, c, "c", 0, &mod, &err), 0, "hash modulo again");
	is_int(mem_loads(&m, pa.buf), 1, "fixed input loaded once (memoised)");
	is_int(mem_loads(&m, pb.buf), 1, "regular input loaded once (memoised)");

	/* The modulo ATerm replaces inputs by their hashes, re-sorted. */
	{
		struct cix_hash ha, hb;
		struct strbuf hexa = STRBUF_INIT, hexb = STRBUF_INIT;
		struct cix_drv_input repl[2];
		char *outs[] = { "out" };
		cix_drv_hash_modulo_path(h, pa.buf, &ha, &err);
		cix_drv_hash_modulo_path(h, pb.buf, &hb, &err);
		cix_base16_encode(&hexa, ha.bytes, 32);
		cix_base16_encode(&hexb, hb.bytes, 32);
		int a_first = strcmp(hexa.buf, hexb.buf) < 0;
		repl[!a_first] = (struct cix_drv_input){ hexa.buf, outs, 1 };
		repl[a_first] = (struct cix_drv_input){ hexb.buf, outs, 1 };
		strbuf_reset(&sb);
		cix_drv_unparse_ext(c, &sb, 0, repl, 2);
		cix_hash_buf(CIX_HASH_SHA256, sb.buf, sb.len, &expect);
		is_mem(mod.bytes, 32, expect.bytes, 32, "modulo hash over re-sorted input hashes");
		strbuf_release(&hexa);
		strbuf_release(&hexb);
	}

	/* Two fixed inputs with the same output count once, as in Nix. */
	in[0] = pa.buf;
	c2 = make_regular("c2", in, 1);
	cix_drv_canonicalize(c2, &err);
	cix_drv_hash_modulo(h, c2, "c2", 1, &mod, &err);
	{
		const char *const both[] = { pa.buf, pa2.buf };
		struct cix_drv *c3 = make_regular("c2", both, 2);
		cix_drv_canonicalize(c3, &err);
		is_int(cix_drv_hash_modulo(h, c3, "c2", 1, &mod2, &err), 0, "hash with two fixed inputs");
		is_mem(mod.bytes, 32, mod2.bytes, 32, "equivalent fixed inputs merge");
		cix_drv_free(c3);
	}

	/* Round trip through the text, then tampering. */
	strbuf_reset(&sb);
	cix_drv_unparse(c, &sb);
	is_int(cix_drv_parse(sb.buf, sb.len, SD, &parsed, &err), 0, "parse filled derivation");
	is_int(cix_drv_check_outputs(h, parsed, "c", NULL, &err), 0, "parsed derivation checks");
	is_int(cix_drv_check_outputs(h, parsed, "other", NULL, &err), -CIX_EMISMATCH,
	       "another name gives other paths");
	parsed->outputs[0].path = parsed->outputs[1].path;
	is_int(cix_drv_check_outputs(h, parsed, "c", NULL, &err), -CIX_EMISMATCH,
	       "wrong output path detected: %s", err.msg);
	cix_drv_free(parsed);
	cix_drv_parse(sb.buf, sb.len, SD, &parsed, &err);
	cix_drv_setenv(parsed, "dev", "/nix/store/x");
	is_int(cix_drv_check_outputs(h, parsed, "c", NULL, &err), -CIX_EMISMATCH,
	       "wrong env var detected: %s", err.msg);
	cix_drv_free(parsed);
	/* A fixed output's path does not depend on the environment. */
	is_int(cix_drv_parse(fixed, strlen(fixed), SD, &parsed, &err), 0, "parse fixed");
	is_int(cix_drv_check_outputs(h, parsed, "fixed", NULL, &err), 0, "fixed checks");
	parsed->env[2].key = cix_drv_strdup(parsed, "ous"); /* was "out" */
	is_int(cix_drv_check_outputs(h, parsed, "fixed", NULL, &err), -CIX_EMISMATCH,
	       "missing env var detected: %s", err.msg);
	cix_drv_free(parsed);

	/* Missing inputs and cycles. */
	{
		const char *missing[] = { SD "/" H0 "-missing.drv" };
		struct cix_drv *d = make_regular("d", missing, 1);
		cix_drv_canonicalize(d, &err);
		is_int(cix_drv_hash_modulo(h, d, "d", 0, &mod, &err), -CIX_ENOTFOUND,
		       "missing input: %s", err.msg);
		cix_drv_free(d);
	}
	{
		const char *self[] = { SD "/" H1 "-loop.drv" };
		struct cix_drv *d = make_regular("loop", self, 1);
		cix_drv_canonicalize(d, &err);
		d->outputs[0].path = cix_drv_strdup(d, SD "/" H2 "-loop-dev");
		d->outputs[1].path = cix_drv_strdup(d, SD "/" H2 "-loop");
		mem_add(&m, self[0], d);
		is_int(cix_drv_hash_modulo_path(h, self[0], &mod, &err), -CIX_EFORMAT,
		       "cycle refused: %s", err.msg);
		cix_drv_free(d);
	}

	strbuf_release(&pa);
	strbuf_release(&pa2);
	strbuf_release(&pb);
	strbuf_release(&sb);
	strbuf_release(&paths[0]);
	strbuf_release(&paths[1]);
	cix_drv_free(a);
	cix_drv_free(a2);
	cix_drv_free(b);
	cix_drv_free(c);
	cix_drv_free(c2);
	cix_drv_hasher_free(h);
	mem_free(&m);
}

static void test_canonicalize(void)
{
	struct cix_drv *d = cix_drv_new();
	struct cix_err err = { 0 };
	const char *o1[] = { "out" }, *o2[] = { "doc", "out" };

	cix_drv_add_output(d, "out", "", "", "");
	cix_drv_add_output(d, "doc", "", "", "");
	cix_drv_add_input_drv(d, SD "/" H1 "-b.drv", o1, 1);
	cix_drv_add_input_drv(d, SD "/" H0 "-a.drv", o1, 1);
	cix_drv_add_input_drv(d, SD "/" H1 "-b.drv", o2, 2);
	cix_drv_add_input_src(d, SD "/" H1 "-s");
	cix_drv_add_input_src(d, SD "/" H0 "-s");
	cix_drv_add_input_src(d, SD "/" H1 "-s");
	cix_drv_setenv(d, "z", "1");
	cix_drv_setenv(d, "a", "2");
	cix_drv_setenv(d, "z", "3");
	is_int(cix_drv_canonicalize(d, &err), 0, "canonicalize");
	is_str(d->outputs[0].name, "doc", "outputs sorted");
	is_int(d->nr_input_drvs, 2, "repeated input derivation merged");
	is_str(d->input_drvs[0].path, SD "/" H0 "-a.drv", "inputs sorted");
	is_int(d->input_drvs[1].nr_outputs, 2, "output names merged");
	is_int(d->nr_input_srcs, 2, "repeated source dropped");
	is_int(d->nr_env, 2, "setenv replaces");
	is_str(d->env[1].value, "3", "env sorted, last value kept");
	cix_drv_add_output(d, "out", "", "", "");
	is_int(cix_drv_canonicalize(d, &err), -CIX_EFORMAT, "duplicate output refused");
	cix_drv_free(d);
}

static void test_name_from_path(void)
{
	struct strbuf sb = STRBUF_INIT;
	is_int(cix_drv_name_from_path(SD, SD "/" H0 "-hello-2.1.drv", &sb, NULL), 0, "drv name");
	is_str(sb.buf, "hello-2.1", "name without .drv");
	is_int(cix_drv_name_from_path(SD, SD "/" H0 "-hello", &sb, NULL), -CIX_EFORMAT,
	       "not a .drv");
	is_int(cix_drv_name_from_path(SD, SD "/" H0 "-.drv", &sb, NULL), -CIX_EFORMAT,
	       "empty derivation name");
	strbuf_release(&sb);
}

/* The JSON writer used by cix derivation show, in Nix's layout. */
static void test_json(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_json j;

	cix_json_init(&j, &sb, 1);
	cix_json_begin_object(&j);
	cix_json_key(&j, "a");
	cix_json_begin_array(&j);
	cix_json_string(&j, "q\"b\\n\nr\rt\t\x01\x1f\x7f\xff");
	cix_json_bool(&j, 1);
	cix_json_int(&j, -3);
	cix_json_null(&j);
	cix_json_end_array(&j);
	cix_json_key(&j, "e");
	cix_json_begin_object(&j);
	cix_json_end_object(&j);
	cix_json_key(&j, "l");
	cix_json_begin_array(&j);
	cix_json_end_array(&j);
	cix_json_end_object(&j);
	is_str(sb.buf, "{\n  \"a\": [\n    \"q\\\"b\\\\n\\nr\\rt\\t\\u0001\\u001f\x7f\xff\",\n"
		       "    true,\n    -3,\n    null\n  ],\n  \"e\": {},\n  \"l\": []\n}",
	       "pretty JSON with Nix's escapes");
	strbuf_reset(&sb);
	cix_json_init(&j, &sb, 0);
	cix_json_begin_array(&j);
	cix_json_string_len(&j, "a\0b", 3);
	cix_json_begin_object(&j);
	cix_json_key(&j, "k");
	cix_json_string(&j, "v");
	cix_json_end_object(&j);
	cix_json_end_array(&j);
	is_str(sb.buf, "[\"a\\u0000b\",{\"k\":\"v\"}]", "compact JSON");
	strbuf_release(&sb);
}

int main(void)
{
	test_json();
	test_round_trip(base, "full-featured derivation");
	test_round_trip(fixed, "fixed-output derivation");
	test_fields();
	test_hostile();
	test_fixed_hostile();
	test_prefixes();
	test_store_dir();
	test_hashing();
	test_canonicalize();
	test_name_from_path();
	return done_testing();
}
