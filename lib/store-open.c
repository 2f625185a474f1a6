/* store-open.c - which kind of store a command gets: the daemon's, or its own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "env.h"
#include "store-path.h"
#include "strbuf.h"

#include <errno.h>
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

