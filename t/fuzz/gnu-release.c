/* gnu-release.c - libFuzzer target: GNU release directory listings and versions */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gnu-release.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A listing comes from a server cix refresh does not trust: any bytes give
 * a newest version, or none, never a crash. Its first line is also taken
 * as a source URL and a version to parse, and two halves compared.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *version = NULL;
	int exts = 0;
	cix_gnu_latest_release((const char *)data, size, "hello", &version, &exts, NULL);
	free(version);

	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	char *nl = strchr(text, '\n');
	const char *rest = "";
	if (nl) {
		*nl = 0;
		rest = nl + 1;
	}
	struct cix_gnu_source src;
	if (cix_gnu_source_parse(text, rest, "https://ftp.gnu.org/gnu", &src) == 1)
		cix_gnu_source_release(&src);
	int c = cix_gnu_version_cmp(text, rest), d = cix_gnu_version_cmp(rest, text);
	if ((c < 0 && d <= 0) || (c > 0 && d >= 0) || (c == 0 && d != 0))
		abort();   /* not antisymmetric */
	free(text);
	return 0;
}
