/* refresh-gpg.c - cix refresh: signatures checked with gpgv, keys fetched from a key server */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cix.h"
#include "refresh.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OUTPUT (1 << 20)
#define MAX_KEY (4UL << 20)


/* gpgv itself, or a gpg (anything whose name does not start with "gpgv")? */
static int is_gpgv(const char *cmd)
{
	const char *base = strrchr(cmd, '/');
	return !strncmp(base ? base + 1 : cmd, "gpgv", 4);
}

/* The hexadecimal word at s (8 to 40 digits) into keyid; 0, or -1. */
static int take_keyid(const char *s, char *keyid)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");
	if (n < 8 || n > 40 || (s[n] && s[n] != ' ' && s[n] != '\n'))
		return -1;
	memcpy(keyid, s, n);
	keyid[n] = '\0';
	return 0;
}

/* The signer's key in gpgv's output: ERRSIG's fingerprint, "using ... key", NO_PUBKEY. */
static int find_keyid(const char *out, char *keyid)
{
	const char *l;
	/* ERRSIG KEYID PKALGO HASHALGO CLASS TIME RC [FPR] */
	for (l = out; (l = strstr(l, "[GNUPG:] ERRSIG ")); l++) {
		const char *f = l + 16;
		for (int i = 0; i < 7 && f; i++) {
			f = strpbrk(f, " \n");
			f = f && *f == ' ' ? f + 1 : NULL;
		}
		if (f && !take_keyid(f, keyid) && strlen(keyid) == 40)
			return 0;
	}
	/* "gpgv:                using RSA key FPR" */
	for (l = out; (l = strstr(l, "using ")); l++) {
		const char *eol = strchrnul(l, '\n'), *k = strstr(l, " key ");
		if (k && k < eol && !take_keyid(k + 5, keyid))
			return 0;
	}
	if ((l = strstr(out, "[GNUPG:] NO_PUBKEY ")) && !take_keyid(l + 19, keyid))
		return 0;
	return -1;
}

static int has_status(const char *out, const char *word)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "[GNUPG:] %s ", word);
	int r = strstr(out, sb.buf) != NULL;
	strbuf_release(&sb);
	return r;
}

int refresh_verify(struct refresh_opts *o, const char *sig, const char *data,
		   enum sig_result *res, char *keyid, struct cix_err *err)
{
	struct strbuf out = STRBUF_INIT;
	char *gpgv[] = { (char *)o->gpg, "--status-fd", "1", "--keyring", o->keyring,
			 (char *)sig, (char *)data, NULL };
	char *gpg[] = { (char *)o->gpg, "--batch", "--no-autostart", "--no-default-keyring",
			"--keyring", o->keyring, "--trust-model", "always", "--status-fd", "1",
			"--verify", (char *)sig, (char *)data, NULL };
	const char *const *cmd = (const char *const *)(is_gpgv(o->gpg) ? gpgv : gpg);
	int status = run_program(cmd, &out, MAX_OUTPUT, err), r = 0;

	if (status < 0) {
		r = -1;
	} else if (status == 0 && has_status(out.buf, "VALIDSIG") &&
		   !has_status(out.buf, "BADSIG") && !has_status(out.buf, "ERRSIG")) {
		*res = SIG_GOOD;
	} else if (has_status(out.buf, "BADSIG")) {
		*res = SIG_BAD;
	} else if (has_status(out.buf, "NO_PUBKEY") && !find_keyid(out.buf, keyid)) {
		*res = SIG_NO_KEY;
	} else {
		/* Not a signature, an unreadable keyring...: gpgv's first words say. */
		const char *l = out.buf;
		while (!strncmp(l, "[GNUPG:]", 8) && strchr(l, '\n'))
			l = strchr(l, '\n') + 1;
		cix_error(err, -CIX_EINVAL, "%s could not check the signature (status %d)%s%.*s",
			  o->gpg, status, *l && *l != '\n' ? ": " : "", (int)strcspn(l, "\n"), l);
		r = -1;
	}
	strbuf_release(&out);
	return r;
}

int refresh_receive_key(struct refresh_opts *o, const char *keyid, struct cix_err *err)
{
	struct strbuf url = STRBUF_INIT, out = STRBUF_INIT, key = STRBUF_INIT;
	struct cix_fetch_opts fo = o->fetch;
	char *file = refresh_temp_name(o, "key.asc"), *home = refresh_temp_name(o, "gnupg");
	char *dir = xstrdup(o->keyring), *slash = strrchr(dir, '/');
	const char *gpg = is_gpgv(o->gpg) ? "gpg" : o->gpg;
	int r = -1;

	strbuf_addf(&url, "%s/pks/lookup?op=get&options=mr&search=0x%s", o->key_server, keyid);
	fo.max_size = MAX_KEY;
	fo.progress_fd = -1;
	if (cix_fetch_url(url.buf, file, NULL, 0, 0, &fo, err) < 0)
		goto out;
	if (strbuf_read_file(&key, file, MAX_KEY) < 0 ||
	    !strstr(key.buf, "-----BEGIN PGP PUBLIC KEY BLOCK-----")) {
		cix_error(err, -CIX_ENOTFOUND, "%s gave no public key for 0x%s", o->key_server, keyid);
		goto out;
	}
	if (slash && slash != dir) {
		*slash = '\0';
		if (cix_mkdirs(dir, err) < 0)
			goto out;
	}
	/* A home of its own: nothing of the user's GnuPG set-up is touched or started. */
	if (mkdir(home, 0700) < 0) {
		cix_error_errno(err, -errno, "cannot make '%s'", home);
		goto out;
	}
	char *argv[] = { (char *)gpg, "--batch", "--no-autostart", "--homedir", home,
			 "--no-default-keyring", "--keyring", o->keyring, "--import", file, NULL };
	int status = run_program((const char *const *)argv, &out, MAX_OUTPUT, err);
	if (status > 0) {
		const char *l = strstr(out.buf, "gpg: ") ? strstr(out.buf, "gpg: ") : out.buf;
		cix_error(err, -CIX_EINVAL, "%s could not import the key 0x%s into %s: %.*s", gpg,
			  keyid, o->keyring, (int)strcspn(l, "\n"), l);
	}
	if (status == 0)
		r = 0;
out:
	strbuf_release(&url);
	strbuf_release(&out);
	strbuf_release(&key);
	free(file);
	free(home);
	free(dir);
	return r;
}

int refresh_ask_key(const struct refresh_opts *o, const char *keyid, const char *file)
{
	char line[64];
	if (!isatty(0) || !isatty(2))
		return 0;
	for (;;) {
		fprintf(stderr,
			"%s: %s is signed by the key 0x%s, which is not in %s.\n"
			"Fetch it from %s and add it? (yes/no) ",
			cix_progname, file, keyid, o->keyring, o->key_server);
		fflush(stderr);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
		line[strcspn(line, "\n")] = '\0';
		if (!strcasecmp(line, "y") || !strcasecmp(line, "yes"))
			return 1;
		if (!strcasecmp(line, "n") || !strcasecmp(line, "no"))
			return 0;
	}
}
