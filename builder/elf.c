/* elf.c - gnu-build: a hostile-safe reader of ELF interpreters, NEEDED and RUNPATH */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * Only the program headers are read, as the dynamic loader does: PT_INTERP,
 * PT_DYNAMIC and the PT_LOAD segments that map DT_STRTAB's address to a
 * file offset. Every offset and size is checked against the buffer before
 * use, with overflow-free arithmetic; anything odd is refused.
 */

struct elf_img {
	const unsigned char *buf;
	size_t len;
	int is64, be;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Whether [off, off+size) lies inside the image. */
static int in_bounds(const struct elf_img *img, uint64_t off, uint64_t size)
{
	return off <= img->len && size <= img->len - off;
}

static uint64_t get_n(const struct elf_img *img, uint64_t off, unsigned n)
{
	const unsigned char *p = img->buf + off;
	uint64_t v = 0;
	unsigned i;
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[img->be ? n - 1 - i : i] << (8 * i);
	return v;
}

/* A word of the file's class: 4 or 8 bytes. */
static uint64_t get_word(const struct elf_img *img, uint64_t off)
{
	return get_n(img, off, img->is64 ? 8 : 4);
}

int elf_has_magic(const unsigned char *buf, size_t len)
{
	return len >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG);
}

void elf_dyninfo_free(struct elf_dyninfo *info)
{
	size_t i;
	if (!info)
		return;
	free(info->interp);
	for (i = 0; i < info->nr_needed; i++)
		free(info->needed[i]);
	free(info->needed);
	for (i = 0; i < info->nr_runpath; i++)
		free(info->runpath[i]);
	free(info->runpath);
	memset(info, 0, sizeof(*info));
}

struct phdr {
	uint64_t type, offset, vaddr, filesz;
};

static void read_phdr(const struct elf_img *img, uint64_t off, struct phdr *ph)
{
	ph->type = get_n(img, off, 4);
	if (img->is64) {
		ph->offset = get_n(img, off + 8, 8);
		ph->vaddr = get_n(img, off + 16, 8);
		ph->filesz = get_n(img, off + 32, 8);
	} else {
		ph->offset = get_n(img, off + 4, 4);
		ph->vaddr = get_n(img, off + 8, 4);
		ph->filesz = get_n(img, off + 16, 4);
	}
}

/* The file offset of the virtual address range [addr, addr+size), or -1. */
static int vaddr_to_offset(const struct elf_img *img, uint64_t phoff, unsigned phentsize,
			   unsigned phnum, uint64_t addr, uint64_t size, uint64_t *off)
{
	unsigned i;
	for (i = 0; i < phnum; i++) {
		struct phdr ph;
		read_phdr(img, phoff + (uint64_t)i * phentsize, &ph);
		if (ph.type != PT_LOAD || addr < ph.vaddr)
			continue;
		if (addr - ph.vaddr >= ph.filesz || size > ph.filesz - (addr - ph.vaddr))
			continue;
		if (!in_bounds(img, ph.offset, ph.filesz))
			return -1;
		*off = ph.offset + (addr - ph.vaddr);
		return 0;
	}
	return -1;
}

/* A copy of the NUL-terminated string at [off, off+max) of the image, or NULL. */
static char *get_string(const struct elf_img *img, uint64_t off, uint64_t max)
{
	const unsigned char *p, *nul;
	char *s;
	if (!in_bounds(img, off, max))
		return NULL;
	if (max > ELF_MAX_STRING)
		max = ELF_MAX_STRING;
	p = img->buf + off;
	nul = memchr(p, 0, max);
	if (!nul)
		return NULL;
	s = malloc((size_t)(nul - p) + 1);
	if (!s)
		return NULL;
	memcpy(s, p, (size_t)(nul - p) + 1);
	return s;
}

static int push(char ***v, size_t *nr, char *s)
{
	char **n = realloc(*v, (*nr + 1) * sizeof(**v));
	if (!n) {
		free(s);
		return -1;
	}
	*v = n;
	n[(*nr)++] = s;
	return 0;
}

static int split_runpath(struct elf_dyninfo *info, const char *rp, char *err, size_t errlen)
{
	const char *p = rp;
	for (;;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n) {
			char *s;
			if (info->nr_runpath >= ELF_MAX_RUNPATH)
				return fail(err, errlen, "too many RUNPATH entries");
			s = malloc(n + 1);
			if (!s)
				return fail(err, errlen, "out of memory");
			memcpy(s, p, n);
			s[n] = 0;
			if (push(&info->runpath, &info->nr_runpath, s))
				return fail(err, errlen, "out of memory");
		}
		if (!e)
			return 0;
		p = e + 1;
	}
}

static int read_dynamic(const struct elf_img *img, struct elf_dyninfo *info,
			uint64_t phoff, unsigned phentsize, unsigned phnum,
			const struct phdr *dyn, char *err, size_t errlen)
{
	unsigned entsize = img->is64 ? 16 : 8;
	uint64_t n, i, strtab = 0, strsz = 0, stroff;
	int have_strtab = 0, have_strsz = 0;
	int have_runpath = 0, have_rpath = 0, nr_needed = 0;

	if (!in_bounds(img, dyn->offset, dyn->filesz))
		return fail(err, errlen, "dynamic segment outside the file");
	n = dyn->filesz / entsize;
	if (n > ELF_MAX_DYN)
		return fail(err, errlen, "dynamic segment too large");

	/* First pass: find the string table and count. */
	for (i = 0; i < n; i++) {
		uint64_t off = dyn->offset + i * entsize;
		uint64_t tag = get_word(img, off), val = get_word(img, off + entsize / 2);
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_STRTAB: strtab = val; have_strtab = 1; break;
		case DT_STRSZ: strsz = val; have_strsz = 1; break;
		case DT_RUNPATH: have_runpath = 1; break;
		case DT_RPATH: have_rpath = 1; break;
		case DT_NEEDED: nr_needed++; break;
		}
	}
	if (nr_needed > ELF_MAX_NEEDED)
		return fail(err, errlen, "too many DT_NEEDED entries");
	if (!nr_needed && !have_runpath && !have_rpath)
		return 0;
	if (!have_strtab || !have_strsz)
		return fail(err, errlen, "dynamic section without a string table");
	if (vaddr_to_offset(img, phoff, phentsize, phnum, strtab, strsz, &stroff))
		return fail(err, errlen, "string table outside the loaded segments");

	for (i = 0; i < n; i++) {
		uint64_t off = dyn->offset + i * entsize;
		uint64_t tag = get_word(img, off), val = get_word(img, off + entsize / 2);
		char *s;
		if (tag == DT_NULL)
			break;
		if (tag != DT_NEEDED && tag != DT_RUNPATH && tag != DT_RPATH)
			continue;
		if (val >= strsz || !(s = get_string(img, stroff + val, strsz - val)))
			return fail(err, errlen, "bad string offset in the dynamic section");
		if (tag == DT_NEEDED) {
			if (!*s) {
				free(s);
				return fail(err, errlen, "empty DT_NEEDED");
			}
			if (push(&info->needed, &info->nr_needed, s))
				return fail(err, errlen, "out of memory");
			continue;
		}
		/* DT_RUNPATH wins over DT_RPATH, as for the loader. */
		if ((tag == DT_RUNPATH && !info->has_runpath) ||
		    (tag == DT_RPATH && !have_runpath && !info->has_runpath)) {
			int r = split_runpath(info, s, err, errlen);
			info->runpath_offset = stroff + val;
			info->runpath_len = strlen(s);
			free(s);
			if (r)
				return r;
			info->has_runpath = tag == DT_RUNPATH ? 1 : 2;
		} else {
			free(s);
		}
	}
	return 0;
}

/*
 * The GNU build ID (NT_GNU_BUILD_ID, as ld --build-id writes it) in the
 * notes of the PT_NOTE segment ph, as hex in info->build_id, if there is
 * one of a sane size. Notes are 4-byte aligned in both classes.
 */
static void read_build_id(const struct elf_img *img, const struct phdr *ph,
			  struct elf_dyninfo *info)
{
	uint64_t off = ph->offset, end;
	static const char hex[] = "0123456789abcdef";

	if (!in_bounds(img, ph->offset, ph->filesz))
		return;
	end = ph->offset + ph->filesz;
	while (end - off >= 12) {
		uint64_t namesz = get_n(img, off, 4), descsz = get_n(img, off + 4, 4);
		uint64_t type = get_n(img, off + 8, 4);
		uint64_t name = off + 12, desc = name + ((namesz + 3) & ~3ULL);
		if (namesz > end - name || descsz > end - desc ||
		    ((namesz + 3) & ~3ULL) > end - name)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(img->buf + name, "GNU", 4) &&
		    descsz >= 8 && descsz <= ELF_MAX_BUILD_ID) {
			for (uint64_t i = 0; i < descsz; i++) {
				info->build_id[2 * i] = hex[img->buf[desc + i] >> 4];
				info->build_id[2 * i + 1] = hex[img->buf[desc + i] & 15];
			}
			info->build_id[2 * descsz] = 0;
			return;
		}
		if (((descsz + 3) & ~3ULL) > end - desc)
			return;
		off = desc + ((descsz + 3) & ~3ULL);
	}
}

int elf_read_dyninfo(const unsigned char *buf, size_t len, struct elf_dyninfo *info,
		     char *err, size_t errlen)
{
	struct elf_img img = { buf, len, 0, 0 };
	uint64_t phoff;
	unsigned phentsize, phnum, i, want_phent, ehsize;
	const struct phdr *dynph = NULL;
	struct phdr dyn;

	memset(info, 0, sizeof(*info));
	if (err && errlen)
		*err = 0;
	if (!buf || !elf_has_magic(buf, len))
		return 1;
	if (len < EI_NIDENT)
		return fail(err, errlen, "truncated ELF header");
	switch (buf[EI_CLASS]) {
	case ELFCLASS32: img.is64 = 0; break;
	case ELFCLASS64: img.is64 = 1; break;
	default: return fail(err, errlen, "unknown ELF class %u", buf[EI_CLASS]);
	}
	switch (buf[EI_DATA]) {
	case ELFDATA2LSB: img.be = 0; break;
	case ELFDATA2MSB: img.be = 1; break;
	default: return fail(err, errlen, "unknown ELF byte order %u", buf[EI_DATA]);
	}
	if (buf[EI_VERSION] != EV_CURRENT)
		return fail(err, errlen, "unknown ELF version %u", buf[EI_VERSION]);
	ehsize = img.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (len < ehsize)
		return fail(err, errlen, "truncated ELF header");
	info->elf_class = img.is64 ? 64 : 32;
	info->big_endian = img.be;
	info->type = (unsigned)get_n(&img, 16, 2);
	if (img.is64) {
		phoff = get_n(&img, 32, 8);
		phentsize = (unsigned)get_n(&img, 54, 2);
		phnum = (unsigned)get_n(&img, 56, 2);
		want_phent = sizeof(Elf64_Phdr);
	} else {
		phoff = get_n(&img, 28, 4);
		phentsize = (unsigned)get_n(&img, 42, 2);
		phnum = (unsigned)get_n(&img, 44, 2);
		want_phent = sizeof(Elf32_Phdr);
	}
	if (!phnum)
		return 0;
	if (phnum == PN_XNUM || phnum > ELF_MAX_PHNUM)
		return fail(err, errlen, "too many program headers");
	if (phentsize < want_phent)
		return fail(err, errlen, "bad program header size %u", phentsize);
	if (!in_bounds(&img, phoff, (uint64_t)phentsize * phnum))
		return fail(err, errlen, "program headers outside the file");

	for (i = 0; i < phnum; i++) {
		struct phdr ph;
		read_phdr(&img, phoff + (uint64_t)i * phentsize, &ph);
		if (ph.type == PT_INTERP) {
			if (info->interp)
				return fail(err, errlen, "two PT_INTERP segments");
			if (!ph.filesz || !(info->interp = get_string(&img, ph.offset, ph.filesz)))
				return fail(err, errlen, "bad PT_INTERP segment");
		} else if (ph.type == PT_NOTE && !info->build_id[0]) {
			read_build_id(&img, &ph, info);
		} else if (ph.type == PT_DYNAMIC) {
			if (dynph)
				return fail(err, errlen, "two PT_DYNAMIC segments");
			dyn = ph;
			dynph = &dyn;
		}
	}
	if (!dynph)
		return 0;
	info->dynamic = 1;
	return read_dynamic(&img, info, phoff, phentsize, phnum, dynph, err, errlen);
}

int elf_read_fd(int fd, struct elf_dyninfo *info, char *err, size_t errlen)
{
	struct stat st;
	void *map;
	int r;

	memset(info, 0, sizeof(*info));
	/* The size of what is open, not of what a directory listed. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 4)
		return 1;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return fail(err, errlen, "cannot map it: %s", strerror(errno));
	r = elf_read_dyninfo(map, (size_t)st.st_size, info, err, errlen);
	munmap(map, (size_t)st.st_size);
	return r;
}
