/* patch.c - gnu-build: shebang and Makefile SHELL patching, in place, keeping mtimes */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SHEBANG 4096
#define MAX_MAKEFILE (64 << 20)
#define MAX_SCRIPT (256 << 20)

/*
 * Open the regular file name in dirfd for reading and writing, without
 * following a symlink, and check it is the file the walk saw. A file without
 * u+w gets it for the time of the rewrite (restored by finish_rewrite).
 */
static int open_for_rewrite(int dirfd, const char *name, const char *path,
			    const struct stat *st, char *err, size_t errlen)
{
	struct stat now;
	int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == EACCES && !(st->st_mode & S_IWUSR)) {
		int rfd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (rfd >= 0) {
			if (!fstat(rfd, &now) && S_ISREG(now.st_mode) && now.st_ino == st->st_ino &&
			    now.st_dev == st->st_dev)
				fchmod(rfd, (st->st_mode & 07777) | S_IWUSR);
			close(rfd);
			fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		}
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s' for writing: %s", gb_quote(path),
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &now) || !S_ISREG(now.st_mode) || now.st_ino != st->st_ino ||
	    now.st_dev != st->st_dev) {
		snprintf(err, errlen, "'%s' changed while being patched", gb_quote(path));
		close(fd);
		return -1;
	}
	return fd;
}

/* Read [off, EOF) of fd, at most max bytes; NULL with err set on failure. */
static char *read_from(int fd, off_t off, size_t max, size_t *len, const char *path,
		       char *err, size_t errlen)
{
	size_t alloc = 8192, n = 0;
	char *buf = gb_xmalloc(alloc);

	for (;;) {
		ssize_t r;
		if (n == alloc) {
			if (alloc >= max) {
				snprintf(err, errlen, "'%s' is too large to patch", gb_quote(path));
				free(buf);
				return NULL;
			}
			alloc = alloc * 2 > max ? max : alloc * 2;
			buf = gb_xrealloc(buf, alloc);
		}
		r = pread(fd, buf + n, alloc - n, off + (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", gb_quote(path), strerror(errno));
			free(buf);
			return NULL;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

static int write_at(int fd, const char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t r = pwrite(fd, buf, len, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
		off += r;
	}
	return 0;
}

/*
 * Replace the first skip bytes of the file by head[0..headlen), in place
 * (same inode, so a directory walk in progress sees nothing new), then give
 * back its mode and times.
 */
static int rewrite_head(int dirfd, const char *name, const char *path, const struct stat *st,
			const char *head, size_t headlen, off_t skip, char *err, size_t errlen)
{
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	size_t restlen;
	char *rest;
	int fd = open_for_rewrite(dirfd, name, path, st, err, errlen), ret = 0;

	if (fd < 0)
		return -1;
	rest = read_from(fd, skip, MAX_SCRIPT, &restlen, path, err, errlen);
	if (!rest) {
		ret = -1;
	} else if (write_at(fd, head, headlen, 0) ||
		   write_at(fd, rest, restlen, (off_t)headlen) ||
		   ftruncate(fd, (off_t)(headlen + restlen))) {
		snprintf(err, errlen, "cannot write '%s': %s", gb_quote(path), strerror(errno));
		ret = -1;
	}
	free(rest);
	if (fchmod(fd, st->st_mode & 07777) || futimens(fd, times)) {
		if (!ret)
			snprintf(err, errlen, "cannot restore the mode and times of '%s': %s",
				 gb_quote(path), strerror(errno));
		ret = -1;
	}
	close(fd);
	return ret;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int patch_shebang(int dirfd, const char *name, const char *path, const struct stat *st,
			 void *ctx, char *err, size_t errlen)
{
	char line[MAX_SHEBANG + 1], *nl, *p, *interp, *cmd, *args, *found, *head;
	const char *base;
	size_t n = 0, linelen;
	int fd, ret;

	(void)ctx;
	if (!S_ISREG(st->st_mode) || !(st->st_mode & 0111) || st->st_size < 3)
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		gb_note("note: cannot open '%s': %s; not patched", gb_quote(path), strerror(errno));
		return 0;
	}
	while (n < MAX_SHEBANG) {
		ssize_t r = read(fd, line + n, MAX_SHEBANG - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	line[n] = 0;
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return 0;
	if (st->st_size > MAX_SCRIPT) {
		gb_note("note: '%s' is too large to patch; its shebang is left as is", gb_quote(path));
		return 0;
	}
	nl = memchr(line, '\n', n);
	if (!nl && n == MAX_SHEBANG) {
		gb_note("note: '%s': shebang line too long; not patched", gb_quote(path));
		return 0;
	}
	if (nl)
		*nl = 0;
	if (memchr(line, 0, nl ? (size_t)(nl - line) : n))
		return 0;
	linelen = nl ? (size_t)(nl - line) : n;

	for (p = line + 2; is_blank(*p); p++)
		;
	interp = p;
	while (*p && !is_blank(*p))
		p++;
	if (*p)
		*p++ = 0;
	args = p;
	if (interp[0] != '/' || gb_in_store(interp))
		return 0;
	base = strrchr(interp, '/') + 1;
	cmd = (char *)base;
	if (!strcmp(base, "env")) {
		while (is_blank(*args))
			args++;
		cmd = args;
		while (*args && !is_blank(*args))
			args++;
		if (*args)
			*args++ = 0;
		if (!*cmd || *cmd == '-' || strchr(cmd, '=')) {
			gb_note("note: '%s': cannot patch '#!%s %s%s%s'", gb_quote(path), interp, cmd,
				*args ? " " : "", args);
			return 0;
		}
	}
	while (is_blank(*args))
		args++;
	for (p = args + strlen(args); p > args && is_blank(p[-1]); p--)
		*--p = 0;
	if (!*cmd || !(found = gb_which(cmd))) {
		gb_note("note: '%s': interpreter '%s' not found in PATH; not patched",
			gb_quote(path), gb_quote(*cmd ? cmd : interp));
		return 0;
	}
	if (!strcmp(found, interp) && cmd == base) {
		free(found);
		return 0;
	}
	head = gb_xasprintf("#!%s%s%s", found, *args ? " " : "", args);
	gb_note("patch-shebang: %s: %s", gb_quote(path), gb_quote(head + 2));
	ret = rewrite_head(dirfd, name, path, st, head, strlen(head), (off_t)linelen, err, errlen);
	free(head);
	free(found);
	return ret;
}

int gb_patch_shebangs_tree(const char *dir, char *err, size_t errlen)
{
	return gb_walk(dir, patch_shebang, NULL, err, errlen);
}

/*
 * A line `SHELL = /bin/sh` (blanks anywhere, `=` or `:=`, any absolute
 * sh or bash outside the store): its length up to the end of the path and
 * the operator, or 0.
 */
static size_t shell_line(const char *l, size_t len, const char **op)
{
	size_t i = 0, ps, pe;
	const char *base;

	while (i < len && is_blank(l[i]))
		i++;
	if (len - i < 5 || memcmp(l + i, "SHELL", 5))
		return 0;
	for (i += 5; i < len && is_blank(l[i]); i++)
		;
	if (i < len && l[i] == '=') {
		*op = "=";
		i++;
	} else if (i + 1 < len && l[i] == ':' && l[i + 1] == '=') {
		*op = ":=";
		i += 2;
	} else {
		return 0;
	}
	while (i < len && is_blank(l[i]))
		i++;
	ps = i;
	while (i < len && !is_blank(l[i]))
		i++;
	pe = i;
	while (i < len && is_blank(l[i]))
		i++;
	if (i != len || pe == ps || l[ps] != '/')
		return 0;
	base = l + ps;
	if (pe - ps > strlen(gb_store_dir) && !strncmp(base, gb_store_dir, strlen(gb_store_dir)) &&
	    base[strlen(gb_store_dir)] == '/')
		return 0;
	while (memchr(base, '/', (size_t)(l + pe - base)))
		base = (const char *)memchr(base, '/', (size_t)(l + pe - base)) + 1;
	if ((l + pe - base == 2 && !memcmp(base, "sh", 2)) ||
	    (l + pe - base == 4 && !memcmp(base, "bash", 4)))
		return pe;
	return 0;
}

static int patch_makefile(int dirfd, const char *name, const char *path, const struct stat *st,
			  void *ctx, char *err, size_t errlen)
{
	const char *bash = ctx;
	char *buf, *out = NULL;
	size_t len, o = 0, outalloc, i;
	int fd, changed = 0, ret = 0;

	if (!S_ISREG(st->st_mode) || strcmp(name, "Makefile"))
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", gb_quote(path), strerror(errno));
		return -1;
	}
	buf = read_from(fd, 0, MAX_MAKEFILE, &len, path, err, errlen);
	close(fd);
	if (!buf)
		return -1;
	outalloc = len + 4096;
	out = gb_xmalloc(outalloc);
	for (i = 0; i < len; ) {
		const char *l = buf + i, *op = NULL;
		const char *e = memchr(l, '\n', len - i);
		size_t ll = e ? (size_t)(e - l) : len - i;
		if (shell_line(l, ll, &op)) {
			char *rep = gb_xasprintf("SHELL %s %s", op, bash);
			size_t rl = strlen(rep);
			if (o + rl + (len - i) + 1 > outalloc) {
				outalloc = o + rl + (len - i) + 4096;
				out = gb_xrealloc(out, outalloc);
			}
			memcpy(out + o, rep, rl);
			o += rl;
			free(rep);
			changed++;
		} else {
			if (o + ll + (len - i) + 1 > outalloc) {
				outalloc = o + ll + (len - i) + 4096;
				out = gb_xrealloc(out, outalloc);
			}
			memcpy(out + o, l, ll);
			o += ll;
		}
		i += ll;
		if (e) {
			out[o++] = '\n';
			i++;
		}
	}
	if (changed) {
		gb_note("patch-makefile-SHELL: %s", gb_quote(path));
		ret = rewrite_head(dirfd, name, path, st, out, o, (off_t)len, err, errlen);
	}
	free(buf);
	free(out);
	return ret;
}

int gb_patch_makefiles_tree(const char *dir, const char *bash, char *err, size_t errlen)
{
	return gb_walk(dir, patch_makefile, (void *)bash, err, errlen);
}
