/* db-commit.c - registrations, committed in groups */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "db-writer.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * cix_db_register queues its registrations (db-writer.h) and takes the
 * writers' mutex; whoever holds it commits all the requests waiting, each
 * in a savepoint of one transaction, so that one failing leaves the others.
 * Registering is idempotent (rows updated, references inserted or
 * replaced): a request that two committers both see (one died after its
 * commit, before recording it) gives the same database.
 *
 * A request: its time, then each info. Integers are little-endian u32 or
 * u64; a string is its length (u32, NOSTR for NULL), its bytes and a NUL.
 */
#define NOSTR UINT32_MAX

static void put32(struct strbuf *b, uint32_t v)
{
	unsigned char c[4] = { v, v >> 8, v >> 16, v >> 24 };
	strbuf_add(b, c, 4);
}

static void put64(struct strbuf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void put_str(struct strbuf *b, const char *s)
{
	if (!s) {
		put32(b, NOSTR);
		return;
	}
	size_t n = strlen(s);
	put32(b, (uint32_t)n);
	strbuf_add(b, s, n + 1);
}

void cix_db_request_serialise(struct strbuf *b, const struct cix_path_info *infos, size_t n,
			      int64_t now)
{
	put64(b, (uint64_t)now);
	put32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const struct cix_path_info *in = &infos[i];
		put_str(b, in->path);
		put32(b, (uint32_t)in->nar_hash.algo);
		put32(b, (uint32_t)in->nar_hash.len);
		strbuf_add(b, in->nar_hash.bytes, in->nar_hash.len);
		put64(b, in->nar_size);
		put64(b, (uint64_t)in->reg_time);
		put64(b, (uint64_t)(in->ultimate != 0));
		put_str(b, in->deriver);
		put_str(b, in->sigs);
		put_str(b, in->ca);
		put32(b, (uint32_t)in->nr_refs);
		for (size_t k = 0; k < in->nr_refs; k++)
			put_str(b, in->refs[k]);
		put32(b, (uint32_t)in->nr_outputs);
		for (size_t k = 0; k < in->nr_outputs; k++) {
			put_str(b, in->outputs[k].id);
			put_str(b, in->outputs[k].path);
		}
	}
}

/* A request read back: strings point into the copied bytes. */
struct request {
	int64_t now;
	struct cix_path_info *infos;
	size_t n;
};

struct reader {
	unsigned char *p, *end;
	int bad;
};

static uint64_t get(struct reader *r, int bytes)
{
	uint64_t v = 0;
	if (r->bad || r->end - r->p < bytes) {
		r->bad = 1;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += bytes;
	return v;
}

static char *get_str(struct reader *r)
{
	uint32_t n = (uint32_t)get(r, 4);
	if (r->bad || n == NOSTR)
		return NULL;
	if ((size_t)(r->end - r->p) <= n || r->p[n] || memchr(r->p, 0, n)) {
		r->bad = 1;
		return NULL;
	}
	char *s = (char *)r->p;
	r->p += (size_t)n + 1;
	return s;
}

/* A count of items of at least min bytes each: no more than what is left. */
static size_t get_count(struct reader *r, size_t min)
{
	uint32_t n = (uint32_t)get(r, 4);
	if (!r->bad && n > (size_t)(r->end - r->p) / min)
		r->bad = 1;
	return r->bad ? 0 : n;
}

static void request_release(struct request *q)
{
	for (size_t i = 0; i < q->n; i++) {
		free(q->infos[i].refs);
		free(q->infos[i].outputs);
	}
	free(q->infos);
	memset(q, 0, sizeof(*q));
}

static int parse(unsigned char *buf, size_t len, struct request *q)
{
	struct reader r = { buf, buf + len, 0 };
	q->now = (int64_t)get(&r, 8);
	q->n = get_count(&r, 4);
	q->infos = xcalloc(q->n + 1, sizeof(*q->infos));
	for (size_t i = 0; !r.bad && i < q->n; i++) {
		struct cix_path_info *in = &q->infos[i];
		in->path = get_str(&r);
		in->nar_hash.algo = (enum cix_hash_algo)get(&r, 4);
		in->nar_hash.len = get(&r, 4);
		if (r.bad || in->nar_hash.len > sizeof(in->nar_hash.bytes) ||
		    (size_t)(r.end - r.p) < in->nar_hash.len) {
			r.bad = 1;
			break;
		}
		memcpy(in->nar_hash.bytes, r.p, in->nar_hash.len);
		r.p += in->nar_hash.len;
		in->nar_size = get(&r, 8);
		in->reg_time = (int64_t)get(&r, 8);
		uint64_t ultimate = get(&r, 8);
		if (ultimate > 1)
			r.bad = 1;   /* a flag: 0 or 1, so that it serialises the same */
		in->ultimate = ultimate == 1;
		in->deriver = get_str(&r);
		in->sigs = get_str(&r);
		in->ca = get_str(&r);
		in->nr_refs = get_count(&r, 5);
		in->refs = xcalloc(in->nr_refs + 1, sizeof(*in->refs));
		for (size_t k = 0; k < in->nr_refs; k++)
			if (!(in->refs[k] = get_str(&r)))
				r.bad = 1;
		in->nr_outputs = get_count(&r, 10);
		in->outputs = xcalloc(in->nr_outputs + 1, sizeof(*in->outputs));
		for (size_t k = 0; k < in->nr_outputs; k++) {
			in->outputs[k].id = get_str(&r);
			in->outputs[k].path = get_str(&r);
			if (!in->outputs[k].id || !in->outputs[k].path)
				r.bad = 1;
		}
		if (!in->path)
			r.bad = 1;
	}
	if (r.bad || r.p != r.end) {
		request_release(q);
		return -1;
	}
	return 0;
}

int cix_db_request_check(const void *data, size_t len)
{
	unsigned char *copy = xmalloc(len + 1);
	struct strbuf again = STRBUF_INIT;
	struct request q;
	memcpy(copy, data, len);
	int r = parse(copy, len, &q);
	if (!r) {
		/* What parses is what serialising gives back, byte for byte. */
		cix_db_request_serialise(&again, q.infos, q.n, q.now);
		if (again.len != len || memcmp(again.buf, data, len))
			r = -2;
		strbuf_release(&again);
		request_release(&q);
	}
	free(copy);
	return r;
}

/*
 * Registrations run without SQLite's foreign key checks (two lookups of a
 * path a reference): every id they insert comes from a row they found or
 * made. Deletes keep them (begin_write turns them on again).
 */
static int begin_registration(struct cix_db *db, struct cix_err *err)
{
	int r = cix_db_exec(db, "pragma foreign_keys = off", err);
	return r < 0 ? r : cix_db_exec(db, "begin immediate", err);
}

/* One request in a savepoint of the open transaction. */
static int apply(struct cix_db *db, const struct cix_path_info *infos, size_t n, int64_t now,
		 struct cix_err *err)
{
	int r = cix_db_exec(db, "savepoint request", err);
	if (r < 0)
		return r;
	if ((r = cix_db_register_rows(db, infos, n, now, err)) < 0)
		cix_db_exec(db, "rollback to request", NULL);
	cix_db_exec(db, "release request", NULL);
	return r;
}

struct outcome {
	int slot;
	struct cix_err err;
};

/*
 * Holding the writers' mutex: commit every request waiting, and own (the
 * caller's, when it could not be queued) if not NULL, whose outcome is
 * returned. *count: how many requests were waiting.
 */
static int commit_waiting(struct cix_db *db, const struct request *own, size_t *count,
			  struct cix_err *err)
{
	struct cix_writer *w = cix_db_writer(db);
	unsigned char *buf = xmalloc(CIX_WRITER_DATA_MAX);
	struct outcome *done = NULL;
	size_t nr = 0, alloc = 0, len;
	int cursor = 0, slot, r = 0, began = 0;

	while ((slot = cix_writer_next(w, &cursor, buf, &len)) >= 0) {
		struct request q;
		ALLOC_GROW(done, nr + 1, alloc);
		done[nr].slot = slot;
		cix_err_clear(&done[nr].err);
		if (!began && (r = begin_registration(db, &done[nr].err)) < 0) {
			nr++;
			break;
		}
		began = 1;
		if (parse(buf, len, &q) < 0) {
			cix_error(&done[nr++].err, -CIX_EFORMAT, "database: malformed registration request");
			continue;
		}
		apply(db, q.infos, q.n, q.now, &done[nr++].err);
		request_release(&q);
	}
	if (r >= 0 && own) {
		if (!began)
			r = begin_registration(db, err);
		began = r >= 0;
		if (began)
			r = apply(db, own->infos, own->n, own->now, err);
	}
	if (began) {
		struct cix_err cerr;
		cix_err_clear(&cerr);
		if (cix_db_exec(db, "commit", &cerr) < 0) {
			cix_db_exec(db, "rollback", NULL);
			for (size_t i = 0; i < nr; i++)
				done[i].err = cerr;
			if (err)
				*err = cerr;
			r = cerr.code;
		}
	} else if (nr) {
		/* begin failed: everyone queued learns why. */
		for (size_t i = 1; i < nr; i++)
			done[i].err = done[0].err;
	}
	cix_db_exec(db, "pragma foreign_keys = on", NULL);
	for (size_t i = 0; i < nr; i++)
		cix_writer_done(w, done[i].slot, done[i].err.code, done[i].err.msg);
	*count = nr;
	free(done);
	free(buf);
	return r;
}

int cix_db_register(struct cix_db *db, const struct cix_path_info *infos, size_t n,
		    struct cix_err *err)
{
	struct request own = { (int64_t)time(NULL), (struct cix_path_info *)infos, n };
	struct cix_writer *w = cix_db_writer(db);
	struct strbuf b = STRBUF_INIT;
	char msg[CIX_ERR_MSG_MAX];
	size_t count;
	int queued = 0, r;

	cix_db_snapshot_release(db);   /* (its own commit begins a write) */
	if (w) {
		cix_db_request_serialise(&b, infos, n, own.now);
		queued = cix_writer_submit(w, b.buf, b.len) == 0;
		strbuf_release(&b);
	}
	/* The committer's work; if it does not answer in time, our own. */
	if (queued && cix_writer_served(w) && cix_writer_wait_done(w, 2000)) {
		if ((r = cix_writer_result(w, msg, sizeof(msg))) < 0)
			cix_error(err, r, "%s", msg);
		return r;
	}
	cix_writer_lock(w);
	r = commit_waiting(db, queued ? NULL : &own, &count, err);
	if (queued && (r = cix_writer_result(w, msg, sizeof(msg))) < 0)
		cix_error(err, r, "%s", msg);
	cix_writer_unlock(w);
	return r;
}

int cix_db_serve_commits(struct cix_db *db, volatile sig_atomic_t *stop, struct cix_err *err)
{
	struct cix_writer *w = cix_db_writer(db);
	struct cix_err e;
	size_t count;

	if (cix_writer_serve(w) < 0)
		return cix_error(err, -CIX_EEXIST,
				 "another process commits the registrations of this database");
	/*
	 * The mutex is taken only when requests came since the last round (and
	 * once in a while, for those a writer may have left): a committer
	 * idle, or stopped while idle, holds nothing the writers need.
	 */
	uint32_t served = cix_writer_submitted(w) - 1;
	for (int idle = 0; !*stop;) {
		uint32_t seen = cix_writer_submitted(w);
		if (seen != served || ++idle >= 30) {
			cix_writer_lock(w);
			/* (Errors are the requests': each learns its own.) */
			commit_waiting(db, NULL, &count, &e);
			cix_writer_unlock(w);
			served = seen;
			idle = 0;
			if (count)
				continue;
		}
		cix_writer_wait_submit(w, seen, 1000);
	}
	cix_writer_unserve(w);
	return 0;
}
