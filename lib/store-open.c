/* store-open.c - which kind of store a command gets: the daemon's, its own, or one a URI names */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "store-backend.h"
#include "env.h"
#include "quote.h"
#include "store-path.h"
#include "strbuf.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/*
 * path exists but this user may not write it. A read-only file system is
 * nobody's to write, the daemon's no more: that store is opened here,
 * where queries work and writes fail with EROFS.
 */
static int not_ours(const char *path)
{
	return access(path, F_OK) == 0 && access(path, W_OK) < 0 && errno != EROFS;
}

int cix_store_open_client(struct cix_store **out, struct cix_err *err)
{
	const char *sock = cix_env(CIX_ENV_DAEMON_SOCKET);
	if (sock)
		return cix_store_open_daemon(sock, out, err);
	/* A store that exists but is not ours to write: the daemon's. */
	struct strbuf db = STRBUF_INIT;
	strbuf_addf(&db, "%s/db/db.sqlite", cix_state_dir());
	int theirs = not_ours(cix_store_dir()) || not_ours(db.buf);
	if (theirs) {
		strbuf_reset(&db);
		strbuf_addf(&db, "%s/daemon-socket/socket", cix_state_dir());
		int r = cix_store_open_daemon(db.buf, out, err);
		strbuf_release(&db);
		return r;
	}
	strbuf_release(&db);
	return cix_store_open(NULL, NULL, out, err);
}


int cix_store_open_uri(const char *uri, struct cix_store **out, struct cix_err *err)
{
	if (!uri || !*uri || !strcmp(uri, "daemon") || !strcmp(uri, "auto"))
		return cix_store_open_client(out, err);
	if (!strcmp(uri, "local"))
		return cix_store_open(NULL, NULL, out, err);
	if (!strncmp(uri, "unix://", 7) && uri[7] == '/')
		return cix_store_open_daemon(uri + 7, out, err);
	if (!strncmp(uri, "ssh-ng://", 9))
		return cix_store_open_ssh(uri, out, err);
	char q[128];
	cix_quote(q, sizeof(q), uri, strlen(uri));
	if (!strncmp(uri, "ssh://", 6))
		return cix_error(err, -CIX_EINVAL,
				 "'%s': ssh:// (nix-store --serve) is not supported; use ssh-ng://", q);
	return cix_error(err, -CIX_EINVAL, "'%s' is not a store URI cix knows "
			 "(daemon, local, unix://SOCKET, ssh-ng://HOST)", q);
}
