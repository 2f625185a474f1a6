/* nar-prefetch.c - unit tests for NARs read ahead on a second thread */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "nar.h"
#include "nar-prefetch.h"
#include "strbuf.h"

#include <fcntl.h>
#include <unistd.h>

static int to_strbuf(void *opaque, const void *data, size_t len)
{
	strbuf_add(opaque, data, len);
	return 0;
}

static void put(const char *dir, const char *name, size_t size)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	for (size_t i = 0; f && i < size; i++)
		fputc('a' + (int)(i % 26), f);
	if (f)
		fclose(f);
}

/* Whether NAR (buf, len) is the one of name in dfd. */
static int same_nar(int dfd, const char *name, const char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	int same = cix_nar_dump_at(dfd, name, to_strbuf, &sb, NULL) == 0 && sb.len == len &&
		   !memcmp(sb.buf, buf, len);
	strbuf_release(&sb);
	return same;
}

int main(void)
{
	char dir[256];
	const char *names[] = { "a", "b", "missing", "c", "d" };
	char *buf;
	size_t len;
	if (tap_mkdtemp(dir, sizeof(dir), "prefetch") < 0)
		return 1;
	put(dir, "a", 100);
	put(dir, "b", 200);
	put(dir, "c", 300);
	put(dir, "d", 5000);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	/* Everything fits: each taken once, in any order, as a dump gives it. */
	struct cix_nar_prefetch *p = cix_nar_prefetch_start(dfd, names, 2, 1 << 20);
	cix_nar_prefetch_wait(p);
	ok(cix_nar_prefetch_take(p, 1, &buf, &len) == 1 && same_nar(dfd, "b", buf, len),
	   "b read ahead, as dumped");
	free(buf);
	ok(cix_nar_prefetch_take(p, 0, &buf, &len) == 1 && same_nar(dfd, "a", buf, len),
	   "then a");
	free(buf);
	ok(cix_nar_prefetch_take(p, 0, &buf, &len) == 0, "taken once only");
	ok(cix_nar_prefetch_take(p, 7, &buf, &len) == 0, "out of range: read it yourself");
	cix_nar_prefetch_stop(p);

	/* A file that fails stops the thread: the caller reads the rest itself. */
	p = cix_nar_prefetch_start(dfd, names, 4, 1 << 20);
	cix_nar_prefetch_wait(p);
	ok(cix_nar_prefetch_take(p, 3, &buf, &len) == 0, "after a failure: not read ahead");
	ok(cix_nar_prefetch_take(p, 2, &buf, &len) == 0, "the failing one: not read ahead");
	ok(cix_nar_prefetch_take(p, 0, &buf, &len) == 1 && same_nar(dfd, "a", buf, len),
	   "before it: read ahead");
	free(buf);
	cix_nar_prefetch_stop(p);   /* (b never taken: freed here) */

	/* Over the budget: not read ahead, nor anything after. */
	const char *big[] = { "a", "d", "b" };
	p = cix_nar_prefetch_start(dfd, big, 3, 1000);
	cix_nar_prefetch_wait(p);
	ok(cix_nar_prefetch_take(p, 1, &buf, &len) == 0, "over the budget: not read ahead");
	ok(cix_nar_prefetch_take(p, 2, &buf, &len) == 0, "nor the next");
	ok(cix_nar_prefetch_take(p, 0, &buf, &len) == 1 && same_nar(dfd, "a", buf, len),
	   "within it: read ahead");
	free(buf);
	cix_nar_prefetch_stop(p);

	/* Taken before the thread comes to it: the caller reads it, the thread passes it by. */
	const char *many[5000];
	for (int i = 0; i < 5000; i++)
		many[i] = "c";
	p = cix_nar_prefetch_start(dfd, many, 5000, 1 << 30);
	int mine = cix_nar_prefetch_take(p, 4999, &buf, &len) == 0;
	if (!mine)
		free(buf);
	cix_nar_prefetch_wait(p);
	ok(!mine || cix_nar_prefetch_take(p, 4999, &buf, &len) == 0,
	   "one taken while free is not read after (%s)", mine ? "it was free" : "it was read");
	ok(cix_nar_prefetch_take(p, 4998, &buf, &len) == 1 && same_nar(dfd, "c", buf, len),
	   "the one before it was");
	free(buf);
	cix_nar_prefetch_stop(p);

	/* Stopped before anything is taken. */
	cix_nar_prefetch_stop(cix_nar_prefetch_start(dfd, names, 5, 1 << 20));
	ok(1, "stopped untouched");
	cix_nar_prefetch_stop(NULL);

	close(dfd);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return done_testing();
}
