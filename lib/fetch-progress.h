/* fetch-progress.h - progress line of downloads (internal to lib/fetch*.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_FETCH_PROGRESS_H
#define CIX_FETCH_PROGRESS_H

#include <stdint.h>
#include <time.h>
#include "util.h"

/* One line, rewritten at most 5 times a second, cut to the terminal's width. */
struct cix_fetch_progress {
	int fd;                       /* -1 unless a terminal */
	int shown;
	size_t columns;
	struct timespec last, start;
};

/* fd -1 or not a terminal: every call below does nothing. */
void cix_fetch_progress_init(struct cix_fetch_progress *p, int fd);
void cix_fetch_progress_start(struct cix_fetch_progress *p);
void cix_fetch_progress_update(struct cix_fetch_progress *p, const char *url, uint64_t now_bytes,
			       uint64_t total);
/* Erase the line, if one was shown. */
void cix_fetch_progress_clear(struct cix_fetch_progress *p);

#endif
