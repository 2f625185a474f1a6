/* ssh-uri.h - what an ssh-ng:// store URI says */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_SSH_URI_H
#define CIX_SSH_URI_H

#include "err.h"

/*
 * ssh-ng://[USER@]HOST[:PORT][?NAME=VALUE&...], as Nix's remote stores and
 * machines files write it. HOST is a name, an IPv4 address or [IPv6];
 * neither USER nor HOST may begin with '-' (ssh would read an option).
 * The parameters, values %-decoded:
 *   ssh-key=FILE                    the identity ssh offers (-i FILE)
 *   remote-program=PROGRAM          run as `PROGRAM --stdio` (cix-daemon)
 *   base64-ssh-public-host-key=B64  the host's public key ("TYPE KEY"),
 *                                   the only one accepted for HOST
 *   connect-timeout=SECONDS         for ssh to connect and the remote to
 *                                   answer the handshake (1..3600; 30)
 *   silence-timeout=SECONDS         for the remote to answer a request
 *                                   after that, a build's aside (1..86400;
 *                                   600)
 *   compress=true|false             ssh -C
 * Anything else is refused, with a one-line message.
 */
struct cix_ssh_uri {
	char *user;            /* NULL: ssh's choice */
	char *host;            /* without brackets */
	unsigned port;         /* 0: ssh's choice */
	char *ssh_key;
	char *program;
	char *host_key;        /* decoded */
	unsigned connect_timeout;
	unsigned silence_timeout;
	int compress;
};

#define CIX_SSH_URI_MAX 4096
#define CIX_SSH_DEFAULT_PROGRAM "cix-daemon"
#define CIX_SSH_DEFAULT_TIMEOUT 30
#define CIX_SSH_DEFAULT_SILENCE 600

int cix_ssh_uri_parse(const char *uri, struct cix_ssh_uri *u, struct cix_err *err);
void cix_ssh_uri_release(struct cix_ssh_uri *u);

#endif
