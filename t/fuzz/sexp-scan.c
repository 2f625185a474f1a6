/* sexp-scan.c - libFuzzer target: the bounds on Scheme source (pkg/sexp-scan.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sexp-scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Package files are anyone's text: whatever its bytes, the scanner stays
 * within them, returns 0 or an error with a message placed in the text,
 * and a bound it accepts at one depth it accepts at any greater one.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_err err = { 0 };
	const char *text = (const char *)data;
	unsigned depth = size ? data[0] % 8 : 0;
	int r = cix_sexp_scan("f", text, size, depth, &err);
	if (r < 0 && (strncmp(err.msg, "f:", 2) || (r != -CIX_ELIMIT && r != -CIX_EFORMAT)))
		abort();
	if (r == 0 && cix_sexp_scan("f", text, size, depth + 1, &err) != 0)
		abort();
	if (r == 0 && cix_sexp_scan("f", text, size, CIX_SEXP_MAX_DEPTH, &err) != 0)
		abort();
	return 0;
}
