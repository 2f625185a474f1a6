/* nar-read.c - strict streaming parser of Nix ARchives (hostile input) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "quote.h"
#include "nar-read.h"
#include "hash-pipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The grammar (doc/formats.md §3), every token a padded string:
 *
 *   "nix-archive-1" node
 *   node = "(" "type" ( "regular" ["executable" ""] "contents" <data>
 *                     | "symlink" "target" <target>
 *                     | "directory" {"entry" "(" "name" <n> "node" node ")"} ) ")"
 *
 * The parser accepts exactly this and nothing else: fields in this order
 * only, tags of at most CIX_NAR_MAX_TAG bytes, zero padding, names that are
 * single path components of 1..255 bytes sorted strictly by bytes (as
 * Nix's std::map<std::string>, which also rules out duplicates), targets
 * of 1..4095 bytes without NUL, file sizes below 2^63 and nesting of at
 * most CIX_NAR_MAX_DEPTH. Every bound is checked on the announced length,
 * before anything is read or allocated.
 *
 * It never reads ahead: each read asks the source for exactly the bytes the
 * grammar needs next (a length, a padded token, a chunk of contents), so
 * the bytes after the NAR stay in the source for whoever embeds it.
 */

#define CHUNK_SIZE (256 * 1024)

struct parser {
	cix_source_fn src;
	void *src_opaque;
	const struct cix_nar_visitor *v;
	void *vo;
	struct cix_hash_pipe hash; /* on its own thread for large NARs */
	int hashing;               /* someone wants the hash */
	uint64_t pos;
	unsigned char *chunk;
	size_t chunk_size;
	struct cix_err *err;
};

/* Read n bytes into buf, adding them to the hash if hashed. */
static int rd_hashed(struct parser *p, void *buf, size_t n, int hashed)
{
	unsigned char *b = buf;
	while (n) {
		ssize_t k = p->src(p->src_opaque, b, n);
		if (k < 0)
			return cix_error_errno(p->err, (int)k,
					       "cannot read NAR at byte %llu",
					       (unsigned long long)p->pos);
		if (k == 0)
			return cix_error(p->err, -CIX_EFORMAT,
					 "NAR is truncated at byte %llu",
					 (unsigned long long)p->pos);
		if ((size_t)k > n)
			return cix_error(p->err, -CIX_EINVAL,
					 "NAR source returned more than asked");
		if (hashed)
			cix_hash_pipe_write(&p->hash, b, (size_t)k);
		p->pos += (uint64_t)k;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int rd(struct parser *p, void *buf, size_t n)
{
	return rd_hashed(p, buf, n, p->hashing);
}

/*
 * Where the next chunk of a file's contents (at most n bytes) is read:
 * once the hash runs on its thread, straight into the hash's buffer, which
 * saves copying every byte of contents there.
 */
static unsigned char *contents_buf(struct parser *p, size_t *n, int *in_pipe)
{
	*in_pipe = p->hashing && p->hash.buf;
	if (*in_pipe) {
		size_t room;
		unsigned char *b = cix_hash_pipe_room(&p->hash, &room);
		if (*n > room)
			*n = room;
		return b;
	}
	/* As large as needed: a small file needs no large (mmap'd) buffer. */
	if (p->chunk_size < *n) {
		free(p->chunk);
		p->chunk = xmalloc(*n);
		p->chunk_size = *n;
	}
	return p->chunk;
}

static int rd_u64(struct parser *p, uint64_t *v)
{
	unsigned char b[8];
	int r = rd(p, b, 8);
	*v = r ? 0 : cix_get_u64le(b);
	return r;
}

static int rd_pad(struct parser *p, uint64_t len)
{
	unsigned char b[8];
	size_t n = (size_t)((8 - len % 8) % 8);
	int r = rd(p, b, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return cix_error(p->err, -CIX_EFORMAT,
					 "non-zero padding in NAR at byte %llu",
					 (unsigned long long)(p->pos - n + i));
	return 0;
}

/*
 * Read a string of at most max bytes into buf (which holds max + 1), NUL
 * terminated; what names it in messages.
 */
static int rd_str(struct parser *p, char *buf, size_t max, size_t *len,
		  const char *what)
{
	uint64_t n;
	int r = rd_u64(p, &n);
	if (r < 0)
		return r;
	if (n > max)
		return cix_error(p->err, -CIX_ELIMIT,
				 "NAR %s of %llu bytes exceeds the limit of %zu bytes",
				 what, (unsigned long long)n, max);
	if ((r = rd(p, buf, (size_t)n)) < 0 || (r = rd_pad(p, n)) < 0)
		return r;
	buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

struct tag {
	char s[CIX_NAR_MAX_TAG + 1];
	size_t len;
};

static int rd_tag(struct parser *p, struct tag *t)
{
	return rd_str(p, t->s, CIX_NAR_MAX_TAG, &t->len, "tag");
}

static int is_tag(const struct tag *t, const char *want)
{
	return t->len == strlen(want) && !memcmp(t->s, want, t->len);
}

static int bad_tag(struct parser *p, const struct tag *t, const char *want)
{
	char q[4 * CIX_NAR_MAX_TAG + 8];
	return cix_error(p->err, -CIX_EFORMAT,
			 "bad NAR tag '%s' at byte %llu, expected %s",
			 cix_quote(q, sizeof(q), t->s, t->len),
			 (unsigned long long)p->pos, want);
}

static int expect(struct parser *p, const char *want)
{
	struct tag t;
	int r = rd_tag(p, &t);
	if (r < 0)
		return r;
	if (!is_tag(&t, want)) {
		char w[CIX_NAR_MAX_TAG + 3];
		snprintf(w, sizeof(w), "'%s'", want);
		return bad_tag(p, &t, w);
	}
	return 0;
}

/* std::map<std::string> order: bytes, then the shorter first. */
static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

static int check_name(struct parser *p, const char *name, size_t len)
{
	char q[4 * CIX_NAR_MAX_NAME + 8];
	if (len == 0)
		return cix_error(p->err, -CIX_EFORMAT, "empty NAR entry name");
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.') ||
	    memchr(name, '/', len) || memchr(name, '\0', len))
		return cix_error(p->err, -CIX_EFORMAT, "invalid NAR entry name '%s'",
				 cix_quote(q, sizeof(q), name, len));
	return 0;
}

#define V(p, ev, ...) ((p)->v && (p)->v->ev ? (p)->v->ev((p)->vo, __VA_ARGS__) : 0)

static int parse_node(struct parser *p, int depth);

static int parse_regular(struct parser *p)
{
	struct tag t;
	uint64_t size, left;
	int exec = 0, r;

	if ((r = rd_tag(p, &t)) < 0)
		return r;
	if (is_tag(&t, "executable")) {
		uint64_t n;
		if ((r = rd_u64(p, &n)) < 0)
			return r;
		if (n != 0)
			return cix_error(p->err, -CIX_EFORMAT,
					 "NAR 'executable' marker has a non-empty value");
		exec = 1;
		if ((r = rd_tag(p, &t)) < 0)
			return r;
	}
	if (!is_tag(&t, "contents"))
		return bad_tag(p, &t, exec ? "'contents'" : "'executable' or 'contents'");
	if ((r = rd_u64(p, &size)) < 0)
		return r;
	if (size > (uint64_t)INT64_MAX)
		return cix_error(p->err, -CIX_ELIMIT,
				 "NAR file size %llu is too large",
				 (unsigned long long)size);
	if ((r = V(p, file_start, exec, size, p->err)) < 0)
		return r;
	for (left = size; left; ) {
		size_t n = left < CHUNK_SIZE ? (size_t)left : CHUNK_SIZE;
		int in_pipe;
		unsigned char *b = contents_buf(p, &n, &in_pipe);
		if ((r = rd_hashed(p, b, n, p->hashing && !in_pipe)) < 0)
			return r;
		if (in_pipe)
			cix_hash_pipe_commit(&p->hash, n);
		if ((r = V(p, file_data, b, n, p->err)) < 0)
			return r;
		left -= n;
	}
	if ((r = rd_pad(p, size)) < 0 || (r = V(p, file_end, p->err)) < 0)
		return r;
	return expect(p, ")");
}

static int parse_symlink(struct parser *p)
{
	char target[CIX_NAR_MAX_TARGET + 1];
	size_t len;
	int r;

	if ((r = expect(p, "target")) < 0 ||
	    (r = rd_str(p, target, CIX_NAR_MAX_TARGET, &len, "symlink target")) < 0)
		return r;
	if (!len)
		return cix_error(p->err, -CIX_EFORMAT, "empty NAR symlink target");
	if (memchr(target, '\0', len))
		return cix_error(p->err, -CIX_EFORMAT,
				 "NAR symlink target contains a NUL byte");
	if ((r = V(p, symlink, target, len, p->err)) < 0)
		return r;
	return expect(p, ")");
}

static int parse_directory(struct parser *p, int depth)
{
	char prev[CIX_NAR_MAX_NAME + 1], name[CIX_NAR_MAX_NAME + 1];
	size_t prevlen = 0, len;
	int have_prev = 0, r;
	struct tag t;

	if ((r = V(p, dir_start, p->err)) < 0)
		return r;
	for (;;) {
		if ((r = rd_tag(p, &t)) < 0)
			return r;
		if (is_tag(&t, ")"))
			break;
		if (!is_tag(&t, "entry"))
			return bad_tag(p, &t, "'entry' or ')'");
		if (depth >= CIX_NAR_MAX_DEPTH)
			return cix_error(p->err, -CIX_ELIMIT,
					 "NAR nests directories more than %d deep",
					 CIX_NAR_MAX_DEPTH);
		if ((r = expect(p, "(")) < 0 || (r = expect(p, "name")) < 0 ||
		    (r = rd_str(p, name, CIX_NAR_MAX_NAME, &len, "entry name")) < 0 ||
		    (r = check_name(p, name, len)) < 0)
			return r;
		if (have_prev) {
			int c = name_cmp(name, len, prev, prevlen);
			char q1[4 * CIX_NAR_MAX_NAME + 8], q2[4 * CIX_NAR_MAX_NAME + 8];
			if (c == 0)
				return cix_error(p->err, -CIX_EFORMAT,
						 "duplicate NAR entry '%s'",
						 cix_quote(q1, sizeof(q1), name, len));
			if (c < 0)
				return cix_error(p->err, -CIX_EFORMAT,
						 "NAR directory is not sorted ('%s' after '%s')",
						 cix_quote(q1, 200, name, len),
						 cix_quote(q2, 200, prev, prevlen));
		}
		if ((r = expect(p, "node")) < 0 ||
		    (r = V(p, entry, name, len, p->err)) < 0 ||
		    (r = parse_node(p, depth + 1)) < 0 ||
		    (r = expect(p, ")")) < 0)
			return r;
		memcpy(prev, name, len + 1);
		prevlen = len;
		have_prev = 1;
	}
	return V(p, dir_end, p->err);
}

static int parse_node(struct parser *p, int depth)
{
	struct tag t;
	int r;

	if ((r = expect(p, "(")) < 0 || (r = expect(p, "type")) < 0 ||
	    (r = rd_tag(p, &t)) < 0)
		return r;
	if (is_tag(&t, "regular"))
		return parse_regular(p);
	if (is_tag(&t, "symlink"))
		return parse_symlink(p);
	if (is_tag(&t, "directory"))
		return parse_directory(p, depth);
	return bad_tag(p, &t, "'regular', 'symlink' or 'directory'");
}

int cix_nar_parse(cix_source_fn src, void *src_opaque,
		  const struct cix_nar_visitor *v, void *v_opaque,
		  struct cix_hash *hash, uint64_t *size, struct cix_err *err)
{
	static const char magic[] = "nix-archive-1";
	struct parser p = {
		.src = src, .src_opaque = src_opaque, .v = v, .vo = v_opaque,
		.err = err, .hashing = hash != NULL,
	};
	unsigned char m[16];
	uint64_t n;
	int r;

	cix_err_clear(err);
	cix_hash_pipe_init(&p.hash, CIX_HASH_SHA256);
	r = rd_u64(&p, &n);
	if (!r && n != sizeof(magic) - 1)
		r = cix_error(err, -CIX_EFORMAT, "not a NAR (bad magic)");
	if (!r)
		r = rd(&p, m, sizeof(m));
	if (!r && (memcmp(m, magic, sizeof(magic) - 1) || m[13] || m[14] || m[15]))
		r = cix_error(err, -CIX_EFORMAT, "not a NAR (bad magic)");
	if (!r)
		r = parse_node(&p, 0);
	free(p.chunk);
	if (r < 0) {
		cix_hash_pipe_abort(&p.hash);
		if (err && !err->msg[0])
			cix_error(err, r, "invalid NAR: %s", cix_strerror(r));
		return r;
	}
	cix_hash_pipe_final(&p.hash, hash, NULL);
	if (size)
		*size = p.pos;
	return 0;
}

int cix_nar_check(cix_source_fn src, void *opaque,
		  struct cix_hash *hash, uint64_t *size, struct cix_err *err)
{
	return cix_nar_parse(src, opaque, NULL, NULL, hash, size, err);
}
