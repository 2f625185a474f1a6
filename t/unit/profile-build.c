/* profile-build.c - unit tests for cix_builtin_profile, the union of packages */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "profile-build.h"
#include "nar-read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];
static char store[300];

/* tmp/store/NAME/REL as a path. */
static const char *at(char *buf, size_t size, const char *pkg, const char *rel)
{
	snprintf(buf, size, "%s/%s%s%s", store, pkg, rel && *rel ? "/" : "", rel ? rel : "");
	return buf;
}

/* mkdir -p of PKG/REL. */
static void dir(const char *pkg, const char *rel)
{
	char p[PATH_MAX];
	at(p, sizeof(p), pkg, rel);
	for (char *c = p + strlen(tmp) + 1; ; c++) {
		if (*c && *c != '/')
			continue;
		char saved = *c;
		*c = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			diag("cannot create %s", p);
		*c = saved;
		if (!saved)
			break;
	}
}

/* A file PKG/REL holding text. */
static void file(const char *pkg, const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd = open(at(p, sizeof(p), pkg, rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		diag("cannot write %s", p);
	if (fd >= 0)
		close(fd);
}

static void link_to(const char *pkg, const char *rel, const char *target)
{
	char p[PATH_MAX];
	if (symlink(target, at(p, sizeof(p), pkg, rel)) < 0)
		diag("cannot link %s", p);
}

/* "STORE/A\nSTORE/B\n..." of the packages named. */
static const char *list(char *buf, size_t size, const char *const *pkgs)
{
	size_t len = 0;
	buf[0] = '\0';
	for (; *pkgs; pkgs++)
		len += (size_t)snprintf(buf + len, size - len, "%s/%s\n", store, *pkgs);
	return buf;
}

static char out[400];

/* Build the union of pkgs into a fresh tmp/NAME (out). */
static int build(const char *name, const char *const *pkgs, const char *manifest,
		 struct cix_err *err)
{
	char paths[4096];
	snprintf(out, sizeof(out), "%s/%s", tmp, name);
	cix_err_clear(err);
	return cix_builtin_profile(list(paths, sizeof(paths), pkgs), manifest, out, err);
}

/* The target of the link OUT/REL, or "" when it is not a link. */
static const char *target(const char *rel)
{
	static char t[PATH_MAX];
	char p[PATH_MAX];
	ssize_t n;
	snprintf(p, sizeof(p), "%s/%s", out, rel);
	n = readlink(p, t, sizeof(t) - 1);
	t[n < 0 ? 0 : n] = '\0';
	return t;
}

/* Whether OUT/REL is a real directory (not a link) of mode 0755. */
static int is_real_dir(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s%s%s", out, *rel ? "/" : "", rel);
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0755;
}

/* The names in OUT/REL, sorted, space-separated. */
static const char *names(const char *rel)
{
	static char buf[1024];
	char p[PATH_MAX];
	struct dirent **v;
	int n;
	snprintf(p, sizeof(p), "%s%s%s", out, *rel ? "/" : "", rel);
	buf[0] = '\0';
	n = scandir(p, &v, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, "..")) {
			if (buf[0])
				strcat(buf, " ");
			strcat(buf, v[i]->d_name);
		}
		free(v[i]);
	}
	if (n >= 0)
		free(v);
	return buf;
}

static const char *want(const char *pkg, const char *rel)
{
	static char buf[PATH_MAX];
	return at(buf, sizeof(buf), pkg, rel);
}

static void trees(void)
{
	dir("a", "bin");
	file("a", "bin/a", "a\n");
	dir("a", "share/doc/a");
	file("a", "share/doc/a/README", "a\n");
	dir("a", "lib");
	file("a", "lib/liba.so", "a\n");
	file("a", "manifest", "not the profile's\n");

	dir("b", "bin");
	file("b", "bin/b", "b\n");
	dir("b", "share/doc/b");
	dir("b", "include");
	file("b", "manifest", "not the profile's either\n");

	dir("c", "bin");
	file("c", "bin/c", "c\n");
	dir("c", "share/man/man1");

	/* d's bin/a is a's, through a link: the same file. */
	dir("d", "bin");
	link_to("d", "bin/a", want("a", "bin/a"));
	/* e's share is a's share. */
	dir("e", "");
	link_to("e", "share", want("a", "share"));
	/* f's bin/a is a file of its own. */
	dir("f", "bin");
	file("f", "bin/a", "not a\n");
	/* g's bin is a file. */
	dir("g", "");
	file("g", "bin", "g\n");
	/* h's share leads out of the store, to tmp/outside/share. */
	dir("h", "");
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/outside", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/outside/share", tmp);
	mkdir(p, 0755);
	link_to("h", "share", p);
	/* i/x and j/x are links to their own package: a union without end. */
	dir("i", "");
	link_to("i", "x", ".");
	dir("j", "");
	link_to("j", "x", ".");
	/* deep1 and deep2: directories nested deeper than a profile may be. */
	char deep[3 * 70] = "";
	for (int n = 0; n < 66; n++)
		strcat(deep, n ? "/d" : "d");
	dir("deep1", deep);
	dir("deep2", deep);
	/* k's bin is a link to b's bin: merged with a's bin all the same. */
	dir("k", "");
	link_to("k", "bin", want("b", "bin"));
}

static void read_back(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	buf[n < 0 ? 0 : n] = '\0';
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	struct cix_err err = { 0 };
	char p[PATH_MAX], buf[4096], msg[CIX_ERR_MSG_MAX + 1024];
	struct stat st;
	int r;

	if (tap_mkdtemp(tmp, sizeof(tmp), "profile-build") < 0)
		return 1;
	snprintf(store, sizeof(store), "%s/store", tmp);
	mkdir(store, 0755);
	trees();

	/* Two packages. */
	static const char manifest[] = "cix-manifest 1\n(weird \\ bytes \x01\n\n";
	r = build("ab", (const char *const[]){ "a", "b", NULL }, manifest, &err);
	is_int(r, 0, "union of two: %s", err.msg);
	ok(is_real_dir(""), "OUT is a directory of mode 0755");
	is_str(names(""), "bin include lib manifest share", "OUT holds the union's names");
	ok(is_real_dir("bin"), "bin, in both, is a directory");
	is_str(target("bin/a"), want("a", "bin/a"), "bin/a links to a's");
	is_str(target("bin/b"), want("b", "bin/b"), "bin/b links to b's");
	is_str(target("lib"), want("a", "lib"), "lib, in a only, is a link to it");
	is_str(target("include"), want("b", "include"), "include, in b only, is a link");
	ok(is_real_dir("share") && is_real_dir("share/doc"), "share/doc merged");
	is_str(names("share/doc"), "a b", "share/doc holds both");
	is_str(target("share/doc/a"), want("a", "share/doc/a"), "share/doc/a links to a's");
	snprintf(p, sizeof(p), "%s/manifest", out);
	read_back(p, buf, sizeof(buf));
	is_str(buf, manifest, "the manifest is written verbatim, not a package's");
	ok(lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0444,
	   "the manifest is a file of mode 0444");

	/* Three packages, and blank lines in the list. */
	snprintf(out, sizeof(out), "%s/abc", tmp);
	snprintf(buf, sizeof(buf), "\n%s/a\n\n%s/b\n%s/c", store, store, store);
	r = cix_builtin_profile(buf, "m\n", out, &err);
	is_int(r, 0, "union of three, blank lines ignored: %s", err.msg);
	is_str(names("bin"), "a b c", "bin holds the three programs");
	is_str(names("share"), "doc man", "share holds doc and man");
	ok(is_real_dir("share/doc"), "share/doc, in two, merged");
	is_str(target("share/man"), want("c", "share/man"), "share/man, in one, linked");

	/* The same file, the same directory, the same package twice. */
	r = build("ad", (const char *const[]){ "a", "d", NULL }, "", &err);
	is_int(r, 0, "a file and a link to it are no conflict: %s", err.msg);
	is_str(target("bin/a"), want("a", "bin/a"), "bin/a links to the first");
	r = build("ae", (const char *const[]){ "a", "e", NULL }, "", &err);
	is_int(r, 0, "a directory and a link to it: %s", err.msg);
	is_str(target("share"), want("a", "share"), "share is one link");
	r = build("aa", (const char *const[]){ "a", "a", NULL }, "", &err);
	is_int(r, 0, "a package twice: %s", err.msg);
	is_str(target("lib"), want("a", "lib"), "lib is one link");
	r = build("ak", (const char *const[]){ "a", "k", NULL }, "", &err);
	is_int(r, 0, "a directory merged with a link to another: %s", err.msg);
	is_str(target("bin/b"), want("k", "bin/b"), "bin/b links through k's link");

	/* Conflicts. */
	r = build("af", (const char *const[]){ "a", "f", NULL }, "", &err);
	is_int(r, -CIX_EEXIST, "two different files are a conflict");
	snprintf(msg, sizeof(msg), "conflict: 'bin/a' is in both '%s/a' and '%s/f'", store, store);
	is_str(err.msg, msg, "the conflict names both packages");
	r = build("bcf", (const char *const[]){ "b", "c", "f", "a", NULL }, "", &err);
	snprintf(msg, sizeof(msg), "conflict: 'bin/a' is in both '%s/f' and '%s/a'", store, store);
	ok(r == -CIX_EEXIST && !strcmp(err.msg, msg), "in the packages' order: %s", err.msg);
	r = build("ag", (const char *const[]){ "a", "g", NULL }, "", &err);
	snprintf(msg, sizeof(msg), "conflict: 'bin' is in both '%s/a' and '%s/g'", store, store);
	ok(r == -CIX_EEXIST && !strcmp(err.msg, msg), "a directory and a file: %s", err.msg);
	r = build("ah", (const char *const[]){ "a", "h", NULL }, "", &err);
	snprintf(msg, sizeof(msg), "conflict: 'share' is in both '%s/a' and '%s/h'", store, store);
	ok(r == -CIX_EEXIST && !strcmp(err.msg, msg),
	   "a directory out of the store is never merged: %s", err.msg);
	r = build("ij", (const char *const[]){ "i", "j", NULL }, "", &err);
	ok(r == -CIX_ELIMIT || r == -CIX_EEXIST, "a union without end stops: %s", err.msg);
	r = build("deep", (const char *const[]){ "deep1", "deep2", NULL }, "", &err);
	is_int(r, -CIX_ELIMIT, "directories too deep: %s", err.msg);

	/* The empty profile. */
	r = build("empty", (const char *const[]){ NULL }, "cix-manifest 1\n", &err);
	is_int(r, 0, "the empty profile: %s", err.msg);
	is_str(names(""), "manifest", "it holds only the manifest");
	snprintf(out, sizeof(out), "%s/empty2", tmp);
	is_int(cix_builtin_profile("\n\n", "", out, &err), 0, "blank lines only: %s", err.msg);
	snprintf(p, sizeof(p), "%s/manifest", out);
	ok(stat(p, &st) == 0 && st.st_size == 0, "an empty manifest");

	/* Refused. */
	snprintf(out, sizeof(out), "%s/missing", tmp);
	snprintf(buf, sizeof(buf), "%s/a\n%s/nonesuch\n", store, store);
	r = cix_builtin_profile(buf, "", out, &err);
	ok(r == -ENOENT && strstr(err.msg, "nonesuch"), "a missing path: %s", err.msg);
	ok(lstat(out, &st) < 0, "nothing made");
	r = cix_builtin_profile("store/a\n", "", out, &err);
	is_int(r, -CIX_EINVAL, "a relative path: %s", err.msg);
	snprintf(buf, sizeof(buf), "%s/a/lib/liba.so\n", store);
	r = cix_builtin_profile(buf, "", out, &err);
	is_int(r, -CIX_EINVAL, "a file: %s", err.msg);
	r = build("ab", (const char *const[]){ "a", NULL }, "", &err);
	is_int(r, -CIX_EEXIST, "OUT exists: %s", err.msg);
	snprintf(out, sizeof(out), "%s/dangling", tmp);
	if (symlink("nowhere", out) < 0)
		diag("cannot link %s", out);
	snprintf(buf, sizeof(buf), "%s/a\n", store);
	r = cix_builtin_profile(buf, "", out, &err);
	is_int(r, -CIX_EEXIST, "OUT a dangling link: %s", err.msg);
	snprintf(p, sizeof(p), "%s/nowhere", tmp);
	ok(lstat(p, &st) < 0, "nothing made through it");

	snprintf(buf, sizeof(buf), "chmod -R u+w %s && rm -rf %s", tmp, tmp);
	if (system(buf))
		diag("cannot clean %s", tmp);
	return done_testing();
}
