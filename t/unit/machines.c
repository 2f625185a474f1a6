/* machines.c - unit tests: machines files and builders settings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "build.h"
#include "machines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(struct cix_machines *ms, const char *text)
{
	struct cix_err err = { 0 };
	int r = cix_machines_parse(ms, text, strlen(text), "machines", &err);
	if (r < 0)
		diag("%s", err.msg);
	return r;
}

static int refused(const char *text, const char *says)
{
	struct cix_machines ms = CIX_MACHINES_INIT;
	struct cix_err err = { 0 };
	int r = cix_machines_parse(&ms, text, strlen(text), "machines", &err);
	cix_machines_release(&ms);
	if (r == 0 || !strstr(err.msg, says) || strchr(err.msg, '\n'))
		diag("got: %s", r == 0 ? "(accepted)" : err.msg);
	return r < 0 && strstr(err.msg, says) && !strchr(err.msg, '\n');
}

int main(void)
{
	struct cix_machines ms = CIX_MACHINES_INIT;
	const char *big[] = { "big-parallel" }, *kvm[] = { "kvm" };
	ok(parse(&ms, "# builders\n\n"
		      "ssh-ng://root@b1 x86_64-linux,i686-linux /root/.ssh/b1 4 2.5 kvm,big-parallel - c3NoLWVkMjU1MTkgQUFBQQ==\n"
		      "  b2  # a bare host: ssh-ng\n"
		      "ssh-ng://b3:2222 aarch64-linux - 2 1 - kvm\n") == 0, "three machines");
	is_int((int)ms.nr, 3, "and no more");
	if (ms.nr == 3) {
		const struct cix_machine *a = &ms.v[0], *b = &ms.v[1], *c = &ms.v[2];
		ok(!strcmp(a->uri, "ssh-ng://root@b1") && a->systems.nr == 2 &&
		   !strcmp(a->ssh_key, "/root/.ssh/b1") && a->max_jobs == 4 && a->speed == 2.5 &&
		   a->supported.nr == 2 && !a->mandatory.nr && a->host_key, "every field");
		ok(!strcmp(b->uri, "ssh-ng://b2") && b->systems.nr == 1 &&
		   !strcmp(b->systems.v[0], cix_build_this_system()) && b->max_jobs == 1 &&
		   b->speed == 1 && !b->ssh_key, "defaults: this system, one job, speed 1");
		ok(cix_machine_fits(a, "i686-linux", NULL, 0), "a system it has");
		ok(!cix_machine_fits(a, "aarch64-linux", NULL, 0), "not one it lacks");
		ok(cix_machine_fits(a, "x86_64-linux", big, 1), "a feature it supports");
		ok(!cix_machine_fits(b, "x86_64-linux", big, 1) || strcmp(cix_build_this_system(), "x86_64-linux"),
		   "not one it lacks");
		ok(!cix_machine_fits(c, "aarch64-linux", NULL, 0), "a mandatory feature not wanted: no");
		ok(cix_machine_fits(c, "aarch64-linux", kvm, 1), "wanted: yes");
		char *u = cix_machine_store_uri(a);
		is_str(u, "ssh-ng://root@b1?ssh-key=/root/.ssh/b1&base64-ssh-public-host-key=c3NoLWVkMjU1MTkgQUFBQQ==",
		       "its store URI carries the key and the host key");
		free(u);
	}
	cix_machines_release(&ms);

	struct cix_err err = { 0 };
	ok(cix_machines_from_spec(&ms, "ssh-ng://x - - 2; ssh-ng://y", &err) == 0 && ms.nr == 2 &&
	   ms.v[0].max_jobs == 2, "a builders setting: ';' between machines");
	cix_machines_release(&ms);
	ok(cix_machines_from_spec(&ms, "@/nonexistent/machines", &err) == 0 && ms.nr == 0,
	   "@FILE of a missing file: no machines");

	ok(refused("ftp://h", "not ssh-ng://"), "another scheme");
	ok(refused("-oProxyCommand=x", "bad host"), "a host ssh would take for an option");
	ok(refused("h x86_64-linux - many", "line 1: bad maximum number of jobs 'many'"), "jobs not a number");
	ok(refused("h x86_64-linux - 1 0", "bad speed factor"), "speed 0");
	ok(refused("h x86_64-linux - 1 nan", "bad speed factor"), "speed nan");
	ok(refused("\nh x8$6 - 1", "line 2: bad system"), "a bad system, its line");
	ok(refused("h - - 1 1 - - not*base64", "bad public host key"), "a bad host key");
	ok(refused("h - - 1 1 - - - extra", "too many fields"), "nine fields");
	ok(refused("h - - 1 1 a\x01 -", "bad feature 'a\\x01'"), "a control byte, quoted");
	return done_testing();
}
