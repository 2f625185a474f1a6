/* nar-read.c - unit tests of the strict NAR reader, checker and restorer */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "tap.h"
#include "remove.h"
#include "encoding.h"
#include "nar.h"
#include "nar-read.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Building NARs token by token ---- */

static void nb_u64(struct strbuf *sb, uint64_t v)
{
	unsigned char b[8];
	cix_put_u64le(b, v);
	strbuf_add(sb, b, 8);
}

static void nb_pad(struct strbuf *sb, uint64_t len)
{
	static const char zero[8];
	strbuf_add(sb, zero, (size_t)((8 - len % 8) % 8));
}

static void nb_str(struct strbuf *sb, const void *s, size_t n)
{
	nb_u64(sb, n);
	strbuf_add(sb, s, n);
	nb_pad(sb, n);
}

static void T(struct strbuf *sb, const char *tok)
{
	nb_str(sb, tok, strlen(tok));
}

static void nb_magic(struct strbuf *sb)
{
	T(sb, "nix-archive-1");
}

static void nb_file(struct strbuf *sb, int exec, const char *data, size_t n)
{
	T(sb, "(");
	T(sb, "type");
	T(sb, "regular");
	if (exec) {
		T(sb, "executable");
		T(sb, "");
	}
	T(sb, "contents");
	nb_str(sb, data, n);
	T(sb, ")");
}

static void nb_link(struct strbuf *sb, const char *target)
{
	T(sb, "(");
	T(sb, "type");
	T(sb, "symlink");
	T(sb, "target");
	T(sb, target);
	T(sb, ")");
}

static void nb_dir(struct strbuf *sb)
{
	T(sb, "(");
	T(sb, "type");
	T(sb, "directory");
}

static void nb_entry_n(struct strbuf *sb, const char *name, size_t n)
{
	T(sb, "entry");
	T(sb, "(");
	T(sb, "name");
	nb_str(sb, name, n);
	T(sb, "node");
}

static void nb_entry(struct strbuf *sb, const char *name)
{
	nb_entry_n(sb, name, strlen(name));
}

/* Close an entry (after its node) or a directory. */
static void nb_close(struct strbuf *sb)
{
	T(sb, ")");
}

/* doc/formats.md §3's directory: {run: exec "#!/bin/sh\n", link -> run, sub/{B:"x", a:"y"}} */
static void nb_vector_dir(struct strbuf *sb)
{
	nb_magic(sb);
	nb_dir(sb);
	nb_entry(sb, "link"); nb_link(sb, "run"); nb_close(sb);
	nb_entry(sb, "run"); nb_file(sb, 1, "#!/bin/sh\n", 10); nb_close(sb);
	nb_entry(sb, "sub");
	nb_dir(sb);
	nb_entry(sb, "B"); nb_file(sb, 0, "x", 1); nb_close(sb);
	nb_entry(sb, "a"); nb_file(sb, 0, "y", 1); nb_close(sb);
	nb_close(sb);
	nb_close(sb);
	nb_close(sb);
}

/* ---- Helpers ---- */

static char tmp[1024], work[1100], outside[1100], target[1200];

static int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int check_mem(const void *data, size_t len, size_t *pos,
		     struct cix_hash *h, uint64_t *size, struct cix_err *err)
{
	struct cix_mem_source m = { data, len, 0 };
	int r = cix_nar_check(cix_mem_source_read, &m, h, size, err);
	if (pos)
		*pos = m.pos;
	return r;
}

static int restore_mem(const void *data, size_t len, const char *to,
		       struct cix_err *err)
{
	struct cix_mem_source m = { data, len, 0 };
	return cix_nar_restore(cix_mem_source_read, &m, to, NULL, NULL, err);
}

static int one_line(const struct cix_err *err)
{
	return err->msg[0] && !strchr(err->msg, '\n');
}

/*
 * A hostile NAR: check and restore both refuse it with code want and a
 * one-line message; the restore leaves nothing in work/ (the target's
 * parent) nor in outside/.
 */
static void hostile(const char *title, struct strbuf *nar, int want)
{
	struct cix_err err;
	int r = check_mem(nar->buf, nar->len, NULL, NULL, NULL, &err);
	is_int(r, want, "check refuses %s", title);
	ok(one_line(&err), "  with a one-line message: %s", err.msg);
	r = restore_mem(nar->buf, nar->len, target, &err);
	is_int(r, want, "restore refuses %s", title);
	ok(dir_entries(work) == 0 && dir_entries(outside) == 0,
	   "  and leaves nothing behind");
	strbuf_reset(nar);
}

static void hex_is(const struct cix_hash *h, const char *want, const char *title)
{
	struct strbuf sb = STRBUF_INIT;
	cix_base16_encode(&sb, h->bytes, h->len);
	is_str(sb.buf, want, "%s", title);
	strbuf_release(&sb);
}

/* A source that hands out one byte at a time. */
static ssize_t trickle_read(void *opaque, void *buf, size_t len)
{
	return cix_mem_source_read(opaque, buf, len ? 1 : 0);
}

static ssize_t failing_read(void *opaque, void *buf, size_t len)
{
	return -EIO;
}

/* Records entry names, to see what the parser announced. */
struct rec {
	struct strbuf names;
};

static int rec_entry(void *opaque, const char *name, size_t len, struct cix_err *err)
{
	struct rec *rc = opaque;
	strbuf_add(&rc->names, name, len);
	strbuf_addch(&rc->names, ';');
	return 0;
}

/* ---- Tests ---- */

static void test_vectors(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_hash h, h2;
	struct cix_err err;
	uint64_t size;
	size_t pos;

	nb_magic(&sb);
	nb_file(&sb, 0, "hello\n", 6);
	is_int(check_mem(sb.buf, sb.len, &pos, &h, &size, &err), 0, "hello NAR parses");
	is_int(size, 120, "hello NAR is 120 bytes");
	hex_is(&h, "1c37d01af40be2e80691de3cc3df44377a699afbb17c68f080964b2fd071fc13",
	       "hello NAR hash");
	strbuf_reset(&sb);

	nb_vector_dir(&sb);
	is_int(check_mem(sb.buf, sb.len, &pos, &h, &size, &err), 0, "directory NAR parses");
	is_int(size, 1072, "directory NAR is 1072 bytes");
	hex_is(&h, "ed677baddae4ef7b125338441fe1243ca7ef44035efdb023b50dcceeb9d501ab",
	       "directory NAR hash");

	{
		struct cix_mem_source m = { (unsigned char *)sb.buf, sb.len, 0 };
		uint64_t size2 = 0;
		is_int(cix_nar_restore(cix_mem_source_read, &m, target, &h2, &size2, &err), 0,
		       "directory NAR restores");
		is_int(size2, 1072, "  restore reports the size");
		ok(h2.len == h.len && !memcmp(h2.bytes, h.bytes, h.len), "  and the hash");
		cix_remove_tree_at(AT_FDCWD, target, NULL);
	}
	strbuf_release(&sb);
}

static int sb_sink(void *opaque, const void *data, size_t len)
{
	strbuf_add(opaque, data, len);
	return 0;
}

static void test_roundtrip(void)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	struct cix_err err;
	struct stat st;
	char p[4200];

	nb_vector_dir(&sb);
	is_int(restore_mem(sb.buf, sb.len, target, &err), 0, "restore the directory vector");
	is_int(cix_nar_dump(target, sb_sink, &out, &err), 0, "dump it again");
	is_mem(out.buf, out.len, sb.buf, sb.len, "  and get the same bytes");
	snprintf(p, sizeof(p), "%s/run", target);
	ok(!lstat(p, &st) && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR),
	   "run is an executable file");
	snprintf(p, sizeof(p), "%s/sub/B", target);
	ok(!lstat(p, &st) && S_ISREG(st.st_mode) && !(st.st_mode & S_IXUSR),
	   "sub/B is a plain file");
	snprintf(p, sizeof(p), "%s/link", target);
	ok(!lstat(p, &st) && S_ISLNK(st.st_mode), "link is a symlink");
	is_int(cix_remove_tree_at(AT_FDCWD, target, &err), 0, "remove the tree");
	ok(dir_entries(work) == 0, "  and nothing is left");

	/* Restoring onto something that exists. */
	is_int(mkdir(target, 0755), 0, "make a directory at the target");
	is_int(restore_mem(sb.buf, sb.len, target, &err), -CIX_EEXIST,
	       "restore onto an existing directory fails");
	ok(strstr(err.msg, "exists") != NULL, "  saying it exists: %s", err.msg);
	ok(dir_entries(target) == 0, "  and leaves the directory alone");
	rmdir(target);
	is_int(close(open(target, O_CREAT | O_WRONLY, 0644)), 0, "make a file at the target");
	is_int(restore_mem(sb.buf, sb.len, target, &err), -CIX_EEXIST,
	       "restore onto an existing file fails");
	ok(!lstat(target, &st) && S_ISREG(st.st_mode) && st.st_size == 0, "  and leaves it alone");
	unlink(target);
	is_int(symlink("nowhere", target), 0, "make a dangling symlink at the target");
	is_int(restore_mem(sb.buf, sb.len, target, &err), -CIX_EEXIST,
	       "restore onto a dangling symlink fails");
	ok(strstr(err.msg, "exists") != NULL, "  saying it exists: %s", err.msg);
	ok(dir_entries(work) == 1 && !lstat(target, &st) && S_ISLNK(st.st_mode),
	   "  and creates nothing through it");
	unlink(target);

	is_int(restore_mem(sb.buf, sb.len, ".", &err), -CIX_EINVAL, "restore to '.' is refused");
	snprintf(p, sizeof(p), "%s/..", work);
	is_int(restore_mem(sb.buf, sb.len, p, &err), -CIX_EINVAL, "restore to 'dir/..' is refused");
	snprintf(p, sizeof(p), "%s/missing/t", work);
	is_int(restore_mem(sb.buf, sb.len, p, &err), -ENOENT,
	       "restore below a missing directory fails");

	strbuf_release(&out);
	strbuf_release(&sb);
}

/* A root directory holding one entry whose name is n bytes of name. */
static void nb_dir_with_name(struct strbuf *sb, const char *name, size_t n)
{
	nb_magic(sb);
	nb_dir(sb);
	nb_entry_n(sb, name, n);
	nb_file(sb, 0, "x", 1);
	nb_close(sb);
	nb_close(sb);
}

static void test_structure(void)
{
	struct strbuf sb = STRBUF_INIT;

	T(&sb, "nix-archive-2");
	nb_file(&sb, 0, "x", 1);
	hostile("bad magic", &sb, -CIX_EFORMAT);

	nb_u64(&sb, UINT64_MAX);
	hostile("a magic of length 2^64-1", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "fifo");
	T(&sb, ")");
	hostile("an unknown node type", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "[");
	hostile("a bad opening tag", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "regular");
	T(&sb, "contents");
	nb_str(&sb, "x", 1);
	T(&sb, "executable");
	T(&sb, "");
	T(&sb, ")");
	hostile("'executable' after 'contents'", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "regular");
	T(&sb, "executable");
	T(&sb, "");
	T(&sb, "executable");
	T(&sb, "");
	T(&sb, "contents");
	nb_str(&sb, "x", 1);
	T(&sb, ")");
	hostile("'executable' twice", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "regular");
	T(&sb, "executable");
	T(&sb, "x");
	T(&sb, "contents");
	nb_str(&sb, "x", 1);
	T(&sb, ")");
	hostile("an 'executable' marker with a value", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "regular");
	T(&sb, "executable");
	nb_u64(&sb, UINT64_MAX);
	hostile("an 'executable' marker of length 2^64-1", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	nb_dir(&sb);
	T(&sb, "entry");
	T(&sb, "(");
	T(&sb, "node");
	nb_file(&sb, 0, "x", 1);
	T(&sb, "name");
	T(&sb, "a");
	nb_close(&sb);
	nb_close(&sb);
	hostile("'name' after 'node'", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "contents");
	nb_str(&sb, "x", 1);
	T(&sb, "type");
	T(&sb, "regular");
	T(&sb, ")");
	hostile("'contents' before 'type'", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "symlink");
	T(&sb, ")");
	hostile("a symlink without a target", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	nb_file(&sb, 0, "x", 1);
	sb.len -= 16;
	T(&sb, "junk");
	hostile("a tag other than ')' after the contents", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "regularregularregularregularregul"); /* 33 bytes */
	hostile("a tag of 33 bytes", &sb, -CIX_ELIMIT);

	nb_magic(&sb);
	T(&sb, "(");
	nb_u64(&sb, (uint64_t)1 << 63);
	hostile("a tag of length 2^63", &sb, -CIX_ELIMIT);

	strbuf_release(&sb);
}

static void test_names(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	char name[300];

	nb_dir_with_name(&sb, ".", 1);
	hostile("the entry name '.'", &sb, -CIX_EFORMAT);
	nb_dir_with_name(&sb, "..", 2);
	hostile("the entry name '..'", &sb, -CIX_EFORMAT);
	nb_dir_with_name(&sb, "", 0);
	hostile("an empty entry name", &sb, -CIX_EFORMAT);
	nb_dir_with_name(&sb, "a/b", 3);
	hostile("an entry name with '/'", &sb, -CIX_EFORMAT);
	nb_dir_with_name(&sb, "../../etc/passwd", 16);
	hostile("the entry name '../../etc/passwd'", &sb, -CIX_EFORMAT);
	nb_dir_with_name(&sb, "a\0b", 3);
	hostile("an entry name with NUL", &sb, -CIX_EFORMAT);

	memset(name, 'n', sizeof(name));
	nb_dir_with_name(&sb, name, 255);
	is_int(check_mem(sb.buf, sb.len, NULL, NULL, NULL, &err), 0, "a name of 255 bytes is fine");
	is_int(restore_mem(sb.buf, sb.len, target, &err), 0, "  and restores");
	cix_remove_tree_at(AT_FDCWD, target, NULL);
	strbuf_reset(&sb);
	nb_dir_with_name(&sb, name, 256);
	hostile("a name of 256 bytes", &sb, -CIX_ELIMIT);

	nb_magic(&sb);
	nb_dir(&sb);
	T(&sb, "entry");
	T(&sb, "(");
	T(&sb, "name");
	nb_u64(&sb, (uint64_t)1 << 32);
	hostile("a name of 4 GiB (no data follows)", &sb, -CIX_ELIMIT);

	nb_magic(&sb);
	nb_dir(&sb);
	T(&sb, "entry");
	T(&sb, "(");
	T(&sb, "name");
	nb_u64(&sb, UINT64_MAX - 7);
	hostile("a name of length 2^64-8", &sb, -CIX_ELIMIT);

	strbuf_release(&sb);
}

static void test_order(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	char link_out[4200];

	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "b"); nb_file(&sb, 0, "x", 1); nb_close(&sb);
	nb_entry(&sb, "a"); nb_file(&sb, 0, "y", 1); nb_close(&sb);
	nb_close(&sb);
	hostile("unsorted entries", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "a"); nb_file(&sb, 0, "x", 1); nb_close(&sb);
	nb_entry(&sb, "B"); nb_file(&sb, 0, "y", 1); nb_close(&sb);
	nb_close(&sb);
	hostile("entries in locale order ('a' before 'B')", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "ab"); nb_file(&sb, 0, "x", 1); nb_close(&sb);
	nb_entry(&sb, "a"); nb_file(&sb, 0, "y", 1); nb_close(&sb);
	nb_close(&sb);
	hostile("a longer name before its prefix", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "a"); nb_file(&sb, 0, "x", 1); nb_close(&sb);
	nb_entry(&sb, "a"); nb_file(&sb, 0, "y", 1); nb_close(&sb);
	nb_close(&sb);
	hostile("a duplicate entry", &sb, -CIX_EFORMAT);

	/*
	 * CVE-2024-45593: "a" a symlink to a directory outside, then a
	 * directory "a" with a file below it.
	 */
	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "a"); nb_link(&sb, outside); nb_close(&sb);
	nb_entry(&sb, "a");
	nb_dir(&sb);
	nb_entry(&sb, "pwned"); nb_file(&sb, 0, "x", 1); nb_close(&sb);
	nb_close(&sb);
	nb_close(&sb);
	nb_close(&sb);
	{
		struct rec rc = { STRBUF_INIT };
		struct cix_nar_visitor v = { .entry = rec_entry };
		struct cix_mem_source m = { (unsigned char *)sb.buf, sb.len, 0 };
		is_int(cix_nar_parse(cix_mem_source_read, &m, &v, &rc, NULL, NULL, &err),
		       -CIX_EFORMAT, "CVE-2024-45593: symlink 'a' then directory 'a'");
		is_str(rc.names.buf, "a;", "  the second 'a' is never announced");
		ok(strstr(err.msg, "duplicate") != NULL, "  message: %s", err.msg);
		strbuf_release(&rc.names);
	}
	hostile("CVE-2024-45593 (symlink 'a' to outside, then directory 'a')", &sb, -CIX_EFORMAT);

	/* The same with a symlink to "/" that sorts before a directory. */
	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "a"); nb_link(&sb, "/"); nb_close(&sb);
	nb_entry(&sb, "a");
	nb_dir(&sb);
	nb_entry(&sb, "run"); nb_dir(&sb); nb_close(&sb); nb_close(&sb);
	nb_close(&sb);
	nb_close(&sb);
	nb_close(&sb);
	hostile("CVE-2024-45593 (symlink 'a' to '/', then directory 'a/run')", &sb, -CIX_EFORMAT);

	/* A symlink pointing outside is fine as long as nothing goes through it. */
	nb_magic(&sb);
	nb_dir(&sb);
	nb_entry(&sb, "a"); nb_link(&sb, outside); nb_close(&sb);
	nb_close(&sb);
	is_int(restore_mem(sb.buf, sb.len, target, &err), 0, "a symlink to outside restores");
	snprintf(link_out, sizeof(link_out), "%s/a", target);
	{
		char buf[4200];
		ssize_t n = readlink(link_out, buf, sizeof(buf) - 1);
		buf[n < 0 ? 0 : n] = '\0';
		is_str(buf, outside, "  pointing where the NAR says");
	}
	{
		char canary[1200];
		struct stat st;
		snprintf(canary, sizeof(canary), "%s/canary", outside);
		close(open(canary, O_CREAT | O_WRONLY, 0644));
		is_int(cix_remove_tree_at(AT_FDCWD, target, &err), 0, "  remove the tree");
		ok(!lstat(canary, &st) && dir_entries(work) == 0,
		   "  without following the symlink");
		unlink(canary);
	}
	strbuf_release(&sb);
}

static void nb_nested(struct strbuf *sb, int levels)
{
	nb_magic(sb);
	nb_dir(sb);
	for (int i = 0; i < levels; i++) {
		nb_entry(sb, "d");
		nb_dir(sb);
	}
	for (int i = 0; i < levels; i++) {
		nb_close(sb);
		nb_close(sb);
	}
	nb_close(sb);
}

static void test_depth(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;

	nb_nested(&sb, CIX_NAR_MAX_DEPTH);
	is_int(check_mem(sb.buf, sb.len, NULL, NULL, NULL, &err), 0,
	       "nodes at depth %d are fine", CIX_NAR_MAX_DEPTH);
	is_int(restore_mem(sb.buf, sb.len, target, &err), 0, "  and restore");
	cix_remove_tree_at(AT_FDCWD, target, NULL);
	ok(dir_entries(work) == 0, "  and are removed again");
	strbuf_reset(&sb);

	nb_nested(&sb, CIX_NAR_MAX_DEPTH + 1);
	hostile("a node at depth 65", &sb, -CIX_ELIMIT);

	nb_magic(&sb);
	nb_dir(&sb);
	for (int i = 0; i < 100000; i++) {
		nb_entry(&sb, "d");
		nb_dir(&sb);
	}
	hostile("directories nested 100000 deep", &sb, -CIX_ELIMIT);
	strbuf_release(&sb);
}

static void nb_contents_len(struct strbuf *sb, uint64_t len)
{
	nb_magic(sb);
	T(sb, "(");
	T(sb, "type");
	T(sb, "regular");
	T(sb, "contents");
	nb_u64(sb, len);
	strbuf_add(sb, "xxxxxxxx", 8);
}

static void test_lengths(void)
{
	struct strbuf sb = STRBUF_INIT;

	nb_contents_len(&sb, (uint64_t)1 << 63);
	hostile("contents of length 2^63", &sb, -CIX_ELIMIT);
	nb_contents_len(&sb, UINT64_MAX - 7);
	hostile("contents of length 2^64-8", &sb, -CIX_ELIMIT);
	nb_contents_len(&sb, UINT64_MAX);
	hostile("contents of length 2^64-1", &sb, -CIX_ELIMIT);
	nb_contents_len(&sb, 1000);
	hostile("contents shorter than announced", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "symlink");
	T(&sb, "target");
	nb_u64(&sb, UINT64_MAX);
	hostile("a symlink target of length 2^64-1", &sb, -CIX_ELIMIT);
	strbuf_release(&sb);
}

static void test_padding(void)
{
	struct strbuf sb = STRBUF_INIT;

	nb_magic(&sb);
	nb_file(&sb, 0, "x", 1);
	sb.buf[sb.len - 16 - 1] = 1; /* last padding byte of the contents */
	hostile("non-zero padding after the contents", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	nb_u64(&sb, 4);
	strbuf_add(&sb, "type\0\0\0x", 8);
	T(&sb, "regular");
	hostile("non-zero padding in a tag", &sb, -CIX_EFORMAT);

	nb_dir_with_name(&sb, "abc", 3);
	{
		/* The name's padding is the 5 bytes after "abc". */
		char *p = memmem(sb.buf, sb.len, "abc", 3);
		p[4] = ' ';
	}
	hostile("non-zero padding in a name", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	sb.buf[sb.len - 1] = 'x';
	nb_file(&sb, 0, "x", 1);
	hostile("non-zero padding in the magic", &sb, -CIX_EFORMAT);
	strbuf_release(&sb);
}

static void test_targets(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	char t[5000];

	nb_magic(&sb);
	nb_link(&sb, "");
	hostile("an empty symlink target", &sb, -CIX_EFORMAT);

	nb_magic(&sb);
	T(&sb, "(");
	T(&sb, "type");
	T(&sb, "symlink");
	T(&sb, "target");
	nb_str(&sb, "a\0b", 3);
	T(&sb, ")");
	hostile("a symlink target with NUL", &sb, -CIX_EFORMAT);

	memset(t, 't', sizeof(t));
	t[4095] = '\0';
	nb_magic(&sb);
	nb_link(&sb, t);
	is_int(check_mem(sb.buf, sb.len, NULL, NULL, NULL, &err), 0,
	       "a symlink target of 4095 bytes is fine");
	strbuf_reset(&sb);
	t[4095] = 't';
	t[4096] = '\0';
	nb_magic(&sb);
	nb_link(&sb, t);
	hostile("a symlink target of 4096 bytes", &sb, -CIX_ELIMIT);
	strbuf_release(&sb);
}

static void test_truncation(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	size_t bad_check = 0, bad_restore = 0, left = 0;

	nb_vector_dir(&sb);
	for (size_t n = 0; n < sb.len; n++) {
		if (check_mem(sb.buf, n, NULL, NULL, NULL, &err) != -CIX_EFORMAT)
			bad_check++;
		if (restore_mem(sb.buf, n, target, &err) != -CIX_EFORMAT)
			bad_restore++;
		if (dir_entries(work) != 0) {
			left++;
			cix_remove_tree_at(AT_FDCWD, target, NULL);
		}
	}
	is_int(bad_check, 0, "check refuses every truncated prefix");
	is_int(bad_restore, 0, "restore refuses every truncated prefix");
	is_int(left, 0, "  and leaves nothing behind");
	strbuf_release(&sb);
}

static void test_sources(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct cix_err err;
	struct cix_hash h1, h2;
	uint64_t size;
	size_t pos;

	nb_vector_dir(&sb);
	size_t narlen = sb.len;
	is_int(check_mem(sb.buf, sb.len, NULL, &h1, NULL, &err), 0, "the directory vector parses");
	strbuf_addstr(&sb, "trailing junk");
	is_int(check_mem(sb.buf, sb.len, &pos, &h2, &size, &err), 0,
	       "a NAR followed by more data parses");
	is_int(pos, narlen, "  and the source stays right after the NAR");
	is_int(size, narlen, "  size is the NAR's alone");
	ok(!memcmp(h1.bytes, h2.bytes, h1.len), "  and so is the hash");

	{
		struct cix_mem_source m = { (unsigned char *)sb.buf, sb.len, 0 };
		is_int(cix_nar_restore(trickle_read, &m, target, NULL, NULL, &err), 0,
		       "restore from a source giving one byte at a time");
		is_int(m.pos, narlen, "  stops right after the NAR");
		cix_remove_tree_at(AT_FDCWD, target, NULL);
	}
	is_int(cix_nar_check(failing_read, NULL, NULL, NULL, &err), -EIO,
	       "a failing source fails the parse (%s)", err.msg);
	is_int(cix_nar_restore(failing_read, NULL, target, NULL, NULL, &err), -EIO,
	       "  and the restore");
	ok(dir_entries(work) == 0, "  leaving nothing behind");

	/* Large contents span several chunks. */
	{
		size_t big = 600 * 1024 + 3;
		char *data = xmalloc(big);
		struct stat st;
		char p[4200];
		for (size_t i = 0; i < big; i++)
			data[i] = (char)(i * 7);
		strbuf_reset(&sb);
		nb_magic(&sb);
		nb_dir(&sb);
		nb_entry(&sb, "big");
		nb_file(&sb, 0, data, big);
		nb_close(&sb);
		nb_close(&sb);
		is_int(restore_mem(sb.buf, sb.len, target, &err), 0, "a large file restores");
		snprintf(p, sizeof(p), "%s/big", target);
		ok(!stat(p, &st) && (size_t)st.st_size == big, "  with its size");
		struct strbuf out = STRBUF_INIT;
		is_int(strbuf_read_file(&out, p, 0), 0, "  read it back");
		is_mem(out.buf, out.len, data, big, "  with its contents");
		strbuf_release(&out);
		cix_remove_tree_at(AT_FDCWD, target, NULL);
		free(data);
	}
	strbuf_release(&sb);
}

int main(void)
{
	if (tap_mkdtemp(tmp, sizeof(tmp), "nar-read") < 0)
		return 1;
	snprintf(work, sizeof(work), "%s/work", tmp);
	snprintf(outside, sizeof(outside), "%s/outside", tmp);
	snprintf(target, sizeof(target), "%s/target", work);
	if (mkdir(work, 0755) || mkdir(outside, 0755)) {
		perror("mkdir");
		return 1;
	}

	test_vectors();
	test_roundtrip();
	test_structure();
	test_names();
	test_order();
	test_depth();
	test_lengths();
	test_padding();
	test_targets();
	test_truncation();
	test_sources();

	cix_remove_tree_at(AT_FDCWD, tmp, NULL);
	return done_testing();
}
