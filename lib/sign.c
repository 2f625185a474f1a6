/* sign.c - Ed25519 keys, detached signatures and trusted-key lists, in Nix's formats */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sign.h"
#include "encoding.h"
#include "hash.h"
#include "strbuf.h"

#include <gcrypt.h>
#include <stdlib.h>
#include <string.h>

int cix_key_name_check(const char *name, size_t len, struct cix_err *err)
{
	if (!len)
		return cix_error(err, -CIX_EFORMAT, "empty key name");
	if (len > CIX_KEY_NAME_MAX)
		return cix_error(err, -CIX_EFORMAT, "key name longer than %d bytes",
				 CIX_KEY_NAME_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c <= ' ' || c >= 0x7f || c == ':')
			return cix_error(err, -CIX_EFORMAT,
					 "invalid character 0x%02x in key name", c);
	}
	return 0;
}

/*
 * Split "NAME:BASE64" and decode exactly n bytes of it into out, the name
 * into name; what: "secret key" and so on, for messages.
 */
static int parse_named(const char *s, size_t len, const char *what, char *name,
		       unsigned char *out, size_t n, struct cix_err *err)
{
	const char *colon = memchr(s, ':', len);
	struct cix_err e = { 0 };
	if (!colon)
		return cix_error(err, -CIX_EFORMAT, "%s has no ':' after its name", what);
	size_t nlen = (size_t)(colon - s), blen = len - nlen - 1;
	if (cix_key_name_check(s, nlen, &e) < 0)
		return cix_error(err, e.code, "%s: %s", what, e.msg);
	if (blen != cix_base64_len(n) ||
	    cix_base64_decode(colon + 1, blen, out, n) != (int)n)
		return cix_error(err, -CIX_EFORMAT, "%s '%.*s' is not the base64 of %zu bytes",
				 what, (int)nlen, s, n);
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	return 0;
}

static void format_named(const char *name, const unsigned char *key, size_t n,
			 struct strbuf *out)
{
	strbuf_addstr(out, name);
	strbuf_addch(out, ':');
	cix_base64_encode(out, key, n);
}

/* The bytes of token's value in sexp, right-aligned into n bytes (MPIs lose leading zeros). */
static int sexp_bytes(gcry_sexp_t sexp, const char *token, unsigned char *out, size_t n)
{
	gcry_sexp_t l = gcry_sexp_find_token(sexp, token, 0);
	size_t got = 0;
	const char *p = l ? gcry_sexp_nth_data(l, 1, &got) : NULL;
	int r = -1;
	if (p && got <= n) {
		memset(out, 0, n - got);
		memcpy(out + n - got, p, got);
		r = 0;
	}
	gcry_sexp_release(l);
	return r;
}

int cix_public_key_derive(const unsigned char seed[CIX_SEED_BYTES],
			  unsigned char pub[CIX_PUBLIC_KEY_BYTES], struct cix_err *err)
{
	gcry_sexp_t key = NULL;
	gcry_ctx_t ctx = NULL;
	gcry_mpi_t q = NULL;
	unsigned nbits = 0;
	const unsigned char *p = NULL;
	int r = -CIX_EINVAL;

	cix_hash_global_init();
	if (gcry_sexp_build(&key, NULL,
			    "(private-key (ecc (curve Ed25519) (flags eddsa) (d %b)))",
			    CIX_SEED_BYTES, seed) ||
	    gcry_mpi_ec_new(&ctx, key, NULL) ||
	    !(q = gcry_mpi_ec_get_mpi("q@eddsa", ctx, 1)) ||
	    !gcry_mpi_get_flag(q, GCRYMPI_FLAG_OPAQUE) ||
	    !(p = gcry_mpi_get_opaque(q, &nbits)))
		goto out;
	/* An EdDSA point may come with libgcrypt's 0x40 "compressed" prefix. */
	if (nbits == 8 * (CIX_PUBLIC_KEY_BYTES + 1) && p[0] == 0x40) {
		p++;
		nbits -= 8;
	}
	if (nbits != 8 * CIX_PUBLIC_KEY_BYTES)
		goto out;
	memcpy(pub, p, CIX_PUBLIC_KEY_BYTES);
	r = 0;
out:
	gcry_mpi_release(q);
	gcry_ctx_release(ctx);
	gcry_sexp_release(key);
	return r ? cix_error(err, r, "libgcrypt cannot compute an Ed25519 public key") : 0;
}

int cix_secret_key_generate(const char *name, struct cix_secret_key *k, struct cix_err *err)
{
	gcry_sexp_t parms = NULL, pair = NULL, priv = NULL;
	unsigned char q[CIX_PUBLIC_KEY_BYTES + 1];   /* maybe with a 0x40 prefix */
	size_t nlen = strlen(name);
	int r;

	if ((r = cix_key_name_check(name, nlen, err)) < 0)
		return r;
	cix_hash_global_init();
	r = -CIX_EINVAL;
	if (gcry_sexp_build(&parms, NULL, "(genkey (ecc (curve Ed25519) (flags eddsa)))") ||
	    gcry_pk_genkey(&pair, parms) ||
	    !(priv = gcry_sexp_find_token(pair, "private-key", 0)) ||
	    sexp_bytes(priv, "d", k->key, CIX_SEED_BYTES) < 0 ||
	    sexp_bytes(priv, "q", q, sizeof(q)) < 0)
		goto out;
	/* The public half as libsodium computes it from the seed: Nix's layout. */
	if (cix_public_key_derive(k->key, k->key + CIX_SEED_BYTES, NULL) < 0 ||
	    (q[0] && q[0] != 0x40) ||
	    memcmp(q + 1, k->key + CIX_SEED_BYTES, CIX_PUBLIC_KEY_BYTES))
		goto out;
	memcpy(k->name, name, nlen + 1);
	r = 0;
out:
	gcry_sexp_release(priv);
	gcry_sexp_release(pair);
	gcry_sexp_release(parms);
	if (r < 0) {
		explicit_bzero(k->key, sizeof(k->key));
		return cix_error(err, r, "libgcrypt cannot generate an Ed25519 key");
	}
	return 0;
}

int cix_secret_key_parse(const char *s, size_t len, struct cix_secret_key *k,
			 struct cix_err *err)
{
	unsigned char pub[CIX_PUBLIC_KEY_BYTES];
	int r = parse_named(s, len, "secret key", k->name, k->key, CIX_SECRET_KEY_BYTES, err);
	if (r < 0)
		return r;
	if ((r = cix_public_key_derive(k->key, pub, err)) < 0)
		return r;
	if (memcmp(pub, k->key + CIX_SEED_BYTES, sizeof(pub)))
		return cix_error(err, -CIX_EMISMATCH,
				 "secret key '%s' holds a public key that is not its own", k->name);
	return 0;
}

int cix_public_key_parse(const char *s, size_t len, struct cix_public_key *k,
			 struct cix_err *err)
{
	return parse_named(s, len, "public key", k->name, k->key, CIX_PUBLIC_KEY_BYTES, err);
}

void cix_secret_key_format(const struct cix_secret_key *k, struct strbuf *out)
{
	format_named(k->name, k->key, CIX_SECRET_KEY_BYTES, out);
}

void cix_public_key_format(const struct cix_public_key *k, struct strbuf *out)
{
	format_named(k->name, k->key, CIX_PUBLIC_KEY_BYTES, out);
}

void cix_secret_key_public(const struct cix_secret_key *k, struct cix_public_key *pk)
{
	memcpy(pk->name, k->name, sizeof(pk->name));
	memcpy(pk->key, k->key + CIX_SEED_BYTES, CIX_PUBLIC_KEY_BYTES);
}

static gcry_sexp_t data_sexp(const char *data, size_t len)
{
	gcry_sexp_t d = NULL;
	if (len > (size_t)INT32_MAX ||
	    gcry_sexp_build(&d, NULL, "(data (flags eddsa) (hash-algo sha512) (value %b))",
			    (int)len, data))
		return NULL;
	return d;
}

int cix_sign_detached(const struct cix_secret_key *k, const char *data, size_t len,
		      struct strbuf *out, struct cix_err *err)
{
	gcry_sexp_t key = NULL, d = NULL, sig = NULL;
	unsigned char raw[CIX_SIGNATURE_BYTES];
	int r = -CIX_EINVAL;

	cix_hash_global_init();
	if (gcry_sexp_build(&key, NULL,
			    "(private-key (ecc (curve Ed25519) (flags eddsa) (q %b) (d %b)))",
			    CIX_PUBLIC_KEY_BYTES, k->key + CIX_SEED_BYTES,
			    CIX_SEED_BYTES, k->key) ||
	    !(d = data_sexp(data, len)) ||
	    gcry_pk_sign(&sig, d, key) ||
	    sexp_bytes(sig, "r", raw, 32) < 0 ||
	    sexp_bytes(sig, "s", raw + 32, 32) < 0)
		goto out;
	format_named(k->name, raw, sizeof(raw), out);
	r = 0;
out:
	gcry_sexp_release(sig);
	gcry_sexp_release(d);
	gcry_sexp_release(key);
	return r < 0 ? cix_error(err, r, "libgcrypt cannot sign with key '%s'", k->name) : 0;
}

static int verify_one(const unsigned char *raw, gcry_sexp_t d, const struct cix_public_key *k)
{
	gcry_sexp_t key = NULL, sig = NULL;
	int ok = 0;
	if (!gcry_sexp_build(&key, NULL, "(public-key (ecc (curve Ed25519) (flags eddsa) (q %b)))",
			     CIX_PUBLIC_KEY_BYTES, k->key) &&
	    !gcry_sexp_build(&sig, NULL, "(sig-val (eddsa (r %b) (s %b)))", 32, raw, 32, raw + 32))
		ok = gcry_pk_verify(sig, d, key) == 0;
	gcry_sexp_release(sig);
	gcry_sexp_release(key);
	return ok;
}

int cix_verify_detached(const char *sig, const char *data, size_t len,
			const struct cix_public_key *keys, size_t nr_keys)
{
	struct cix_public_key s;    /* the signature's name, and its bytes in: */
	unsigned char raw[CIX_SIGNATURE_BYTES];
	gcry_sexp_t d = NULL;
	int ok = 0;

	if (!sig || parse_named(sig, strlen(sig), "signature", s.name, raw, sizeof(raw), NULL) < 0)
		return 0;
	cix_hash_global_init();
	for (size_t i = 0; i < nr_keys && !ok; i++) {
		if (strcmp(keys[i].name, s.name))
			continue;
		if (!d && !(d = data_sexp(data, len)))
			break;
		ok = verify_one(raw, d, &keys[i]);
	}
	gcry_sexp_release(d);
	return ok;
}

int cix_acl_has(const struct cix_acl *acl, const struct cix_public_key *k)
{
	for (size_t i = 0; i < acl->nr; i++)
		if (!strcmp(acl->keys[i].name, k->name) &&
		    !memcmp(acl->keys[i].key, k->key, CIX_PUBLIC_KEY_BYTES))
			return 1;
	return 0;
}

int cix_acl_add(struct cix_acl *acl, const struct cix_public_key *k, struct cix_err *err)
{
	if (cix_acl_has(acl, k))
		return 0;
	if (acl->nr >= CIX_ACL_MAX_KEYS)
		return cix_error(err, -CIX_ELIMIT, "more than %d trusted keys", CIX_ACL_MAX_KEYS);
	ALLOC_GROW(acl->keys, acl->nr + 1, acl->alloc);
	acl->keys[acl->nr++] = *k;
	return 1;
}

void cix_acl_release(struct cix_acl *acl)
{
	free(acl->keys);
	acl->keys = NULL;
	acl->nr = acl->alloc = 0;
}

int cix_acl_parse(const char *buf, size_t len, struct cix_acl *acl, struct cix_err *err)
{
	size_t lineno = 0, pos = 0;
	int r;
	while (pos < len) {
		const char *p = buf + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		struct cix_public_key k;
		struct cix_err e = { 0 };

		pos += n + (nl != NULL);
		lineno++;
		if (n > CIX_ACL_MAX_LINE) {
			r = cix_error(err, -CIX_ELIMIT, "line %zu: longer than %d bytes", lineno,
				      CIX_ACL_MAX_LINE);
			goto fail;
		}
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n || *p == '#')
			continue;
		if ((r = cix_public_key_parse(p, n, &k, &e)) < 0) {
			r = cix_error(err, r, "line %zu: %s", lineno, e.msg);
			goto fail;
		}
		if ((r = cix_acl_add(acl, &k, &e)) < 0) {
			r = cix_error(err, r, "line %zu: %s", lineno, e.msg);
			goto fail;
		}
	}
	return 0;
fail:
	cix_acl_release(acl);
	return r;
}

void cix_acl_format(const struct cix_acl *acl, struct strbuf *out)
{
	for (size_t i = 0; i < acl->nr; i++) {
		cix_public_key_format(&acl->keys[i], out);
		strbuf_addch(out, '\n');
	}
}

int cix_secret_key_load(const char *file, struct cix_secret_key *k, struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r = strbuf_read_file(&sb, file, CIX_SECRET_KEY_FILE_MAX);
	if (r < 0) {
		r = r == -CIX_ELIMIT ? cix_error(err, r, "'%s' is too long for a secret key", file)
		    : cix_error(err, r, "cannot read the secret key '%s': %s", file, strerror(-r));
		goto out;
	}
	/* As written by cix archive or nix-store: maybe a final newline. */
	while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r'))
		sb.buf[--sb.len] = '\0';
	if ((r = cix_secret_key_parse(sb.buf, sb.len, k, err)) < 0)
		r = cix_error(err, r, "%s: %s", file, err->msg);
out:
	explicit_bzero(sb.buf, sb.len);
	strbuf_release(&sb);
	return r;
}
