/* str-index.h - find a string's place in an array in constant time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_STR_INDEX_H
#define CIX_STR_INDEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * A hash table over an array of strings that the caller keeps: where the
 * binary search of a sorted array would touch log2(n) strings, each a
 * cache miss at 100,000 store paths, a lookup here touches one slot and
 * (almost always) one string.
 */
struct cix_str_index {
	const char *const *keys;
	struct cix_str_slot { uint32_t hash, at; } *slots;  /* at: index + 1, 0 empty */
	size_t mask;
};

/*
 * The first eight bytes of s (fewer if it is shorter, then zeros) as a
 * big-endian number: two keys compare as strcmp compares the strings'
 * beginnings, so a sort can compare numbers first and strings on a tie,
 * without a cache miss for most comparisons.
 */
uint64_t cix_str_key(const char *s);

/* Index keys[0..n) (n < 2^31); of equal keys, the first is found. */
void cix_str_index_build(struct cix_str_index *x, const char *const *keys, size_t n);
/*
 * keys[0..n) indexed, keys[n - 1] the one new since the last build or
 * push (the array may have moved); x zeroed or built before. The table
 * doubles as it fills: n pushes cost O(n).
 */
void cix_str_index_push(struct cix_str_index *x, const char *const *keys, size_t n);
/* The index of key in keys, or -1. */
long cix_str_index_find(const struct cix_str_index *x, const char *key);
void cix_str_index_release(struct cix_str_index *x);

#endif
