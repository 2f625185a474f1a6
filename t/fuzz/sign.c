/* sign.c - libFuzzer target: key texts, the trusted-key list, signatures to verify */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sign.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Keys come from files and standard input, signatures from narinfo files
 * of any server: whatever their bytes, the parsers stay within them, what
 * they accept formats back to the same bytes, and verification answers 0
 * or 1. The first byte chooses: 0 a secret key, 1 a public key, 2 an ACL,
 * 3 "SIG\nDATA" against fixed keys, 4 32 bytes of a public key named k-1
 * (any point, valid or not) then "SIG\nDATA".
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_same(const struct strbuf *sb, const char *s, size_t len)
{
	if (sb->len != len || memcmp(sb->buf, s, len))
		abort();
}

static void verify(const char *p, size_t n, const struct cix_public_key *keys, size_t nr)
{
	const char *nl = memchr(p, '\n', n);
	size_t slen = nl ? (size_t)(nl - p) : n;
	char *sig = malloc(slen + 1);
	memcpy(sig, p, slen);
	sig[slen] = '\0';
	const char *msg = nl ? nl + 1 : p + n;
	int r = cix_verify_detached(sig, msg, (size_t)(p + n - msg), keys, nr);
	if (r != 0 && r != 1)
		abort();
	free(sig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cix_public_key fixed[2];
	static int have_fixed;
	const char *p = (const char *)data + 1;
	size_t n = size - 1;
	struct strbuf sb = STRBUF_INIT;

	if (!size || size > 64 * 1024)
		return 0;
	if (!have_fixed) {
		struct cix_secret_key k = { .name = "k-1" };
		for (int i = 0; i < 2; i++) {
			memset(k.key, i + 1, CIX_SEED_BYTES);
			if (cix_public_key_derive(k.key, k.key + CIX_SEED_BYTES, NULL) < 0)
				abort();
			cix_secret_key_public(&k, &fixed[i]);
			strcpy(k.name, "cache.example.org-1");
		}
		have_fixed = 1;
	}
	switch (data[0]) {
	case 0: {
		struct cix_secret_key k;
		if (!cix_secret_key_parse(p, n, &k, NULL)) {
			cix_secret_key_format(&k, &sb);
			check_same(&sb, p, n);
		}
		break;
	}
	case 1: {
		struct cix_public_key k;
		if (!cix_public_key_parse(p, n, &k, NULL)) {
			cix_public_key_format(&k, &sb);
			check_same(&sb, p, n);
		}
		break;
	}
	case 2: {
		struct cix_acl acl = CIX_ACL_INIT, again = CIX_ACL_INIT;
		if (!cix_acl_parse(p, n, &acl, NULL)) {
			cix_acl_format(&acl, &sb);
			if (cix_acl_parse(sb.buf, sb.len, &again, NULL) || again.nr != acl.nr)
				abort();
			for (size_t i = 0; i < acl.nr; i++)
				if (!cix_acl_has(&again, &acl.keys[i]))
					abort();
		}
		cix_acl_release(&acl);
		cix_acl_release(&again);
		break;
	}
	case 3:
		verify(p, n, fixed, 2);
		break;
	case 4: {
		struct cix_public_key k = { .name = "k-1" };
		if (n < CIX_PUBLIC_KEY_BYTES)
			break;
		memcpy(k.key, p, CIX_PUBLIC_KEY_BYTES);
		verify(p + CIX_PUBLIC_KEY_BYTES, n - CIX_PUBLIC_KEY_BYTES, &k, 1);
		break;
	}
	}
	strbuf_release(&sb);
	return 0;
}
