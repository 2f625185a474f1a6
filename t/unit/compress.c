/* compress.c - unit tests: NARs compressed and decompressed as streams */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "compress.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

static int to_buf(void *opaque, const void *data, size_t len)
{
	strbuf_add(opaque, data, len);
	return 0;
}

struct mem_src {
	const unsigned char *p;
	size_t len, pos, step;
};

static ssize_t from_mem(void *opaque, void *buf, size_t len)
{
	struct mem_src *m = opaque;
	size_t n = m->len - m->pos;
	if (n > len)
		n = len;
	if (m->step && n > m->step)
		n = m->step;
	memcpy(buf, m->p + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

static void compress_buf(enum cix_comp c, const void *data, size_t len, size_t chunk,
			 struct strbuf *out)
{
	struct cix_zsink *z = cix_zsink_new(c, -1, to_buf, out);
	struct cix_err err = { 0 };
	int r = 0;
	for (size_t i = 0; !r && i < len; i += chunk)
		r = cix_zsink_write(z, (const char *)data + i, len - i < chunk ? len - i : chunk);
	if (!r)
		r = cix_zsink_finish(z, &err);
	if (r)
		diag("compress: %d %s", r, err.msg);
	cix_zsink_free(z);
}

/* 0 and out filled, or the error (its message in err). */
static int decompress_buf(enum cix_comp c, const void *data, size_t len, size_t step,
			  uint64_t max, struct strbuf *out, struct cix_err *err)
{
	struct mem_src m = { data, len, 0, step };
	struct cix_zsource *z = cix_zsource_new(c, from_mem, &m, max, "test");
	char buf[4096];
	ssize_t n;
	int r;
	while ((n = cix_zsource_read(z, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	r = n < 0 ? (*err = *cix_zsource_error(z), (int)n) : cix_zsource_finish(z, err);
	cix_zsource_free(z);
	return r;
}

static void fill_data(unsigned char *p, size_t len, int random)
{
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = random ? (unsigned char)x : (unsigned char)("nix-archive-1\n"[i % 14]);
	}
}

static void test_round_trips(void)
{
	static const size_t sizes[] = { 0, 1, 1000, 300 * 1024 };
	unsigned char *data = xmalloc(300 * 1024);
	for (int c = CIX_COMP_NONE; c <= CIX_COMP_ZSTD; c++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
			for (int random = 0; random < 2; random++) {
				struct strbuf z = STRBUF_INIT, back = STRBUF_INIT;
				struct cix_err err = { 0 };
				fill_data(data, sizes[s], random);
				compress_buf(c, data, sizes[s], 7777, &z);
				int r = decompress_buf(c, z.buf, z.len, 333, 0, &back, &err);
				ok(r == 0 && back.len == sizes[s] && !memcmp(back.buf, data, sizes[s]),
				   "%s: %zu %s bytes, back the same", cix_comp_name(c), sizes[s],
				   random ? "random" : "repeated");
				if (c != CIX_COMP_NONE && sizes[s] == 300 * 1024 && !random)
					ok(z.len < sizes[s] / 10, "%s: repeated bytes compressed (%zu)",
					   cix_comp_name(c), z.len);
				strbuf_release(&z);
				strbuf_release(&back);
			}
	free(data);
}

static void test_hostile(void)
{
	size_t len = 200 * 1024;
	unsigned char *data = xmalloc(len);
	fill_data(data, len, 1);
	for (int c = CIX_COMP_XZ; c <= CIX_COMP_ZSTD; c++) {
		struct strbuf z = STRBUF_INIT, back = STRBUF_INIT, bad = STRBUF_INIT;
		struct cix_err err = { 0 };
		const char *name = cix_comp_name(c);
		compress_buf(c, data, len, len, &z);

		is_int(decompress_buf(c, z.buf, z.len, 0, len - 1, &back, &err), -CIX_ELIMIT,
		       "%s: more than the bound out is refused", name);
		strbuf_reset(&back);
		ok(decompress_buf(c, z.buf, z.len, 0, len, &back, &err) == 0 && back.len == len,
		   "%s: exactly the bound is fine", name);

		for (size_t cut = 0; cut < z.len; cut += z.len / 7 + 1) {
			strbuf_reset(&back);
			memset(&err, 0, sizeof(err));
			int r = decompress_buf(c, z.buf, cut, 0, 0, &back, &err);
			if (!ok(r < 0 && err.msg[0], "%s: cut at %zu of %zu: an error", name, cut, z.len))
				diag("  r=%d, %zu bytes out", r, back.len);
		}
		strbuf_add(&bad, z.buf, z.len);
		bad.buf[bad.len / 2] ^= 0x55;
		strbuf_reset(&back);
		ok(decompress_buf(c, bad.buf, bad.len, 0, 0, &back, &err) < 0,
		   "%s: a changed byte: an error", name);
		strbuf_reset(&bad);
		strbuf_add(&bad, z.buf, z.len);
		strbuf_addstr(&bad, "garbage");
		strbuf_reset(&back);
		memset(&err, 0, sizeof(err));
		ok(decompress_buf(c, bad.buf, bad.len, 0, 0, &back, &err) < 0 && err.msg[0],
		   "%s: trailing bytes: an error (%s)", name, err.msg);
		strbuf_reset(&back);
		ok(decompress_buf(c, "not compressed at all", 21, 0, 0, &back, &err) < 0,
		   "%s: not compressed data: an error", name);
		strbuf_release(&z);
		strbuf_release(&back);
		strbuf_release(&bad);
	}
	free(data);
}

static void test_names(void)
{
	enum cix_comp c;
	int level;
	struct cix_err err = { 0 };
	ok(cix_comp_parse("zstd", &c, &level, &err) == 0 && c == CIX_COMP_ZSTD && level == -1,
	   "zstd");
	ok(cix_comp_parse("xz:9", &c, &level, &err) == 0 && c == CIX_COMP_XZ && level == 9,
	   "xz:9");
	ok(cix_comp_parse("none", &c, &level, &err) == 0 && c == CIX_COMP_NONE, "none");
	ok(cix_comp_parse("xz:10", &c, &level, &err) < 0, "xz:10 refused");
	ok(cix_comp_parse("zstd:-1", &c, &level, &err) < 0, "zstd:-1 refused");
	ok(cix_comp_parse("bzip2", &c, &level, &err) < 0 && strstr(err.msg, "bzip2"),
	   "bzip2 refused, named");
	ok(cix_comp_parse("", &c, &level, &err) < 0, "empty refused");
	is_str(cix_comp_ext(CIX_COMP_ZSTD), ".zst", "zstd's file extension");
	is_str(cix_comp_ext(CIX_COMP_XZ), ".xz", "xz's file extension");
}

/* The command-line tools, when there are: they read ours, we read theirs. */
static void test_tools(void)
{
	static const char *const tools[] = { NULL, "xz", "zstd" };
	char dir[] = "/tmp/cix-compress-XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return;
	}
	for (int c = CIX_COMP_XZ; c <= CIX_COMP_ZSTD; c++) {
		char cmd[512], file[256];
		struct strbuf z = STRBUF_INIT, back = STRBUF_INIT;
		struct cix_err err = { 0 };
		unsigned char data[5000];
		FILE *f;
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tools[c]);
		if (system(cmd) != 0) {
			skip("the command-line tool reads ours", tools[c]);
			skip("we read the command-line tool's", tools[c]);
			continue;
		}
		fill_data(data, sizeof(data), 0);
		compress_buf(c, data, sizeof(data), 100, &z);
		snprintf(file, sizeof(file), "%s/ours", dir);
		f = fopen(file, "w");
		fwrite(z.buf, 1, z.len, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "%s -dc <%s >%s/back && cmp -s %s/back %s/orig", tools[c],
			 file, dir, dir, dir);
		snprintf(file, sizeof(file), "%s/orig", dir);
		f = fopen(file, "w");
		fwrite(data, 1, sizeof(data), f);
		fclose(f);
		ok(system(cmd) == 0, "%s -d reads ours", tools[c]);
		snprintf(cmd, sizeof(cmd), "%s -c -q <%s/orig >%s/theirs", tools[c], dir, dir);
		strbuf_reset(&z);
		snprintf(file, sizeof(file), "%s/theirs", dir);
		ok(system(cmd) == 0 && strbuf_read_file(&z, file, 1 << 20) == 0 &&
		   decompress_buf(c, z.buf, z.len, 0, 0, &back, &err) == 0 &&
		   back.len == sizeof(data) && !memcmp(back.buf, data, sizeof(data)),
		   "we read %s's", tools[c]);
		strbuf_release(&z);
		strbuf_release(&back);
	}
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
}

/*
 * More than 8 MiB of xz is several blocks (decompressed in parallel), the
 * same bytes as xz(1) writes with that block size in threaded mode, and
 * read back whole, by us and by xz(1).
 */
static void test_xz_blocks(void)
{
	size_t len = 17u << 20;
	unsigned char *data = xmalloc(len);
	struct strbuf z = STRBUF_INIT, back = STRBUF_INIT, cmd = STRBUF_INIT, out = STRBUF_INIT;
	struct cix_err err = { 0 };
	char dir[] = "/tmp/cix-compress-XXXXXX";
	FILE *f;

	fill_data(data, len, 0);
	compress_buf(CIX_COMP_XZ, data, len, 1 << 20, &z);
	ok(decompress_buf(CIX_COMP_XZ, z.buf, z.len, 100000, len, &back, &err) == 0 &&
	   back.len == len && !memcmp(back.buf, data, len), "17 MiB of xz read back");
	if (system("xz --block-size=8MiB -T2 -c </dev/null >/dev/null 2>&1") != 0 || !mkdtemp(dir)) {
		skip("xz(1) sees 3 blocks", "no xz with --block-size");
		skip("xz(1) writes the same", "no xz with --block-size");
		goto out;
	}
	strbuf_addf(&out, "%s/ours.xz", dir);
	f = fopen(out.buf, "w");
	fwrite(z.buf, 1, z.len, f);
	fclose(f);
	strbuf_addf(&cmd, "xz --robot --list %s | grep -q '^totals[[:space:]]1[[:space:]]3[[:space:]]'",
		    out.buf);
	ok(system(cmd.buf) == 0, "xz(1) sees 3 blocks");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "xz -dc %s/ours.xz | xz -6 -T2 --block-size=8MiB -c | cmp -s - %s/ours.xz",
		    dir, dir);
	ok(system(cmd.buf) == 0, "xz(1) writes the same");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "rm -rf %s", dir);
	if (system(cmd.buf) != 0)
		diag("cannot remove %s", dir);
out:
	free(data);
	strbuf_release(&z);
	strbuf_release(&back);
	strbuf_release(&cmd);
	strbuf_release(&out);
}

int main(void)
{
	test_round_trips();
	test_hostile();
	test_names();
	test_tools();
	test_xz_blocks();
	return done_testing();
}
