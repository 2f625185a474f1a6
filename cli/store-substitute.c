/* store-substitute.c - cix store --substitute: paths installed from a binary cache */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "store-ops.h"
#include "sign.h"
#include "store.h"
#include "strbuf.h"
#include "substitute.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The keys this machine trusts: $CIX_CONF_DIR/acl (cix archive --authorize). */
static int load_acl(struct cix_acl *acl)
{
	const char *conf = getenv("CIX_CONF_DIR");
	struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
	struct cix_err err = { 0 };
	int r = 0;
	strbuf_addf(&file, "%s/acl", conf && *conf ? conf : "/etc/cix");
	if (strbuf_read_file(&text, file.buf, 1 << 20) < 0) {
		if (errno != ENOENT)
			r = error("cannot read '%s': %s", file.buf, strerror(errno));
	} else if (cix_acl_parse(text.buf, text.len, acl, &err) < 0) {
		r = error("%s: %s", file.buf, err.msg);
	}
	strbuf_release(&file);
	strbuf_release(&text);
	return r;
}

/*
 * --substitute URL PATH...: each PATH (and its closure) from the binary
 * cache at URL, signed by a key of the ACL; PATH printed once valid.
 */
int op_substitute(struct cix_store *s, const struct store_flags *f, char **args, int nargs)
{
	struct cix_acl acl = CIX_ACL_INIT;
	struct cix_substituter sub = { 0 };
	struct strbuf url = STRBUF_INIT;
	int status = 0;
	(void)f;

	if (nargs < 2)
		return usage_error("--substitute needs a cache URL and store paths");
	if ((status = load_acl(&acl)))
		return status;
	strbuf_addstr(&url, args[0]);
	while (url.len && url.buf[url.len - 1] == '/')
		strbuf_setlen(&url, url.len - 1);
	sub.url = url.buf;
	sub.keys = acl.keys;
	sub.nr_keys = acl.nr;
	cix_fetch_opts_init(&sub.fetch);
	sub.fetch.connect_timeout_s = 10;
	sub.fetch.progress_fd = isatty(2) ? 2 : -1;
	for (int i = 1; i < nargs; i++) {
		struct cix_err err = { 0 };
		int r = cix_store_check_path(s, args[i], &err);
		if (r >= 0)
			r = cix_substitute(s, &sub, args[i], &err);
		if (r < 0)
			status = error_err(&err);
		else if (r == 0)
			status = error("'%s' is not in the cache '%s'", args[i], url.buf);
		else
			puts(args[i]);
	}
	cix_acl_release(&acl);
	strbuf_release(&url);
	return status;
}
