/* key-sort.c - sorting by a 64-bit key in linear time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "key-sort.h"
#include "str-index.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 11
#define DIGITS ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define BUCKETS (1u << DIGIT_BITS)
#define SMALL 64   /* below this, insertion sort */

static void insertion_sort(struct cix_keyed *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct cix_keyed x = a[i];
		size_t j = i;
		for (; j && a[j - 1].key > x.key; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static unsigned digit(uint64_t key, unsigned d)
{
	return (unsigned)(key >> (d * DIGIT_BITS)) & (BUCKETS - 1);
}

/*
 * Least significant digit first: each pass is a stable counting sort by
 * one digit, so the order of the earlier digits survives within each
 * bucket. Digits in which every key agrees are skipped; all the counts
 * are taken in one pass.
 */
void cix_keyed_sort(struct cix_keyed *a, size_t n)
{
	if (n < SMALL) {
		insertion_sort(a, n);
		return;
	}
	size_t (*count)[BUCKETS] = xcalloc(DIGITS, sizeof(*count));
	uint64_t differ = 0;
	for (size_t i = 0; i < n; i++) {
		differ |= a[i].key ^ a[0].key;
		for (unsigned d = 0; d < DIGITS; d++)
			count[d][digit(a[i].key, d)]++;
	}
	struct cix_keyed *from = a, *to = xcalloc(n, sizeof(*to));
	for (unsigned d = 0; d < DIGITS; d++) {
		if (!digit(differ, d))
			continue;
		size_t at = 0;
		for (unsigned b = 0; b < BUCKETS; b++) {
			size_t c = count[d][b];
			count[d][b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[d][digit(from[i].key, d)]++] = from[i];
		struct cix_keyed *t = from;
		from = to;
		to = t;
	}
	if (from != a) {
		memcpy(a, from, n * sizeof(*a));
		to = from;
	}
	free(to);
	free(count);
}

static int cmp_place(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* A node's few places: insertion sort, where qsort's set-up would cost more. */
static void sort_places(size_t *a, size_t n)
{
	if (n > 16) {
		qsort(a, n, sizeof(*a), cmp_place);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		size_t x = a[i], j = i;
		for (; j && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

void cix_pairs_group(const size_t (*pairs)[2], size_t np, size_t n, size_t **at_out,
		     size_t **list_out)
{
	size_t *at = xcalloc(n + 2, sizeof(*at)), *to = xcalloc(np + 1, sizeof(*to));
	size_t *list = xcalloc(np + 1, sizeof(*list)), *list_at = xcalloc(n + 1, sizeof(*list_at));
	size_t m = 0;
	for (size_t i = 0; i < np; i++)
		at[pairs[i][0] + 2]++;
	for (size_t i = 2; i < n + 2; i++)
		at[i] += at[i - 1];
	for (size_t i = 0; i < np; i++)
		to[at[pairs[i][0] + 1]++] = pairs[i][1];
	/* at[f + 1] is now the end of f's bucket, at[f] its start */
	for (size_t f = 0; f < n; f++) {
		size_t *b = to + at[f], nr = at[f + 1] - at[f];
		sort_places(b, nr);
		list_at[f] = m;
		for (size_t e = 0; e < nr; e++)
			if (m == list_at[f] || list[m - 1] != b[e])
				list[m++] = b[e];
	}
	list_at[n] = m;
	free(to);
	free(at);
	*at_out = list_at;
	*list_out = list;
}

/* The length of the prefix that every string of v[0..n) shares. */
static size_t shared_prefix(const char *const *v, size_t n)
{
	size_t len = n ? strlen(v[0]) : 0;
	for (size_t i = 1; len && i < n; i++) {
		size_t k = 0;
		while (k < len && v[i][k] == v[0][k])
			k++;
		len = k;
	}
	return len;
}

static int cmp_at(const void *a, const void *b, void *v)
{
	const char *const *s = v;
	return strcmp(s[((const struct cix_keyed *)a)->at], s[((const struct cix_keyed *)b)->at]);
}

struct cix_keyed *cix_str_order(const char *const *v, size_t n)
{
	struct cix_keyed *k = xcalloc(n + 1, sizeof(*k));
	size_t skip = shared_prefix(v, n);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct cix_keyed){ cix_str_key(v[i] + skip), i };
	cix_keyed_sort(k, n);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && k[j].key == k[i].key; j++)
			;
		if (j - i > 1)
			qsort_r(k + i, j - i, sizeof(*k), cmp_at, (void *)v);
	}
	return k;
}
