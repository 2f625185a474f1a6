/* sandbox-cgroup.c - a cgroup per build: a fork bomb or a memory hog stays bounded */
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
 * cix-builds/cix-build-PID-N, below the caller's cgroup: in cgroup v1's
 * pids and memory hierarchies (one cgroup in each), or in v2's single
 * one (when its controllers can be enabled there; else cix-builds is
 * made beside the caller's cgroup, in its parent). cix-builds gathers
 * every build of the callers in that cgroup (a daemon and its workers):
 * its pids.max bounds them together, so that builds cannot take the
 * host's last PIDs. When no cgroup can be made (not root, no
 * controller), the caller falls back to RLIMIT_NPROC, which only works
 * for a build user, and memory is not limited.
 */

#define CGROUP_FS "/sys/fs/cgroup"
#define PARENT "cix-builds"

/* A hierarchy's cix-builds, NULL when none is usable. */
struct cg_parents {
	char *pids, *memory;
	int v2;
};

static struct cg_parents parents;
static pthread_once_t parents_once = PTHREAD_ONCE_INIT;
static unsigned long counter;
static unsigned long long all_max_written = ~0ULL;   /* pids.max of cix-builds */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Does the controller list ctl ("a,b,c") hold name? */
static int has_controller(char *ctl, const char *name)
{
	char *tok, *save = NULL;
	int hit = 0;
	for (tok = strtok_r(ctl, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		hit |= !strcmp(tok, name);
	return hit;
}

/*
 * The caller's cgroup in v1's hierarchy of controller ctl, or in v2's
 * (ctl NULL), from /proc/self/cgroup.
 */
static int own_path(const char *ctl, struct strbuf *out)
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
		*c1 = *c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (ctl ? has_controller(c1 + 1, ctl) : !strcmp(line, "0") && !c1[1]) {
			strbuf_addstr(out, c2 + 1);
			found = 1;
		}
	}
	fclose(f);
	return found && out->len && out->buf[0] == '/' && !strstr(out->buf, "/..");
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

/* Does dir accept a child cgroup with a writable file? */
static int usable(const char *dir, const char *file)
{
	struct strbuf d = STRBUF_INIT;
	int ok;
	strbuf_addf(&d, "%s/cix-probe-%ld", dir, (long)getpid());
	if (mkdir(d.buf, 0755) < 0 && errno != EEXIST) {
		strbuf_release(&d);
		return 0;
	}
	size_t len = d.len;
	strbuf_addf(&d, "/%s", file);
	ok = access(d.buf, W_OK) == 0;
	strbuf_setlen(&d, len);
	rmdir(d.buf);
	strbuf_release(&d);
	return ok;
}

/* cgroups of cix processes that died (kill -9) */
static void clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (cix_name_of_dead_process(de->d_name, "cix-build-") ||
		    cix_name_of_dead_process(de->d_name, "cix-probe-")) {
			struct strbuf p = STRBUF_INIT;
			strbuf_addf(&p, "%s/%s", dir, de->d_name);
			rmdir(p.buf);
			strbuf_release(&p);
		}
	}
	closedir(d);
}

/*
 * MOUNT + the caller's cgroup (of ctl, or v2's) + /cix-builds, made when
 * missing, if it takes children with probe_file; else NULL. With up, the
 * caller's cgroup's parent instead: in v2, a cgroup holding processes
 * (other than the root) cannot give its children controllers.
 */
static char *make_parent(const char *mount, const char *ctl, const char *probe_file, int up)
{
	struct strbuf own = STRBUF_INIT, dir = STRBUF_INIT;
	char *ret = NULL;
	if (access(mount, F_OK) < 0 || !own_path(ctl, &own))
		goto out;
	if (up) {
		char *slash = strrchr(own.buf, '/');
		if (!strcmp(own.buf, "/"))
			goto out;
		strbuf_setlen(&own, slash == own.buf ? 1 : (size_t)(slash - own.buf));
	}
	strbuf_addstr(&dir, mount);
	if (strcmp(own.buf, "/"))
		strbuf_add(&dir, own.buf, own.len);
	clean_stale(dir.buf);   /* builds of an older cix, made there */
	if (!ctl)   /* v2: controllers must be enabled for the children */
		write_file(dir.buf, "cgroup.subtree_control", "+pids +memory");
	strbuf_addstr(&dir, "/" PARENT);
	if (mkdir(dir.buf, 0755) < 0 && errno != EEXIST)
		goto out;
	if (!ctl) {
		write_file(dir.buf, "cgroup.subtree_control", "+pids");
		write_file(dir.buf, "cgroup.subtree_control", "+memory");
	}
	if (usable(dir.buf, probe_file)) {
		clean_stale(dir.buf);
		ret = strbuf_detach(&dir, NULL);
	}
out:
	strbuf_release(&own);
	strbuf_release(&dir);
	return ret;
}

static void find_parents(void)
{
	if (geteuid() != 0)
		return;
	/* v1 (or a hybrid set-up whose controllers are v1's) */
	parents.pids = make_parent(CGROUP_FS "/pids", "pids", "pids.max", 0);
	parents.memory = make_parent(CGROUP_FS "/memory", "memory", "memory.limit_in_bytes", 0);
	if (parents.pids || parents.memory)
		return;
	static const char *const v2_mounts[] = { CGROUP_FS, CGROUP_FS "/unified" };
	for (size_t i = 0; i < 2 * ARRAY_SIZE(v2_mounts) && !parents.pids; i++)
		parents.pids = make_parent(v2_mounts[i / 2], NULL, "pids.max", i % 2);
	if (parents.pids && usable(parents.pids, "memory.max"))
		parents.memory = xstrdup(parents.pids);
	parents.v2 = parents.pids != NULL;
}

/* A limit for a cgroup file: the number, or none when 0. */
static void limit_str(char *buf, size_t size, unsigned long long n, const char *none)
{
	if (n)
		snprintf(buf, size, "%llu", n);
	else
		snprintf(buf, size, "%s", none);
}

/*
 * Set cix-builds' pids.max when it is not what we wrote last; 0 leaves it
 * as it is (another caller's, or the administrator's).
 */
static int limit_all(unsigned long all_max, struct cix_err *err)
{
	char num[32];
	int r = 0;
	pthread_mutex_lock(&lock);
	if (all_max && all_max_written != all_max) {
		limit_str(num, sizeof(num), all_max, "max");
		if ((r = write_file(parents.pids, "pids.max", num)) < 0)
			cix_error_errno(err, r, "cannot limit the processes of cgroup '%s'", parents.pids);
		else
			all_max_written = all_max;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

static int make_child(const char *parent, unsigned long n, char **out, struct cix_err *err)
{
	struct strbuf d = STRBUF_INIT;
	strbuf_addf(&d, "%s/cix-build-%ld-%lu", parent, (long)getpid(), n);
	if (mkdir(d.buf, 0755) < 0) {
		int r = cix_error_errno(err, -errno, "cannot create cgroup '%s'", d.buf);
		strbuf_release(&d);
		return r;
	}
	*out = strbuf_detach(&d, NULL);
	return 0;
}

static int limit_memory(const char *dir, int v2, unsigned long long max, struct cix_err *err)
{
	char num[32];
	int r;
	limit_str(num, sizeof(num), max, "max");
	r = write_file(dir, v2 ? "memory.max" : "memory.limit_in_bytes", num);
	/* Swap too: memory and swap together stay below max. */
	if (!r && v2)
		write_file(dir, "memory.swap.max", "0");   /* absent without swap accounting */
	else if (!r && (r = write_file(dir, "memory.memsw.limit_in_bytes", num)) == -ENOENT)
		r = 0;
	if (r < 0)
		return cix_error_errno(err, r, "cannot limit the memory of cgroup '%s'", dir);
	return 0;
}

int cix_sandbox_cgroup_create(struct sb_cgroup *cg, const struct cix_sandbox_spec *spec,
			      struct cix_err *err)
{
	char num[32];
	unsigned long n;
	int r;

	memset(cg, 0, sizeof(*cg));
	pthread_once(&parents_once, find_parents);
	cg->v2 = parents.v2;
	pthread_mutex_lock(&lock);
	n = counter++;
	pthread_mutex_unlock(&lock);
	if (parents.pids && (spec->max_procs || spec->all_max_procs)) {
		if ((r = limit_all(spec->all_max_procs, err)) < 0)
			return r;
		if ((r = make_child(parents.pids, n, &cg->pids, err)) < 0)
			return r;
		limit_str(num, sizeof(num), spec->max_procs, "max");
		if ((r = write_file(cg->pids, "pids.max", num)) < 0) {
			cix_error_errno(err, r, "cannot limit the processes of cgroup '%s'", cg->pids);
			goto fail;
		}
	}
	if (parents.memory && spec->memory_max) {
		if (cg->v2 && cg->pids)
			cg->memory = xstrdup(cg->pids);
		else if ((r = make_child(parents.memory, n, &cg->memory, err)) < 0)
			goto fail;
		if ((r = limit_memory(cg->memory, cg->v2, spec->memory_max, err)) < 0)
			goto fail;
	}
	return 0;
fail:
	cix_sandbox_cgroup_remove(cg);
	return r;
}

int cix_sandbox_cgroup_enter(const struct sb_cgroup *cg, pid_t pid, struct cix_err *err)
{
	const char *dirs[2] = { cg->pids, cg->memory };
	char num[32];
	int r;
	snprintf(num, sizeof(num), "%ld", (long)pid);
	for (int i = 0; i < 2; i++) {
		if (!dirs[i] || (i && cg->v2 && cg->pids))
			continue;
		if ((r = write_file(dirs[i], "cgroup.procs", num)) < 0)
			return cix_error_errno(err, r, "cannot move the builder into cgroup '%s'",
					       dirs[i]);
	}
	return 0;
}

int cix_sandbox_cgroup_oom_killed(const struct sb_cgroup *cg)
{
	struct strbuf p = STRBUF_INIT;
	char line[256];
	unsigned long long kills = 0;
	FILE *f;
	if (!cg->memory)
		return 0;
	/* v1: memory.oom_control, v2: memory.events; both have "oom_kill N". */
	strbuf_addf(&p, "%s/%s", cg->memory, cg->v2 ? "memory.events" : "memory.oom_control");
	f = fopen(p.buf, "re");
	strbuf_release(&p);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "oom_kill %llu", &kills) == 1)
			break;
	fclose(f);
	return kills > 0;
}

static void remove_dir(char *dir)
{
	/* The tasks are dead; the cgroup may need a moment to notice. */
	for (int i = 0; i < 200 && rmdir(dir) < 0 && errno == EBUSY; i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	free(dir);
}

void cix_sandbox_cgroup_remove(struct sb_cgroup *cg)
{
	if (cg->memory && cg->v2 && cg->pids)
		free(cg->memory);
	else if (cg->memory)
		remove_dir(cg->memory);
	if (cg->pids)
		remove_dir(cg->pids);
	cg->memory = cg->pids = NULL;
}
