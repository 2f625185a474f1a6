/* ssh-uri.c - unit tests: what ssh-ng:// URIs say, and which are refused */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "ssh-uri.h"

#include <string.h>

static int parses(const char *uri, struct cix_ssh_uri *u)
{
	struct cix_err err = { 0 };
	int r = cix_ssh_uri_parse(uri, u, &err);
	if (r < 0)
		diag("%s", err.msg);
	return r == 0;
}

static int refused(const char *uri, const char *says)
{
	struct cix_ssh_uri u;
	struct cix_err err = { 0 };
	int r = cix_ssh_uri_parse(uri, &u, &err);
	if (r == 0)
		cix_ssh_uri_release(&u);
	return r == -CIX_EINVAL && strstr(err.msg, says) && !strchr(err.msg, '\n');
}

int main(void)
{
	struct cix_ssh_uri u;

	if (ok(parses("ssh-ng://builder", &u), "a host alone")) {
		ok(!u.user && !strcmp(u.host, "builder") && !u.port && !u.ssh_key && !u.host_key &&
		   !strcmp(u.program, "cix-daemon") && u.connect_timeout == 30 &&
		   u.silence_timeout == 600 && !u.compress, "ssh's choices, cix-daemon, 30 s, 600 s");
		cix_ssh_uri_release(&u);
	}
	if (ok(parses("ssh-ng://me@b-1.example.org:2222?ssh-key=/k%20ey&remote-program=/usr/bin/"
		      "nix-daemon&connect-timeout=5&silence-timeout=9&compress=true", &u), "every part")) {
		ok(!strcmp(u.user, "me") && !strcmp(u.host, "b-1.example.org") && u.port == 2222 &&
		   !strcmp(u.ssh_key, "/k ey") && !strcmp(u.program, "/usr/bin/nix-daemon") &&
		   u.connect_timeout == 5 && u.silence_timeout == 9 && u.compress,
		   "each as given, %%-decoded");
		cix_ssh_uri_release(&u);
	}
	if (ok(parses("ssh-ng://[::1]:22", &u), "an IPv6 address")) {
		ok(!strcmp(u.host, "::1") && u.port == 22, "without its brackets");
		cix_ssh_uri_release(&u);
	}
	/* base64 -w0 of a .pub file: "ssh-ed25519 AAAAtest me@h\n" */
	if (ok(parses("ssh-ng://h?base64-ssh-public-host-key=c3NoLWVkMjU1MTkgQUFBQXRlc3QgbWVAaAo=",
		      &u), "a host key, as base64 of a .pub file")) {
		ok(!strcmp(u.host_key, "ssh-ed25519 AAAAtest me@h"), "decoded, its newline dropped");
		cix_ssh_uri_release(&u);
	}
	ok(refused("ssh://h", "not ssh-ng://"), "another scheme");
	ok(refused("ssh-ng://-oProxyCommand=x", "bad host"), "a host that ssh would take for an option");
	ok(refused("ssh-ng://-x@h", "bad user"), "a user likewise");
	ok(refused("ssh-ng://h:65536", "bad port"), "a port out of range");
	ok(refused("ssh-ng://h:", "bad port"), "an empty port");
	ok(refused("ssh-ng://h?remote-program=x%3brm", "bad remote-program"),
	   "a program the remote shell would split");
	ok(refused("ssh-ng://h?ssh-key=a%0ab", "control character"), "a newline in a value");
	ok(refused("ssh-ng://h?ssh-key=a%4", "%-escape"), "a cut %%-escape");
	ok(refused("ssh-ng://h?max-jobs=2", "unknown parameter 'max-jobs'"), "an unknown parameter");
	ok(refused("ssh-ng://h?\n=2", "unknown parameter '\\x0a'"), "quoted in the message");
	ok(refused("ssh-ng://h?ssh-key", "NAME=VALUE"), "a parameter without '='");
	ok(refused("ssh-ng://h?connect-timeout=-1", "connect-timeout"), "a negative timeout");
	ok(refused("ssh-ng://h?silence-timeout=86401", "silence-timeout"), "a day and a second");
	return done_testing();
}
