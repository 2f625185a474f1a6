/* machines.c - libFuzzer target: machines files (Nix's format), as builders settings give them */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "machines.h"
#include "ssh-uri.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_machines ms = CIX_MACHINES_INIT;
	struct cix_err err;
	if (cix_machines_parse(&ms, (const char *)data, size, "fuzz", &err) < 0 &&
	    (!err.msg[0] || strchr(err.msg, '\n')))
		abort();   /* every error has a one-line message */
	for (size_t i = 0; i < ms.nr; i++) {
		struct cix_ssh_uri u;
		char *uri = cix_machine_store_uri(&ms.v[i]);
		if (cix_ssh_uri_parse(uri, &u, &err) < 0)
			abort();   /* a machine accepted can be reached by its URI */
		cix_ssh_uri_release(&u);
		free(uri);
		if (!ms.v[i].systems.nr || !(ms.v[i].speed > 0))
			abort();
	}
	cix_machines_release(&ms);
	return 0;
}
