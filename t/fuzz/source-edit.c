/* source-edit.c - libFuzzer target: package definitions rewritten by cix refresh -u */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "source-edit.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Any module text (unbalanced forms, strings and comments cut short,
 * NUL bytes): the edit succeeds with only the two fields changed, or fails
 * with a message, never reads out of bounds. The form is looked for at
 * line 1 and at the line the first byte gives.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cix_pkg_edit e = {
		"2.10", "2.12",
		"0ssi1wpaf7plaswqqjwigppsg5fyh99vdlb9kzl7c9lng89ndq1i",
		"1aqq1379syjckf0wdn9vs6wfbapnj9zfikhiykf29k4jq9nrk6js",
	};
	unsigned long lines[2] = { 1, size ? (unsigned long)data[0] % 64 + 1 : 1 };
	for (int i = 0; i < 2; i++) {
		struct strbuf out = STRBUF_INIT;
		struct cix_err err = { 0 };
		if (cix_source_edit_package((const char *)data, size, lines[i], 0, &e, &out,
					    &err) == 0 &&
		    out.len + strlen(e.old_hash) != size + strlen(e.new_hash))
			abort();   /* versions "2.10" and "2.12" have one length */
		strbuf_release(&out);
	}
	return 0;
}
