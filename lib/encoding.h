/* encoding.h - nix-base32, base16, base64 and RFC 4648 base32 */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_ENCODING_H
#define CIX_ENCODING_H

#include <stddef.h>
#include "strbuf.h"

/*
 * Encoders append to sb. Decoders are strict: they return the number of
 * bytes written to out, or -CIX_EFORMAT on any invalid character, wrong
 * length, or non-zero padding/overflow bits; out must hold
 * cix_*_decoded_len() bytes.
 */

/* Nix's base-32: alphabet 0-9a-z without e o t u, little-endian bit order. */
extern const char cix_nixbase32_chars[33];
size_t cix_nixbase32_len(size_t nbytes);
void cix_nixbase32_encode(struct strbuf *sb, const unsigned char *in, size_t n);
/* Decode exactly nbytes from the string s of length cix_nixbase32_len(nbytes). */
int cix_nixbase32_decode(const char *s, size_t slen, unsigned char *out, size_t nbytes);

/* Lowercase hexadecimal; the decoder also accepts uppercase. */
void cix_base16_encode(struct strbuf *sb, const unsigned char *in, size_t n);
int cix_base16_decode(const char *s, size_t slen, unsigned char *out, size_t outmax);

/* Standard base64 with '=' padding (RFC 4648 section 4). */
size_t cix_base64_len(size_t nbytes);
void cix_base64_encode(struct strbuf *sb, const unsigned char *in, size_t n);
int cix_base64_decode(const char *s, size_t slen, unsigned char *out, size_t outmax);

/*
 * RFC 4648 base32 bit order and alphabet, printed as Guix's
 * bytevector->base32-string does: lowercase, no '=' padding. The decoder
 * accepts either case and optional trailing '=' padding.
 */
void cix_base32_encode(struct strbuf *sb, const unsigned char *in, size_t n);
int cix_base32_decode(const char *s, size_t slen, unsigned char *out, size_t outmax);

#endif
