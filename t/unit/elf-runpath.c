/* elf-runpath.c - unit tests for gnu-build's ELF reader (builder/elf.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
/* gnu-build is not part of libcix: its reader is compiled in here. */
#include "../../builder/elf.c"

#include <stdint.h>
#include <unistd.h>

/* ---- synthetic images: every class and byte order ---- */

struct img {
	unsigned char *b;
	size_t len;
	int is64, be;
};

static void put(struct img *m, size_t off, unsigned n, uint64_t v)
{
	unsigned i;
	for (i = 0; i < n; i++)
		m->b[off + (m->be ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

#define VBASE 0x10000
#define PHOFF 0x40
#define INTERP 0x100
#define STRTAB 0x200
#define DYN 0x300
#define TOTAL 0x400

static const char strtab[] = "\0libfoo.so\0libc.so.6\0/a:/b::$ORIGIN/../lib\0/rpath\0";
enum { S_FOO = 1, S_LIBC = 11, S_RUNPATH = 21, S_RPATH = 43 };

/* dyn: pairs of (tag, value), ended by DT_NULL written by us. */
static void synth(struct img *m, int is64, int be, const uint64_t *dyn, size_t ndyn)
{
	unsigned w = is64 ? 8 : 4, phent = is64 ? 56 : 32, dent = 2 * w;
	size_t i;

	m->len = TOTAL;
	m->b = calloc(1, TOTAL);
	m->is64 = is64;
	m->be = be;
	memcpy(m->b, ELFMAG, SELFMAG);
	m->b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	m->b[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
	m->b[EI_VERSION] = EV_CURRENT;
	put(m, 16, 2, ET_DYN);
	if (is64) {
		put(m, 32, 8, PHOFF);
		put(m, 54, 2, phent);
		put(m, 56, 2, 3);
	} else {
		put(m, 28, 4, PHOFF);
		put(m, 42, 2, phent);
		put(m, 44, 2, 3);
	}
	for (i = 0; i < 3; i++) {
		size_t o = PHOFF + i * phent;
		uint64_t type = i == 0 ? PT_LOAD : i == 1 ? PT_INTERP : PT_DYNAMIC;
		uint64_t off = i == 0 ? 0 : i == 1 ? INTERP : DYN;
		uint64_t sz = i == 0 ? TOTAL : i == 1 ? 18 : (ndyn + 1) * dent;
		put(m, o, 4, type);
		if (is64) {
			put(m, o + 8, 8, off);
			put(m, o + 16, 8, VBASE + off);
			put(m, o + 32, 8, sz);
		} else {
			put(m, o + 4, 4, off);
			put(m, o + 8, 4, VBASE + off);
			put(m, o + 16, 4, sz);
		}
	}
	memcpy(m->b + INTERP, "/lib/ld-test.so.1", 18);
	memcpy(m->b + STRTAB, strtab, sizeof(strtab));
	for (i = 0; i < ndyn; i++) {
		put(m, DYN + i * dent, w, dyn[2 * i]);
		put(m, DYN + i * dent + w, w, dyn[2 * i + 1]);
	}
}

static int parse(struct img *m, struct elf_dyninfo *info, char *err)
{
	return elf_read_dyninfo(m->b, m->len, info, err, 200);
}

static void test_synthetic(int is64, int be)
{
	uint64_t dyn[] = { DT_NEEDED, S_FOO, DT_NEEDED, S_LIBC, DT_RPATH, S_RPATH,
			   DT_RUNPATH, S_RUNPATH, DT_STRTAB, VBASE + STRTAB,
			   DT_STRSZ, sizeof(strtab) };
	struct elf_dyninfo info;
	struct img m;
	char err[200], what[40];
	int r;

	snprintf(what, sizeof(what), "%d-bit %s", is64 ? 64 : 32, be ? "big-endian" : "little-endian");
	synth(&m, is64, be, dyn, 6);
	r = parse(&m, &info, err);
	is_int(r, 0, "%s: parsed", what);
	is_int(info.elf_class, is64 ? 64 : 32, "%s: class", what);
	is_int(info.big_endian, be, "%s: byte order", what);
	is_int(info.type, ET_DYN, "%s: type", what);
	ok(info.dynamic, "%s: dynamic", what);
	is_str(info.interp, "/lib/ld-test.so.1", "%s: interpreter", what);
	is_int(info.nr_needed, 2, "%s: two NEEDED", what);
	if (info.nr_needed == 2) {
		is_str(info.needed[0], "libfoo.so", "%s: NEEDED in order (1)", what);
		is_str(info.needed[1], "libc.so.6", "%s: NEEDED in order (2)", what);
	}
	is_int(info.has_runpath, 1, "%s: DT_RUNPATH wins over DT_RPATH", what);
	is_int(info.nr_runpath, 3, "%s: RUNPATH split, empty entries dropped", what);
	if (info.nr_runpath == 3)
		is_str(info.runpath[2], "$ORIGIN/../lib", "%s: $ORIGIN kept for the caller", what);
	elf_dyninfo_free(&info);
	free(m.b);

	/* DT_RPATH alone. */
	synth(&m, is64, be, (uint64_t[]){ DT_NEEDED, S_FOO, DT_RPATH, S_RPATH, DT_STRTAB,
					  VBASE + STRTAB, DT_STRSZ, sizeof(strtab) }, 4);
	r = parse(&m, &info, err);
	ok(!r && info.has_runpath == 2 && info.nr_runpath == 1 &&
	   !strcmp(info.runpath[0], "/rpath"), "%s: DT_RPATH when there is no DT_RUNPATH", what);
	elf_dyninfo_free(&info);

	/* A string offset past DT_STRSZ. */
	put(&m, DYN + (is64 ? 8 : 4), is64 ? 8 : 4, 4096);
	r = parse(&m, &info, err);
	ok(r == -1 && strstr(err, "string offset"), "%s: string offset out of range refused (%s)",
	   what, err);
	elf_dyninfo_free(&info);
	free(m.b);

	/* A string table whose end is outside the loaded segment. */
	synth(&m, is64, be, (uint64_t[]){ DT_NEEDED, S_FOO, DT_STRTAB, VBASE + STRTAB,
					  DT_STRSZ, TOTAL }, 3);
	r = parse(&m, &info, err);
	ok(r == -1 && strstr(err, "string table"), "%s: string table past the segment refused", what);
	elf_dyninfo_free(&info);
	free(m.b);

	/* No string table at all. */
	synth(&m, is64, be, (uint64_t[]){ DT_NEEDED, S_FOO }, 1);
	r = parse(&m, &info, err);
	ok(r == -1, "%s: NEEDED without a string table refused", what);
	elf_dyninfo_free(&info);
	free(m.b);

	/* A string not NUL-terminated within DT_STRSZ. */
	synth(&m, is64, be, (uint64_t[]){ DT_NEEDED, S_FOO, DT_STRTAB, VBASE + STRTAB,
					  DT_STRSZ, 5 }, 3);
	r = parse(&m, &info, err);
	ok(r == -1, "%s: unterminated string refused", what);
	elf_dyninfo_free(&info);
	free(m.b);
}

/* Parse, free, and return the result (the reason in err). */
static int parse1(struct img *m, char *err)
{
	struct elf_dyninfo info;
	int r = parse(m, &info, err);
	elf_dyninfo_free(&info);
	return r;
}

static void test_header_attacks(void)
{
	uint64_t dyn[] = { DT_NEEDED, S_FOO, DT_STRTAB, VBASE + STRTAB, DT_STRSZ, sizeof(strtab) };
	struct elf_dyninfo info;
	struct img m;
	char err[200];

	synth(&m, 1, 0, dyn, 3);
	m.b[EI_CLASS] = 3;
	ok(parse1(&m, err) == -1 && strstr(err, "class"), "unknown class refused: %s", err);
	m.b[EI_CLASS] = ELFCLASS64;
	m.b[EI_DATA] = 0;
	ok(parse1(&m, err) == -1 && strstr(err, "byte order"), "unknown byte order refused");
	m.b[EI_DATA] = ELFDATA2LSB;
	put(&m, 56, 2, PN_XNUM);
	ok(parse1(&m, err) == -1, "PN_XNUM refused");
	put(&m, 56, 2, 3);
	put(&m, 54, 2, 8);
	ok(parse1(&m, err) == -1 && strstr(err, "program header size"),
	   "short program header entries refused");
	put(&m, 54, 2, 56);
	put(&m, 32, 8, UINT64_MAX - 16);
	ok(parse1(&m, err) == -1 && strstr(err, "outside"),
	   "program headers at a huge offset refused");
	put(&m, 32, 8, PHOFF);
	/* The dynamic segment's size overflowing the file. */
	put(&m, PHOFF + 2 * 56 + 32, 8, UINT64_MAX);
	ok(parse1(&m, err) == -1 && strstr(err, "dynamic segment"),
	   "dynamic segment size overflow refused");
	put(&m, PHOFF + 2 * 56 + 32, 8, 4 * 16);
	/* PT_INTERP without a NUL inside its segment. */
	put(&m, PHOFF + 56 + 32, 8, 4);
	ok(parse1(&m, err) == -1 && strstr(err, "PT_INTERP"), "unterminated PT_INTERP refused");
	put(&m, PHOFF + 56 + 32, 8, 18);
	ok(parse1(&m, err) == 0, "repaired image parses again");
	/* A load segment whose vaddr + size wraps. */
	put(&m, PHOFF + 16, 8, UINT64_MAX - 8);
	ok(parse1(&m, err) == -1, "wrapping load segment does not map the string table");
	free(m.b);

	ok(elf_read_dyninfo((const unsigned char *)"#!/bin/sh\n", 10, &info, err, 200) == 1 &&
	   !info.interp,
	   "a script is not ELF");
	ok(elf_read_dyninfo((const unsigned char *)"", 0, &info, err, 200) == 1, "empty is not ELF");
	ok(elf_read_dyninfo((const unsigned char *)"\177ELF", 4, &info, err, 200) == -1,
	   "bare magic is a truncated ELF");
	elf_dyninfo_free(&info);
}

/* ---- host files, compared with readelf, then truncated and garbled ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	size_t n = 0, alloc = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 65536;
			b = realloc(b, alloc);
		}
		r = fread(b + n, 1, alloc - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return b;
}

/* readelf's NEEDED list for path, one per line, or NULL without readelf. */
static char *readelf_needed(const char *path)
{
	char cmd[600], line[1024], *out = calloc(1, 1);
	size_t len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -dW '%s' 2>/dev/null", path);
	if (!(p = popen(cmd, "r")))
		return NULL;
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "(NEEDED)"), *a, *e;
		if (!s || !(a = strchr(s, '[')) || !(e = strchr(a, ']')))
			continue;
		out = realloc(out, len + (size_t)(e - a) + 1);
		memcpy(out + len, a + 1, (size_t)(e - a - 1));
		len += (size_t)(e - a - 1);
		out[len++] = '\n';
		out[len] = 0;
	}
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/*
 * The note segment in place of PT_INTERP: one note of owner GNU (or
 * owner), type t, descsz bytes 0, 1, 2..., the segment filesz long.
 */
static void synth_note(struct img *m, int is64, int be, const char *owner, unsigned t,
		       unsigned descsz, uint64_t filesz)
{
	uint64_t dyn[] = { DT_STRTAB, VBASE + STRTAB, DT_STRSZ, sizeof(strtab) };
	size_t o = PHOFF + (is64 ? 56 : 32), i;

	synth(m, is64, be, dyn, 2);
	memset(m->b + INTERP, 0, STRTAB - INTERP);
	put(m, o, 4, PT_NOTE);
	put(m, is64 ? o + 32 : o + 16, is64 ? 8 : 4, filesz);
	put(m, INTERP, 4, 4);
	put(m, INTERP + 4, 4, descsz);
	put(m, INTERP + 8, 4, t);
	memcpy(m->b + INTERP + 12, owner, 4);
	for (i = 0; i < descsz && INTERP + 16 + i < STRTAB; i++)
		m->b[INTERP + 16 + i] = (unsigned char)i;
}

static void test_build_id(void)
{
	struct elf_dyninfo info;
	struct img m;
	char err[200];
	int is64;

	for (is64 = 0; is64 < 2; is64++) {
		synth_note(&m, is64, is64, "GNU", NT_GNU_BUILD_ID, 20, 36);
		is_int(parse(&m, &info, err), 0, "build ID (%d-bit): parsed", is64 ? 64 : 32);
		is_str(info.build_id, "000102030405060708090a0b0c0d0e0f10111213",
		       "build ID (%d-bit): its 20 bytes in hex", is64 ? 64 : 32);
		elf_dyninfo_free(&info);
		free(m.b);
	}
	/* Notes that are no build ID, or not one to read: none is taken. */
	static const struct {
		const char *owner;
		unsigned descsz;
		uint64_t filesz;
		const char *what;
	} bad[] = {
		{ "XYZ", 20, 36, "a note of another owner is no build ID" },
		{ "GNU", 20, 30, "a build ID past its segment's end is not read" },
		{ "GNU", 0xffffffffu, 36, "a descsz of 4 GiB is refused, not wrapped" },
		{ "GNU", 100, 0x100, "a build ID longer than 64 bytes is refused" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		synth_note(&m, 1, 0, bad[i].owner, NT_GNU_BUILD_ID, bad[i].descsz, bad[i].filesz);
		parse(&m, &info, err);
		is_str(info.build_id, "", "%s", bad[i].what);
		elf_dyninfo_free(&info);
		free(m.b);
	}
}

static void test_host_file(const char *path)
{
	struct elf_dyninfo info;
	unsigned char *b, *copy;
	char err[200], *want, *got = calloc(1, 1);
	size_t len, i, glen = 0, n, crashes = 0, bad = 0;
	int r;

	if (!(b = slurp(path, &len)) || !elf_has_magic(b, len)) {
		skip(path, "not readable or not ELF here");
		free(b);
		free(got);
		return;
	}
	r = elf_read_dyninfo(b, len, &info, err, sizeof(err));
	ok(r == 0 && info.dynamic && info.nr_needed > 0, "%s parses (%s)", path, r ? err : "ok");
	for (i = 0; i < info.nr_needed; i++) {
		got = realloc(got, glen + strlen(info.needed[i]) + 2);
		glen += (size_t)sprintf(got + glen, "%s\n", info.needed[i]);
	}
	if ((want = readelf_needed(path)))
		is_str(got, want, "%s: NEEDED as readelf lists them", path);
	else
		skip("NEEDED against readelf", "no readelf");
	free(want);
	free(got);
	elf_dyninfo_free(&info);

	/* Every prefix (in steps beyond the first pages), in an exact-size buffer. */
	for (n = 0; n <= len; n += n < 16384 ? 1 : 4093) {
		copy = malloc(n ? n : 1);
		memcpy(copy, b, n);
		r = elf_read_dyninfo(copy, n, &info, err, sizeof(err));
		if (r < -1 || r > 1 || (r == -1 && !*err))
			bad++;
		elf_dyninfo_free(&info);
		free(copy);
	}
	is_int(bad, 0, "%s: every truncation parses or is refused with a reason", path);

	/* Random byte changes in the first 4 KiB and at random places. */
	copy = malloc(len);
	for (i = 0; i < 3000; i++) {
		unsigned k, nchg = 1 + rnd() % 8;
		memcpy(copy, b, len);
		for (k = 0; k < nchg; k++) {
			size_t at = rnd() % 2 ? rnd() % (len < 4096 ? len : 4096) : rnd() % len;
			copy[at] = (unsigned char)rnd();
		}
		r = elf_read_dyninfo(copy, len, &info, err, sizeof(err));
		if (r < -1 || r > 1)
			crashes++;
		elf_dyninfo_free(&info);
	}
	free(copy);
	is_int(crashes, 0, "%s: 3000 garbled copies parse or are refused", path);
	free(b);
}

int main(void)
{
	char self[4096];
	ssize_t n;

	test_synthetic(1, 0);
	test_synthetic(1, 1);
	test_synthetic(0, 0);
	test_synthetic(0, 1);
	test_header_attacks();
	test_build_id();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		test_host_file(self);
	}
	test_host_file("/bin/ls");
	test_host_file("/bin/sh");
	return done_testing();
}
