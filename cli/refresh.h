/* refresh.h - cix refresh: shared between cmd-refresh.c, refresh-update.c and refresh-gpg.c */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_CLI_REFRESH_H
#define CIX_CLI_REFRESH_H

#include "err.h"
#include "fetch.h"
#include "gnu-release.h"
#include "scheme.h"
#include "store.h"

enum key_download { KEY_INTERACTIVE, KEY_ALWAYS, KEY_NEVER };

struct refresh_opts {
	int update;
	enum key_download key_download;
	const char *gpg;            /* gpgv (or gpg) to verify with */
	char *keyring;              /* absolute */
	char *key_server;           /* an http(s) URL, without a trailing slash */
	char *gnu_url;              /* without a trailing slash */
	struct cix_fetch_opts fetch;
	char *tmpdir;               /* the downloads, removed at the end */
	unsigned long downloads;    /* to name them */
	struct cix_store *store;    /* where the new tarballs go, when there is one */
	int store_tried;
};

/* A package to bring up to date, and what its update needs. */
struct refresh_job {
	const struct cix_refresh_pkg *pkg;
	struct cix_gnu_source src;
	char *file;                 /* its module file, as Guile names it */
	const char *shown;          /* that file as messages show it */
	unsigned long line, column;
	char *new_version;
	int exts;                   /* the compressions the new release has */
};

/* A fresh file name in o->tmpdir ending in name, malloc'd. */
char *refresh_temp_name(struct refresh_opts *o, const char *name);

/* refresh-update.c: download, authenticate and write job's new release; 0 or -1 (said). */
int refresh_update(struct refresh_opts *o, const struct refresh_job *job);

/* refresh-gpg.c */
enum sig_result { SIG_GOOD, SIG_BAD, SIG_NO_KEY };
/*
 * Check the detached signature sig of data against o->keyring. On
 * SIG_NO_KEY, keyid (41 bytes) receives the signer's fingerprint or key
 * id (hexadecimal); -1 with err when the check could not be made.
 */
int refresh_verify(struct refresh_opts *o, const char *sig, const char *data,
		   enum sig_result *res, char *keyid, struct cix_err *err);
/* Fetch key keyid from o->key_server into o->keyring; 0 or -1 with err. */
int refresh_receive_key(struct refresh_opts *o, const char *keyid, struct cix_err *err);
/* Ask on the terminal whether to fetch keyid (signing file); 0 when no terminal. */
int refresh_ask_key(const struct refresh_opts *o, const char *keyid, const char *file);

#endif
