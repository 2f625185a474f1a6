/* nar.c - libFuzzer target: parse a NAR into memory, re-serialise, compare */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "nar.h"
#include "nar-read.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

/*
 * Invariant: whatever the parser accepts, serialising the tree it reported
 * gives back exactly the bytes it consumed (dump(parse(x)) == x), and the
 * size it reports is that number of bytes.
 */

enum { N_REG, N_LNK, N_DIR };

struct node;
struct ent {
	char *name;
	size_t len;
	struct node *node;
};

struct node {
	int type, exec;
	struct strbuf data; /* contents or target */
	struct ent *ents;
	size_t nr, alloc;
};

struct tree {
	struct node *root;
	struct node *stack[CIX_NAR_MAX_DEPTH + 2];
	int top;
	char *pending;
	size_t pendlen;
	struct node *file;
};

static struct node *new_node(struct tree *t, int type)
{
	struct node *n = xcalloc(1, sizeof(*n));
	n->type = type;
	strbuf_init(&n->data, 0);
	if (t->top < 0) {
		if (t->root)
			abort(); /* two roots */
		t->root = n;
	} else {
		struct node *d = t->stack[t->top];
		if (!t->pending)
			abort(); /* a node without an entry */
		ALLOC_GROW(d->ents, d->nr + 1, d->alloc);
		d->ents[d->nr].name = t->pending;
		d->ents[d->nr].len = t->pendlen;
		d->ents[d->nr].node = n;
		d->nr++;
		t->pending = NULL;
	}
	return n;
}

static int v_dir_start(void *o, struct cix_err *err)
{
	struct tree *t = o;
	struct node *n = new_node(t, N_DIR);
	if (t->top + 1 >= (int)(sizeof(t->stack) / sizeof(t->stack[0])))
		abort(); /* depth not bounded */
	t->stack[++t->top] = n;
	return 0;
}

static int v_entry(void *o, const char *name, size_t len, struct cix_err *err)
{
	struct tree *t = o;
	if (t->pending || t->top < 0 || len == 0 || len > CIX_NAR_MAX_NAME ||
	    memchr(name, '/', len) || memchr(name, 0, len) || name[len])
		abort();
	t->pending = xmemdup(name, len + 1);
	t->pendlen = len;
	return 0;
}

static int v_dir_end(void *o, struct cix_err *err)
{
	struct tree *t = o;
	if (t->top < 0)
		abort();
	t->top--;
	return 0;
}

static int v_file_start(void *o, int exec, uint64_t size, struct cix_err *err)
{
	struct tree *t = o;
	t->file = new_node(t, N_REG);
	t->file->exec = exec;
	return 0;
}

static int v_file_data(void *o, const void *data, size_t len, struct cix_err *err)
{
	struct tree *t = o;
	strbuf_add(&t->file->data, data, len);
	return 0;
}

static int v_file_end(void *o, struct cix_err *err)
{
	((struct tree *)o)->file = NULL;
	return 0;
}

static int v_symlink(void *o, const char *target, size_t len, struct cix_err *err)
{
	struct node *n = new_node(o, N_LNK);
	if (len == 0 || len > CIX_NAR_MAX_TARGET || memchr(target, 0, len))
		abort();
	strbuf_add(&n->data, target, len);
	return 0;
}

static const struct cix_nar_visitor visitor = {
	.dir_start = v_dir_start, .entry = v_entry, .dir_end = v_dir_end,
	.file_start = v_file_start, .file_data = v_file_data,
	.file_end = v_file_end, .symlink = v_symlink,
};

/* ---- Serialisation, written independently of lib/nar-write.c ---- */

static void s_str(struct strbuf *sb, const void *p, size_t n)
{
	static const char zero[8];
	unsigned char b[8];
	cix_put_u64le(b, n);
	strbuf_add(sb, b, 8);
	strbuf_add(sb, p, n);
	strbuf_add(sb, zero, (8 - n % 8) % 8);
}

static void s_tok(struct strbuf *sb, const char *s)
{
	s_str(sb, s, strlen(s));
}

static void s_node(struct strbuf *sb, const struct node *n)
{
	s_tok(sb, "(");
	s_tok(sb, "type");
	switch (n->type) {
	case N_REG:
		s_tok(sb, "regular");
		if (n->exec) {
			s_tok(sb, "executable");
			s_tok(sb, "");
		}
		s_tok(sb, "contents");
		s_str(sb, n->data.buf, n->data.len);
		break;
	case N_LNK:
		s_tok(sb, "symlink");
		s_tok(sb, "target");
		s_str(sb, n->data.buf, n->data.len);
		break;
	case N_DIR:
		s_tok(sb, "directory");
		for (size_t i = 0; i < n->nr; i++) {
			s_tok(sb, "entry");
			s_tok(sb, "(");
			s_tok(sb, "name");
			s_str(sb, n->ents[i].name, n->ents[i].len);
			s_tok(sb, "node");
			s_node(sb, n->ents[i].node);
			s_tok(sb, ")");
		}
		break;
	}
	s_tok(sb, ")");
}

static void free_node(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++) {
		free(n->ents[i].name);
		free_node(n->ents[i].node);
	}
	free(n->ents);
	strbuf_release(&n->data);
	free(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cix_mem_source m = { data, size, 0 };
	struct tree t = { .top = -1 };
	struct cix_err err;
	uint64_t narsize = 0;
	int r = cix_nar_parse(cix_mem_source_read, &m, &visitor, &t, NULL, &narsize, &err);

	if (r < 0) {
		if (!err.msg[0] || strchr(err.msg, '\n'))
			abort(); /* every error has a one-line message */
	} else {
		struct strbuf out = STRBUF_INIT;
		if (!t.root || t.top != -1 || narsize != m.pos)
			abort();
		s_tok(&out, "nix-archive-1");
		s_node(&out, t.root);
		if (out.len != m.pos || memcmp(out.buf, data, out.len))
			abort();
		strbuf_release(&out);
	}
	free(t.pending);
	free_node(t.root);
	return 0;
}
