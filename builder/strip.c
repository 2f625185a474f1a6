/* strip.c - gnu-build: the strip and validate-runpath phases */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { KIND_NONE, KIND_ELF, KIND_ARCHIVE };

/* The kind of the regular file name in dirfd, by its magic. */
static int file_kind(int dirfd, const char *name)
{
	unsigned char m[8];
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return KIND_NONE;
	n = read(fd, m, sizeof(m));
	close(fd);
	if (n >= 4 && elf_has_magic(m, (size_t)n))
		return KIND_ELF;
	if (n == 8 && !memcmp(m, "!<arch>\n", 8))
		return KIND_ARCHIVE;
	return KIND_NONE;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

struct collect {
	struct strv files;
	struct strv kinds;	/* "e" or "a", parallel to files */
};

static int collect_strippable(int dirfd, const char *name, const char *path,
			      const struct stat *st, void *ctx, char *err, size_t errlen)
{
	struct collect *c = ctx;
	int kind;

	(void)err;
	(void)errlen;
	if (!S_ISREG(st->st_mode) || ends_with(name, ".debug"))
		return 0;
	kind = file_kind(dirfd, name);
	if (kind == KIND_NONE)
		return 0;
	strv_push(&c->files, path);
	strv_push(&c->kinds, kind == KIND_ELF ? "e" : "a");
	return 0;
}

static int is_real_dir(const char *path)
{
	struct stat st;
	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* mkdir -p of the directory part of file. */
static int mkdir_parents(const char *file, char *err, size_t errlen)
{
	char *d = gb_xstrdup(file), *p;
	int ret = 0;

	for (p = d + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(d, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create '%s': %s", gb_quote(d), strerror(errno));
			ret = -1;
			break;
		}
		*p = '/';
	}
	free(d);
	return ret;
}

/* The programs strip_one runs: "strip" and "objcopy", or the target's when cross-building. */
static char *strip_prog, *objcopy_prog;

static int strip_one(const char *f, int elf, const char *debug, char *err, size_t errlen)
{
	struct stat st;
	int ret = -1, chmodded = 0;

	if (lstat(f, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (!(st.st_mode & S_IWUSR)) {
		if (chmod(f, (st.st_mode & 07777) | S_IWUSR)) {
			snprintf(err, errlen, "cannot make '%s' writable: %s", gb_quote(f), strerror(errno));
			return -1;
		}
		chmodded = 1;
	}
	if (!elf) {
		char *argv[] = { strip_prog, "--strip-debug", "--enable-deterministic-archives",
				 (char *)f, NULL };
		ret = gb_run(argv, err, errlen);
	} else if (debug) {
		char *dbg = gb_xasprintf("%s/lib/debug%s.debug", debug, f);
		char *link = gb_xasprintf("--add-gnu-debuglink=%s", dbg);
		char *keep[] = { objcopy_prog, "--only-keep-debug", (char *)f, dbg, NULL };
		char *strip[] = { strip_prog, "--strip-debug", (char *)f, NULL };
		char *add[] = { objcopy_prog, link, (char *)f, NULL };
		ret = mkdir_parents(dbg, err, errlen);
		if (!ret)
			ret = gb_run(keep, err, errlen);
		if (!ret)
			ret = gb_run(strip, err, errlen);
		if (!ret)
			ret = gb_run(add, err, errlen);
		free(dbg);
		free(link);
	} else {
		char *argv[] = { strip_prog, "--strip-unneeded", "--enable-deterministic-archives",
				 (char *)f, NULL };
		ret = gb_run(argv, err, errlen);
	}
	if (chmodded && chmod(f, st.st_mode & 07777) && !ret) {
		snprintf(err, errlen, "cannot restore the mode of '%s': %s", gb_quote(f), strerror(errno));
		ret = -1;
	}
	return ret;
}

int gb_strip_outputs(struct gb_output *outs, size_t nr, const char *tool_prefix, char *err,
		     size_t errlen)
{
	static const char *const dirs[] = { "bin", "sbin", "lib", "libexec" };
	const char *debug = NULL;
	char *t;
	size_t i, j, k;
	int ret = 0;

	for (i = 0; i < nr; i++)
		if (!strcmp(outs[i].name, "debug"))
			debug = outs[i].path;
	free(strip_prog);
	free(objcopy_prog);
	strip_prog = gb_xasprintf("%sstrip", tool_prefix);
	objcopy_prog = gb_xasprintf("%sobjcopy", tool_prefix);
	if (!(t = gb_which(strip_prog))) {
		gb_note("note: no '%s' in PATH; not stripping", strip_prog);
		return 0;
	}
	free(t);
	if (debug) {
		if (!(t = gb_which(objcopy_prog))) {
			gb_note("note: no '%s' in PATH; not stripping", objcopy_prog);
			return 0;
		}
		free(t);
	}
	for (i = 0; i < nr && !ret; i++) {
		if (!strcmp(outs[i].name, "debug"))
			continue;
		for (j = 0; j < sizeof(dirs) / sizeof(*dirs) && !ret; j++) {
			struct collect c = { { NULL, 0, 0 }, { NULL, 0, 0 } };
			char *d = gb_xasprintf("%s/%s", outs[i].path, dirs[j]);
			if (is_real_dir(d))
				ret = gb_walk(d, collect_strippable, &c, err, errlen);
			/* Stripping writes new files: done after the walk. */
			for (k = 0; k < c.files.nr && !ret; k++) {
				char *under = gb_xasprintf("%s/lib/debug/", outs[i].path);
				if (strncmp(c.files.v[k], under, strlen(under)))
					ret = strip_one(c.files.v[k], c.kinds.v[k][0] == 'e', debug,
							err, errlen);
				free(under);
			}
			strv_clear(&c.files);
			strv_clear(&c.kinds);
			free(d);
		}
	}
	return ret;
}

struct validate {
	size_t missing;
	char *first;
};

/* Whether dir/lib is a regular file, with $ORIGIN in dir expanded to origin. */
static int found_in(const char *dir, const char *lib, const char *origin)
{
	size_t tokens = 0, o = 0;
	const char *s;
	struct stat st;
	char *p;
	int ok;

	for (s = dir; (s = strstr(s, "ORIGIN")); s++)
		tokens++;
	p = gb_xmalloc(strlen(dir) + tokens * strlen(origin) + strlen(lib) + 2);
	for (s = dir; *s; ) {
		size_t tl = !strncmp(s, "${ORIGIN}", 9) ? 9 : !strncmp(s, "$ORIGIN", 7) ? 7 : 0;
		if (tl) {
			memcpy(p + o, origin, strlen(origin));
			o += strlen(origin);
			s += tl;
		} else {
			p[o++] = *s++;
		}
	}
	p[o++] = '/';
	memcpy(p + o, lib, strlen(lib) + 1);
	/* Other dynamic string tokens ($LIB, $PLATFORM) are not expanded. */
	ok = p[0] == '/' && !strchr(p, '$') && !stat(p, &st) && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

static int validate_file(int dirfd, const char *name, const char *path, const struct stat *st,
			 void *ctx, char *err, size_t errlen)
{
	struct validate *v = ctx;
	struct elf_dyninfo info;
	struct stat now;
	char why[200], *origin, *slash;
	void *map;
	size_t i, j, size;
	int fd, r;

	(void)err;
	(void)errlen;
	if (!S_ISREG(st->st_mode) || st->st_size < 4 || ends_with(name, ".debug") ||
	    file_kind(dirfd, name) != KIND_ELF)
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		gb_note("note: cannot open '%s': %s; not validated", gb_quote(path), strerror(errno));
		return 0;
	}
	/* The size of what was opened, not of what was listed. */
	if (fstat(fd, &now) || !S_ISREG(now.st_mode) || now.st_size < 4) {
		close(fd);
		return 0;
	}
	size = (size_t)now.st_size;
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		gb_note("note: cannot map '%s': %s; not validated", gb_quote(path), strerror(errno));
		return 0;
	}
	r = elf_read_dyninfo(map, size, &info, why, sizeof(why));
	munmap(map, size);
	if (r < 0)
		gb_note("note: '%s': %s; not validated", gb_quote(path), why);
	if (r || !info.dynamic || (info.type != ET_EXEC && info.type != ET_DYN)) {
		elf_dyninfo_free(&info);
		return 0;
	}
	origin = gb_xstrdup(path);
	slash = strrchr(origin, '/');
	if (slash)
		*slash = 0;
	for (i = 0; i < info.nr_needed; i++) {
		const char *lib = info.needed[i];
		int found = 0;
		if (strchr(lib, '/')) {
			struct stat ls;
			found = lib[0] == '/' && !stat(lib, &ls) && S_ISREG(ls.st_mode);
		} else {
			for (j = 0; j < info.nr_runpath && !found; j++)
				found = found_in(info.runpath[j], lib, origin);
		}
		if (!found && info.interp) {
			const char *b = strrchr(info.interp, '/');
			found = !strcmp(lib, info.interp) || (b && !strcmp(lib, b + 1));
		}
		if (found)
			continue;
		gb_note("error: '%s' needs '%s', which is not in its RUNPATH (%zu entries)",
			gb_quote(path), gb_quote(lib), info.nr_runpath);
		for (j = 0; j < info.nr_runpath; j++)
			gb_note("  RUNPATH entry: %s", gb_quote(info.runpath[j]));
		if (!v->missing++)
			v->first = gb_xasprintf("'%s' needs '%s', not found in its RUNPATH",
						gb_quote(path), gb_quote(lib));
	}
	free(origin);
	elf_dyninfo_free(&info);
	return 0;
}

int gb_validate_runpath_outputs(struct gb_output *outs, size_t nr, char *err, size_t errlen)
{
	struct validate v = { 0, NULL };
	size_t i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		if (!strcmp(outs[i].name, "debug") || !is_real_dir(outs[i].path))
			continue;
		ret = gb_walk(outs[i].path, validate_file, &v, err, errlen);
	}
	if (!ret && v.missing) {
		snprintf(err, errlen, "%s%s", v.first,
			 v.missing > 1 ? " (and more, listed above)" : "");
		ret = -1;
	}
	free(v.first);
	return ret;
}
