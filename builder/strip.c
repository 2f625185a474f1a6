/* strip.c - gnu-build: the strip and validate-runpath phases */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kind of the regular file name in dirfd, by its magic. */
int gb_file_kind(int dirfd, const char *name)
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

int gb_ends_with(const char *s, const char *suffix)
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
	if (!S_ISREG(st->st_mode) || gb_ends_with(name, ".debug"))
		return 0;
	kind = gb_file_kind(dirfd, name);
	if (kind == KIND_NONE)
		return 0;
	strv_push(&c->files, path);
	strv_push(&c->kinds, kind == KIND_ELF ? "e" : "a");
	return 0;
}

int gb_is_real_dir(const char *path)
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

/* The GNU build ID of the ELF file f, in hex, into id ("" when none). */
static void build_id_of(const char *f, char id[2 * ELF_MAX_BUILD_ID + 1])
{
	struct elf_dyninfo info;
	int fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	id[0] = 0;
	if (fd < 0)
		return;
	if (!elf_read_fd(fd, &info, NULL, 0))
		memcpy(id, info.build_id, sizeof(info.build_id));
	elf_dyninfo_free(&info);
	close(fd);
}

/*
 * DEBUG/lib/debug/.build-id/XX/REST.debug, a link to dbg (DEBUG/lib/debug
 * + the file's own name + .debug), when f has a build ID: how GDB finds the
 * debugging information of a program by its ID, whatever its file's name.
 */
static int link_build_id(const char *f, const char *debug, const char *dbg, char *err,
			 size_t errlen)
{
	char id[2 * ELF_MAX_BUILD_ID + 1];
	char *link, *target;
	int ret;

	build_id_of(f, id);
	if (!id[0])
		return 0;
	link = gb_xasprintf("%s/lib/debug/.build-id/%.2s/%s.debug", debug, id, id + 2);
	/* From lib/debug/.build-id/XX/ back up to lib/debug/. */
	target = gb_xasprintf("../..%s", dbg + strlen(debug) + strlen("/lib/debug"));
	ret = mkdir_parents(link, err, errlen);
	if (!ret && symlink(target, link) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", gb_quote(link), strerror(errno));
		ret = -1;
	}
	free(link);
	free(target);
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
		if (!ret)
			ret = link_build_id(f, debug, dbg, err, errlen);
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
			if (gb_is_real_dir(d))
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
