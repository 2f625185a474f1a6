/* sandbox-cgroup.c - a pids cgroup per build: a fork bomb stays bounded */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The builder and everything it starts go into a cgroup of their own,
 * cix-build-PID-N, below the caller's cgroup of the pids controller
 * (cgroup v1's pids hierarchy, or v2 when pids is enabled there), whose
 * pids.max bounds them. When no such cgroup can be made (not root, no
 * pids controller), the caller falls back to RLIMIT_NPROC, which only
 * works for a build user.
 */

#define CGROUP_FS "/sys/fs/cgroup"

static char *cgroup_base;          /* NULL: none usable */
static pthread_once_t base_once = PTHREAD_ONCE_INIT;
static unsigned long counter;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

/* The caller's cgroup in the hierarchy of line's kind, from /proc/self/cgroup. */
static int own_path(int v2, struct strbuf *out)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int found = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		line[strcspn(line, "\n")] = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (v2 ? !strcmp(line, "0") && c1[1] == '\0'
		       : !!strstr(c1 + 1, "pids")) {
			/* v1: the list of controllers must hold "pids" itself */
			if (!v2) {
				char *ctl = c1 + 1, *tok, *save = NULL;
				int hit = 0;
				for (tok = strtok_r(ctl, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
					hit |= !strcmp(tok, "pids");
				if (!hit)
					continue;
			}
			strbuf_addstr(out, c2 + 1);
			found = 1;
		}
	}
	fclose(f);
	return found && out->len && out->buf[0] == '/' && !strstr(out->buf, "/..");
}

/* Does base accept a child cgroup with pids.max? */
static int usable(const char *base)
{
	struct strbuf d = STRBUF_INIT;
	int ok;
	strbuf_addf(&d, "%s/cix-probe-%ld", base, (long)getpid());
	if (mkdir(d.buf, 0755) < 0 && errno != EEXIST) {
		strbuf_release(&d);
		return 0;
	}
	strbuf_addstr(&d, "/pids.max");
	ok = access(d.buf, W_OK) == 0;
	strbuf_setlen(&d, d.len - strlen("/pids.max"));
	rmdir(d.buf);
	strbuf_release(&d);
	return ok;
}

/* cgroups of cix processes that died (kill -9) */
static void clean_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (cix_name_of_dead_process(de->d_name, "cix-build-")) {
			struct strbuf p = STRBUF_INIT;
			strbuf_addf(&p, "%s/%s", base, de->d_name);
			rmdir(p.buf);
			strbuf_release(&p);
		}
	}
	closedir(d);
}

static void find_base(void)
{
	static const struct { const char *mount; int v2; } cands[] = {
		{ CGROUP_FS "/pids", 0 },
		{ CGROUP_FS, 1 },
		{ CGROUP_FS "/unified", 1 },
	};
	if (geteuid() != 0)
		return;
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		struct strbuf own = STRBUF_INIT, base = STRBUF_INIT;
		if (own_path(cands[i].v2, &own)) {
			strbuf_addstr(&base, cands[i].mount);
			if (strcmp(own.buf, "/"))
				strbuf_add(&base, own.buf, own.len);
			if (usable(base.buf)) {
				clean_stale(base.buf);
				cgroup_base = strbuf_detach(&base, NULL);
			}
		}
		strbuf_release(&own);
		strbuf_release(&base);
		if (cgroup_base)
			return;
	}
}

static int write_file(const char *dir, const char *file, const char *data)
{
	struct strbuf p = STRBUF_INIT;
	int fd, r = 0;
	strbuf_addf(&p, "%s/%s", dir, file);
	fd = open(p.buf, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || cix_write_full(fd, data, strlen(data)) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	strbuf_release(&p);
	return r;
}

int cix_sandbox_cgroup_create(char **dir, unsigned long max_procs, struct cix_err *err)
{
	char num[32];
	unsigned long n;
	int r;

	*dir = NULL;
	pthread_once(&base_once, find_base);
	if (!cgroup_base || !max_procs)
		return 0;
	pthread_mutex_lock(&counter_lock);
	n = counter++;
	pthread_mutex_unlock(&counter_lock);
	struct strbuf d = STRBUF_INIT;
	strbuf_addf(&d, "%s/cix-build-%ld-%lu", cgroup_base, (long)getpid(), n);
	if (mkdir(d.buf, 0755) < 0) {
		r = cix_error_errno(err, -errno, "cannot create cgroup '%s'", d.buf);
		strbuf_release(&d);
		return r;
	}
	snprintf(num, sizeof(num), "%lu", max_procs);
	if ((r = write_file(d.buf, "pids.max", num)) < 0) {
		cix_error_errno(err, r, "cannot limit the processes of cgroup '%s'", d.buf);
		rmdir(d.buf);
		strbuf_release(&d);
		return r;
	}
	*dir = strbuf_detach(&d, NULL);
	return 1;
}

int cix_sandbox_cgroup_enter(const char *dir, pid_t pid, struct cix_err *err)
{
	char num[32];
	int r;
	snprintf(num, sizeof(num), "%ld", (long)pid);
	if ((r = write_file(dir, "cgroup.procs", num)) < 0)
		return cix_error_errno(err, r, "cannot move the builder into cgroup '%s'", dir);
	return 0;
}

void cix_sandbox_cgroup_remove(char *dir)
{
	if (!dir)
		return;
	/* The tasks are dead; the cgroup may need a moment to notice. */
	for (int i = 0; i < 200 && rmdir(dir) < 0 && errno == EBUSY; i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	free(dir);
}
