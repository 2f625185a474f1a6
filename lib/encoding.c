/* encoding.c - nix-base32, base16, base64 and RFC 4648 base32 */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "encoding.h"
#include "err.h"

#include <ctype.h>

const char cix_nixbase32_chars[33] = "0123456789abcdfghijklmnpqrsvwxyz";

size_t cix_nixbase32_len(size_t nbytes)
{
	return nbytes ? (nbytes * 8 - 1) / 5 + 1 : 0;
}

/*
 * Nix reads the hash as one little-endian number and prints it five bits at
 * a time, most significant group first.
 */
void cix_nixbase32_encode(struct strbuf *sb, const unsigned char *in, size_t n)
{
	size_t len = cix_nixbase32_len(n);
	strbuf_grow(sb, len);
	for (size_t k = len; k-- > 0;) {
		size_t b = k * 5, i = b / 8, j = b % 8;
		unsigned c = in[i] >> j;
		if (i + 1 < n)
			c |= (unsigned)in[i + 1] << (8 - j);
		sb->buf[sb->len++] = cix_nixbase32_chars[c & 31];
	}
	sb->buf[sb->len] = '\0';
}

static int nixbase32_value(unsigned char ch)
{
	/* The alphabet is short; a 256-entry table would be no clearer. */
	for (int v = 0; v < 32; v++)
		if (cix_nixbase32_chars[v] == ch)
			return v;
	return -1;
}

int cix_nixbase32_decode(const char *s, size_t slen, unsigned char *out, size_t nbytes)
{
	if (slen != cix_nixbase32_len(nbytes))
		return -CIX_EFORMAT;
	for (size_t i = 0; i < nbytes; i++)
		out[i] = 0;
	for (size_t k = 0; k < slen; k++) {
		int v = nixbase32_value((unsigned char)s[slen - 1 - k]);
		if (v < 0)
			return -CIX_EFORMAT;
		size_t b = k * 5, i = b / 8, j = b % 8;
		out[i] |= (unsigned char)(v << j);
		unsigned carry = (unsigned)v >> (8 - j);
		if (i + 1 < nbytes)
			out[i + 1] |= (unsigned char)carry;
		else if (carry)
			return -CIX_EFORMAT; /* bits beyond the hash must be zero */
	}
	return (int)nbytes;
}

static const char hexdigits[] = "0123456789abcdef";

void cix_base16_encode(struct strbuf *sb, const unsigned char *in, size_t n)
{
	strbuf_grow(sb, 2 * n);
	char *p = sb->buf + sb->len;   /* (not sb->len: stores through it would alias) */
	for (size_t i = 0; i < n; i++) {
		*p++ = hexdigits[in[i] >> 4];
		*p++ = hexdigits[in[i] & 15];
	}
	*p = '\0';
	sb->len += 2 * n;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cix_base16_decode(const char *s, size_t slen, unsigned char *out, size_t outmax)
{
	if (slen % 2 || slen / 2 > outmax)
		return -CIX_EFORMAT;
	for (size_t i = 0; i < slen / 2; i++) {
		int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -CIX_EFORMAT;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return (int)(slen / 2);
}

static const char b64chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t cix_base64_len(size_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

void cix_base64_encode(struct strbuf *sb, const unsigned char *in, size_t n)
{
	strbuf_grow(sb, cix_base64_len(n));
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		sb->buf[sb->len++] = b64chars[v >> 18 & 63];
		sb->buf[sb->len++] = b64chars[v >> 12 & 63];
		sb->buf[sb->len++] = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
		sb->buf[sb->len++] = i + 2 < n ? b64chars[v & 63] : '=';
	}
	sb->buf[sb->len] = '\0';
}

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int cix_base64_decode(const char *s, size_t slen, unsigned char *out, size_t outmax)
{
	size_t o = 0;
	if (slen % 4)
		return -CIX_EFORMAT;
	for (size_t i = 0; i < slen; i += 4) {
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)s[i + k];
			if (c == '=' && i + 4 == slen && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad) /* data after padding */
				return -CIX_EFORMAT;
			if ((v[k] = b64val(c)) < 0)
				return -CIX_EFORMAT;
		}
		unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
		/* Canonical form only: the bits dropped by padding must be zero. */
		if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
			return -CIX_EFORMAT;
		if (o + 3 - (size_t)pad > outmax)
			return -CIX_EFORMAT;
		out[o++] = (unsigned char)(w >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(w >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)w;
	}
	return (int)o;
}

static const char b32chars[] = "abcdefghijklmnopqrstuvwxyz234567";

void cix_base32_encode(struct strbuf *sb, const unsigned char *in, size_t n)
{
	size_t nchars = (n * 8 + 4) / 5;
	strbuf_grow(sb, nchars);
	for (size_t k = 0; k < nchars; k++) {
		size_t b = k * 5, i = b / 8, j = b % 8;
		unsigned w = (unsigned)in[i] << 8;
		if (i + 1 < n)
			w |= in[i + 1];
		sb->buf[sb->len++] = b32chars[(w >> (11 - j)) & 31];
	}
	sb->buf[sb->len] = '\0';
}

int cix_base32_decode(const char *s, size_t slen, unsigned char *out, size_t outmax)
{
	size_t o = 0, nbits = 0;
	unsigned acc = 0;
	while (slen && s[slen - 1] == '=')
		slen--;
	for (size_t k = 0; k < slen; k++) {
		int c = tolower((unsigned char)s[k]), v;
		if (c >= 'a' && c <= 'z')
			v = c - 'a';
		else if (c >= '2' && c <= '7')
			v = c - '2' + 26;
		else
			return -CIX_EFORMAT;
		acc = (acc << 5 | (unsigned)v) & 0x1fff;
		nbits += 5;
		if (nbits >= 8) {
			if (o >= outmax)
				return -CIX_EFORMAT;
			out[o++] = (unsigned char)(acc >> (nbits - 8));
			nbits -= 8;
		}
	}
	/* Leftover bits must be fewer than a byte and all zero. */
	if (nbits >= 5 || (acc & ((1u << nbits) - 1)))
		return -CIX_EFORMAT;
	return (int)o;
}
