/* refresh-update.c - cix refresh -u: a new release downloaded, authenticated and written in */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "env.h"
#include "refresh.h"
#include "encoding.h"
#include "hash.h"
#include "source-edit.h"
#include "store-path.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The tarball is added to the store as its origin's download would be (a
 * fixed-output path of the same name and flat sha256), so that building
 * the package next fetches nothing. Only to a store that is there: the
 * daemon's, or a local one that exists; failing that is only a warning.
 */
static void add_to_store(struct refresh_opts *o, const char *tarball)
{
	struct cix_err err = { 0 };
	struct strbuf out = STRBUF_INIT;

	if (!o->store_tried) {
		o->store_tried = 1;
		if (!cix_env(CIX_ENV_DAEMON_SOCKET) && access(cix_store_dir(), F_OK) < 0)
			return;
		if (cix_store_open_client(&o->store, &err) < 0) {
			fprintf(stderr, "%s: warning: the new tarballs are not added to the store: %s\n",
				cix_progname, err.msg);
			o->store = NULL;
			return;
		}
	}
	if (o->store &&
	    cix_store_add(o->store, tarball, CIX_ADD_FLAT, CIX_HASH_SHA256, &out, &err) < 0)
		fprintf(stderr, "%s: warning: cannot add '%s' to the store: %s\n", cix_progname,
			tarball, err.msg);
	strbuf_release(&out);
}

/* Download url into file (a name from refresh_temp_name); 0 or -1 (said). */
static int download(struct refresh_opts *o, const char *pkg, const char *url, const char *file)
{
	struct cix_err err = { 0 };
	if (cix_fetch_url(url, file, NULL, 0, 0, &o->fetch, &err) < 0)
		return error("%s: cannot download %s: %s", pkg, url, err.msg), -1;
	return 0;
}

/* The signature of tarball checked, keys fetched as --key-download says; 0 when good. */
static int authenticate(struct refresh_opts *o, const char *pkg, const char *tarball,
			const char *sig, const char *base)
{
	struct cix_err err = { 0 };
	char keyid[41] = "", fetched[41] = "";
	enum sig_result res;

	/* A signature may name several keys: a few rounds, not more. */
	for (int round = 0; round < 8; round++) {
		if (refresh_verify(o, sig, tarball, &res, keyid, &err) < 0)
			return error("%s: %s", pkg, err.msg), -1;
		if (res == SIG_GOOD)
			return 0;
		if (res == SIG_BAD)
			return error("%s: BAD signature on %s: not updated", pkg, base), -1;
		if (!strcmp(keyid, fetched))
			return error("%s: the key 0x%s that signed %s is still not in %s after it "
				     "was fetched: not updated", pkg, keyid, base, o->keyring), -1;
		int want = o->key_download == KEY_ALWAYS ||
			   (o->key_download == KEY_INTERACTIVE && refresh_ask_key(o, keyid, base));
		if (!want)
			return error("%s: %s is signed by the key 0x%s, which is not in %s: not "
				     "updated (--key-download=always fetches it)", pkg, base, keyid,
				     o->keyring), -1;
		if (refresh_receive_key(o, keyid, &err) < 0)
			return error("%s: cannot fetch the key 0x%s: %s", pkg, keyid, err.msg), -1;
		fprintf(stderr, "%s: key 0x%s fetched from %s into %s\n", cix_progname, keyid,
			o->key_server, o->keyring);
		memcpy(fetched, keyid, sizeof(fetched));
	}
	return error("%s: the keys that signed %s are still missing: not updated", pkg, base), -1;
}

int refresh_update(struct refresh_opts *o, const struct refresh_job *job)
{
	const struct cix_refresh_pkg *p = job->pkg;
	struct strbuf base = STRBUF_INIT, url = STRBUF_INIT, sig_url = STRBUF_INIT;
	struct strbuf old32 = STRBUF_INIT, new32 = STRBUF_INIT, sig_name = STRBUF_INIT;
	char *tarball = NULL, *sig = NULL;
	struct cix_err err = { 0 };
	struct cix_hash h;
	int r = -1;

	strbuf_addf(&base, "%s-%s.tar.%s", job->src.project, job->new_version,
		    cix_gnu_tar_ext_name(job->src.ext));
	if (!(job->exts & job->src.ext)) {
		error("%s: release %s has no %s: not updated", p->name, job->new_version, base.buf);
		goto out;
	}
	if (p->hash.algo != CIX_HASH_SHA256 || p->hash.len != 32) {
		error("%s: its source has no sha256 to change", p->name);
		goto out;
	}
	strbuf_addf(&url, "%s/%s/%s", o->gnu_url, job->src.dir, base.buf);
	strbuf_addf(&sig_url, "%s.sig", url.buf);
	strbuf_addf(&sig_name, "%s.sig", base.buf);
	tarball = refresh_temp_name(o, base.buf);
	sig = refresh_temp_name(o, sig_name.buf);
	if (download(o, p->name, url.buf, tarball) < 0 ||
	    download(o, p->name, sig_url.buf, sig) < 0 ||
	    authenticate(o, p->name, tarball, sig, base.buf) < 0)
		goto out;

	if (cix_hash_file(CIX_HASH_SHA256, tarball, &h, &err) < 0) {
		error("%s: %s", p->name, err.msg);
		goto out;
	}
	cix_nixbase32_encode(&old32, p->hash.bytes, p->hash.len);
	cix_nixbase32_encode(&new32, h.bytes, h.len);
	add_to_store(o, tarball);
	struct cix_pkg_edit edit = { p->version, job->new_version, old32.buf, new32.buf };
	if (cix_source_edit_file(job->file, job->line, job->column, &edit, &err) < 0) {
		error("%s: not updated: %s", p->name, err.msg);
		goto out;
	}
	printf("%s: updated to %s\n", p->name, job->new_version);
	fflush(stdout);
	r = 0;
out:
	if (tarball)
		unlink(tarball);
	if (sig)
		unlink(sig);
	free(tarball);
	free(sig);
	strbuf_release(&base);
	strbuf_release(&url);
	strbuf_release(&sig_url);
	strbuf_release(&sig_name);
	strbuf_release(&old32);
	strbuf_release(&new32);
	return r;
}
