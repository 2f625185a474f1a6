/* user-dirs.c - the profiles' directories, made by the daemon for its users */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "quote.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * STATE/profiles/per-user is the daemon's, 0755: nobody else can make a
 * name in it, so nobody can give another user a profile directory to use
 * (CVE-2019-18192). Every step below is relative to a directory already
 * open, never follows a symlink, and changes owners and modes through a
 * descriptor of the directory itself, not its path.
 */
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static void warn(const char *fmt, ...) CIX_PRINTF(1, 2);
static void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cix-daemon: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Is a failed open with O_NOFOLLOW | O_DIRECTORY one of "not a directory"? */
static int not_a_dir(int e)
{
	return e == ELOOP || e == ENOTDIR;
}

/*
 * NAME in the directory parent (PATH, for messages): a directory of the
 * daemon's user, mode 0755, made when missing; an existing one of
 * another owner, or writable by others, is made so. Anything else in its
 * place (a symlink, a file) is refused. Returns its descriptor.
 */
static int own_dir(int parent, const char *name, const char *path, struct cix_err *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct stat st;
	int fd, r;

	if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
		return cix_error_errno(err, -errno, "cannot create '%s'", path);
	if ((fd = openat(parent, name, DIR_FLAGS)) < 0) {
		r = -errno;
		if (not_a_dir(-r))
			return cix_error(err, -CIX_EEXIST,
					 "'%s' is not a directory (a symlink?); remove it", path);
		return cix_error_errno(err, r, "cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0) {
		r = cix_error_errno(err, -errno, "cannot stat '%s'", path);
		goto fail;
	}
	if (st.st_uid != uid) {
		if (fchown(fd, uid, gid) < 0) {
			r = cix_error_errno(err, -errno, "cannot change the owner of '%s'", path);
			goto fail;
		}
		warn("'%s' was owned by uid %u: now by uid %u", path, (unsigned)st.st_uid,
		     (unsigned)uid);
	}
	if ((st.st_mode & 07777) != 0755) {
		if (fchmod(fd, 0755) < 0) {
			r = cix_error_errno(err, -errno, "cannot change the mode of '%s'", path);
			goto fail;
		}
		if (st.st_mode & 022)
			warn("'%s' was writable by others (mode %04o): now 0755", path,
			     (unsigned)(st.st_mode & 07777));
	}
	return fd;
fail:
	close(fd);
	return r;
}

/*
 * STATE/profiles/per-user (state, the state directory, opened), made
 * when missing: at start-up, and at each connection, in case it was
 * removed since. Returns its descriptor.
 */
static int open_per_user(int state, const char *state_dir, struct cix_err *err)
{
	struct strbuf path = STRBUF_INIT;
	int profiles, per_user;
	strbuf_addf(&path, "%s/profiles", state_dir);
	per_user = profiles = own_dir(state, "profiles", path.buf, err);
	if (profiles >= 0) {
		strbuf_addstr(&path, "/per-user");
		per_user = own_dir(profiles, "per-user", path.buf, err);
		close(profiles);
	}
	strbuf_release(&path);
	return per_user;
}

int daemon_profile_dirs(const char *state_dir, struct cix_err *err)
{
	struct strbuf path = STRBUF_INIT, target = STRBUF_INIT, old = STRBUF_INIT;
	int state, per_user = -1, gcroots = -1, r;

	/* The state directory itself may be a link an administrator made. */
	if ((state = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", state_dir);
	if ((r = per_user = open_per_user(state, state_dir, err)) < 0)
		goto out;
	r = 0;

	/* STATE/gcroots/profiles: every generation of every profile, a root. */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/gcroots", state_dir);
	strbuf_addf(&target, "%s/profiles", state_dir);
	if (mkdirat(state, "gcroots", 0755) < 0 && errno != EEXIST) {
		warn("cannot create '%s': %s", path.buf, strerror(errno));
		goto out;
	}
	if ((gcroots = openat(state, "gcroots", DIR_FLAGS)) < 0) {
		warn("cannot open '%s': %s", path.buf, strerror(errno));
		goto out;
	}
	strbuf_addstr(&path, "/profiles");
	if (symlinkat(target.buf, gcroots, "profiles") == 0)
		goto out;
	if (errno != EEXIST) {
		warn("cannot create '%s': %s", path.buf, strerror(errno));
		goto out;
	}
	strbuf_grow(&old, PATH_MAX);
	ssize_t l = readlinkat(gcroots, "profiles", old.buf, PATH_MAX);
	if (l < 0 || (size_t)l != target.len || memcmp(old.buf, target.buf, target.len))
		warn("'%s' is not a link to '%s': left as it is", path.buf, target.buf);
out:
	if (gcroots >= 0)
		close(gcroots);
	if (per_user >= 0)
		close(per_user);
	close(state);
	strbuf_release(&path);
	strbuf_release(&target);
	strbuf_release(&old);
	return r;
}

/* Can NAME, a user's name, be a directory's name? */
static int good_name(const char *name)
{
	return *name && *name != '.' && !strchr(name, '/') && strlen(name) <= NAME_MAX;
}

/*
 * NAME in per_user (PATH, for messages), made for uid: under a temporary
 * name first, given to its user there, then moved in place, so that no
 * other worker making it at once sees it as anyone else's. Returns 1 when
 * made, 0 when it was there already, negative (said) on failure.
 */
static int make_user_dir(int per_user, const char *name, const char *path, uid_t uid,
			 gid_t gid)
{
	char tmp[64];
	int fd, r = -1;

	/* A name no user can have (good_name refuses a leading dot). */
	snprintf(tmp, sizeof(tmp), ".new-%ld", (long)getpid());
	/* One left by a worker that died here with our pid: empty, ours to remove. */
	if (mkdirat(per_user, tmp, 0755) < 0 &&
	    (errno != EEXIST || unlinkat(per_user, tmp, AT_REMOVEDIR) < 0 ||
	     mkdirat(per_user, tmp, 0755) < 0)) {
		warn("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	if ((fd = openat(per_user, tmp, DIR_FLAGS)) < 0 ||
	    fchown(fd, uid, gid) < 0 || fchmod(fd, 0755) < 0)
		warn("cannot give '%s' to uid %u: %s", path, (unsigned)uid, strerror(errno));
	else if (renameat2(per_user, tmp, per_user, name, RENAME_NOREPLACE) == 0)
		r = 1;
	else if (errno == EEXIST)
		r = 0;   /* another worker was first */
	else
		warn("cannot create '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (r != 1)
		unlinkat(per_user, tmp, AT_REMOVEDIR);
	return r;
}

/* NAME in per_user: is it the directory of uid? Warns when not. */
static void check_user_dir(int per_user, const char *name, const char *path, uid_t uid)
{
	struct stat st;
	int fd = openat(per_user, name, DIR_FLAGS);
	if (fd < 0) {
		if (not_a_dir(errno))
			warn("'%s' is not a directory (a symlink?): left as it is", path);
		else
			warn("cannot open '%s': %s", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0)
		warn("cannot stat '%s': %s", path, strerror(errno));
	else if (st.st_uid != uid)
		warn("'%s' is owned by uid %u, not by %s (uid %u): left as it is", path,
		     (unsigned)st.st_uid, name, (unsigned)uid);
	close(fd);
}

void daemon_user_profile_dir(const char *state_dir, uid_t uid, gid_t gid)
{
	struct strbuf path = STRBUF_INIT;
	struct passwd *pw;
	struct stat st;
	char *name = NULL, q[128];
	struct cix_err err = { 0 };
	int state = -1, per_user = -1;

	if (!(pw = getpwuid(uid))) {
		warn("uid %u has no name: no profile directory for it", (unsigned)uid);
		return;
	}
	if (!good_name(pw->pw_name)) {
		warn("the name '%s' of uid %u cannot be a directory's: no profile directory for it",
		     cix_quote(q, sizeof(q), pw->pw_name, strlen(pw->pw_name)), (unsigned)uid);
		return;
	}
	name = xstrdup(pw->pw_name);
	strbuf_addf(&path, "%s/profiles/per-user/", state_dir);
	strbuf_add_quoted(&path, name, strlen(name));
	/* A daemon that is not root can make the directory of its own user only. */
	if (geteuid() != 0 && geteuid() != uid)
		goto out;
	if ((state = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		warn("cannot open '%s': %s", state_dir, strerror(errno));
		goto out;
	}
	if ((per_user = open_per_user(state, state_dir, &err)) < 0) {
		warn("%s", err.msg);
		goto out;
	}
	/* Nothing to make (the usual case): only see that it is theirs. */
	if (fstatat(per_user, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
	    make_user_dir(per_user, name, path.buf, uid, gid) != 0)
		goto out;
	check_user_dir(per_user, name, path.buf, uid);
out:
	if (per_user >= 0)
		close(per_user);
	if (state >= 0)
		close(state);
	free(name);
	strbuf_release(&path);
}
