/* conf.h - cix.conf: the settings of the daemon and of root's direct use of the store */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CONF_H
#define CIX_CONF_H

#include "err.h"
#include "strvec.h"

/*
 * cix.conf holds lines "NAME = VALUE", '#' starting a comment, as
 * nix.conf; unknown names are ignored (they may be for a later cix).
 */
struct cix_conf {
	struct strvec allowed_users;   /* default "*" */
	struct strvec trusted_users;   /* default "root" */
	char *substitute_urls;         /* space-separated; default none */
	long narinfo_positive_ttl;     /* narinfo-cache-positive-ttl (0: the default) */
	long narinfo_negative_ttl;     /* narinfo-cache-negative-ttl (0: the default) */
	int fod_host_loopback;         /* fod-host-loopback: yes or no (default) */
};

/* $CIX_CONF_FILE, else $CIX_CONF_DIR/cix.conf, else /etc/cix/cix.conf. */
const char *cix_conf_file(void);

/* Read file into c (defaults first); a missing file gives the defaults. */
int cix_conf_load(const char *file, struct cix_conf *c, struct cix_err *err);
void cix_conf_release(struct cix_conf *c);

#endif
