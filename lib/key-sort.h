/* key-sort.h - sorting by a 64-bit key in linear time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_KEY_SORT_H
#define CIX_KEY_SORT_H

#include <stddef.h>
#include <stdint.h>

/* A key and the place of what it stands for. */
struct cix_keyed {
	uint64_t key;
	size_t at;
};

/*
 * Sort a[0..n) by key, ascending; of equal keys, the first stays first.
 * A comparison sort costs n log n and, at 100,000 entries, a miss per
 * comparison; this one passes over the array once per 11 bits in which
 * the keys differ (ids: two or three; hash parts: six).
 */
void cix_keyed_sort(struct cix_keyed *a, size_t n);

/*
 * The places of v[0..n) in strcmp's order (a new array, n + 1 long): keyed
 * by the eight bytes after the prefix all share (store paths: their hash
 * parts), and only runs of equal keys compared as strings.
 */
struct cix_keyed *cix_str_order(const char *const *v, size_t n);

/*
 * Pairs (from, to) of places below n grouped as lists: the tos of f are
 * (*list)[(*at)[f] .. (*at)[f + 1]), ascending, each once; *at has n + 1
 * entries. Counted into buckets by from, each bucket sorted on its own: a
 * graph's edges in linear time when nodes have a few each.
 */
void cix_pairs_group(const size_t (*pairs)[2], size_t np, size_t n, size_t **at,
		     size_t **list);

#endif
