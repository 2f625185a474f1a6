/* profile.c - profiles: the generations' symlinks, switched atomically */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "profile.h"
#include "quote.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "cix-manifest 1"
#define MANIFEST_MAX_LINE ((size_t)1 << 20)
#define MANIFEST_MAX_ENTRIES 100000
#define MANIFEST_MAX_FILE ((size_t)1 << 30)
#define NR_FIELDS 5

/* ---- generations ---- */

/* PROFILE's directory, opened, and its base name. */
struct prof {
	int dfd;
	char *dir, *base;
	const char *profile;
};

static int prof_open(struct prof *p, const char *profile, struct cix_err *err)
{
	const char *slash = strrchr(profile, '/');
	const char *base = slash ? slash + 1 : profile;
	memset(p, 0, sizeof(*p));
	p->dfd = -1;
	p->profile = profile;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX - 32)
		return cix_error(err, -CIX_EINVAL, "'%s' is not a profile's name", profile);
	p->base = xstrdup(base);
	if (!slash)
		p->dir = xstrdup(".");
	else if (slash == profile)
		p->dir = xstrdup("/");
	else
		p->dir = xstrndup(profile, (size_t)(slash - profile));
	p->dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dfd < 0) {
		int r = -errno;
		free(p->base);
		free(p->dir);
		p->base = p->dir = NULL;
		return cix_error_errno(err, r, "cannot open the directory of '%s'", profile);
	}
	return 0;
}

static void prof_close(struct prof *p)
{
	if (p->dfd >= 0)
		close(p->dfd);
	free(p->base);
	free(p->dir);
	p->dfd = -1;
	p->base = p->dir = NULL;
}

/*
 * The number N of NAME when it is exactly BASE-N-link (N decimal, no
 * leading zero) followed by the string tail; -1 when not.
 */
static long link_number(const char *name, const char *base, const char *tail)
{
	size_t bl = strlen(base), dl;
	unsigned long long v;
	char digits[24];
	if (strncmp(name, base, bl) || name[bl] != '-')
		return -1;
	name += bl + 1;
	dl = strspn(name, "0123456789");
	if (!dl || dl >= sizeof(digits) || (name[0] == '0' && dl > 1) ||
	    strncmp(name + dl, "-link", 5) || strcmp(name + dl + 5, tail))
		return -1;
	memcpy(digits, name, dl);
	digits[dl] = 0;
	if (cix_parse_decimal(digits, LONG_MAX, &v))
		return -1;
	return (long)v;
}

static void link_name(struct strbuf *sb, const struct prof *p, long number)
{
	strbuf_addf(sb, "%s-%ld-link", p->base, number);
}

/* The target of the symlink NAME (relative to dfd) into sb: 0 or -errno. */
static int read_link(int dfd, const char *name, struct strbuf *sb)
{
	size_t size = 256;
	for (;;) {
		strbuf_reset(sb);
		strbuf_grow(sb, size);
		ssize_t l = readlinkat(dfd, name, sb->buf, size);
		if (l < 0)
			return -errno;
		if ((size_t)l < size) {
			strbuf_setlen(sb, (size_t)l);
			return 0;
		}
		if (size >= 65536)
			return -ENAMETOOLONG;
		size *= 2;
	}
}

/* Is NAME a temporary of ours (.BASE.tmp-PID or .BASE-N-link.tmp-PID) of a dead process? */
static int stale_temporary(const char *name, const char *base)
{
	size_t bl = strlen(base);
	const char *t;
	if (name[0] != '.' || strncmp(name + 1, base, bl) || !(t = strstr(name + 1 + bl, ".tmp-")))
		return 0;
	char *prefix = xstrndup(name, (size_t)(t - name) + 5);
	int r = t == name + 1 + bl || link_number(prefix + 1, base, ".tmp-") >= 0;
	r = r && cix_name_of_dead_process(name, prefix);
	free(prefix);
	return r;
}

static int gen_cmp(const void *a, const void *b)
{
	long x = ((const struct cix_generation *)a)->number;
	long y = ((const struct cix_generation *)b)->number;
	return x < y ? -1 : x > y;
}

void cix_generations_release(struct cix_generation *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].target);
	free(v);
}

/* The generations in p's directory, sorted; stale temporaries removed when clean is set. */
static int list_generations(struct prof *p, struct cix_generation **out, size_t *nr, int clean,
			    struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0, alloc = 0;
	struct strbuf target = STRBUF_INIT;
	struct dirent *de;
	DIR *d = cix_fdopendir_dup(p->dfd);
	*out = NULL;
	*nr = 0;
	if (!d)
		return cix_error_errno(err, -errno, "cannot read the directory of '%s'", p->profile);
	while ((errno = 0, de = readdir(d))) {
		long number = link_number(de->d_name, p->base, "");
		struct stat st;
		if (number < 0) {
			if (clean && stale_temporary(de->d_name, p->base))
				unlinkat(p->dfd, de->d_name, 0);
			continue;
		}
		if (fstatat(p->dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode) || read_link(p->dfd, de->d_name, &target) < 0)
			continue;  /* not a generation, or gone meanwhile */
		ALLOC_GROW(v, n + 1, alloc);
		v[n].number = number;
		v[n].time = st.st_mtim.tv_sec;
		v[n].target = strbuf_detach(&target, NULL);
		n++;
	}
	int e = errno;
	closedir(d);
	strbuf_release(&target);
	if (e) {
		cix_generations_release(v, n);
		return cix_error_errno(err, -e, "cannot read the directory of '%s'", p->profile);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), gen_cmp);
	*out = v;
	*nr = n;
	return 0;
}

/* prof_open for the queries: 1 when open, 0 when there is no directory (so no profile). */
static int prof_open_query(struct prof *p, const char *profile, struct cix_err *err)
{
	int r = prof_open(p, profile, err);
	if (r == -ENOENT) {
		cix_err_clear(err);
		return 0;
	}
	return r < 0 ? r : 1;
}

int cix_profile_generations(const char *profile, struct cix_generation **v, size_t *n,
			    struct cix_err *err)
{
	struct prof p;
	int r;
	*v = NULL;
	*n = 0;
	if ((r = prof_open_query(&p, profile, err)) <= 0)
		return r;
	r = list_generations(&p, v, n, 0, err);
	prof_close(&p);
	return r;
}

/* The current generation, or -1 when PROFILE does not exist. */
static int current(struct prof *p, long *number, struct cix_err *err)
{
	struct strbuf target = STRBUF_INIT;
	int r = read_link(p->dfd, p->base, &target);
	*number = -1;
	if (r == -ENOENT) {
		r = 0;
	} else if (r == -EINVAL) {
		r = cix_error(err, -CIX_EFORMAT, "'%s' is not a symlink", p->profile);
	} else if (r < 0) {
		r = cix_error_errno(err, r, "cannot read the link '%s'", p->profile);
	} else if ((*number = link_number(target.buf, p->base, "")) < 0) {
		char q[128];
		cix_quote(q, sizeof(q), target.buf, target.len);
		r = cix_error(err, -CIX_EFORMAT, "'%s' points to '%s', not to a generation",
			      p->profile, q);
	}
	strbuf_release(&target);
	return r;
}

int cix_profile_current(const char *profile, long *number, struct cix_err *err)
{
	struct prof p;
	int r;
	*number = -1;
	if ((r = prof_open_query(&p, profile, err)) <= 0)
		return r;
	r = current(&p, number, err);
	prof_close(&p);
	return r;
}

int cix_profile_lock(const char *profile, int *fd, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r = 0;
	strbuf_addf(&name, "%s.lock", profile);
	*fd = open(name.buf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	/* One made by another user (a shared directory): flock needs no write access. */
	if (*fd < 0 && errno == EACCES &&
	    (*fd = open(name.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 && errno == ENOENT)
		errno = EACCES;
	if (*fd < 0) {
		r = cix_error_errno(err, -errno, "cannot open '%s'", name.buf);
		goto out;
	}
	while (flock(*fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		r = cix_error_errno(err, -errno, "cannot lock '%s'", name.buf);
		close(*fd);
		*fd = -1;
		break;
	}
out:
	strbuf_release(&name);
	return r;
}

void cix_profile_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/*
 * Make NAME (in p's directory) a symlink to TARGET, atomically: a
 * temporary symlink, renamed over NAME. NAME, when there, must be a symlink.
 */
static int replace_link(struct prof *p, const char *name, const char *target,
			struct cix_err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	struct stat st;
	int r = 0;
	if (fstatat(p->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode))
		return cix_error(err, -CIX_EEXIST, "'%s/%s' exists and is not a symlink", p->dir,
				 name);
	strbuf_addf(&tmp, ".%s.tmp-%ld", name, (long)getpid());
	unlinkat(p->dfd, tmp.buf, 0);       /* a crashed run's, of the same pid */
	if (symlinkat(target, p->dfd, tmp.buf) < 0) {
		r = cix_error_errno(err, -errno, "cannot make the symlink '%s/%s'", p->dir,
				    tmp.buf);
	} else if (renameat(p->dfd, tmp.buf, p->dfd, name) < 0) {
		r = cix_error_errno(err, -errno, "cannot rename '%s/%s'", p->dir, tmp.buf);
		unlinkat(p->dfd, tmp.buf, 0);
	}
	strbuf_release(&tmp);
	return r;
}

static int exists(struct prof *p, long number)
{
	struct strbuf name = STRBUF_INIT;
	struct stat st;
	link_name(&name, p, number);
	int r = fstatat(p->dfd, name.buf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
	strbuf_release(&name);
	return r;
}

static int switch_to(struct prof *p, long number, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r;
	if (!exists(p, number))
		return cix_error(err, -CIX_ENOTFOUND, "generation %ld does not exist", number);
	link_name(&name, p, number);
	r = replace_link(p, p->base, name.buf, err);
	strbuf_release(&name);
	return r;
}

static int make_generation(struct prof *p, long number, const char *store_path,
			   struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	int r;
	if (!store_path || store_path[0] != '/')
		return cix_error(err, -CIX_EINVAL, "a generation's target must be absolute");
	link_name(&name, p, number);
	r = replace_link(p, name.buf, store_path, err);
	strbuf_release(&name);
	return r;
}

int cix_profile_add_generation(const char *profile, const char *store_path, long *number,
			       struct cix_err *err)
{
	struct cix_generation *v;
	size_t n;
	struct prof p;
	long next = 1;
	int r;
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	if ((r = list_generations(&p, &v, &n, 1, err)) < 0)
		goto out;
	if (n && v[n - 1].number == LONG_MAX)
		r = cix_error(err, -CIX_ELIMIT, "too many generations in '%s'", profile);
	else if (n)
		next = v[n - 1].number + 1;
	cix_generations_release(v, n);
	if (r < 0 || (r = make_generation(&p, next, store_path, err)) < 0 ||
	    (r = switch_to(&p, next, err)) < 0)
		goto out;
	if (number)
		*number = next;
out:
	prof_close(&p);
	return r;
}

int cix_profile_switch(const char *profile, long number, struct cix_err *err)
{
	struct prof p;
	int r;
	if (number < 0)
		return cix_error(err, -CIX_ENOTFOUND, "generation %ld does not exist", number);
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	r = switch_to(&p, number, err);
	prof_close(&p);
	return r;
}

int cix_profile_roll_back(const char *profile, const char *empty, long *number,
			  struct cix_err *err)
{
	struct cix_generation *v = NULL;
	size_t n = 0;
	struct prof p;
	long cur, prev = -1;
	int r;
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	if ((r = current(&p, &cur, err)) < 0 || (r = list_generations(&p, &v, &n, 1, err)) < 0)
		goto out;
	for (size_t i = 0; i < n && v[i].number < cur; i++)
		prev = v[i].number;
	if (prev < 0 && cur > 0) {
		prev = 0;
		r = make_generation(&p, 0, empty, err);
	} else if (prev < 0) {
		r = cix_error(err, -CIX_ENOTFOUND, "no previous generation");
	}
	if (r == 0)
		r = switch_to(&p, prev, err);
	if (r == 0 && number)
		*number = prev;
out:
	cix_generations_release(v, n);
	prof_close(&p);
	return r;
}

int cix_profile_delete_generations(const char *profile, const long *numbers, size_t n,
				   struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	struct prof p;
	long cur;
	int r;
	if ((r = prof_open(&p, profile, err)) < 0)
		return r;
	if ((r = current(&p, &cur, err)) < 0)
		goto out;
	/* All or nothing: every number is checked before any link goes. */
	for (size_t i = 0; i < n; i++) {
		if (numbers[i] == cur) {
			r = cix_error(err, -CIX_EINVAL, "cannot delete the current generation %ld",
				      cur);
			goto out;
		}
		if (numbers[i] < 0 || !exists(&p, numbers[i])) {
			r = cix_error(err, -CIX_ENOTFOUND, "generation %ld does not exist",
				      numbers[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&name);
		link_name(&name, &p, numbers[i]);
		if (unlinkat(p.dfd, name.buf, 0) < 0 && errno != ENOENT) {
			r = cix_error_errno(err, -errno, "cannot delete '%s/%s'", p.dir, name.buf);
			goto out;
		}
	}
out:
	strbuf_release(&name);
	prof_close(&p);
	return r;
}
