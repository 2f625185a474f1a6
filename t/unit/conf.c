/* conf.c - unit tests for cix.conf and the substitute URL list */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "conf.h"
#include "substitute.h"

#include <unistd.h>

static char dir[] = "/tmp/cix-conf-XXXXXX";

static const char *write_conf(const char *text)
{
	static char file[64];
	FILE *f;
	snprintf(file, sizeof(file), "%s/cix.conf", dir);
	f = fopen(file, "w");
	fputs(text, f);
	fclose(f);
	return file;
}

int main(void)
{
	struct cix_conf c;
	struct cix_err err = { 0 };
	struct cix_substituter *subs;
	size_t n;
	char *big;

	if (!mkdtemp(dir))
		return 1;
	ok(cix_conf_load("/nonexistent/cix.conf", &c, &err) == 0 && c.allowed_users.nr == 1 &&
	   !strcmp(c.allowed_users.v[0], "*") && !strcmp(c.trusted_users.v[0], "root") &&
	   !c.substitute_urls && !c.narinfo_positive_ttl && !c.narinfo_negative_ttl,
	   "a missing file gives the defaults");
	cix_conf_release(&c);

	ok(cix_conf_load(write_conf("# comment\n\n trusted-users = alice @wheel # them\n"
				    "substitute-urls = http://a:1 file:///srv/c/\n"
				    "narinfo-cache-negative-ttl = 0\n"
				    "narinfo-cache-positive-ttl = 60\nsome-later-setting = x\n"),
			 &c, &err) == 0, "a file with settings, comments and an unknown name");
	ok(c.trusted_users.nr == 2 && !strcmp(c.trusted_users.v[1], "@wheel"), "trusted-users");
	is_str(c.substitute_urls, "http://a:1 file:///srv/c/", "substitute-urls");
	ok(c.narinfo_negative_ttl == -1, "a ttl of 0: not remembered (-1)");
	ok(c.narinfo_positive_ttl == 60, "a ttl in seconds");
	ok(cix_substituters_make(c.substitute_urls, NULL, &subs, &n, &err) == 0 && n == 2 &&
	   !strcmp(subs[1].url, "file:///srv/c") && subs[1].fetch.allow_file &&
	   !subs[0].fetch.allow_file, "URLs split, trailing slash dropped, file:// only for file caches");
	cix_substituters_free(subs, n);
	cix_conf_release(&c);

	ok(cix_conf_load(write_conf("narinfo-cache-negative-ttl = -5\n"), &c, &err) ==
	   -CIX_EFORMAT && strstr(err.msg, ":1:"), "a negative ttl is refused, with the line");
	cix_conf_release(&c);
	ok(cix_conf_load(write_conf("fod-host-loopback = yes \n"), &c, &err) == 0 &&
	   c.fod_host_loopback == 1, "fod-host-loopback = yes");
	cix_conf_release(&c);
	ok(cix_conf_load(write_conf("fod-host-loopback = yes\nfod-host-loopback = no\n"), &c,
			 &err) == 0 && c.fod_host_loopback == 0, "the last fod-host-loopback counts");
	cix_conf_release(&c);
	ok(cix_conf_load(write_conf("fod-host-loopback = yes please\n"), &c, &err) ==
	   -CIX_EFORMAT && strstr(err.msg, "yes or no"), "fod-host-loopback is yes or no");
	cix_conf_release(&c);
	ok(cix_conf_load(write_conf("just words\n"), &c, &err) == -CIX_EFORMAT,
	   "a line without '=' is refused");
	cix_conf_release(&c);
	big = malloc(70000);
	memset(big, 'a', 69999);
	big[69999] = '\0';
	ok(cix_conf_load(write_conf(big), &c, &err) == -CIX_ELIMIT, "an over-long line is refused");
	free(big);
	cix_conf_release(&c);

	/* the limits on builds */
	struct cix_build_limits d;
	cix_build_limits_default(&d);
	ok(d.timeout == 86400 && d.max_log == 64 << 20 && d.memory_max > 0 && d.shm_size > 0 &&
	   d.shm_size < d.memory_max && d.tmp_size == d.shm_size && d.builds_pids_max > 0 && d.pids_max == CIX_LIMIT_AUTO,
	   "limits by default: a day, 64 MiB of log, half and a tenth of the RAM, some PIDs");
	ok(cix_conf_load(write_conf("build-memory-max = 2G\nbuild-shm-size=16m \n"
				    "build-tmp-size = 1G\n"
				    "max-log-size = none\nbuild-timeout = 3h\n"
				    "builds-pids-max = 64\n"), &c, &err) == 0 &&
	   c.limits.memory_max == 2ULL << 30 && c.limits.shm_size == 16 << 20 &&
	   c.limits.tmp_size == 1ULL << 30 &&
	   c.limits.max_log == 0 && c.limits.timeout == 3 * 3600 &&
	   c.limits.builds_pids_max == 64, "limits: sizes, none, hours, counts");
	ok(d.kept_max_age == 7 * 86400 && d.kept_max == 20 && d.subst_unsigned_max == 4ULL << 30,
	   "kept build directories: 7 days, 20; unsigned substitutes: 4 GiB");
	is_int(cix_build_limit_set(&d, "kept-builds-max-age", "2d"), 1, "kept-builds-max-age");
	is_int(cix_build_limit_set(&d, "kept-builds-max", "3"), 1, "kept-builds-max");
	is_int(cix_build_limit_set(&d, "substitute-unsigned-max-size", "1G"), 1,
	       "substitute-unsigned-max-size");
	ok(d.kept_max_age == 2 * 86400 && d.kept_max == 3 && d.subst_unsigned_max == 1ULL << 30,
	   "their values");
	is_int(cix_build_limit_set(&d, "kept-builds-max", "three"), -1, "kept-builds-max: a number");
	is_int(cix_build_limits_pids(&c.limits), 32, "a build's PIDs: half the total by default");
	c.limits.pids_max = 1000;
	is_int(cix_build_limits_pids(&c.limits), 64, "a build's PIDs: at most the total");
	c.limits.pids_max = 10;
	is_int(cix_build_limits_pids(&c.limits), 10, "a build's PIDs: as given");
	c.limits.pids_max = CIX_LIMIT_AUTO;
	c.limits.builds_pids_max = 0;
	is_int(cix_build_limits_pids(&c.limits), CIX_BUILD_MAX_PROCS, "no total: the old bound");
	cix_conf_release(&c);
	static const char *const bad[] = {
		"build-memory-max = 1Q", "build-memory-max = -1", "build-shm-size = 2 G",
		"build-timeout = 1y", "builds-pids-max = 1k", "max-log-size = 99999999999T",
		"build-pids-max =", "build-timeout = 99999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(cix_conf_load(write_conf(bad[i]), &c, &err) == -CIX_EFORMAT &&
		   strstr(err.msg, ":1: invalid value for"), "refused: %s", bad[i]);
		cix_conf_release(&c);
	}

	ok(cix_substituters_make("ftp://x/ http://y", NULL, &subs, &n, &err) == -CIX_EINVAL &&
	   !subs && !n, "an ftp:// cache is refused");
	ok(cix_substituters_make("  ", NULL, &subs, &n, &err) == 0 && n == 0, "no URLs, no caches");
	cix_substituters_free(subs, n);
	unlink(write_conf(""));
	rmdir(dir);
	return done_testing();
}
