/* refscan.c - find which store path hash parts occur in a byte stream */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "refscan.h"
#include "env.h"
#include "nar.h"
#include "quote.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * On x86-64, blocks are classified 16 at a time with SSE2 (always there),
 * or 64 at a time with AVX2 when the processor has it (checked at run
 * time, unless CIX_REFSCAN_NO_AVX2 is set in the environment, which the
 * tests use to cover the SSE2 path). Compiling with CIX_REFSCAN_SCALAR
 * defined forces the portable path.
 */
#if defined(__SSE2__) && !defined(CIX_REFSCAN_SCALAR)
#define USE_SSE2 1
#include <emmintrin.h>
#if defined(__x86_64__) && defined(__GNUC__)
#define USE_AVX2 1
#include <immintrin.h>
#endif
#endif

/*
 * Anchors. Every occurrence [p, p+32) of a hash part contains exactly one
 * or two whole 16-byte blocks starting at a stream offset that is a
 * multiple of 16; the first of them starts at b = p + o with o in 0..15.
 * So instead of looking at each of the 32-byte windows of the stream, the
 * scanner looks only at its aligned blocks (one lookup per 16 bytes), and
 * indexes, for every candidate, its 16 slices [o, o+16). A block holding a
 * byte outside the base-32 alphabet cannot be part of an occurrence and is
 * skipped after one vector test; others are hashed and tested against a
 * small Bloom-style filter (three bits in one 64-bit word), and only on a
 * filter hit are the slices sharing the block's bucket compared, each
 * implying a start p = b - o whose 32 bytes are compared whole.
 *
 * Streaming. A scan of one buffer finds the occurrences lying wholly
 * inside it (anchors are aligned on absolute stream offsets). Occurrences
 * straddling two feeds are found by scanning the last 31 bytes of the
 * stream so far glued to the first 31 bytes of the new data; reporting an
 * occurrence twice is harmless, since the result is a set.
 */

#define HLEN CIX_REFSCAN_HASH_LEN
#define BLOCK 16
#define NSLICE BLOCK                 /* slices per candidate, o = 0..15 */
#define FILTER_BITS_PER_SLICE 16
#define FILTER_MAX_WORDS (1u << 18)  /* 2 MiB; the word index has 18 bits */
#define PREFETCH 2048                /* bytes ahead of the scan */

struct cix_refscan {
	size_t n;                     /* candidates as given */
	uint32_t *id;                 /* candidate -> distinct hash part */
	size_t ndistinct, nfound;
	unsigned char (*part)[HLEN];  /* distinct hash parts */
	unsigned char *found;         /* per distinct part */

	uint64_t *filter;
	uint64_t fmask;               /* filter words - 1 */
	uint32_t *bucket;             /* bmask + 2 offsets into slot */
	uint64_t *slot;               /* tag << 32 | part << 4 | offset */
	uint64_t bmask;               /* buckets - 1 */

	int avx2;                     /* the processor has AVX2 */
	uint64_t pos;                 /* stream offset of the next byte */
	unsigned char tail[HLEN - 1]; /* the stream's last bytes */
	size_t tail_len;
};

#define B32(c) [c] = 1
static const unsigned char is_base32[256] = {
	B32('0'), B32('1'), B32('2'), B32('3'), B32('4'), B32('5'), B32('6'),
	B32('7'), B32('8'), B32('9'), B32('a'), B32('b'), B32('c'), B32('d'),
	B32('f'), B32('g'), B32('h'), B32('i'), B32('j'), B32('k'), B32('l'),
	B32('m'), B32('n'), B32('p'), B32('q'), B32('r'), B32('s'), B32('v'),
	B32('w'), B32('x'), B32('y'), B32('z'),
};
#undef B32

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * A hash of 16 bytes. Base-32 bytes carry 5 bits each; the multiplications
 * spread them over the high bits, the final step brings those back down.
 * Bits 0-17 choose three filter bits, 18-45 the bucket, 46-63 the filter
 * word; the low 32 bits are kept in the table as a tag.
 */
static inline uint64_t slice_hash(const unsigned char *p)
{
	uint64_t h = load64(p) * 0x9e3779b97f4a7c15ull +
		     load64(p + 8) * 0xc2b2ae3d27d4eb4full;
	return (h ^ (h >> 29)) * 0x94d049bb133111ebull;
}

static inline uint64_t filter_bits(uint64_t h)
{
	return (UINT64_C(1) << (h & 63)) | (UINT64_C(1) << ((h >> 6) & 63)) |
	       (UINT64_C(1) << ((h >> 12) & 63));
}

static inline uint64_t filter_word(const struct cix_refscan *s, uint64_t h)
{
	return (h >> 46) & s->fmask;
}

static inline uint64_t bucket_of(const struct cix_refscan *s, uint64_t h)
{
	return (h >> 18) & s->bmask;
}

/* Whether the 16 bytes at p are all in the nix-base32 alphabet. */
static inline int block_base32(const unsigned char *p)
{
#ifdef USE_SSE2
	/*
	 * Digits, or a-z without e o t u. Unsigned range tests via
	 * min/max: x is in [lo, hi] iff max(x, lo) == x and min(x, hi) == x.
	 */
	__m128i x = _mm_loadu_si128((const __m128i *)p);
	__m128i dig = _mm_and_si128(
		_mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8('0')), x),
		_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8('9')), x));
	__m128i low = _mm_and_si128(
		_mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8('a')), x),
		_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8('z')), x));
	__m128i bad = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('e')),
			     _mm_cmpeq_epi8(x, _mm_set1_epi8('o'))),
		_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('t')),
			     _mm_cmpeq_epi8(x, _mm_set1_epi8('u'))));
	__m128i good = _mm_andnot_si128(bad, _mm_or_si128(dig, low));
	return _mm_movemask_epi8(good) == 0xffff;
#else
	for (int i = BLOCK - 1; i >= 0; i--)
		if (!is_base32[p[i]])
			return 0;
	return 1;
#endif
}

/* The block at buf + k passed the filter: compare the slices it may be. */
static __attribute__((noinline)) void
check_block(struct cix_refscan *s, const unsigned char *buf, size_t len,
	    size_t k, uint64_t h)
{
	uint64_t b = bucket_of(s, h);
	for (uint32_t j = s->bucket[b]; j < s->bucket[b + 1]; j++) {
		uint64_t e = s->slot[j];
		size_t d = (uint32_t)e >> 4, o = e & 15;
		if ((uint32_t)(e >> 32) != (uint32_t)h || o > k ||
		    k - o > len - HLEN || s->found[d])
			continue;
		if (!memcmp(buf + k - o, s->part[d], HLEN)) {
			s->found[d] = 1;
			s->nfound++;
		}
	}
}

static inline void lookup(struct cix_refscan *s, const unsigned char *buf,
			  size_t len, size_t k)
{
	uint64_t h = slice_hash(buf + k), m = filter_bits(h);
	if ((s->filter[filter_word(s, h)] & m) == m)
		check_block(s, buf, len, k, h);
}

#ifdef USE_AVX2
/*
 * Set membership by nibbles: the base-32 bytes have high nibble 3, 6 or 7;
 * HI gives each of those a bit, LO the bits of the high nibbles with which
 * the low nibble makes an alphabet byte. A byte is in the alphabet iff
 * LO[low] & HI[high] is not 0 (bytes >= 0x80 have HI 0).
 */
#define NIBBLE_LO 5, 7, 7, 7, 3, 1, 7, 7, 7, 7, 6, 2, 2, 2, 2, 0
#define NIBBLE_HI 0, 0, 0, 1, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0

__attribute__((target("avx2,bmi2")))
static inline uint32_t outside_avx2(__m256i x)
{
	const __m256i lo = _mm256_setr_epi8(NIBBLE_LO, NIBBLE_LO);
	const __m256i hi = _mm256_setr_epi8(NIBBLE_HI, NIBBLE_HI);
	const __m256i nib = _mm256_set1_epi8(0x0f);
	__m256i l = _mm256_shuffle_epi8(lo, _mm256_and_si256(x, nib));
	__m256i h = _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib));
	__m256i in = _mm256_and_si256(l, h);
	return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(in, _mm256_setzero_si256()));
}

/* Blocks from buf + k, 4 at a time; returns where it stopped. */
__attribute__((target("avx2,bmi2")))
static size_t scan_avx2(struct cix_refscan *s, const unsigned char *buf,
			size_t len, size_t k)
{
	const uint64_t ones = UINT64_C(0x0001000100010001);
	for (; len - k >= 4 * BLOCK; k += 4 * BLOCK) {
		/* a bit per byte outside the alphabet; a block is worth a
		 * look iff its 16 bits are all 0 */
		if (len - k > PREFETCH)
			__builtin_prefetch(buf + k + PREFETCH);
		uint64_t out = outside_avx2(_mm256_loadu_si256((const __m256i *)(buf + k))) |
			(uint64_t)outside_avx2(_mm256_loadu_si256((const __m256i *)(buf + k + 32))) << 32;
		if (!((out - ones) & ~out & (ones << 15)))
			continue;
		for (unsigned j = 0; j < 4; j++)
			if (!(out >> (16 * j) & 0xffff))
				lookup(s, buf, len, k + BLOCK * j);
	}
	return k;
}
#endif

/* Find the occurrences lying wholly in buf, which starts at offset at. */
static void scan(struct cix_refscan *s, const unsigned char *buf, size_t len,
		 uint64_t at)
{
	size_t k;

	if (len < HLEN)
		return;
	k = (size_t)((BLOCK - at % BLOCK) % BLOCK);
#ifdef USE_AVX2
	if (s->avx2)
		k = scan_avx2(s, buf, len, k);
#endif
	for (; k <= len - BLOCK; k += BLOCK) {
		if (len - k > PREFETCH)
			__builtin_prefetch(buf + k + PREFETCH);
		if (block_base32(buf + k))
			lookup(s, buf, len, k);
	}
}

void cix_refscan_feed(struct cix_refscan *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	if (!len)
		return;
	if (s->nfound == s->ndistinct) {
		s->pos += len; /* nothing left to find */
		return;
	}
	if (s->tail_len) {
		unsigned char glue[2 * (HLEN - 1)];
		size_t head = len < HLEN - 1 ? len : HLEN - 1;
		memcpy(glue, s->tail, s->tail_len);
		memcpy(glue + s->tail_len, p, head);
		scan(s, glue, s->tail_len + head, s->pos - s->tail_len);
	}
	scan(s, p, len, s->pos);

	if (len >= HLEN - 1) {
		memcpy(s->tail, p + len - (HLEN - 1), HLEN - 1);
		s->tail_len = HLEN - 1;
	} else {
		size_t keep = s->tail_len + len > HLEN - 1 ? HLEN - 1 - len
							    : s->tail_len;
		memmove(s->tail, s->tail + s->tail_len - keep, keep);
		memcpy(s->tail + keep, p, len);
		s->tail_len = keep + len;
	}
	s->pos += len;
}

int cix_refscan_sink(void *opaque, const void *data, size_t len)
{
	cix_refscan_feed(opaque, data, len);
	return 0;
}

int cix_refscan_found(const struct cix_refscan *s, size_t i)
{
	if (i >= s->n)
		BUG("refscan candidate %zu out of range (%zu)", i, s->n);
	return s->found[s->id[i]];
}

size_t cix_refscan_nfound(const struct cix_refscan *s)
{
	return s->nfound;
}

int cix_refscan_path(struct cix_refscan *s, const char *path,
		     struct cix_err *err)
{
	return cix_nar_dump(path, cix_refscan_sink, s, err);
}

/* ---- Construction ---- */

struct cand {
	unsigned char part[HLEN];
	uint32_t idx;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = memcmp(x->part, y->part, HLEN);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

static int valid_part(const char *h)
{
	size_t i;
	for (i = 0; i < HLEN; i++)
		if (!is_base32[(unsigned char)h[i]])
			return 0; /* also stops at the NUL of a short string */
	return h[i] == '\0';
}

static void build_index(struct cix_refscan *s)
{
	uint64_t nslices = (uint64_t)s->ndistinct * NSLICE;
	uint64_t fwords = pow2_at_least(nslices * FILTER_BITS_PER_SLICE / 64);
	uint64_t nbuckets = pow2_at_least(nslices);

	if (fwords > FILTER_MAX_WORDS)
		fwords = FILTER_MAX_WORDS;
	s->filter = xcalloc(fwords, sizeof(*s->filter));
	s->fmask = fwords - 1;
	s->bucket = xcalloc(nbuckets + 1, sizeof(*s->bucket));
	s->slot = xmalloc((nslices ? nslices : 1) * sizeof(*s->slot));
	s->bmask = nbuckets - 1;

	/* Count per bucket, then place each slice by counting sort. */
	for (size_t d = 0; d < s->ndistinct; d++)
		for (unsigned o = 0; o < NSLICE; o++) {
			uint64_t h = slice_hash(s->part[d] + o);
			s->filter[filter_word(s, h)] |= filter_bits(h);
			s->bucket[bucket_of(s, h)]++;
		}
	for (uint64_t b = 1; b < nbuckets; b++)
		s->bucket[b] += s->bucket[b - 1];
	s->bucket[nbuckets] = (uint32_t)nslices;
	for (size_t d = 0; d < s->ndistinct; d++)
		for (unsigned o = 0; o < NSLICE; o++) {
			uint64_t h = slice_hash(s->part[d] + o);
			s->slot[--s->bucket[bucket_of(s, h)]] =
				(uint64_t)(uint32_t)h << 32 | (uint32_t)d << 4 | o;
		}
}

struct cix_refscan *cix_refscan_new(const char *const *hash_parts, size_t n,
				    struct cix_err *err)
{
	struct cix_refscan *s;
	struct cand *c;

	if (n > CIX_REFSCAN_MAX) {
		cix_error(err, -CIX_ELIMIT, "too many hash parts to scan for (%zu, at most %u)",
			  n, CIX_REFSCAN_MAX);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char *h = hash_parts[i];
		if (!h) {
			cix_error(err, -CIX_EINVAL, "hash part %zu is missing", i);
			return NULL;
		}
		if (!valid_part(h)) {
			char q[100];
			cix_error(err, -CIX_EINVAL,
				  "invalid hash part '%s': want %d nix-base32 characters",
				  cix_quote(q, sizeof(q), h, strnlen(h, 200)), HLEN);
			return NULL;
		}
	}

	s = xcalloc(1, sizeof(*s));
	s->n = n;
#ifdef USE_AVX2
	s->avx2 = !cix_env(CIX_ENV_REFSCAN_NO_AVX2) &&
		  __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#endif
	s->id = xmalloc((n ? n : 1) * sizeof(*s->id));
	s->part = xmalloc((n ? n : 1) * sizeof(*s->part));
	s->found = xcalloc(n ? n : 1, 1);

	/* Sort the candidates to give equal hash parts one index. */
	c = xmalloc((n ? n : 1) * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		memcpy(c[i].part, hash_parts[i], HLEN);
		c[i].idx = (uint32_t)i;
	}
	qsort(c, n, sizeof(*c), cand_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!i || memcmp(c[i].part, c[i - 1].part, HLEN))
			memcpy(s->part[s->ndistinct++], c[i].part, HLEN);
		s->id[c[i].idx] = (uint32_t)(s->ndistinct - 1);
	}
	free(c);

	build_index(s);
	return s;
}

void cix_refscan_free(struct cix_refscan *s)
{
	if (!s)
		return;
	free(s->id);
	free(s->part);
	free(s->found);
	free(s->filter);
	free(s->bucket);
	free(s->slot);
	free(s);
}
