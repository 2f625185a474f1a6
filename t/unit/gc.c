/* gc.c - unit tests for the garbage collector's roots */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "gc.h"
#include "store-backend.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

static void link_to(const char *target, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	if (symlink(target, p) < 0)
		diag("cannot link %s", p);
}

static void dir(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	mkdir(p, 0755);
}

static int has(const struct strvec *v, const char *p)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->v[i], p))
			return 1;
	return 0;
}

int main(void)
{
	char store[512], state[512], a[600], b[600], c[600], p[700];
	struct strvec roots = STRVEC_INIT;
	struct cix_err err = { 0 };

	if (tap_mkdtemp(tmp, sizeof(tmp), "gc") < 0)
		return 1;
	snprintf(store, sizeof(store), "%s/store", tmp);
	snprintf(state, sizeof(state), "%s/state", tmp);
	struct cix_store s = { .ops = &cix_store_local_ops, .store_dir = store,
			       .state_dir = state, .store_fd = -1, .temproots_fd = -1 };
	snprintf(a, sizeof(a), "%s/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-a", store);
	snprintf(b, sizeof(b), "%s/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-b", store);
	snprintf(c, sizeof(c), "%s/cccccccccccccccccccccccccccccccc-c", store);
	dir("store");
	dir("state");
	dir("state/gcroots");
	dir("state/gcroots/auto");
	dir("state/profiles");
	dir("elsewhere");
	/* a direct root, into a subpath of a store path */
	snprintf(p, sizeof(p), "%s/bin/x", a);
	link_to(p, "state/gcroots/direct");
	/* an indirect root: gcroots -> a link elsewhere -> the store */
	link_to(b, "elsewhere/result");
	snprintf(p, sizeof(p), "%s/elsewhere/result", tmp);
	link_to(p, "state/gcroots/auto/indirect");
	/* a profiles directory linked from gcroots */
	link_to(c, "state/profiles/default-1-link");
	snprintf(p, sizeof(p), "%s/profiles", state);
	link_to(p, "state/gcroots/profiles");
	/* roots that lead outside the store, or to / */
	link_to("/etc", "state/gcroots/etc");
	link_to("/", "state/gcroots/slash");
	link_to("/nonexistent", "state/gcroots/dangling");
	/* a temporary root of a live process (us, holding its lock) and of a dead one */
	snprintf(p, sizeof(p), "%s/dddddddddddddddddddddddddddddddd-d", store);
	is_int(cix_store_add_temp_root(&s, p, &err), 0, "temporary root added: %s", err.msg);
	FILE *f;
	snprintf(p, sizeof(p), "%s/temproots/999999999", state);
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%s/ffffffffffffffffffffffffffffffff-f%c", store, 0);
		fclose(f);
	}

	is_int(cix_gc_roots(&s, &roots, &err), 0, "roots found: %s", err.msg);
	ok(has(&roots, a), "a direct root, through a subpath");
	ok(has(&roots, b), "an indirect root, through a link outside");
	ok(has(&roots, c), "a profile, through the profiles directory");
	snprintf(p, sizeof(p), "%s/dddddddddddddddddddddddddddddddd-d", store);
	ok(has(&roots, p), "a live process's temporary root");
	snprintf(p, sizeof(p), "%s/ffffffffffffffffffffffffffffffff-f", store);
	ok(!has(&roots, p), "not a dead process's");
	is_int(roots.nr, 4, "nothing else (links to /etc and / are not walked)");
	for (size_t i = 1; i < roots.nr; i++)
		ok(strcmp(roots.v[i - 1], roots.v[i]) < 0, "sorted and unique");
	strvec_clear(&roots);

	/* The roots by file, the collector's way: the dead process's file goes. */
	struct cix_gc_roots found = { 0 };
	is_int(cix_gc_find_roots(&s, 1, &found, &err), 0, "roots found, temporary ones locked");
	int temp = 0;
	for (size_t i = 0; i < found.nr; i++)
		temp += !strncmp(found.v[i].link, "{temp:", 6);
	is_int(temp, 1, "one temporary root");
	snprintf(p, sizeof(p), "%s/temproots/999999999", state);
	ok(access(p, F_OK) < 0, "a dead process's file is deleted");
	cix_gc_roots_release(&found);
	cix_store_drop_temp_roots(&s);
	snprintf(p, sizeof(p), "%s/temproots/%ld", state, (long)getpid());
	ok(access(p, F_OK) < 0, "dropping the temporary roots deletes our file");

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		diag("cannot clean %s", tmp);
	return done_testing();
}
