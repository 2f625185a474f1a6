/* strvec.c - growable arrays of owned strings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "strvec.h"
#include "util.h"

#include <stdlib.h>

void strvec_push(struct strvec *sv, const char *s)
{
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = xstrdup(s);
	sv->v[sv->nr] = NULL;
}

int strvec_push_fn(const char *s, void *opaque)
{
	strvec_push(opaque, s);
	return 0;
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}
