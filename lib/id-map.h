/* id-map.h - database row ids to values, in constant time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_ID_MAP_H
#define CIX_ID_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Open addressing; a value is never NULL (NULL: absent). Owned values are freed. */
struct cix_id_map {
	int64_t *ids;
	void **vals;
	unsigned char *owned;
	size_t mask, nr;
};

void cix_id_map_init(struct cix_id_map *m, size_t expected);
void *cix_id_map_get(const struct cix_id_map *m, int64_t id);
/* Set id's value (an owned one it had is freed). */
void cix_id_map_put(struct cix_id_map *m, int64_t id, void *val, int owned);
/* Free it all (again: nothing). */
void cix_id_map_release(struct cix_id_map *m);

#endif
