/* str-index.c - find a string's place in an array in constant time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "str-index.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes at a time with a multiply-xorshift mix: store paths differ in their hash part. */
static uint32_t str_hash(const char *s)
{
	size_t len = strlen(s);
	uint64_t h = 0x9e3779b97f4a7c15u ^ len, w;
	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
	return (uint32_t)(h ^ h >> 29);
}

uint64_t cix_str_key(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t key = 0;
	size_t j = 0;
	for (; j < 8 && p[j]; j++)
		key = key << 8 | p[j];
	return j ? key << 8 * (8 - j) : 0;
}

/* keys[i] into the table (the table has room); a key already there keeps its first place. */
static void insert(struct cix_str_index *x, size_t i)
{
	uint32_t h = str_hash(x->keys[i]);
	size_t k = h & x->mask;
	for (; x->slots[k].at; k = (k + 1) & x->mask)
		if (x->slots[k].hash == h && !strcmp(x->keys[x->slots[k].at - 1], x->keys[i]))
			return;
	x->slots[k] = (struct cix_str_slot){ h, (uint32_t)(i + 1) };
}

void cix_str_index_build(struct cix_str_index *x, const char *const *keys, size_t n)
{
	size_t size = 16;
	while (size < 2 * n)
		size *= 2;
	x->keys = keys;
	x->mask = size - 1;
	x->slots = xcalloc(size, sizeof(*x->slots));
	for (size_t i = 0; i < n; i++)
		insert(x, i);
}

void cix_str_index_push(struct cix_str_index *x, const char *const *keys, size_t n)
{
	if (!x->slots || 2 * n > x->mask + 1) {
		free(x->slots);
		cix_str_index_build(x, keys, n);
		return;
	}
	x->keys = keys;
	insert(x, n - 1);
}

long cix_str_index_find(const struct cix_str_index *x, const char *key)
{
	if (!x->slots)
		return -1;
	uint32_t h = str_hash(key);
	for (size_t k = h & x->mask; x->slots[k].at; k = (k + 1) & x->mask)
		if (x->slots[k].hash == h && !strcmp(x->keys[x->slots[k].at - 1], key))
			return (long)x->slots[k].at - 1;
	return -1;
}

void cix_str_index_release(struct cix_str_index *x)
{
	free(x->slots);
	x->slots = NULL;
}
