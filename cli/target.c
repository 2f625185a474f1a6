/* target.c - --target=TRIPLET and --system=SYSTEM of cix build and cix package */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"

#include <string.h>

/*
 * A GNU triplet: two to four dash-separated parts of lowercase letters,
 * digits, '_' and '.', at most 64 characters ("aarch64-linux-gnu").
 * Whether cix has a tool chain for it is the packages' to say.
 */
int valid_triplet(const char *s)
{
	size_t len = strlen(s), parts = 1, run = 0;
	if (!len || len > 64)
		return 0;
	for (const char *p = s; *p; p++) {
		if (*p == '-') {
			if (!run)
				return 0;
			parts++;
			run = 0;
		} else if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
			   *p == '.') {
			run++;
		} else {
			return 0;
		}
	}
	return run && parts >= 2 && parts <= 4;
}

/*
 * A system as derivations name it: ARCH-KERNEL, two dash-separated parts
 * of lowercase letters, digits and '_' ("i686-linux"), at most 32
 * characters. Whether a machine can build for it is its store's to say.
 */
int valid_system(const char *s)
{
	const char *dash = strchr(s, '-');
	size_t len = strlen(s);
	if (!dash || dash == s || !dash[1] || strchr(dash + 1, '-') || len > 32)
		return 0;
	for (const char *p = s; *p; p++)
		if (p != dash && !((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}
