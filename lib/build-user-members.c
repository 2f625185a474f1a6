/* build-user-members.c - the build users' group's members, looked up and kept a moment */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-users.h"
#include "util.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NSS_BUF 65536

/* The uids of the group's members, in the group's order. */
static int look_up_members(const char *group, uid_t **uids, size_t *nr, gid_t *gid,
			   struct cix_err *err)
{
	char *buf = xmalloc(NSS_BUF), *pbuf = xmalloc(NSS_BUF);
	struct group gr, *g = NULL;
	size_t alloc = 0;
	int r = 0;

	*uids = NULL;
	*nr = 0;
	if ((errno = getgrnam_r(group, &gr, buf, NSS_BUF, &g)) != 0 || !g)
		goto out;   /* no such group: no build users */
	*gid = g->gr_gid;
	for (char **m = g->gr_mem; *m; m++) {
		struct passwd pw, *p = NULL;
		if ((errno = getpwnam_r(*m, &pw, pbuf, NSS_BUF, &p)) != 0 || !p) {
			r = cix_error(err, -CIX_ENOTFOUND, "build user '%s' of group '%s' does not exist",
				      *m, group);
			break;
		}
		if (p->pw_uid == 0 || p->pw_uid == getuid() || p->pw_uid == geteuid()) {
			r = cix_error(err, -EPERM, "build user '%s' of group '%s' is privileged: refusing it",
				      *m, group);
			break;
		}
		ALLOC_GROW(*uids, *nr + 1, alloc);
		(*uids)[(*nr)++] = p->pw_uid;
	}
out:
	free(buf);
	free(pbuf);
	if (r < 0) {
		free(*uids);
		*uids = NULL;
		*nr = 0;
	}
	return r;
}

/*
 * The last answer of look_up_members, kept while /etc/group and
 * /etc/passwd stay as they were (the same file, size and times), and a
 * second at most (other name services): looked up again, the group's
 * members (10 look-ups in the files) were a tenth of a millisecond, per
 * build.
 */
#define MEMBERS_MAX_AGE_NS 1000000000LL

struct file_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

static struct {
	pthread_mutex_t lock;
	char *group;            /* NULL: nothing kept */
	uid_t *uids;
	size_t nr;
	gid_t gid;
	struct file_stamp files[2];
	long long when_ns;
} kept_members = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *const member_files[2] = { "/etc/group", "/etc/passwd" };

static int stamp_files(struct file_stamp *fs)
{
	struct stat st;
	for (int i = 0; i < 2; i++) {
		if (stat(member_files[i], &st) < 0)
			return -1;
		fs[i] = (struct file_stamp){ st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim };
	}
	return 0;
}

static int same_stamp(const struct file_stamp *a, const struct file_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static long long monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uid_t *copy_uids(const uid_t *uids, size_t nr)
{
	uid_t *c = nr ? xmalloc(nr * sizeof(*c)) : NULL;
	if (nr)
		memcpy(c, uids, nr * sizeof(*c));
	return c;
}

int cix_build_users_members(const char *group, uid_t **uids, size_t *nr, gid_t *gid,
			    struct cix_err *err)
{
	struct file_stamp before[2];
	int stamped = stamp_files(before) == 0, r;
	long long now = monotonic_ns();

	pthread_mutex_lock(&kept_members.lock);
	if (stamped && kept_members.group && !strcmp(kept_members.group, group) &&
	    now - kept_members.when_ns < MEMBERS_MAX_AGE_NS &&
	    same_stamp(&before[0], &kept_members.files[0]) &&
	    same_stamp(&before[1], &kept_members.files[1])) {
		*uids = copy_uids(kept_members.uids, kept_members.nr);
		*nr = kept_members.nr;
		*gid = kept_members.gid;
		pthread_mutex_unlock(&kept_members.lock);
		return 0;
	}
	pthread_mutex_unlock(&kept_members.lock);
	if ((r = look_up_members(group, uids, nr, gid, err)) < 0 || !stamped)
		return r;
	/* Kept only if the files did not change while we read them. */
	struct file_stamp after[2];
	if (stamp_files(after) < 0 || !same_stamp(&before[0], &after[0]) ||
	    !same_stamp(&before[1], &after[1]))
		return r;
	pthread_mutex_lock(&kept_members.lock);
	free(kept_members.group);
	free(kept_members.uids);
	kept_members.group = xstrdup(group);
	kept_members.uids = copy_uids(*uids, *nr);
	kept_members.nr = *nr;
	kept_members.gid = *gid;
	memcpy(kept_members.files, before, sizeof(before));
	kept_members.when_ns = now;
	pthread_mutex_unlock(&kept_members.lock);
	return r;
}
