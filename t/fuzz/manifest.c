/* manifest.c - libFuzzer target: a profile's manifest file */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "profile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A profile's manifest is read from the store, but whatever its bytes the
 * parser stays within them, leaves nothing behind when it refuses them,
 * and what it accepts formats back to the same bytes (a version 1 file
 * with the version 2 header: version 1 has no search paths). Its search
 * paths are all well formed.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_manifest m;
	struct cix_err err = { 0 };
	if (size > 64 * 1024)
		return 0;
	if (cix_manifest_parse((const char *)data, size, &m, &err) == 0) {
		struct strbuf sb = STRBUF_INIT;
		cix_manifest_format(&m, &sb);
		size_t skip = 15;        /* "cix-manifest N\n" */
		if (sb.len != size || size < skip || memcmp(sb.buf + skip, data + skip, size - skip))
			abort();
		if (memcmp(data, "cix-manifest 1\n", skip) && memcmp(data, sb.buf, skip))
			abort();
		for (size_t i = 0; i < m.nr; i++)
			for (size_t k = 0; k < m.v[i].nr_search_paths; k++)
				if (cix_search_path_check(&m.v[i].search_paths[k]))
					abort();
		cix_manifest_sort(&m);
		if (m.nr)
			cix_manifest_remove(&m, m.v[0].name, NULL);
		strbuf_release(&sb);
	} else if (m.nr || m.v || !err.msg[0]) {
		abort();
	}
	cix_manifest_release(&m);
	return 0;
}
