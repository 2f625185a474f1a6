/* mkpkg.c - the builder of the tests' small packages (static: no store libc) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * make builds it once, into BUILD/t/mkpkg; the tests name it $MKPKG.
 *
 * mkpkg [-d] NAME VERSION [DEP]: $out/bin/NAME, executable, holding
 * "NAME VERSION"; with -d, $out/share/doc/NAME/README holding it too; with
 * DEP (an input's store path), $out/dep holding DEP: a reference.
 * mkpkg -s NAME WORD...: $out/bin/NAME, a shell script saying "NAME WORD...".
 * mkpkg -c DIR: $out a copy of the tree DIR (directories, files with
 * their exec bit, symlinks).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int put(const char *path, const char *a, const char *b)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	if ((b ? fprintf(f, "%s %s\n", a, b) : fprintf(f, "%s\n", a)) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* PATH: a script echoing the n WORDS */
static int script(const char *path, int n, char **words)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("#!/bin/sh\necho", f);
	for (int i = 0; i < n; i++)
		fprintf(f, " %s", words[i]);
	fputc('\n', f);
	int bad = ferror(f);
	return fclose(f) || bad ? -1 : 0;
}

static int doc(const char *out, const char *name, const char *version)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/share", out);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/share/doc", out);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/share/doc/%s", out, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/share/doc/%s/README", out, name);
	return put(p, name, version);
}

/* FROM copied to TO, recursively (depth-bounded). */
static int copy_tree(const char *from, const char *to, int depth)
{
	struct stat st;
	char a[4096], b[4096], buf[8192];
	if (depth > 64 || lstat(from, &st) < 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(from, a, sizeof(a) - 1);
		if (n < 0)
			return -1;
		a[n] = 0;
		return symlink(a, to);
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(from);
		struct dirent *de;
		int r = d && mkdir(to, 0755) == 0 ? 0 : -1;
		while (!r && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(a, sizeof(a), "%s/%s", from, de->d_name);
			snprintf(b, sizeof(b), "%s/%s", to, de->d_name);
			r = copy_tree(a, b, depth + 1);
		}
		if (d)
			closedir(d);
		return r;
	}
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL,
						   st.st_mode & 0111 ? 0755 : 0644);
	ssize_t n = 0;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		n = -1;
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *out = getenv("out"), *mode = "";
	char p[4096];
	if (argc == 3 && !strcmp(argv[1], "-c"))
		return out && copy_tree(argv[2], out, 0) == 0 ? 0 : 2;
	if (argc > 1 && (!strcmp(argv[1], "-d") || !strcmp(argv[1], "-s"))) {
		mode = argv[1];
		argv++;
		argc--;
	}
	if (!out || argc < 3)
		return 2;
	mkdir(out, 0755);
	snprintf(p, sizeof(p), "%s/bin", out);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin/%s", out, argv[1]);
	if (!strcmp(mode, "-s") ? script(p, argc - 1, argv + 1) < 0 : put(p, argv[1], argv[2]) < 0)
		return 2;
	if (chmod(p, 0755) < 0)
		return 2;
	if (!strcmp(mode, "-s"))
		return 0;
	if (!strcmp(mode, "-d") && doc(out, argv[1], argv[2]) < 0)
		return 2;
	if (argc > 3) {
		snprintf(p, sizeof(p), "%s/dep", out);
		if (put(p, argv[3], NULL) < 0)
			return 2;
	}
	return 0;
}
