/* util.c - gnu-build: messages, strings, PATH look-up, running tools, tree walks */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "builder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *gb_store_dir = "/nix/store";

void gb_note(const char *fmt, ...)
{
	va_list ap;
	fputs("gnu-build: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static void oom(void)
{
	fputs("gnu-build: out of memory\n", stderr);
	exit(1);
}

void *gb_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *gb_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *gb_xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *gb_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return s;
}

const char *gb_quote(const char *s)
{
	static char bufs[4][256];
	static int which;
	char *b = bufs[which++ & 3];
	size_t o = 0, max = sizeof(bufs[0]) - 5;
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (o >= max - 4) {
			memcpy(b + o, "...", 4);
			return b;
		}
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			o += (size_t)snprintf(b + o, 5, "\\x%02x", *p);
		else
			b[o++] = (char)*p;
	}
	b[o] = 0;
	return b;
}

void gb_fput_escaped(FILE *f, const char *s)
{
	const unsigned char *p;
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

void strv_push_owned(struct strv *sv, char *s)
{
	if (sv->nr + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? 2 * sv->alloc : 16;
		sv->v = gb_xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strv_push(struct strv *sv, const char *s)
{
	strv_push_owned(sv, gb_xstrdup(s));
}

void strv_split(struct strv *sv, const char *s, const char *seps)
{
	while (s && *s) {
		size_t n = strcspn(s, seps);
		if (n) {
			char *t = gb_xmalloc(n + 1);
			memcpy(t, s, n);
			t[n] = 0;
			strv_push_owned(sv, t);
		}
		s += n;
		if (*s)
			s++;
	}
}

void strv_clear(struct strv *sv)
{
	size_t i;
	for (i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

char *gb_which(const char *name)
{
	const char *path = getenv("PATH"), *p;

	if (!*name || strchr(name, '/') || !path)
		return NULL;
	for (p = path; ; ) {
		size_t n = strcspn(p, ":");
		if (n && p[0] == '/') {
			char *f = gb_xasprintf("%.*s/%s", (int)n, p, name);
			struct stat st;
			if (!stat(f, &st) && S_ISREG(st.st_mode) && !access(f, X_OK))
				return f;
			free(f);
		}
		p += n;
		if (!*p)
			return NULL;
		p++;
	}
}

const char *gb_env_or(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v ? v : def;
}

int gb_in_store(const char *path)
{
	size_t n = strlen(gb_store_dir);
	return !strncmp(path, gb_store_dir, n) && path[n] == '/';
}

static void print_argv(char *const argv[])
{
	size_t i;
	fputs("gnu-build: running:", stderr);
	for (i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int plain = *a && !a[strcspn(a, " \t\n'\"\\$`;&|<>()*?[]#~")];
		fputs(plain ? " " : " '", stderr);
		gb_fput_escaped(stderr, a);
		if (!plain)
			fputc('\'', stderr);
	}
	fputc('\n', stderr);
	fflush(stderr);
}

int gb_run(char *const argv[], char *err, size_t errlen)
{
	char *prog;
	pid_t pid;
	int status;

	if (strchr(argv[0], '/')) {
		prog = gb_xstrdup(argv[0]);
	} else if (!(prog = gb_which(argv[0]))) {
		snprintf(err, errlen, "'%s' not found in PATH", gb_quote(argv[0]));
		return -1;
	}
	print_argv(argv);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		free(prog);
		return -1;
	}
	if (!pid) {
		execv(prog, argv);
		fprintf(stderr, "gnu-build: cannot execute '%s': %s\n", gb_quote(prog), strerror(errno));
		_exit(127);
	}
	free(prog);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "cannot wait for '%s': %s", gb_quote(argv[0]),
				 strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFEXITED(status))
		snprintf(err, errlen, "'%s' exited with status %d", gb_quote(argv[0]),
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(err, errlen, "'%s' killed by signal %d", gb_quote(argv[0]),
			 WTERMSIG(status));
	else
		snprintf(err, errlen, "'%s' ended abnormally", gb_quote(argv[0]));
	return -1;
}

static int walk_dir(int dfd, const char *path, int depth, gb_visit_fn visit, void *ctx,
		    char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (depth > GB_MAX_DEPTH) {
		close(dfd);
		snprintf(err, errlen, "'%s': directory tree deeper than %d", gb_quote(path),
			 GB_MAX_DEPTH);
		return -1;
	}
	if (!(d = fdopendir(dfd))) {
		snprintf(err, errlen, "cannot read directory '%s': %s", gb_quote(path), strerror(errno));
		close(dfd);
		return -1;
	}
	while (!ret) {
		struct stat st;
		char *sub;
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno) {
				snprintf(err, errlen, "cannot read directory '%s': %s", gb_quote(path),
					 strerror(errno));
				ret = -1;
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = gb_xasprintf("%s/%s", path, de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			snprintf(err, errlen, "cannot stat '%s': %s", gb_quote(sub), strerror(errno));
			ret = -1;
		} else {
			ret = visit(dirfd(d), de->d_name, sub, &st, ctx, err, errlen);
		}
		if (!ret && S_ISDIR(st.st_mode)) {
			int sfd = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd < 0) {
				snprintf(err, errlen, "cannot open directory '%s': %s", gb_quote(sub),
					 strerror(errno));
				ret = -1;
			} else {
				ret = walk_dir(sfd, sub, depth + 1, visit, ctx, err, errlen);
			}
		}
		free(sub);
	}
	closedir(d);
	return ret;
}

int gb_walk(const char *path, gb_visit_fn visit, void *ctx, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open directory '%s': %s", gb_quote(path), strerror(errno));
		return -1;
	}
	return walk_dir(fd, path, 1, visit, ctx, err, errlen);
}

/*
 * Expand each ${NAME} in s with the value of that environment variable (an
 * input's store path, $out...): flags may then name where inputs are, as
 * Guix computes them on the build side. Any other '$' is left as it is.
 */
char *gb_expand_vars(const char *s, char *err, size_t errlen)
{
	size_t len = 0, alloc = strlen(s) + 1;
	char *out = gb_xmalloc(alloc);

	while (*s) {
		const char *val = NULL, *end;
		size_t n;
		if (s[0] == '$' && s[1] == '{') {
			char name[128];
			for (end = s + 2; (*end >= 'A' && *end <= 'Z') || (*end >= 'a' && *end <= 'z') ||
					  (*end >= '0' && *end <= '9') || *end == '_'; end++)
				;
			n = (size_t)(end - (s + 2));
			if (*end != '}' || !n || n >= sizeof(name) || (s[2] >= '0' && s[2] <= '9')) {
				snprintf(err, errlen, "bad variable reference in '%s'", gb_quote(s));
				free(out);
				return NULL;
			}
			memcpy(name, s + 2, n);
			name[n] = 0;
			if (!(val = getenv(name))) {
				snprintf(err, errlen, "'${%s}' names no variable of the build", name);
				free(out);
				return NULL;
			}
			s = end + 1;
		}
		n = val ? strlen(val) : 1;
		if (len + n + 1 > alloc) {
			alloc = (len + n + 1) * 2;
			out = gb_xrealloc(out, alloc);
		}
		memcpy(out + len, val ? val : s, n);
		len += n;
		if (!val)
			s++;
	}
	out[len] = 0;
	return out;
}
