/* db-request.c - libFuzzer target: group commit's requests, read back from shared memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>

/*
 * The bytes of a slot of the writers' file (lib/db-writer.c) are parsed by
 * the committer: whatever they hold, the parser stays within them, and a
 * count never makes it allocate more than the bytes could describe.
 * What it accepts, serialised again, gives the same bytes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 15 * 1024)
		return 0;
	if (cix_db_request_check(data, size) == -2)
		abort();
	return 0;
}
