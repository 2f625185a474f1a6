/* runpath.c - gnu-build: the RUNPATHs of the outputs, shrunk and validated */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	char why[200], *origin, *slash;
	size_t i, j;
	int fd, r;

	(void)err;
	(void)errlen;
	if (!S_ISREG(st->st_mode) || st->st_size < 4 || gb_ends_with(name, ".debug") ||
	    gb_file_kind(dirfd, name) != KIND_ELF)
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		gb_note("note: cannot open '%s': %s; not validated", gb_quote(path), strerror(errno));
		return 0;
	}
	r = elf_read_fd(fd, &info, why, sizeof(why));
	close(fd);
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
		if (!strcmp(outs[i].name, "debug") || !gb_is_real_dir(outs[i].path))
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

/* The dynamic information of the ELF file path (opened as fd), or 1 when it has none. */
static int read_info(int fd, const char *path, struct elf_dyninfo *info)
{
	char why[200];
	int r = elf_read_fd(fd, info, why, sizeof(why));

	if (r < 0)
		gb_note("note: '%s': %s; RUNPATH not shrunk", gb_quote(path), why);
	if (r || !info->has_runpath || !info->dynamic) {
		elf_dyninfo_free(info);
		return 1;
	}
	return 0;
}

/* Whether the RUNPATH entry dir is kept: not a store directory, or one a NEEDED library is in. */
static int keep_entry(const struct elf_dyninfo *info, const char *dir, const char *origin)
{
	size_t i;
	if (dir[0] != '/' || !gb_in_store(dir))
		return 1;
	for (i = 0; i < info->nr_needed; i++)
		if (!strchr(info->needed[i], '/') && found_in(dir, info->needed[i], origin))
			return 1;
	return 0;
}

static int shrink_file(int dirfd, const char *name, const char *path, const struct stat *st,
		       void *ctx, char *err, size_t errlen)
{
	struct elf_dyninfo info;
	struct strv kept = { NULL, 0, 0 };
	char *origin, *slash, *joined = NULL;
	size_t i;
	int fd, ret = 0;

	(void)ctx;
	if (!S_ISREG(st->st_mode) || gb_ends_with(name, ".debug") ||
	    gb_file_kind(dirfd, name) != KIND_ELF)
		return 0;
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || read_info(fd, path, &info)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	origin = gb_xstrdup(path);
	if ((slash = strrchr(origin, '/')))
		*slash = 0;
	for (i = 0; i < info.nr_runpath; i++)
		if (keep_entry(&info, info.runpath[i], origin))
			strv_push(&kept, info.runpath[i]);
	if (kept.nr < info.nr_runpath) {
		/* Shorter: written over the old string, the rest zeroed. */
		joined = gb_xmalloc(info.runpath_len + 1);
		memset(joined, 0, info.runpath_len + 1);
		for (i = 0; i < kept.nr; i++)
			sprintf(joined + strlen(joined), "%s%s", i ? ":" : "", kept.v[i]);
		if (pwrite(fd, joined, info.runpath_len, (off_t)info.runpath_offset) !=
		    (ssize_t)info.runpath_len) {
			snprintf(err, errlen, "cannot write the RUNPATH of '%s': %s", gb_quote(path),
				 strerror(errno));
			ret = -1;
		} else {
			gb_note("RUNPATH of '%s': %zu of %zu entries kept", gb_quote(path), kept.nr,
				info.nr_runpath);
		}
	}
	free(joined);
	free(origin);
	strv_clear(&kept);
	elf_dyninfo_free(&info);
	close(fd);
	return ret;
}

int gb_shrink_runpath_outputs(struct gb_output *outs, size_t nr, char *err, size_t errlen)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++)
		if (strcmp(outs[i].name, "debug") && gb_is_real_dir(outs[i].path))
			ret = gb_walk(outs[i].path, shrink_file, NULL, err, errlen);
	return ret;
}
