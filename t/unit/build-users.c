/* build-users.c - unit tests for build directories and the -K hand-over */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "build-users.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_UID 30123
#define OTHER_UID 4242

static char tmp[256];

static void put(const char *rel, uid_t uid)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1 || fchown(fd, uid, uid) < 0)
		diag("cannot make %s", p);
	if (fd >= 0)
		close(fd);
}

static void dir(const char *rel, mode_t mode, uid_t uid)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	if (mkdir(p, mode) < 0 || chmod(p, mode) < 0 || lchown(p, uid, uid) < 0)
		diag("cannot make %s", p);
}

static uid_t owner(const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	return lstat(p, &st) < 0 ? (uid_t)-2 : st.st_uid;
}

static void hand_over(void)
{
	struct cix_build_user u = { BUILD_UID, BUILD_UID, -1 };
	struct cix_err err = { 0 };
	char p[512], q[512];

	/*
	 * What a failed build leaves: its own files, a world-writable
	 * directory (doc/security.md item 4), a hard link and a symlink to a
	 * canary outside, as an attacker would plant them.
	 */
	put("canary", OTHER_UID);
	dir("kept", 0700, BUILD_UID);
	dir("kept/open", 0777, BUILD_UID);
	put("kept/open/mine", BUILD_UID);
	snprintf(p, sizeof(p), "%s/canary", tmp);
	snprintf(q, sizeof(q), "%s/kept/open/hard", tmp);
	if (link(p, q) < 0)
		diag("cannot link");
	snprintf(q, sizeof(q), "%s/kept/open/sym", tmp);
	if (symlink(p, q) < 0 || lchown(q, BUILD_UID, BUILD_UID) < 0)
		diag("cannot symlink");
	put("kept/twice", BUILD_UID);
	snprintf(p, sizeof(p), "%s/kept/twice", tmp);
	snprintf(q, sizeof(q), "%s/twice-outside", tmp);
	if (link(p, q) < 0)
		diag("cannot link");

	snprintf(p, sizeof(p), "%s/kept", tmp);
	is_int(cix_build_dir_hand_over(p, &u, &err), 0, "hand over a kept directory: %s", err.msg);
	is_int(owner("kept"), getuid(), "the directory is the caller's");
	is_int(owner("kept/open"), getuid(), "so is a subdirectory");
	is_int(owner("kept/open/mine"), getuid(), "and the build's file");
	is_int(owner("kept/open/sym"), getuid(), "the symlink itself is the caller's");
	is_int(owner("canary"), OTHER_UID, "the canary is untouched through the hard link and symlink");
	is_int(owner("kept/twice"), BUILD_UID, "a file with another link stays the build user's");

	struct cix_build_user none = CIX_BUILD_USER_INIT;
	is_int(cix_build_dir_hand_over(p, &none, &err), 0, "without a build user: nothing to do");
}

static void build_dirs(void)
{
	struct cix_store s = { .state_dir = tmp };
	struct cix_build_user u = { BUILD_UID, BUILD_UID, -1 };
	struct cix_err err = { 0 };
	char p[512], *d = NULL, *kept = NULL;
	struct stat st;

	is_int(cix_build_dir_create(&s, &u, &d, &err), 0, "a build directory: %s", err.msg);
	snprintf(p, sizeof(p), "%s/builds", tmp);
	ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0700 && st.st_uid == geteuid(),
	   "below a 0700 directory of the caller's");
	ok(d && stat(d, &st) == 0 && (st.st_mode & 07777) == 0700 && st.st_uid == BUILD_UID,
	   "itself 0700 and the build user's");
	snprintf(p, sizeof(p), "build-%ld-", (long)getpid());
	ok(d && strstr(d, p) != NULL, "named after the process: %s", d ? d : "");

	is_int(cix_build_dir_keep(d, &kept, &err), 0, "kept: %s", err.msg);
	ok(kept && strstr(kept, "/builds/kept-") && stat(kept, &st) == 0, "renamed kept-...: %s",
	   kept ? kept : "");
	free(d);
	free(kept);

	snprintf(p, sizeof(p), "%s/builds", tmp);
	chmod(p, 0777);
	d = NULL;
	is_int(cix_build_dir_create(&s, &u, &d, &err), -EPERM,
	       "a parent others may write is refused (item 26): %s", err.msg);
	ok(d == NULL, "  and nothing is made");
	chmod(p, 0700);
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "build-users") < 0)
		return 1;
	chmod(tmp, 0755);
	if (geteuid() == 0) {
		hand_over();
		build_dirs();
	} else {
		skip("build users", "not root");
	}
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		diag("cannot clean %s", tmp);
	return done_testing();
}
