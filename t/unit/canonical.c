/* canonical.c - unit tests for cix_canonicalise_at */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "store.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static char tmp[256];

static void put(const char *rel, mode_t mode)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		if (write(fd, "x", 1) != 1)
			diag("short write to %s", p);
		close(fd);
	}
	chmod(p, mode);
}

static mode_t mode_of(const char *rel, time_t *mtime)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	if (lstat(p, &st) < 0)
		return 0;
	if (mtime)
		*mtime = st.st_mtime;
	return st.st_mode & 07777;
}

int main(void)
{
	struct cix_err err = { 0 };
	char p[512], q[512];
	time_t mt;
	int dfd;

	if (tap_mkdtemp(tmp, sizeof(tmp), "canonical") < 0)
		return 1;
	snprintf(p, sizeof(p), "%s/t", tmp);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/t/sub", tmp);
	mkdir(p, 0777);
	put("t/plain", 0666);
	put("t/setuid", 04755);
	put("t/setgid", 02711);
	put("t/sub/sticky", 01644);
	snprintf(p, sizeof(p), "%s/t/link", tmp);
	if (symlink("plain", p) < 0)
		diag("cannot make symlink");
	snprintf(p, sizeof(p), "%s/t/plain", tmp);
	setxattr(p, "user.cix-test", "1", 1, 0); /* may be unsupported: fine */

	dfd = open(tmp, O_RDONLY | O_DIRECTORY);
	is_int(cix_canonicalise_at(dfd, "t", &err), 0, "canonicalise a tree: %s", err.msg);
	is_int(mode_of("t/plain", &mt), 0444, "plain file 0444");
	is_int(mt, 1, "  mtime 1");
	is_int(mode_of("t/setuid", NULL), 0555, "setuid executable 0555");
	is_int(mode_of("t/setgid", NULL), 0555, "setgid executable 0555");
	is_int(mode_of("t/sub/sticky", NULL), 0444, "sticky bit dropped");
	is_int(mode_of("t/sub", &mt), 0555, "directory 0555");
	is_int(mt, 1, "  mtime 1");
	is_int(mode_of("t", &mt), 0555, "top directory 0555");
	is_int(mt, 1, "  mtime 1 after its children");
	mode_of("t/link", &mt);
	is_int(mt, 1, "symlink mtime 1");
	ok(getxattr(p, "user.cix-test", q, sizeof(q)) < 0, "extended attributes removed");

	/* A file with another hard link is shared with something else. */
	snprintf(p, sizeof(p), "%s/h", tmp);
	mkdir(p, 0755);
	put("h/f", 0644);
	snprintf(p, sizeof(p), "%s/h/f", tmp);
	snprintf(q, sizeof(q), "%s/outside", tmp);
	if (link(p, q) < 0)
		diag("cannot link");
	is_int(cix_canonicalise_at(dfd, "h", &err), -CIX_EUNSUPPORTED, "hard link refused");
	is_int(mode_of("outside", NULL), 0644, "  and the outside name untouched");

	/* Links between files of the tree are the tree's own business. */
	snprintf(p, sizeof(p), "%s/in", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/in/sub", tmp);
	mkdir(p, 0755);
	put("in/a", 0644);
	snprintf(p, sizeof(p), "%s/in/a", tmp);
	snprintf(q, sizeof(q), "%s/in/sub/b", tmp);
	if (link(p, q) < 0)
		diag("cannot link");
	is_int(cix_canonicalise_at(dfd, "in", &err), 0, "hard links within the tree kept: %s", err.msg);
	is_int(mode_of("in/sub/b", NULL), 0444, "  and canonical");
	snprintf(q, sizeof(q), "%s/in-outside", tmp);
	if (link(p, q) < 0)
		diag("cannot link");
	is_int(cix_canonicalise_at(dfd, "in", &err), -CIX_EUNSUPPORTED,
	       "one more link outside: refused: %s", err.msg);

	/* With a build user, everything must be the build user's. */
	snprintf(p, sizeof(p), "%s/o", tmp);
	mkdir(p, 0755);
	put("o/mine", 0644);
	put("o/theirs", 0644);
	snprintf(p, sizeof(p), "%s/o/theirs", tmp);
	if (geteuid() == 0 && chown(p, 4242, 4242) == 0) {
		snprintf(p, sizeof(p), "%s/o", tmp);
		is_int(cix_canonicalise_owned_at(dfd, "o", 0, &err), -CIX_EUNSUPPORTED,
		       "a file not the build user's is refused: %s", err.msg);
		is_int(mode_of("o/theirs", NULL), 0644, "  and left as it was");
		snprintf(p, sizeof(p), "%s/o/theirs", tmp);
		unlink(p);
		is_int(cix_canonicalise_owned_at(dfd, "o", 0, &err), 0,
		       "all the build user's: canonical: %s", err.msg);
	} else {
		skip("a file not the build user's is refused", "not root");
	}

	/* Special files have no place in the store. */
	snprintf(p, sizeof(p), "%s/fifo", tmp);
	mkfifo(p, 0644);
	is_int(cix_canonicalise_at(dfd, "fifo", &err), -CIX_EUNSUPPORTED, "FIFO refused");
	close(dfd);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s && rm -rf %s", tmp, tmp);
	if (system(cmd))
		diag("cannot clean %s", tmp);
	return done_testing();
}
