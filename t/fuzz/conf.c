/* conf.c - libFuzzer target: cix.conf */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "conf.h"
#include "substitute.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/*
 * cix.conf is root's, but it is read by every command that builds: any
 * bytes give the defaults, a one-line error or settings, never a crash;
 * its substitute-urls give caches or a clean refusal.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char file[64];
	struct cix_conf c;
	struct cix_substituter *subs;
	size_t n;
	int fd;
	if (!file[0])
		snprintf(file, sizeof(file), "/tmp/cix-fuzz-conf-%ld", (long)getpid());
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || cix_write_full(fd, data, size) < 0 || close(fd) < 0)
		abort();
	if (cix_conf_load(file, &c, NULL) == 0 && c.substitute_urls &&
	    cix_substituters_make(c.substitute_urls, NULL, &subs, &n, NULL) == 0)
		cix_substituters_free(subs, n);
	cix_conf_release(&c);
	return 0;
}
