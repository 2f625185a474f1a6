/* id-map.c - database row ids to values, in constant time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "id-map.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static size_t slot(const struct cix_id_map *m, int64_t id)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15u;
	size_t k = (size_t)(h >> 32) & m->mask;
	while (m->vals[k] && m->ids[k] != id)
		k = (k + 1) & m->mask;
	return k;
}

static void init_size(struct cix_id_map *m, size_t size)
{
	m->mask = size - 1;
	m->nr = 0;
	m->ids = xcalloc(size, sizeof(*m->ids));
	m->vals = xcalloc(size, sizeof(*m->vals));
	m->owned = xcalloc(size, 1);
}

void cix_id_map_init(struct cix_id_map *m, size_t expected)
{
	size_t size = 64;
	while (size < 2 * expected)
		size *= 2;
	init_size(m, size);
}

void *cix_id_map_get(const struct cix_id_map *m, int64_t id)
{
	return m->vals[slot(m, id)];
}

static void grow(struct cix_id_map *m)
{
	struct cix_id_map old = *m;
	init_size(m, 2 * (old.mask + 1));
	for (size_t k = 0; k <= old.mask; k++)
		if (old.vals[k])
			cix_id_map_put(m, old.ids[k], old.vals[k], old.owned[k]);
	free(old.ids);
	free(old.vals);
	free(old.owned);
}

void cix_id_map_put(struct cix_id_map *m, int64_t id, void *val, int owned)
{
	if (2 * (m->nr + 1) > m->mask + 1)
		grow(m);
	size_t k = slot(m, id);
	if (!m->vals[k])
		m->nr++;
	else if (m->owned[k] && m->vals[k] != val)
		free(m->vals[k]);
	m->ids[k] = id;
	m->vals[k] = val;
	m->owned[k] = (unsigned char)(owned != 0);
}

void cix_id_map_release(struct cix_id_map *m)
{
	if (!m->vals)
		return;
	for (size_t k = 0; k <= m->mask; k++)
		if (m->owned[k])
			free(m->vals[k]);
	free(m->ids);
	free(m->vals);
	free(m->owned);
	memset(m, 0, sizeof(*m));
}
