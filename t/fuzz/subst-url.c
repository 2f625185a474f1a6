/* subst-url.c - libFuzzer target: substitute URLs with Nix's parameters */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "substitute.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The URLs come from cix.conf, the command line and (among the daemon's
 * own) from clients: whatever the bytes, parsing them stays within them
 * and fails with a message or gives URLs without their parameters.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_substituter *subs = NULL;
	struct cix_err err = { 0 };
	size_t n = 0;
	char *urls = malloc(size + 1);
	if (!urls)
		return 0;
	memcpy(urls, data, size);
	urls[size] = '\0';
	if (cix_substituters_make(urls, NULL, &subs, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++)
			if (strchr(subs[i].url, '?') || strchr(subs[i].url, ' '))
				abort();
		cix_substituters_free(subs, n);
	} else if (!err.msg[0]) {
		abort();
	}
	free(urls);
	return 0;
}
