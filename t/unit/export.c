/* export.c - unit tests of the export stream writer and parser */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "encoding.h"
#include "export.h"
#include "remove.h"
#include "store-path.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define SD "/cix/store"
#define P_A SD "/00000000000000000000000000000000-a"
#define P_B SD "/11111111111111111111111111111111-b"
#define P_C SD "/22222222222222222222222222222222-c"
#define P_DRV SD "/33333333333333333333333333333333-c.drv"

static char tmp[4096], src[4200], out[4200];

/* ---- Helpers ---- */

static int sb_sink(void *opaque, const void *data, size_t len)
{
	strbuf_add(opaque, data, len);
	return 0;
}

static void u64(struct strbuf *sb, uint64_t v)
{
	unsigned char b[8];
	cix_put_u64le(b, v);
	strbuf_add(sb, b, 8);
}

static void str(struct strbuf *sb, const char *s)
{
	static const char zero[8];
	size_t n = strlen(s);
	u64(sb, n);
	strbuf_add(sb, s, n);
	strbuf_add(sb, zero, (8 - n % 8) % 8);
}

static void write_file(const char *path, const char *data, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || cix_write_full(fd, data, strlen(data)) < 0 || close(fd) < 0)
		BUG("cannot write %s", path);
}

static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int has_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "tmp-", 4))
			n++;
	closedir(d);
	return n;
}

static void empty_dir(const char *dir)
{
	cix_remove_tree_at(AT_FDCWD, dir, NULL);
	if (mkdir(dir, 0755))
		BUG("cannot create %s", dir);
}

/* What the parser reports, kept for checking. */
struct seen {
	size_t n;
	char *paths[8], *derivers[8];
	struct strbuf refs[8];              /* joined by spaces */
	struct cix_hash hashes[8];
	uint64_t sizes[8];
	size_t sig_lens[8];
	int has_sig[8];
	/* restore mode */
	unsigned next_tmp;
	int discards, fail_done, fail_target;
};

static void seen_release(struct seen *s)
{
	for (size_t i = 0; i < s->n && i < 8; i++) {
		free(s->paths[i]);
		free(s->derivers[i]);
		strbuf_release(&s->refs[i]);
	}
	memset(s, 0, sizeof(*s));
}

static int on_target(void *opaque, char **target, struct cix_err *err)
{
	struct seen *s = opaque;
	struct strbuf sb = STRBUF_INIT;
	if (s->fail_target)
		return cix_error(err, -CIX_EINVAL, "no room for a target");
	strbuf_addf(&sb, "%s/tmp-%u", out, s->next_tmp++);
	*target = strbuf_detach(&sb, NULL);
	return 0;
}

static void on_discard(void *opaque, const char *target)
{
	struct seen *s = opaque;
	s->discards++;
	cix_remove_tree_at(AT_FDCWD, target, NULL);
}

static int on_done(void *opaque, const char *target,
		   const struct cix_import_info *info, struct cix_err *err)
{
	struct seen *s = opaque;
	size_t i = s->n;
	if (info->index != i)
		return cix_error(err, -CIX_EINVAL, "entry %zu reported as %zu", i, info->index);
	if (i < 8) {
		s->paths[i] = xstrdup(info->meta.path);
		s->derivers[i] = info->meta.deriver ? xstrdup(info->meta.deriver) : NULL;
		strbuf_init(&s->refs[i], 0);
		for (size_t k = 0; k < info->meta.nr_refs; k++)
			strbuf_addf(&s->refs[i], "%s%s", k ? " " : "", info->meta.refs[k]);
		s->hashes[i] = info->nar_hash;
		s->sizes[i] = info->nar_size;
		s->has_sig[i] = info->sig != NULL;
		s->sig_lens[i] = info->sig_len;
	}
	s->n++;
	if (target) {
		char dst[8400];
		snprintf(dst, sizeof(dst), "%s/%s", out, strrchr(info->meta.path, '/') + 1);
		if (s->fail_done || rename(target, dst)) {
			cix_remove_tree_at(AT_FDCWD, target, NULL);
			return cix_error(err, -CIX_EEXIST, "cannot move '%s' into place", target);
		}
	} else if (s->fail_done) {
		return cix_error(err, -CIX_EMISMATCH, "refused by the caller");
	}
	return 0;
}

static const struct cix_import_ops restore_ops = {
	.nar_target = on_target, .path_done = on_done, .discard = on_discard,
};

static int check_mem(const void *data, size_t len, struct seen *s, size_t *consumed,
		     struct cix_err *err)
{
	struct cix_mem_source m = { data, len, 0 };
	int r = cix_import_check(cix_mem_source_read, &m, SD, on_done, s, err);
	if (consumed)
		*consumed = m.pos;
	return r;
}

static int restore_mem(const void *data, size_t len, const char *store_dir,
		       struct seen *s, struct cix_err *err)
{
	struct cix_mem_source m = { data, len, 0 };
	return cix_import_parse(cix_mem_source_read, &m, store_dir, &restore_ops, s, err);
}

static int one_line(const struct cix_err *err)
{
	return err->msg[0] && !strchr(err->msg, '\n');
}

/* ---- Tests ---- */

static struct cix_hash nar_hash_of(const char *path, uint64_t *size)
{
	struct cix_hash h;
	struct cix_err err;
	if (cix_nar_hash_path(path, CIX_HASH_SHA256, &h, size, &err) < 0)
		BUG("%s", err.msg);
	return h;
}

static void test_roundtrip(void)
{
	char file[4300], dir[4300], p[4400];
	const char *refs_b[] = { P_C, P_A, P_B, P_A };  /* unsorted, duplicate, self */
	const char *refs_c[] = { P_A };
	struct cix_export_meta ma = { P_A, NULL, 0, NULL };
	struct cix_export_meta mb = { P_B, refs_b, 4, P_DRV };
	struct cix_export_meta mc = { P_C, refs_c, 1, "" };
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	struct seen s = { 0 };
	size_t consumed;
	uint64_t size;
	struct cix_hash h;

	snprintf(file, sizeof(file), "%s/file", src);
	snprintf(dir, sizeof(dir), "%s/dir", src);
	write_file(file, "hello\n", 0644);
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/run", dir);
	write_file(p, "#!/bin/sh\n", 0755);
	snprintf(p, sizeof(p), "%s/link", dir);
	if (symlink("run", p))
		BUG("symlink");

	is_int(cix_export_path(sb_sink, &sb, file, &ma, &err), 0, "export a file");
	is_int(cix_export_path(sb_sink, &sb, dir, &mb, &err), 0, "export a directory with references");
	is_int(cix_export_path(sb_sink, &sb, "/dev/null", &mc, &err), -CIX_EUNSUPPORTED,
	       "a device is refused");
	ok(one_line(&err), "  with a message: %s", err.msg);
	/* that entry is half written: start again */
	strbuf_reset(&sb);
	is_int(cix_export_path(sb_sink, &sb, file, &ma, &err), 0, "export a file");
	is_int(cix_export_path(sb_sink, &sb, dir, &mb, &err), 0, "export a directory");
	is_int(cix_export_path(sb_sink, &sb, file, &mc, &err), 0, "export a path with an empty deriver");
	is_int(cix_export_end(sb_sink, &sb, &err), 0, "end the stream");
	u64(&sb, 12345); /* trailing data */

	is_int(check_mem(sb.buf, sb.len, &s, &consumed, &err), 0, "the stream validates");
	is_int(consumed, sb.len - 8, "  consuming all but the trailing data");
	is_int(s.n, 3, "  three entries");
	is_str(s.paths[0], P_A, "  first path");
	is_str(s.refs[0].buf, "", "  without references");
	ok(!s.derivers[0], "  nor deriver");
	is_str(s.paths[1], P_B, "  second path");
	is_str(s.refs[1].buf, P_A " " P_B " " P_C, "  references sorted, deduplicated, self kept");
	is_str(s.derivers[1], P_DRV, "  its deriver");
	ok(!s.derivers[2], "  an empty deriver is none");
	h = nar_hash_of(file, &size);
	is_mem(s.hashes[0].bytes, 32, h.bytes, 32, "  NAR hash of the file");
	is_int(s.sizes[0], size, "  NAR size of the file");
	h = nar_hash_of(dir, &size);
	is_mem(s.hashes[1].bytes, 32, h.bytes, 32, "  NAR hash of the directory");
	is_int(s.sizes[1], size, "  NAR size of the directory");
	ok(!s.has_sig[0], "  no signature");
	seen_release(&s);

	empty_dir(out);
	is_int(restore_mem(sb.buf, sb.len, SD, &s, &err), 0, "the stream restores");
	is_int(s.n, 3, "  three entries");
	is_int(dir_entries(out), 3, "  three trees");
	snprintf(p, sizeof(p), "%s/%s", out, strrchr(P_B, '/') + 1);
	h = nar_hash_of(p, NULL);
	is_mem(s.hashes[1].bytes, 32, h.bytes, 32, "  the directory restored has the NAR hash");
	is_int(s.discards, 0, "  nothing discarded");
	seen_release(&s);

	/* Re-export of the restored trees gives the same bytes. */
	{
		struct strbuf again = STRBUF_INIT;
		const struct cix_export_meta *ms[] = { &ma, &mb, &mc };
		for (int i = 0; i < 3; i++) {
			snprintf(p, sizeof(p), "%s/%s", out, strrchr(ms[i]->path, '/') + 1);
			cix_export_path(sb_sink, &again, p, ms[i], &err);
		}
		cix_export_end(sb_sink, &again, &err);
		is_mem(again.buf, again.len, sb.buf, sb.len - 8, "re-export of the restored trees is identical");
		strbuf_release(&again);
	}
	strbuf_release(&sb);
}

static void test_writer_refuses(void)
{
	const char *bad_ref[] = { "/nix/store/00000000000000000000000000000000-a" };
	const char *null_ref[] = { NULL };
	struct cix_export_meta cases[] = {
		{ NULL, NULL, 0, NULL },
		{ "relative", NULL, 0, NULL },
		{ "/cix/store/x", NULL, 0, NULL },
		{ P_A, bad_ref, 1, NULL },
		{ P_A, null_ref, 1, NULL },
		{ P_A, NULL, 1, NULL },
		{ P_A, NULL, 0, P_C },
		{ P_A, NULL, 0, "/nix/store/33333333333333333333333333333333-c.drv" },
		{ SD "/../00000000000000000000000000000000-a", NULL, 0, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct cix_err err;
		char file[4300];
		snprintf(file, sizeof(file), "%s/file", src);
		ok(cix_export_path(sb_sink, &sb, file, &cases[i], &err) < 0 && one_line(&err),
		   "writer refuses bad metadata %zu: %s", i, err.msg);
		is_int(sb.len, 0, "  before writing anything");
		strbuf_release(&sb);
	}
}

static int failing_sink(void *opaque, const void *data, size_t len)
{
	return -ENOSPC;
}

static void test_writer_sink_error(void)
{
	struct cix_export_meta m = { P_A, NULL, 0, NULL };
	struct cix_err err;
	char file[4300];
	snprintf(file, sizeof(file), "%s/file", src);
	is_int(cix_export_path(failing_sink, NULL, file, &m, &err), -ENOSPC, "a sink error is returned");
	ok(one_line(&err), "  with a message: %s", err.msg);
	is_int(cix_export_end(failing_sink, NULL, &err), -ENOSPC, "  also at the end");
	is_int(cix_export_meta(failing_sink, NULL, &m, &err), -ENOSPC, "  and in the metadata");
}

/* A NAR of "hello\n", for crafted entries. */
static void nar_hello(struct strbuf *sb)
{
	const char *toks[] = { "nix-archive-1", "(", "type", "regular", "contents",
			       "hello\n", ")" };
	for (size_t i = 0; i < ARRAY_SIZE(toks); i++)
		str(sb, toks[i]);
}

/* Entry head: marker, NAR, magic. */
static void head(struct strbuf *sb)
{
	u64(sb, 1);
	nar_hello(sb);
	u64(sb, CIX_EXPORT_MAGIC);
}

static void test_hostile(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	struct seen s = { 0 };
	int i = 0;

#define REFUSED(code, what) do {                                                  \
		int r_ = check_mem(sb.buf, sb.len, &s, NULL, &err);               \
		ok(r_ == (code) && one_line(&err) && strstr(err.msg, what),       \
		   "refused: %s: %s", what, err.msg);                              \
		seen_release(&s);                                                  \
		empty_dir(out);                                                    \
		r_ = restore_mem(sb.buf, sb.len, SD, &s, &err);                    \
		ok(r_ == (code) && has_tmp(out) == 0 && s.discards <= 1,          \
		   "  also when restoring, leaving nothing (%d)", r_);              \
		seen_release(&s);                                                  \
		strbuf_reset(&sb); i++;                                            \
	} while (0)

	REFUSED(-CIX_EFORMAT, "truncated");
	u64(&sb, 2);
	REFUSED(-CIX_EFORMAT, "bad marker 2");
	u64(&sb, UINT64_MAX);
	REFUSED(-CIX_EFORMAT, "bad marker 18446744073709551615");
	u64(&sb, 1); str(&sb, "nix-archive-1"); u64(&sb, (uint64_t)1 << 63);
	REFUSED(-CIX_ELIMIT, "NAR at byte 8");
	head(&sb); sb.buf[sb.len - 1] = 1;
	REFUSED(-CIX_EFORMAT, "bad magic");
	head(&sb); u64(&sb, (uint64_t)1 << 63);
	REFUSED(-CIX_ELIMIT, "store path at byte");
	head(&sb); u64(&sb, UINT64_MAX);
	REFUSED(-CIX_ELIMIT, "over the limit");
	head(&sb); str(&sb, P_A "/../x");
	REFUSED(-CIX_EFORMAT, "illegal character");
	head(&sb); str(&sb, "/nix/store/00000000000000000000000000000000-a");
	REFUSED(-CIX_EFORMAT, "not in the store");
	head(&sb); u64(&sb, 3); strbuf_add(&sb, "/a\0\0\0\0\0\0", 8);
	REFUSED(-CIX_EFORMAT, "NUL");
	head(&sb); u64(&sb, 3); strbuf_add(&sb, "/ab\0\0\0\0\1", 8);
	REFUSED(-CIX_EFORMAT, "non-zero padding");
	head(&sb); str(&sb, P_A); u64(&sb, CIX_EXPORT_MAX_REFS + 1);
	REFUSED(-CIX_ELIMIT, "references at byte");
	head(&sb); str(&sb, P_A); u64(&sb, 2); str(&sb, P_B); str(&sb, P_B);
	REFUSED(-CIX_EFORMAT, "duplicate reference");
	head(&sb); str(&sb, P_A); u64(&sb, 2); str(&sb, P_B); str(&sb, P_A);
	REFUSED(-CIX_EFORMAT, "not sorted");
	head(&sb); str(&sb, P_A); u64(&sb, 1); str(&sb, "/cix/storex/00000000000000000000000000000000-a");
	REFUSED(-CIX_EFORMAT, "reference: path");
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, P_C);
	REFUSED(-CIX_EFORMAT, "not a .drv");
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, SD "/33333333333333333333333333333333");
	REFUSED(-CIX_EFORMAT, "deriver: ");
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, ""); u64(&sb, 2);
	REFUSED(-CIX_EFORMAT, "bad signature marker 2");
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, ""); u64(&sb, 1); u64(&sb, CIX_EXPORT_MAX_SIG + 1);
	REFUSED(-CIX_ELIMIT, "legacy signature");
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, ""); u64(&sb, 0);
	REFUSED(-CIX_EFORMAT, "truncated at byte");
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, ""); u64(&sb, 0); u64(&sb, 1);
	REFUSED(-CIX_EFORMAT, "export entry 1: NAR at byte");
	ok(i > 20, "ran the hostile cases");

	/* The legacy signature is read and handed over. */
	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, ""); u64(&sb, 1);
	u64(&sb, 10); strbuf_add(&sb, "sig\0nature\0\0\0\0\0", 16);
	u64(&sb, 0);
	is_int(check_mem(sb.buf, sb.len, &s, NULL, &err), 0, "a legacy signature is accepted");
	ok(s.has_sig[0] && s.sig_lens[0] == 10, "  and reported, NUL and all");
	seen_release(&s);
	strbuf_release(&sb);
}

static void test_callbacks(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	struct seen s = { 0 };
	struct cix_mem_source m;

	head(&sb); str(&sb, P_A); u64(&sb, 0); str(&sb, ""); u64(&sb, 0);
	head(&sb); str(&sb, P_B); u64(&sb, 0); str(&sb, ""); u64(&sb, 0);
	u64(&sb, 0);

	empty_dir(out);
	s.fail_done = 1;
	is_int(restore_mem(sb.buf, sb.len, SD, &s, &err), -CIX_EEXIST, "path_done's error stops the parse");
	is_int(s.n, 1, "  after the first entry");
	is_int(s.discards, 0, "  without a discard (the tree was path_done's)");
	is_int(dir_entries(out), 0, "  path_done removed it");
	seen_release(&s);

	s.fail_target = 1;
	is_int(restore_mem(sb.buf, sb.len, SD, &s, &err), -CIX_EINVAL, "nar_target's error stops the parse");
	is_str(err.msg, "no room for a target", "  with its message");
	seen_release(&s);

	is_int(restore_mem(sb.buf, sb.len, "relative", &s, &err), -CIX_EINVAL, "a bad store directory is refused");
	is_int(restore_mem(sb.buf, sb.len, SD "/", &s, &err), -CIX_EINVAL, "  also with a trailing slash");

	m = (struct cix_mem_source){ (const unsigned char *)sb.buf, sb.len, 0 };
	is_int(cix_import_check(cix_mem_source_read, &m, SD, NULL, NULL, NULL), 0,
	       "validation with no callback and no err");
	is_int(m.pos, sb.len, "  reads the whole stream");

	/* Another store directory. */
	strbuf_reset(&sb);
	head(&sb); str(&sb, "/x/y/00000000000000000000000000000000-a"); u64(&sb, 0); str(&sb, ""); u64(&sb, 0);
	u64(&sb, 0);
	empty_dir(out);
	is_int(restore_mem(sb.buf, sb.len, "/x/y", &s, &err), 0, "another store directory");
	is_int(restore_mem(sb.buf, sb.len, SD, &s, &err), -CIX_EFORMAT, "  refused in " SD);
	is_int(has_tmp(out), 0, "  leaving nothing");
	seen_release(&s);
	strbuf_release(&sb);
}

/* Streams written by nix-store --export (t/data/export, store /nix/store). */
static int read_data(struct strbuf *sb, const char *name)
{
	const char *dir = getenv("CIX_SRC_DIR");
	char p[4200];
	snprintf(p, sizeof(p), "%s/t/data/export/%s", dir && *dir ? dir : ".", name);
	return strbuf_read_file(sb, p, 1 << 20);
}

static void test_nix_streams(void)
{
	struct strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
	struct cix_err err;
	struct seen s = { 0 };
	struct cix_mem_source m;
	size_t complete[8], ncomplete = 0;
	int bad = 0;

	if (read_data(&sb, "closure.export") < 0) {
		ok(0, "read t/data/export/closure.export (set CIX_SRC_DIR)");
		return;
	}
	empty_dir(out);
	m = (struct cix_mem_source){ (const unsigned char *)sb.buf, sb.len, 0 };
	is_int(cix_import_parse(cix_mem_source_read, &m, "/nix/store", &restore_ops, &s, &err), 0,
	       "Nix's export of a closure parses and restores");
	is_int(m.pos, sb.len, "  to its end");
	is_int(s.n, 4, "  four paths");
	ok(s.n == 4 && strstr(s.paths[3], "-built") && s.derivers[3] &&
	   strstr(s.derivers[3], "-built.drv") && strstr(s.refs[3].buf, s.paths[3]),
	   "  the last has a deriver and refers to itself");
	ok(s.n == 4 && strstr(s.refs[2].buf, s.paths[0]) && strstr(s.refs[2].buf, s.paths[1]),
	   "  the third refers to the first two");

	/* Our writer, given what was parsed and the restored trees, gives Nix's bytes. */
	for (size_t i = 0; i < s.n && i < 8; i++) {
		char p[8400], *refs[8] = { 0 }, *save = NULL, *t;
		struct cix_export_meta meta = { s.paths[i], (const char *const *)refs, 0, s.derivers[i] };
		char *copy = xstrdup(s.refs[i].buf);
		for (t = strtok_r(copy, " ", &save); t && meta.nr_refs < 8; t = strtok_r(NULL, " ", &save))
			refs[meta.nr_refs++] = t;
		snprintf(p, sizeof(p), "%s/%s", out, strrchr(s.paths[i], '/') + 1);
		if (cix_export_path(sb_sink, &again, p, &meta, &err) < 0)
			diag("%s", err.msg);
		free(copy);
	}
	cix_export_end(sb_sink, &again, &err);
	is_mem(again.buf, again.len, sb.buf, sb.len, "  re-exported byte for byte");
	seen_release(&s);

	/* Every proper prefix fails cleanly, validating and restoring. */
	for (size_t n = 0; n < sb.len; n++) {
		struct seen s1 = { 0 }, s2 = { 0 };
		int r1, r2;
		m = (struct cix_mem_source){ (const unsigned char *)sb.buf, n, 0 };
		r1 = cix_import_check(cix_mem_source_read, &m, "/nix/store", on_done, &s1, &err);
		if (r1 != -CIX_EFORMAT || !one_line(&err) || !strstr(err.msg, "truncated")) {
			if (!bad++)
				diag("prefix %zu: %d %s", n, r1, err.msg);
		}
		empty_dir(out);
		m = (struct cix_mem_source){ (const unsigned char *)sb.buf, n, 0 };
		r2 = cix_import_parse(cix_mem_source_read, &m, "/nix/store", &restore_ops, &s2, &err);
		if (r2 != -CIX_EFORMAT || has_tmp(out) || dir_entries(out) != (int)s2.n ||
		    s1.n != s2.n) {
			if (!bad++)
				diag("prefix %zu restoring: %d %s", n, r2, err.msg);
		}
		if (ncomplete == 0 || complete[ncomplete - 1] != s1.n) {
			if (ncomplete < 8)
				complete[ncomplete++] = s1.n;
		}
		seen_release(&s1);
		seen_release(&s2);
	}
	ok(!bad, "every one of the %zu proper prefixes fails cleanly", sb.len);
	ok(ncomplete == 5 && complete[4] == 4, "  the complete entries before each cut are reported");
	strbuf_release(&sb);
	strbuf_release(&again);
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "export") < 0)
		return 1;
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	if (mkdir(src, 0755) || mkdir(out, 0755)) {
		perror("mkdir");
		return 1;
	}

	test_roundtrip();
	test_writer_refuses();
	test_writer_sink_error();
	test_hostile();
	test_callbacks();
	test_nix_streams();

	cix_remove_tree_at(AT_FDCWD, tmp, NULL);
	return done_testing();
}
