/* conf-limits.c - the limits on builds: their defaults, and their values in cix.conf */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "conf.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECONDS_MAX (100ULL * 365 * 86400)
/* Far beyond any machine; keeps the arithmetic of the suffixes in range. */
#define BYTES_MAX (1ULL << 60)
#define COUNT_MAX (1ULL << 40)

static unsigned long long ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || size <= 0)
		return 0;
	return (unsigned long long)pages * (unsigned long long)size;
}

static unsigned long pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long n = 0;
	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n ? n : 32768;   /* the kernel's default */
}

void cix_build_limits_default(struct cix_build_limits *l)
{
	unsigned long long ram = ram_bytes();
	memset(l, 0, sizeof(*l));
	l->timeout = CIX_BUILD_DEFAULT_TIMEOUT;
	l->max_log = CIX_BUILD_DEFAULT_MAX_LOG;
	l->memory_max = ram / 2;
	l->shm_size = ram / 10;
	l->tmp_size = ram / 10;
	l->kept_max_age = 7ULL * 86400;
	l->kept_max = 20;
	l->subst_unsigned_max = 4ULL << 30;
	l->builds_pids_max = pid_max() / 4;
	l->pids_max = CIX_LIMIT_AUTO;
}

unsigned long cix_build_limits_pids(const struct cix_build_limits *l)
{
	unsigned long all = l->builds_pids_max, one = l->pids_max;
	if (one == CIX_LIMIT_AUTO) {
		one = all ? all / 2 : CIX_BUILD_MAX_PROCS;
		if (one > CIX_BUILD_MAX_PROCS)
			one = CIX_BUILD_MAX_PROCS;
		if (!one)
			one = 1;
	}
	if (all && (!one || one > all))
		one = all;
	return one;
}

/*
 * A number with an optional one-letter suffix from units (each with its
 * multiplier), at most max; "none" is 0.
 */
static int number(const char *v, const char *units, const unsigned long long *mult,
		  unsigned long long max, unsigned long long *out)
{
	char buf[32];
	size_t n = strlen(v);
	unsigned long long m = 1, x;
	if (!strcmp(v, "none")) {
		*out = 0;
		return 0;
	}
	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n + 1);
	const char *u = units ? strchr(units, buf[n - 1]) : NULL;
	if (u && buf[n - 1]) {
		m = mult[u - units];
		buf[--n] = '\0';
	}
	if (cix_parse_decimal(buf, max, &x) < 0 || x > max / m)
		return -1;
	*out = x * m;
	return 0;
}

static int size_value(const char *v, unsigned long long *out)
{
	static const unsigned long long mult[] = {
		1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40,
		1ULL << 10, 1ULL << 20, 1ULL << 30, 1ULL << 40,
	};
	return number(v, "KMGTkmgt", mult, BYTES_MAX, out);
}

static int seconds_value(const char *v, unsigned long long *out)
{
	static const unsigned long long mult[] = { 1, 60, 3600, 86400 };
	return number(v, "smhd", mult, SECONDS_MAX, out);
}

int cix_build_limit_set(struct cix_build_limits *l, const char *name, const char *value)
{
	char v[64];
	unsigned long long x;
	int r;
	value += strspn(value, " \t");
	size_t n = strcspn(value, " \t");
	if (value[n + strspn(value + n, " \t")] || n >= sizeof(v))
		n = sizeof(v);   /* two words, or too long: invalid */
	if (n < sizeof(v)) {
		memcpy(v, value, n);
		v[n] = '\0';
	} else {
		v[0] = '\0';
	}
	if (!strcmp(name, "build-timeout")) {
		if ((r = seconds_value(v, &x)) == 0)
			l->timeout = (unsigned)x;
	} else if (!strcmp(name, "max-log-size")) {
		r = size_value(v, &l->max_log);
	} else if (!strcmp(name, "build-memory-max")) {
		r = size_value(v, &l->memory_max);
	} else if (!strcmp(name, "build-shm-size")) {
		r = size_value(v, &l->shm_size);
	} else if (!strcmp(name, "build-tmp-size")) {
		r = size_value(v, &l->tmp_size);
	} else if (!strcmp(name, "kept-builds-max-age")) {
		r = seconds_value(v, &l->kept_max_age);
	} else if (!strcmp(name, "kept-builds-max")) {
		if ((r = number(v, NULL, NULL, COUNT_MAX, &x)) == 0)
			l->kept_max = (unsigned long)x;
	} else if (!strcmp(name, "substitute-unsigned-max-size")) {
		r = size_value(v, &l->subst_unsigned_max);
	} else if (!strcmp(name, "build-pids-max")) {
		if ((r = number(v, NULL, NULL, COUNT_MAX, &x)) == 0)
			l->pids_max = (unsigned long)x;
	} else if (!strcmp(name, "builds-pids-max")) {
		if ((r = number(v, NULL, NULL, COUNT_MAX, &x)) == 0)
			l->builds_pids_max = (unsigned long)x;
	} else {
		return 0;
	}
	return r < 0 ? -1 : 1;
}

static pthread_once_t conf_once = PTHREAD_ONCE_INIT;
static struct cix_build_limits conf_limits;
static int conf_fod_host_loopback;
static struct cix_err conf_err;
static int conf_ret;

static void load_conf(void)
{
	struct cix_conf c;
	conf_ret = cix_conf_load(cix_conf_file(), &c, &conf_err);
	conf_limits = c.limits;
	/* A cix.conf that does not parse gives the safe default. */
	conf_fod_host_loopback = conf_ret == 0 && c.fod_host_loopback;
	cix_conf_release(&c);
}

unsigned long long cix_limit_lesser(unsigned long long a, unsigned long long b)
{
	return !a || (b && b < a) ? b : a;
}

int cix_conf_fod_host_loopback(void)
{
	pthread_once(&conf_once, load_conf);
	return conf_fod_host_loopback;
}

int cix_build_limits_of_conf(const struct cix_build_limits **out, struct cix_err *err)
{
	pthread_once(&conf_once, load_conf);
	if (conf_ret < 0)
		return cix_error(err, conf_ret, "%s", conf_err.msg);
	*out = &conf_limits;
	return 0;
}
