/* db.c - the store database in SQLite */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-int.h"
#include "db-writer.h"
#include "encoding.h"
#include "strbuf.h"
#include "strvec.h"
#include "str-index.h"

#include <sqlite3.h>
#include <unistd.h>
#include <sys/file.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Version 1: the tables and columns of Nix's schema 10, so that the layout
 * is familiar; hashes are stored as "sha256:<base16>" as Nix does.
 */
/*
 * Unlike Nix's, ids are not AUTOINCREMENT: registering a path then writes
 * no sqlite_sequence row (one b-tree fewer per commit). An id may be used
 * again after its path is deleted, which nothing depends on: references
 * go with the path. (Databases made before keep AUTOINCREMENT; the two
 * are the same on disk.)
 */
static const char schema_v1[] =
	"create table ValidPaths ("
	"  id integer primary key not null,"
	"  path text unique not null,"
	"  hash text not null,"
	"  registrationTime integer not null,"
	"  deriver text,"
	"  narSize integer,"
	"  ultimate integer,"
	"  sigs text,"
	"  ca text);"
	"create table Refs ("
	"  referrer integer not null,"
	"  reference integer not null,"
	"  primary key (referrer, reference),"
	"  foreign key (referrer) references ValidPaths(id) on delete cascade,"
	"  foreign key (reference) references ValidPaths(id) on delete restrict);"
	"create index IndexReferrer on Refs(referrer);"
	"create index IndexReference on Refs(reference);"
	/* A path's reference to itself must not keep it from being deleted. */
	"create trigger DeleteSelfRefs before delete on ValidPaths begin"
	"  delete from Refs where referrer = old.id and reference = old.id;"
	"end;"
	"create table DerivationOutputs ("
	"  drv integer not null,"
	"  id text not null,"
	"  path text not null,"
	"  primary key (drv, id),"
	"  foreign key (drv) references ValidPaths(id) on delete cascade);"
	"create index IndexDerivationOutputs on DerivationOutputs(path);";

/* Version 2: referrer queries read (reference, referrer) from the index alone. */
static const char schema_v2[] =
	"create index IndexReferenceReferrer on Refs(reference, referrer);";

/*
 * Version 3: the indexes that others already cover go (the primary key
 * starts with referrer; IndexReferenceReferrer with reference): every
 * reference registered wrote five b-trees, now three.
 */
static const char schema_v3[] =
	"drop index if exists IndexReferrer;"
	"drop index if exists IndexReference;";

/*
 * Version 4: Refs without its rowid. A reference was a row in a rowid
 * table plus an entry in each of its two indexes; now the primary key is
 * the table, and registering a reference writes two b-trees, not three.
 * (The trigger and the index name Refs: dropped first, made again.)
 */
static const char schema_v4[] =
	"drop trigger if exists DeleteSelfRefs;"
	"drop index if exists IndexReferenceReferrer;"
	"create table Refs4 ("
	"  referrer integer not null,"
	"  reference integer not null,"
	"  primary key (referrer, reference),"
	"  foreign key (referrer) references ValidPaths(id) on delete cascade,"
	"  foreign key (reference) references ValidPaths(id) on delete restrict)"
	"  without rowid;"
	"insert into Refs4 (referrer, reference) select referrer, reference from Refs;"
	"drop table Refs;"
	"alter table Refs4 rename to Refs;"
	"create index IndexReferenceReferrer on Refs(reference, referrer);"
	"create trigger DeleteSelfRefs before delete on ValidPaths begin"
	"  delete from Refs where referrer = old.id and reference = old.id;"
	"end;";

/* migrations[v] brings a database from version v to v + 1. */
static const char *const migrations[CIX_DB_SCHEMA_VERSION] = {
	schema_v1,
	schema_v2,
	schema_v3,
	schema_v4,
};

enum stmt {
	S_QUERY, S_QUERY_ID, S_INSERT, S_UPDATE, S_ADD_REF, S_REFS, S_REFERRERS,
	S_DERIVERS, S_OUTPUTS, S_ADD_OUTPUT, S_ALL, S_HAS_REFERRERS, S_DELETE,
	S_EDGES, S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
	[S_QUERY] = "select " CIX_DB_ROW_COLUMNS " from ValidPaths where path = ?",
	[S_QUERY_ID] = "select id from ValidPaths where path = ?",
	[S_INSERT] = "insert into ValidPaths (path, hash, registrationTime, deriver,"
		     " narSize, sigs, ca, ultimate) values (?, ?, ?, ?, ?, ?, ?, ?)",
	[S_UPDATE] = "update ValidPaths set hash = ?2, registrationTime = ?3,"
		     " deriver = ?4, narSize = ?5, sigs = ?6, ca = ?7, ultimate = ?8"
		     " where path = ?1",
	/*
	 * Not "or replace": a statement that may delete rows runs with a
	 * statement journal of its own, whose cost grew with the database
	 * (importing 10k paths into a store of 100k took 6 times as long as
	 * into an empty one). The row is the same either way.
	 */
	[S_ADD_REF] = "insert or ignore into Refs (referrer, reference) values (?, ?)",
	/* (Sorted in C: an "order by" would start SQLite's sorter for every query.) */
	[S_REFS] = "select p.path from Refs r join ValidPaths p on r.reference = p.id"
		   " where r.referrer = ?",
	[S_REFERRERS] = "select p.path from Refs r join ValidPaths p on r.referrer = p.id"
			" where r.reference = ?",
	[S_DERIVERS] = "select v.path from DerivationOutputs d join ValidPaths v"
		       " on d.drv = v.id where d.path = ? order by v.path",
	[S_OUTPUTS] = "select d.path from DerivationOutputs d join ValidPaths v"
		      " on d.drv = v.id where v.path = ? order by d.id",
	[S_ADD_OUTPUT] = "insert or replace into DerivationOutputs (drv, id, path)"
			 " values (?, ?, ?)",
	[S_ALL] = "select path from ValidPaths order by path",
	[S_HAS_REFERRERS] = "select 1 from Refs where reference = ?1 and referrer != ?1 limit 1",
	[S_DELETE] = "delete from ValidPaths where id = ?",
	/*
	 * The rows of cix_db_edges for one path: (id, path, referrer,
	 * reference) for each of its references, or (id, path, NULL, NULL)
	 * if it has none. (Closures are walked in db-closure.c.)
	 */
	[S_EDGES] = "select v.id, v.path, r.referrer, r.reference from ValidPaths v"
		    " left join Refs r on r.referrer = v.id where v.path = ?1",
};

struct cix_db {
	sqlite3 *h;
	sqlite3_stmt *st[S_COUNT];
	struct cix_writer *writer;   /* PATH.writer, or NULL */
	struct cix_db_snapshot snapshot;
};

struct cix_db_snapshot *cix_db_snapshot_of(struct cix_db *db)
{
	return &db->snapshot;
}

struct cix_writer *cix_db_writer(struct cix_db *db)
{
	return db->writer;
}

/*
 * Writers of one database (the daemon's workers, cix processes) queue on
 * a mutex of their own (db-writer.h) before asking SQLite for its write
 * lock: the next one is woken as soon as it is free, where SQLite's busy
 * handler would poll with sleeps of up to 100 ms.
 */
static int begin_write(struct cix_db *db, struct cix_err *err);
static void end_write(struct cix_db *db);

int cix_db_begin_write(struct cix_db *db, struct cix_err *err)
{
	return begin_write(db, err);
}

void cix_db_end_write(struct cix_db *db)
{
	end_write(db);
}

struct sqlite3 *cix_db_sqlite(struct cix_db *db)
{
	return db->h;
}

/*
 * The system's word for a failed read or write ("No space left on
 * device"), or "": SQLite says only "disk I/O error".
 */
static const char *io_cause(struct cix_db *db, char *buf, size_t size)
{
	int code = sqlite3_errcode(db->h) & 0xff, e = sqlite3_system_errno(db->h);
	if ((code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN) && e > 0)
		snprintf(buf, size, " (%s)", strerror(e));
	else
		buf[0] = '\0';
	return buf;
}

static int db_error(struct cix_db *db, struct cix_err *err, const char *what)
{
	char cause[128];
	return cix_error(err, -CIX_EFORMAT, "database: %s: %s%s", what, sqlite3_errmsg(db->h),
			 io_cause(db, cause, sizeof(cause)));
}

int cix_db_error(struct cix_db *db, struct cix_err *err, const char *what)
{
	return db_error(db, err, what);
}

static sqlite3_stmt *stmt(struct cix_db *db, enum stmt s, struct cix_err *err)
{
	if (!db->st[s] &&
	    sqlite3_prepare_v3(db->h, stmt_sql[s], -1, SQLITE_PREPARE_PERSISTENT,
			       &db->st[s], NULL) != SQLITE_OK) {
		db_error(db, err, "cannot prepare statement");
		return NULL;
	}
	sqlite3_reset(db->st[s]);
	sqlite3_clear_bindings(db->st[s]);
	return db->st[s];
}

int cix_db_exec(struct cix_db *db, const char *sql, struct cix_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		char cause[128];
		int r = cix_error(err, -CIX_EFORMAT, "database: %s%s", msg ? msg : "error",
				  io_cause(db, cause, sizeof(cause)));
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

static int user_version(struct cix_db *db, int *v, struct cix_err *err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db->h, "pragma user_version", -1, &s, NULL) != SQLITE_OK)
		return db_error(db, err, "cannot read schema version");
	*v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return 0;
}

/* Bring the schema up to date, each step in its own transaction. */
static int migrate(struct cix_db *db, struct cix_err *err)
{
	int v = 0, r;
	/*
	 * Up to date (every open but the first): no write transaction, which
	 * would wait for every writer (each daemon worker opens the store).
	 */
	if ((r = user_version(db, &v, err)) < 0)
		return r;
	if (v == CIX_DB_SCHEMA_VERSION)
		return 0;
	if ((r = cix_db_exec(db, "begin immediate", err)) < 0)
		return r;
	if ((r = user_version(db, &v, err)) < 0)
		goto fail;
	if (v > CIX_DB_SCHEMA_VERSION) {
		r = cix_error(err, -CIX_EUNSUPPORTED,
			      "database schema version %d is newer than this cix (%d)",
			      v, CIX_DB_SCHEMA_VERSION);
		goto fail;
	}
	for (; v < CIX_DB_SCHEMA_VERSION; v++) {
		char sql[64];
		if ((r = cix_db_exec(db, migrations[v], err)) < 0)
			goto fail;
		snprintf(sql, sizeof(sql), "pragma user_version = %d", v + 1);
		if ((r = cix_db_exec(db, sql, err)) < 0)
			goto fail;
	}
	return cix_db_exec(db, "commit", err);
fail:
	cix_db_exec(db, "rollback", NULL);
	return r;
}

static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

/* No memory statistics: they take a global mutex at every allocation. */
static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int cix_db_open(const char *path, int create, struct cix_db **out, struct cix_err *err)
{
	struct cix_db *db = xcalloc(1, sizeof(*db));
	pthread_once(&sqlite_once, sqlite_setup);
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    (create ? SQLITE_OPEN_CREATE : 0);
	int r;

	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		r = cix_error(err, -CIX_ENOTFOUND, "cannot open database '%s': %s", path,
			      db->h ? sqlite3_errmsg(db->h) : "out of memory");
		goto fail;
	}
	{
		/* Without it (a read-only state directory), SQLite's locks alone. */
		struct strbuf w = STRBUF_INIT;
		strbuf_addf(&w, "%s.writer", path);
		db->writer = cix_writer_open(w.buf);
		strbuf_release(&w);
	}
	/* Writers wait for each other rather than fail (Nix's retrySQLite). */
	sqlite3_busy_timeout(db->h, 60 * 60 * 1000);
	if ((r = cix_db_exec(db, "pragma journal_mode = wal;"
			     "pragma synchronous = normal;"
			     "pragma foreign_keys = on;"
			     "pragma wal_autocheckpoint = 40000;"
			     /* statement journals (cascading deletes) in memory */
			     "pragma temp_store = memory;"
			     "pragma cache_size = -32768;"
			     /*
			      * Pages read in place, not copied into a cache each
			      * process allocates anew: a third less time for an
			      * export of 100k paths in 20 commands. (cix never
			      * shrinks the file, which would fault the mapping.)
			      */
			     "pragma mmap_size = 1073741824;", err)) < 0)
		goto fail;
	if ((r = migrate(db, err)) < 0)
		goto fail;
	*out = db;
	return 0;
fail:
	cix_db_close(db);
	return r;
}

static int begin_write_keys(struct cix_db *db, int keys, struct cix_err *err)
{
	int r;
	cix_db_snapshot_release(db);   /* (no write inside a read transaction) */
	cix_writer_lock(db->writer);
	/* (on again if a failed registration could not turn them back: db-commit.c) */
	if ((r = cix_db_exec(db, keys ? "pragma foreign_keys = on; begin immediate"
				      : "pragma foreign_keys = off; begin immediate", err)) < 0)
		end_write(db);
	return r;
}

static int begin_write(struct cix_db *db, struct cix_err *err)
{
	return begin_write_keys(db, 1, err);
}

int cix_db_begin_write_unchecked(struct cix_db *db, struct cix_err *err)
{
	return begin_write_keys(db, 0, err);
}

static void end_write(struct cix_db *db)
{
	cix_writer_unlock(db->writer);
}

void cix_db_close(struct cix_db *db)
{
	if (!db)
		return;
	cix_writer_close(db->writer);
	cix_db_snapshot_finalize(db);
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close_v2(db->h);
	free(db);
}

void cix_path_info_release(struct cix_path_info *info)
{
	free(info->path);
	free(info->deriver);
	for (size_t i = 0; i < info->nr_refs; i++)
		free(info->refs[i]);
	free(info->refs);
	free(info->sigs);
	free(info->ca);
	for (size_t i = 0; i < info->nr_outputs; i++) {
		free(info->outputs[i].id);
		free(info->outputs[i].path);
	}
	free(info->outputs);
	memset(info, 0, sizeof(*info));
}

static int path_id(struct cix_db *db, const char *path, int64_t *id, struct cix_err *err)
{
	sqlite3_stmt *s = stmt(db, S_QUERY_ID, err);
	if (!s)
		return -CIX_EFORMAT;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		return db_error(db, err, "cannot query path");
	/*
	 * Left on its row, the statement would keep its read transaction
	 * open: later queries of this connection (a daemon worker's) would
	 * not see paths added since, and the WAL could not be checkpointed.
	 */
	sqlite3_reset(s);
	return rc == SQLITE_ROW;
}

int cix_db_is_valid(struct cix_db *db, const char *path, struct cix_err *err)
{
	int64_t id;
	return path_id(db, path, &id, err);
}

static char *col_strdup(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	return t ? xstrdup((const char *)t) : NULL;
}

static int parse_hash(const char *text, struct cix_hash *h)
{
	/* "sha256:" followed by 64 hex digits. */
	if (!text || strncmp(text, "sha256:", 7) || strlen(text) != 7 + 64 ||
	    cix_base16_decode(text + 7, 64, h->bytes, sizeof(h->bytes)) != 32)
		return -CIX_EFORMAT;
	h->algo = CIX_HASH_SHA256;
	h->len = 32;
	return 0;
}

int cix_db_row_info(sqlite3_stmt *s, const char *path, struct cix_path_info *info,
		    struct cix_err *err)
{
	if (parse_hash((const char *)sqlite3_column_text(s, 1), &info->nar_hash) < 0)
		return cix_error(err, -CIX_EFORMAT, "database: bad hash recorded for '%s'", path);
	info->path = xstrdup(path);
	info->reg_time = sqlite3_column_int64(s, 2);
	info->deriver = col_strdup(s, 3);
	info->nar_size = (uint64_t)sqlite3_column_int64(s, 4);
	info->sigs = col_strdup(s, 5);
	info->ca = col_strdup(s, 6);
	info->ultimate = sqlite3_column_int(s, 7) != 0;
	return 0;
}

static int collect(const char *path, void *opaque)
{
	struct cix_path_info *info = opaque;
	info->refs = xrealloc(info->refs, (info->nr_refs + 1) * sizeof(*info->refs));
	info->refs[info->nr_refs++] = xstrdup(path);
	return 0;
}

static int list(struct cix_db *db, enum stmt which, sqlite3_int64 id, const char *text,
		cix_path_fn fn, void *opaque, struct cix_err *err)
{
	sqlite3_stmt *s = stmt(db, which, err);
	int rc, r;
	if (!s)
		return -CIX_EFORMAT;
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
	else if (which != S_ALL)
		sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if ((r = fn((const char *)sqlite3_column_text(s, 0), opaque)) < 0) {
			sqlite3_reset(s);
			return r;
		}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_error(db, err, "query failed");
}

int cix_db_query(struct cix_db *db, const char *path, struct cix_path_info *info,
		 struct cix_err *err)
{
	sqlite3_stmt *s = stmt(db, S_QUERY, err);
	int rc;
	memset(info, 0, sizeof(*info));
	if (!s)
		return -CIX_EFORMAT;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", path);
	if (rc != SQLITE_ROW)
		return db_error(db, err, "cannot query path");
	sqlite3_int64 id = sqlite3_column_int64(s, 0);
	if (cix_db_row_info(s, path, info, err) < 0) {
		sqlite3_reset(s);
		return -CIX_EFORMAT;
	}
	/* Reset after the references: one read transaction (snapshot) for both. */
	int r = list(db, S_REFS, id, NULL, collect, info, err);
	sqlite3_reset(s);
	if (r < 0)
		cix_path_info_release(info);
	else
		cix_sort_strs(info->refs, info->nr_refs);
	return r;
}

static void bind_info(sqlite3_stmt *s, const struct cix_path_info *in, char *hash, int64_t now)
{
	sqlite3_bind_text(s, 1, in->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, in->reg_time ? in->reg_time : now);
	if (in->deriver)
		sqlite3_bind_text(s, 4, in->deriver, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)in->nar_size);
	if (in->sigs)
		sqlite3_bind_text(s, 6, in->sigs, -1, SQLITE_STATIC);
	if (in->ca)
		sqlite3_bind_text(s, 7, in->ca, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 8, in->ultimate != 0);
}

/* The row of in, added or updated; its id into *id. */
static int register_one(struct cix_db *db, const struct cix_path_info *in, int64_t now,
			int64_t *id, struct cix_err *err)
{
	struct strbuf hash = STRBUF_INIT;
	int r = path_id(db, in->path, id, err);
	if (r < 0)
		return r;
	strbuf_addstr(&hash, "sha256:");
	cix_base16_encode(&hash, in->nar_hash.bytes, in->nar_hash.len);
	sqlite3_stmt *s = stmt(db, r ? S_UPDATE : S_INSERT, err);
	if (!s) {
		strbuf_release(&hash);
		return -CIX_EFORMAT;
	}
	bind_info(s, in, hash.buf, now);
	int rc = sqlite3_step(s);
	strbuf_release(&hash);
	if (rc != SQLITE_DONE)
		return db_error(db, err, "cannot register path");
	if (!r)
		*id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

/* The rows just registered, by path: references among them need no query. */
struct batch {
	const struct cix_path_info *infos;
	const int64_t *ids;
	const char **paths;
	struct cix_str_index by_path;
};

static void batch_index(struct batch *bt, size_t n)
{
	bt->paths = xcalloc(n + 1, sizeof(*bt->paths));
	for (size_t i = 0; i < n; i++)
		bt->paths[i] = bt->infos[i].path;
	cix_str_index_build(&bt->by_path, bt->paths, n);
}

static int batch_id(struct cix_db *db, const struct batch *bt, const char *path, int64_t *id,
		    struct cix_err *err)
{
	long i = cix_str_index_find(&bt->by_path, path);
	if (i >= 0) {
		*id = bt->ids[i];
		return 1;
	}
	return path_id(db, path, id, err);
}

static int add_refs(struct cix_db *db, const struct batch *bt, size_t i, struct cix_err *err)
{
	const struct cix_path_info *in = &bt->infos[i];
	int64_t to;
	int r;
	for (size_t k = 0; k < in->nr_refs; k++) {
		if ((r = batch_id(db, bt, in->refs[k], &to, err)) < 0)
			return r;
		if (!r)
			return cix_error(err, -CIX_ENOTFOUND,
					 "cannot register '%s': its reference '%s' is not valid",
					 in->path, in->refs[k]);
		sqlite3_stmt *s = stmt(db, S_ADD_REF, err);
		if (!s)
			return -CIX_EFORMAT;
		sqlite3_bind_int64(s, 1, bt->ids[i]);
		sqlite3_bind_int64(s, 2, to);
		if (sqlite3_step(s) != SQLITE_DONE)
			return db_error(db, err, "cannot add reference");
	}
	return 0;
}

/* Inside a write transaction: the rows of cix_db_register (db-commit.c). */
int cix_db_register_rows(struct cix_db *db, const struct cix_path_info *infos, size_t n,
			 int64_t now, struct cix_err *err)
{
	int64_t *ids = xcalloc(n + 1, sizeof(*ids));
	struct batch bt = { .infos = infos, .ids = ids };
	int r = 0;
	/* Rows first, so that references among infos resolve in any order. */
	for (size_t i = 0; !r && i < n; i++)
		r = register_one(db, &infos[i], now, &ids[i], err);
	if (!r)
		batch_index(&bt, n);
	for (size_t i = 0; !r && i < n; i++)
		r = add_refs(db, &bt, i, err);
	for (size_t i = 0; !r && i < n; i++)
		for (size_t k = 0; !r && k < infos[i].nr_outputs; k++)
			r = cix_db_add_drv_output(db, infos[i].path, infos[i].outputs[k].id,
						  infos[i].outputs[k].path, err);
	if (bt.paths)
		cix_str_index_release(&bt.by_path);
	free(bt.paths);
	free(ids);
	return r;
}

int cix_db_add_drv_output(struct cix_db *db, const char *drv_path, const char *id,
			  const char *out_path, struct cix_err *err)
{
	int64_t drv;
	int r = path_id(db, drv_path, &drv, err);
	if (r <= 0)
		return r < 0 ? r : cix_error(err, -CIX_ENOTFOUND, "derivation '%s' is not valid",
					     drv_path);
	sqlite3_stmt *s = stmt(db, S_ADD_OUTPUT, err);
	if (!s)
		return -CIX_EFORMAT;
	sqlite3_bind_int64(s, 1, drv);
	sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, out_path, -1, SQLITE_STATIC);
	return sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(db, err, "cannot add output");
}

/* The paths that which lists for path's id, sorted, to fn. */
static int list_by_path(struct cix_db *db, enum stmt which, const char *path,
			cix_path_fn fn, void *opaque, struct cix_err *err)
{
	struct strvec v = STRVEC_INIT;
	int64_t id;
	int r = path_id(db, path, &id, err);
	if (r <= 0)
		return r < 0 ? r : cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", path);
	r = list(db, which, id, NULL, strvec_push_fn, &v, err);
	cix_sort_strs(v.v, v.nr);
	for (size_t i = 0; r >= 0 && i < v.nr; i++) {
		int x = fn(v.v[i], opaque);
		if (x < 0)
			r = x;
	}
	strvec_clear(&v);
	return r < 0 ? r : 0;
}

int cix_db_references(struct cix_db *db, const char *path, cix_path_fn fn, void *opaque,
		      struct cix_err *err)
{
	return list_by_path(db, S_REFS, path, fn, opaque, err);
}

int cix_db_referrers(struct cix_db *db, const char *path, cix_path_fn fn, void *opaque,
		     struct cix_err *err)
{
	return list_by_path(db, S_REFERRERS, path, fn, opaque, err);
}

int cix_db_closure(struct cix_db *db, const char *const *paths, size_t n, int referrers,
		   struct cix_db_closure *c, struct cix_err *err)
{
	int own = sqlite3_get_autocommit(db->h), r = 0;
	int64_t *ids = xcalloc(n + 1, sizeof(*ids));
	if (own && (r = cix_db_exec(db, "begin", err)) < 0) {
		free(ids);
		return r;
	}
	for (size_t i = 0; !r && i < n; i++)
		if ((r = path_id(db, paths[i], &ids[i], err)) == 0)
			r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", paths[i]);
		else if (r > 0)
			r = 0;
	if (!r)
		r = cix_db_closure_walk(db, ids, n, referrers, c, err);
	if (own)
		cix_db_exec(db, "commit", NULL);
	free(ids);
	return r;
}

int cix_db_path_edges(struct cix_db *db, const char *path, cix_db_edge_fn fn, void *opaque,
		      struct cix_err *err)
{
	sqlite3_stmt *s = stmt(db, S_EDGES, err);
	int rc, r = 0;
	if (!s)
		return -CIX_EFORMAT;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(s, 1);
		if (!p) {
			rc = SQLITE_NOMEM;
			break;
		}
		if ((r = fn(opaque, sqlite3_column_int64(s, 0), p, sqlite3_column_int64(s, 2),
			    sqlite3_column_int64(s, 3))) < 0)
			break;
		r = 1;
	}
	sqlite3_reset(s);
	if (r < 0)
		return r;
	return rc == SQLITE_DONE ? r : db_error(db, err, "query failed");
}

int cix_db_valid_derivers(struct cix_db *db, const char *path, cix_path_fn fn, void *opaque,
			  struct cix_err *err)
{
	return list(db, S_DERIVERS, 0, path, fn, opaque, err);
}

int cix_db_drv_outputs(struct cix_db *db, const char *drv_path, cix_path_fn fn, void *opaque,
		       struct cix_err *err)
{
	return list(db, S_OUTPUTS, 0, drv_path, fn, opaque, err);
}

int cix_db_all_valid(struct cix_db *db, cix_path_fn fn, void *opaque, struct cix_err *err)
{
	return list(db, S_ALL, 0, NULL, fn, opaque, err);
}

int cix_db_invalidate(struct cix_db *db, const char *path, struct cix_err *err)
{
	int64_t id;
	int r = begin_write(db, err), rc;
	if (r < 0)
		return r;
	if ((r = path_id(db, path, &id, err)) <= 0) {
		if (!r)
			r = cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", path);
		goto out;
	}
	sqlite3_stmt *s = stmt(db, S_HAS_REFERRERS, err);
	if (!s) {
		r = -CIX_EFORMAT;
		goto out;
	}
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc == SQLITE_ROW) {
		r = cix_error(err, -CIX_EEXIST, "cannot delete '%s': it is still referenced", path);
		goto out;
	}
	if (!(s = stmt(db, S_DELETE, err))) {
		r = -CIX_EFORMAT;
		goto out;
	}
	sqlite3_bind_int64(s, 1, id);
	if (sqlite3_step(s) != SQLITE_DONE) {
		r = db_error(db, err, "cannot delete path");
		goto out;
	}
	r = cix_db_exec(db, "commit", err);
out:
	if (r < 0)
		cix_db_exec(db, "rollback", NULL);
	end_write(db);
	return r;
}
