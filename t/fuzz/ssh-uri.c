/* ssh-uri.c - libFuzzer target: ssh-ng:// store URIs, as a machines file gives them */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ssh-uri.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Nothing ssh would take for an option, nothing a shell or a line would split. */
static void check_arg(const char *s)
{
	if (!s)
		return;
	if (!*s || s[0] == '-')
		abort();
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_ssh_uri u;
	struct cix_err err;
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	if (cix_ssh_uri_parse(s, &u, &err) < 0) {
		if (!err.msg[0] || strchr(err.msg, '\n'))
			abort();   /* every error has a one-line message */
	} else {
		check_arg(u.host);
		check_arg(u.user);
		check_arg(u.program);
		if (u.program[strspn(u.program, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789/._+-")])
			abort();   /* it goes to the remote's shell */
		if (u.host_key)
			for (const char *p = u.host_key; *p; p++)
				if ((unsigned char)*p < 0x20)
					abort();
		if (u.port > 65535 || !u.connect_timeout || u.connect_timeout > 3600)
			abort();
		cix_ssh_uri_release(&u);
	}
	free(s);
	return 0;
}
