/* remove-queue.c - unit tests for the collector's removals on a thread of their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "remove-queue.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 40

static char dir[256];
static char *paths[N];
static int seen;

/* N trees (those left from before kept): even ones a directory with a file, odd ones a file. */
static int make_trees(void)
{
	for (int i = 0; i < N; i++) {
		char p[300];
		snprintf(p, sizeof(p), "%s/t%02d", dir, i);
		free(paths[i]);
		paths[i] = strdup(p);
		if (i % 2 == 0) {
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -1;
			strcat(p, "/f");
		}
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "data\n", 5) != 5 || close(fd) < 0)
			return -1;
	}
	return 0;
}

static int present(void)
{
	int n = 0;
	for (int i = 0; i < N; i++)
		n += access(paths[i], F_OK) == 0;
	return n;
}

static int count_each(const char *path, void *opaque)
{
	seen++;
	return opaque && seen == *(int *)opaque ? -5 : 0;
}

/* A batch of paths[from..to), every other one marked done when odd_only. */
static void add(struct cix_remove_queue *q, int from, int to, int odd_only)
{
	const char **v = calloc((size_t)(to - from), sizeof(*v));
	unsigned char *done = calloc((size_t)(to - from), 1);
	for (int i = from; i < to; i++) {
		v[i - from] = paths[i];
		done[i - from] = !odd_only || i % 2;
	}
	cix_remove_queue_add(q, v, done, (size_t)(to - from));
}

int main(void)
{
	if (tap_mkdtemp(dir, sizeof(dir), "remove-queue") < 0)
		return 1;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct cix_removal how = { .dir_fd = dfd, .skip = strlen(dir) + 1, .each = count_each };
	struct cix_removal got = { 0 };

	ok(make_trees() == 0, "%d trees", N);
	struct cix_remove_queue *q = cix_remove_queue_start(&how);
	add(q, 0, 20, 0);
	add(q, 20, N, 1);
	is_int(cix_remove_queue_finish(q, &got), 0, "two batches removed");
	is_int((int)got.count, 30, "every path marked done, and only those");
	is_int(present(), 10, "the others are still there");
	ok(got.bytes > 0 && seen == 30 && !got.rm_err.code, "bytes freed counted, each called for each");

	ok(make_trees() == 0, "%d trees again", N);
	int stop_at = 7;
	seen = 0;
	got = (struct cix_removal){ 0 };
	how.opaque = &stop_at;
	q = cix_remove_queue_start(&how);
	add(q, 0, 20, 0);
	add(q, 20, N, 0);
	is_int(cix_remove_queue_finish(q, &got), -5, "each's error comes back");
	is_int((int)got.count, 7, "and nothing more is removed after it");

	ok(make_trees() == 0, "%d trees once more", N);
	got = (struct cix_removal){ 0 };
	how.each = NULL;
	q = cix_remove_queue_start(&how);
	cix_remove_queue_stop(q);
	add(q, 0, N, 0);
	is_int(cix_remove_queue_finish(q, &got), 0, "stopped: no error");
	ok(got.count == 0 && present() == N, "stopped before the batch came: nothing removed");

	/* In place, as the collector does with one batch or a bound on the bytes. */
	seen = 0;
	got = (struct cix_removal){ .dir_fd = dfd, .skip = strlen(dir) + 1, .each = count_each };
	const char *v[N];
	unsigned char done[N];
	for (int i = 0; i < N; i++)
		v[i] = paths[i], done[i] = i % 2;
	is_int(cix_remove_listed(&got, v, done, N), 0, "in place: no error");
	ok(got.count == N / 2 && seen == N / 2 && present() == N / 2, "in place: the paths done only");
	close(dfd);
	for (int i = 0; i < N; i++)
		free(paths[i]);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : done_testing();
}
