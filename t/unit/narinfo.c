/* narinfo.c - unit tests for .narinfo and nix-cache-info; a re-formatter for t6010 */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "hash.h"
#include "narinfo.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SD "/nix/store"
#define H1 "a8hlm4061amf82mpli6xlnwg97kygr5d"
#define H2 "p5k66wlp0qnb7af0dh6ssm8m9g6q2v9a"
#define H3 "c99k5lfiyflbqfnaxi9648qkvzviijgq"

/* Hashes of made-up contents, in the encodings a narinfo may use. */
static struct strbuf nar_b32 = STRBUF_INIT, nar_b16 = STRBUF_INIT, nar_b64 = STRBUF_INIT;
static struct strbuf file_b32 = STRBUF_INIT, file_b16 = STRBUF_INIT;

static void make_hashes(void)
{
	struct cix_hash h;
	cix_hash_buf(CIX_HASH_SHA256, "nar", 3, &h);
	cix_nixbase32_encode(&nar_b32, h.bytes, h.len);
	cix_base16_encode(&nar_b16, h.bytes, h.len);
	cix_base64_encode(&nar_b64, h.bytes, h.len);
	cix_hash_buf(CIX_HASH_SHA256, "file", 4, &h);
	cix_nixbase32_encode(&file_b32, h.bytes, h.len);
	cix_base16_encode(&file_b16, h.bytes, h.len);
}

/* A narinfo as Nix writes it; extra lines (may be "") inserted before Sig. */
static void canonical(struct strbuf *sb, const char *refs, const char *extra)
{
	strbuf_addf(sb, "StorePath: " SD "/" H3 "-withref\n"
		    "URL: nar/%s.nar.xz\nCompression: xz\nFileHash: sha256:%s\nFileSize: 212\n"
		    "NarHash: sha256:%s\nNarSize: 224\nReferences: %s\n"
		    "Deriver: 28qvsak9cy3sv5wl57d68f454k2yj4fc-withref.drv\n%s"
		    "Sig: other-1:c2ln\nSig: test-1:c2ln\n",
		    file_b32.buf, file_b32.buf, nar_b32.buf, refs, extra);
}

/* Parse text; when it parses, format it into out. */
static int parse(const char *text, size_t len, struct strbuf *out, struct cix_err *err)
{
	struct cix_narinfo ni;
	int r = cix_narinfo_parse(text, len, SD, &ni, err);
	if (r == 0 && out)
		cix_narinfo_format(&ni, SD, out);
	cix_narinfo_release(&ni);
	return r;
}

static void test_round_trip(void)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	struct cix_err err = { 0 };

	canonical(&in, H1 "-f " H2 "-d", "System: x86_64-linux\n");
	strbuf_addf(&in, "CA: fixed:r:sha256:%s\n", nar_b32.buf);
	is_int(parse(in.buf, in.len, &out, &err), 0, "a full narinfo parses");
	is_str(out.buf, in.buf, "and formats back to the same bytes");

	strbuf_reset(&in);
	strbuf_reset(&out);
	canonical(&in, "", "");
	is_int(parse(in.buf, in.len, &out, &err), 0, "no references");
	is_str(out.buf, in.buf, "'References: ' kept with its space");
	strbuf_release(&in);
	strbuf_release(&out);
}

/* Each text must parse and format as want does. */
static void same_as(const char *what, const char *text, const char *want)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = parse(text, strlen(text), &a, &err);
	if (r < 0)
		diag("%s", err.msg);
	parse(want, strlen(want), &b, NULL);
	ok(r == 0 && b.len && !strcmp(a.buf, b.buf), "%s", what);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_as_nix(void)
{
	struct strbuf want = STRBUF_INIT, in = STRBUF_INIT, out = STRBUF_INIT;
	struct cix_narinfo ni;

	canonical(&want, H1 "-f " H2 "-d", "");
	/* Unsorted and repeated references and signatures: Nix keeps sets. */
	canonical(&in, H2 "-d  " H1 "-f", "Sig: test-1:c2ln\n");
	same_as("references and signatures written sorted, each once", in.buf, want.buf);
	is_int(cix_narinfo_parse(in.buf, in.len, SD, &ni, NULL), 0, "parsed");
	ok(ni.refs.nr == 2 && !strcmp(ni.refs.v[0], H2 "-d") && ni.sigs.nr == 3,
	   "but kept in the file's order");
	cix_narinfo_release(&ni);

	strbuf_reset(&in);
	strbuf_addf(&in, "Future: thing\n%sURL: nar/other.nar.xz\n", want.buf);
	strbuf_reset(&out);
	strbuf_addstr(&out, want.buf);
	strbuf_setlen(&out, (size_t)(strstr(out.buf, "URL: ") - out.buf));
	strbuf_addf(&out, "URL: nar/other.nar.xz\n%s", strstr(want.buf, "\nCompression") + 1);
	same_as("unknown keys ignored, a second URL replaces the first", in.buf, out.buf);

	strbuf_reset(&in);
	canonical(&in, H1 "-f " H2 "-d", "");
	{
		/* The same hashes in base16 and base64, and SRI. */
		struct strbuf t = STRBUF_INIT;
		char *p = strstr(in.buf, "FileHash: ");
		strbuf_add(&t, in.buf, (size_t)(p - in.buf));
		strbuf_addf(&t, "FileHash: sha256:%s\nFileSize: 212\nNarHash: sha256:%s\n",
			    file_b16.buf, nar_b16.buf);
		strbuf_addstr(&t, strstr(in.buf, "NarSize:"));
		same_as("base16 hashes", t.buf, want.buf);
		strbuf_reset(&t);
		strbuf_add(&t, in.buf, (size_t)(p - in.buf));
		strbuf_addf(&t, "FileHash: sha256:%s\nFileSize: 212\nNarHash: sha256-%s\n",
			    file_b32.buf, nar_b64.buf);
		strbuf_addstr(&t, strstr(in.buf, "NarSize:"));
		same_as("an SRI NarHash", t.buf, want.buf);
		strbuf_reset(&t);
		strbuf_add(&t, in.buf, (size_t)(p - in.buf));
		strbuf_addf(&t, "FileHash: sha256:%s\nFileSize: 212\nNarHash: sha256:%s\n",
			    file_b32.buf, nar_b64.buf);
		strbuf_addstr(&t, strstr(in.buf, "NarSize:"));
		same_as("a base64 NarHash", t.buf, want.buf);
		strbuf_release(&t);
	}

	/* No Compression means bzip2; unknown-deriver means none. */
	strbuf_reset(&in);
	strbuf_addf(&in, "StorePath: " SD "/" H1 "-f\nURL: u\nNarHash: sha256:%s\nNarSize: 1\n"
		    "Deriver: unknown-deriver\nCA: \nSystem: \n", nar_b32.buf);
	strbuf_reset(&out);
	strbuf_addf(&out, "StorePath: " SD "/" H1 "-f\nURL: u\nCompression: bzip2\n"
		    "NarHash: sha256:%s\nNarSize: 1\nReferences: \n", nar_b32.buf);
	same_as("a minimal narinfo: bzip2, no deriver, CA or system", in.buf, out.buf);

	strbuf_reset(&in);
	strbuf_addf(&in, "StorePath: " SD "/" H1 "-f\nURL: u\nNarHash: sha256:%s\nNarSize: 1\n"
		    "CA: text:sha256:%s\n", nar_b32.buf, nar_b16.buf);
	strbuf_reset(&out);
	strbuf_addf(&out, "StorePath: " SD "/" H1 "-f\nURL: u\nNarHash: sha256:%s\nNarSize: 1\n"
		    "CA: text:sha256:%s\n", nar_b32.buf, nar_b32.buf);
	same_as("a CA written in base16 is rendered in nix-base32", in.buf, out.buf);

	strbuf_release(&want);
	strbuf_release(&in);
	strbuf_release(&out);
}

/* Replace the first line starting with key (key may be absent) by line. */
static void refused(const char *what, const char *key, const char *line, int code)
{
	struct strbuf in = STRBUF_INIT, t = STRBUF_INIT;
	struct cix_err err = { 0 };
	canonical(&in, H1 "-f", "CA: fixed:sha1:0000000000000000000000000000000000000000\n");
	char *p = key ? strstr(in.buf, key) : NULL;
	if (p) {
		strbuf_add(&t, in.buf, (size_t)(p - in.buf));
		strbuf_addstr(&t, line);
		strbuf_addstr(&t, strchr(p, '\n') + 1);
	} else {
		strbuf_addstr(&t, in.buf);
		strbuf_addstr(&t, line);
	}
	int r = parse(t.buf, t.len, NULL, &err);
	is_int(r, code, "refused: %s (%s)", what, err.msg);
	strbuf_release(&in);
	strbuf_release(&t);
}

static void test_refusals(void)
{
	struct strbuf big = STRBUF_INIT;
	struct cix_err err = { 0 };
	char *s;

	refused("no StorePath", "StorePath:", "", -CIX_EFORMAT);
	refused("no URL", "URL:", "", -CIX_EFORMAT);
	refused("an empty URL", "URL:", "URL: \n", -CIX_EFORMAT);
	refused("no NarHash", "NarHash:", "", -CIX_EFORMAT);
	refused("no NarSize", "NarSize:", "", -CIX_EFORMAT);
	refused("a zero NarSize", "NarSize:", "NarSize: 0\n", -CIX_EFORMAT);
	refused("a negative NarSize", "NarSize:", "NarSize: -1\n", -CIX_EFORMAT);
	refused("an overflowing NarSize", "NarSize:", "NarSize: 18446744073709551616\n", -CIX_EFORMAT);
	refused("a NarSize with a blank", "NarSize:", "NarSize: 1 \n", -CIX_EFORMAT);
	refused("a negative FileSize", "FileSize:", "FileSize: -5\n", -CIX_EFORMAT);
	refused("a hexadecimal FileSize", "FileSize:", "FileSize: 0x10\n", -CIX_EFORMAT);
	refused("a NarHash without algorithm", "NarHash:",
		"NarHash: 0000000000000000000000000000000000000000000000000000\n", -CIX_EFORMAT);
	refused("a sha1 NarHash", "NarHash:",
		"NarHash: sha1:0000000000000000000000000000000000000000\n", -CIX_EFORMAT);
	refused("an unknown algorithm", "NarHash:", "NarHash: sha3:00\n", -CIX_EFORMAT);
	refused("a NarHash of the wrong length", "NarHash:", "NarHash: sha256:000\n", -CIX_EFORMAT);
	refused("a NarHash with a bad character", "NarHash:",
		"NarHash: sha256:e000000000000000000000000000000000000000000000000000\n", -CIX_EFORMAT);
	refused("a NarHash with overflow bits", "NarHash:",
		"NarHash: sha256:z000000000000000000000000000000000000000000000000000\n", -CIX_EFORMAT);
	refused("a bad FileHash", "FileHash:", "FileHash: sha256:xyz\n", -CIX_EFORMAT);
	refused("a StorePath in another store", "StorePath:",
		"StorePath: /gnu/store/" H1 "-f\n", -CIX_EFORMAT);
	refused("a StorePath with a bad hash", "StorePath:",
		"StorePath: " SD "/e8hlm4061amf82mpli6xlnwg97kygr5d-f\n", -CIX_EFORMAT);
	refused("a StorePath with a bad name", "StorePath:",
		"StorePath: " SD "/" H1 "-a/b\n", -CIX_EFORMAT);
	refused("a reference that is a full path", "References:",
		"References: " SD "/" H1 "-f\n", -CIX_EFORMAT);
	refused("a reference with no name", "References:", "References: " H1 "\n", -CIX_EFORMAT);
	refused("a second References", NULL, "References: " H2 "-d\n", -CIX_EFORMAT);
	refused("a second CA", NULL, "CA: fixed:sha1:0000000000000000000000000000000000000000\n",
		-CIX_EFORMAT);
	refused("a bad CA", "CA:", "CA: text:sha1:0000000000000000000000000000000000000000\n",
		-CIX_EFORMAT);
	refused("a CA of no known kind", "CA:", "CA: other:sha256:00\n", -CIX_EFORMAT);
	refused("an empty Deriver", "Deriver:", "Deriver: \n", -CIX_EFORMAT);
	refused("a Deriver that is a full path", "Deriver:",
		"Deriver: " SD "/" H1 "-f.drv\n", -CIX_EFORMAT);
	refused("a line with no colon", NULL, "Junk\n", -CIX_EFORMAT);
	refused("a line with no space after its colon", "URL:", "URL:nar/x\n", -CIX_EFORMAT);
	refused("a last line with no newline", NULL, "Future: x", -CIX_EFORMAT);
	refused("an empty line", NULL, "\n", -CIX_EFORMAT);

	canonical(&big, "", "");
	*strstr(big.buf, "xz\n") = '\0';
	is_int(parse(big.buf, big.len, NULL, &err), -CIX_EFORMAT, "refused: a NUL byte (%s)",
	       err.msg);
	strbuf_reset(&big);

	s = xmalloc(CIX_NARINFO_MAX_LINE + 16);
	memset(s, 'a', CIX_NARINFO_MAX_LINE + 15);
	memcpy(s, "URL: ", 5);
	s[CIX_NARINFO_MAX_LINE + 14] = '\n';
	s[CIX_NARINFO_MAX_LINE + 15] = '\0';
	refused("a line too long", "URL:", s, -CIX_ELIMIT);
	free(s);
	for (int i = 0; i <= CIX_NARINFO_MAX_SIGS; i++)
		strbuf_addstr(&big, "Sig: k:c2ln\n");
	refused("too many signatures", NULL, big.buf, -CIX_ELIMIT);

	/* References may be longer than a line, up to their count. */
	strbuf_reset(&big);
	strbuf_addf(&big, "StorePath: " SD "/" H1 "-f\nURL: u\nNarHash: sha256:%s\nNarSize: 1\n"
		    "References:", nar_b32.buf);
	for (int i = 0; i < CIX_NARINFO_MAX_REFS; i++)
		strbuf_addstr(&big, " " H2 "-d");
	strbuf_addch(&big, '\n');
	is_int(parse(big.buf, big.len, NULL, &err), 0, "%d references", CIX_NARINFO_MAX_REFS);
	strbuf_setlen(&big, big.len - 1);
	strbuf_addstr(&big, " " H2 "-d\n");
	is_int(parse(big.buf, big.len, NULL, &err), -CIX_ELIMIT, "refused: one more (%s)", err.msg);
	strbuf_grow(&big, CIX_NARINFO_MAX_SIZE);
	memset(big.buf + big.len, 'x', CIX_NARINFO_MAX_SIZE);
	is_int(cix_narinfo_parse(big.buf, CIX_NARINFO_MAX_SIZE + 1, SD, &(struct cix_narinfo){ 0 },
				 &err), -CIX_ELIMIT, "refused: a file too large (%s)", err.msg);
	strbuf_release(&big);
}

static void test_fingerprint(void)
{
	struct strbuf in = STRBUF_INIT, fp = STRBUF_INIT, want = STRBUF_INIT;
	struct cix_narinfo ni;
	struct cix_err err = { 0 };

	canonical(&in, H2 "-d " H1 "-f " H2 "-d", "");
	is_int(cix_narinfo_parse(in.buf, in.len, SD, &ni, &err), 0, "parsed");
	is_int(cix_narinfo_fingerprint(&ni, SD, &fp, &err), 0, "fingerprint");
	strbuf_addf(&want, "1;" SD "/" H3 "-withref;sha256:%s;224;" SD "/" H1 "-f," SD "/" H2 "-d",
		    nar_b32.buf);
	is_str(fp.buf, want.buf, "fingerprint: full reference paths, sorted, each once");
	ni.nar_size = 0;
	strbuf_reset(&fp);
	is_int(cix_narinfo_fingerprint(&ni, SD, &fp, &err), -CIX_EINVAL,
	       "no fingerprint without a NAR size (%s)", err.msg);
	cix_narinfo_release(&ni);
	strbuf_release(&in);
	strbuf_release(&fp);
	strbuf_release(&want);
}

static int cache_info(const char *text, struct strbuf *out, struct cix_err *err)
{
	struct cix_cache_info ci;
	int r = cix_cache_info_parse(text, strlen(text), &ci, err);
	if (r == 0)
		cix_cache_info_format(&ci, out);
	cix_cache_info_release(&ci);
	return r;
}

static void test_cache_info(void)
{
	struct strbuf out = STRBUF_INIT;
	struct cix_err err = { 0 };
	const char *c = "StoreDir: /nix/store\nWantMassQuery: 1\nPriority: 40\n";

	is_int(cache_info(c, &out, &err), 0, "nix-cache-info parses");
	is_str(out.buf, c, "and formats back");
	strbuf_reset(&out);
	is_int(cache_info("junk\n\nPriority:  -3 \r\nStoreDir:/nix/store\nOther: 1\n"
			  "WantMassQuery: yes", &out, &err), 0, "as Nix reads it");
	is_str(out.buf, "StoreDir: /nix/store\nWantMassQuery: 0\nPriority: -3\n",
	       "trimmed, unknown keys and lines without a colon ignored");
	is_int(cache_info("Priority: 4x\n", &out, &err), -CIX_EFORMAT, "bad priority (%s)", err.msg);
	is_int(cache_info("Priority: 2147483648\n", &out, &err), -CIX_EFORMAT,
	       "priority out of range");
	is_int(cache_info("StoreDir: /a\nStoreDir: /b\n", &out, &err), -CIX_EFORMAT,
	       "two store directories (%s)", err.msg);
	is_int(cache_info("StoreDir: relative\n", &out, &err), -CIX_EFORMAT,
	       "a relative store directory");
	is_int(cix_cache_info_parse("StoreDir: /a\0\n", 14, &(struct cix_cache_info){ 0 }, &err),
	       -CIX_EFORMAT, "a NUL byte");
	strbuf_release(&out);
}

/*
 * For t6010: --reformat FILE STOREDIR prints the narinfo formatted again,
 * --fingerprint FILE STOREDIR its fingerprint, --cache-info FILE the
 * nix-cache-info formatted again.
 */
static int tool(int argc, char **argv)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r;

	if (argc < 3 || (strcmp(argv[1], "--cache-info") && argc != 4)) {
		fprintf(stderr, "usage: %s --reformat|--fingerprint FILE STOREDIR | --cache-info FILE\n",
			argv[0]);
		return 2;
	}
	r = strbuf_read_file(&in, argv[2], CIX_NARINFO_MAX_SIZE + 1);
	if (r < 0) {
		fprintf(stderr, "cannot read %s\n", argv[2]);
		return 1;
	}
	if (!strcmp(argv[1], "--cache-info")) {
		struct cix_cache_info ci;
		r = cix_cache_info_parse(in.buf, in.len, &ci, &err);
		if (r == 0)
			cix_cache_info_format(&ci, &out);
		cix_cache_info_release(&ci);
	} else {
		struct cix_narinfo ni;
		r = cix_narinfo_parse(in.buf, in.len, argv[3], &ni, &err);
		if (r == 0 && !strcmp(argv[1], "--fingerprint"))
			r = cix_narinfo_fingerprint(&ni, argv[3], &out, &err);
		else if (r == 0)
			cix_narinfo_format(&ni, argv[3], &out);
		cix_narinfo_release(&ni);
	}
	if (r < 0)
		fprintf(stderr, "%s: %s\n", argv[2], err.msg);
	else
		fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&in);
	strbuf_release(&out);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return tool(argc, argv);
	make_hashes();
	test_round_trip();
	test_as_nix();
	test_refusals();
	test_fingerprint();
	test_cache_info();
	strbuf_release(&nar_b32);
	strbuf_release(&nar_b16);
	strbuf_release(&nar_b64);
	strbuf_release(&file_b32);
	strbuf_release(&file_b16);
	return done_testing();
}
