/* mkpkg.c - the builder of the tests' small packages (static: no store libc) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mkpkg NAME VERSION [DEP]: $out/bin/NAME, executable, holding "NAME VERSION";
 * with DEP (an input's store path), $out/dep holding it: a reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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

int main(int argc, char **argv)
{
	const char *out = getenv("out");
	char p[4096];
	if (!out || argc < 3)
		return 2;
	mkdir(out, 0755);
	snprintf(p, sizeof(p), "%s/bin", out);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin/%s", out, argv[1]);
	if (put(p, argv[1], argv[2]) < 0 || chmod(p, 0755) < 0)
		return 2;
	if (argc > 3) {
		snprintf(p, sizeof(p), "%s/dep", out);
		if (put(p, argv[3], NULL) < 0)
			return 2;
	}
	return 0;
}
