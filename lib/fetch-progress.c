/* fetch-progress.c - one updating progress line for downloads on a terminal */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "fetch-progress.h"
#include "quote.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PROGRESS_INTERVAL_NS 200000000L

void cix_fetch_progress_init(struct cix_fetch_progress *p, int fd)
{
	struct winsize ws;
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	if (fd < 0 || !isatty(fd))
		return;
	p->fd = fd;
	p->columns = ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
}

void cix_fetch_progress_start(struct cix_fetch_progress *p)
{
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void human(char *buf, size_t size, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;
	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void progress_show(struct cix_fetch_progress *x, const char *url, double now_bytes,
			  double total)
{
	char q[128], a[32], b[32], r[32], stats[112], line[320];
	struct timespec now;
	size_t room;
	double t;
	int len;

	clock_gettime(CLOCK_MONOTONIC, &now);
	t = elapsed(&x->start, &now);
	human(a, sizeof(a), now_bytes);
	human(r, sizeof(r), t > 0 ? now_bytes / t : 0);
	if (total > 0) {
		human(b, sizeof(b), total);
		snprintf(stats, sizeof(stats), "%s / %s, %s/s", a, b, r);
	} else {
		snprintf(stats, sizeof(stats), "%s, %s/s", a, r);
	}
	/* One line that never wraps: the URL gets what the numbers leave. */
	room = x->columns > strlen(stats) + 20 ? x->columns - strlen(stats) - 20 : 8;
	if (room + 1 > sizeof(q))
		room = sizeof(q) - 1;
	cix_quote(q, room + 1, url, strlen(url));
	len = snprintf(line, sizeof(line), "\r\033[Kdownloading '%s': %s", q, stats);
	if (len > 0 && (size_t)len < sizeof(line) &&
	    cix_write_full(x->fd, line, (size_t)len) == 0)
		x->shown = 1;
}

void cix_fetch_progress_update(struct cix_fetch_progress *p, const char *url, uint64_t now_bytes,
			       uint64_t total)
{
	struct timespec now;

	if (p->fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->shown &&
	    (now.tv_sec - p->last.tv_sec) * 1000000000L + (now.tv_nsec - p->last.tv_nsec) <
		    PROGRESS_INTERVAL_NS)
		return;
	p->last = now;
	progress_show(p, url, (double)now_bytes, (double)total);
}

void cix_fetch_progress_clear(struct cix_fetch_progress *x)
{
	if (x->shown)
		(void)!cix_write_full(x->fd, "\r\033[K", 4);
	x->shown = 0;
}

