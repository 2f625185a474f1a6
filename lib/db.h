/* db.h - the store database: valid paths, references, derivation outputs */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DB_H
#define CIX_DB_H

#include <signal.h>
#include <stdint.h>
#include "err.h"
#include "hash.h"

/*
 * SQLite, after Nix's schema: ValidPaths (path, NAR hash, NAR size,
 * registration time, deriver, signatures, content address), Refs between
 * them, DerivationOutputs. WAL journal, foreign keys on, busy retries, the
 * schema version in PRAGMA user_version with migrations. A path is valid
 * exactly when it has a row; rows and references are registered together
 * in one transaction.
 */
struct cix_db;

#define CIX_DB_SCHEMA_VERSION 4

/* Open (creating with create != 0) the database file at path. */
int cix_db_open(const char *path, int create, struct cix_db **out, struct cix_err *err);
void cix_db_close(struct cix_db *db);

/*
 * For a connection serving many queries (a daemon's worker): before a
 * query, keep the read transaction of the last one if nothing was
 * committed since by anyone, else begin a new one (1: one is held, 0: the
 * query runs in a transaction of its own). Its answers are then as fresh
 * as a query's of its own. Release the transaction before anything else
 * (writes release it themselves) and when idle: while it is held, the WAL
 * cannot be checkpointed past it.
 */
int cix_db_snapshot_hold(struct cix_db *db);
void cix_db_snapshot_release(struct cix_db *db);

/* What the database knows of a valid path. Strings are owned by the info. */
struct cix_path_info {
	char *path;
	struct cix_hash nar_hash;   /* sha256 of the NAR */
	uint64_t nar_size;
	int64_t reg_time;           /* seconds since the epoch; 0 = now */
	char *deriver;              /* NULL if unknown */
	char **refs;                /* sorted store paths */
	size_t nr_refs;
	char *sigs;                 /* space-separated, NULL if none */
	char *ca;                   /* content address, e.g. "fixed:r:sha256:..." */
	int ultimate;               /* built here, not taken from elsewhere */
	/* For a derivation: its outputs, recorded in DerivationOutputs. */
	struct cix_drv_output_row {
		char *id;
		char *path;
	} *outputs;
	size_t nr_outputs;
};

void cix_path_info_release(struct cix_path_info *info);

/* 1 if path is valid, 0 if not, negative on error. */
int cix_db_is_valid(struct cix_db *db, const char *path, struct cix_err *err);

/* Fill info (references included); -CIX_ENOTFOUND if path is not valid. */
int cix_db_query(struct cix_db *db, const char *path, struct cix_path_info *info,
		 struct cix_err *err);
/*
 * cix_db_query of paths[0..n) into infos[0..n), in the caller's read
 * transaction; the paths of the references are looked up once each
 * (lib/db-query-many.c). all_valid (if not NULL) is called once every
 * path was found valid, before their references are read. All or
 * nothing: on an error no info is left.
 */
int cix_db_query_many(struct cix_db *db, const char *const *paths, size_t n,
		      struct cix_path_info *infos, void (*all_valid)(void *opaque), void *opaque,
		      struct cix_err *err);

/*
 * Register infos[0..n) in one transaction: each path becomes valid with its
 * references, which must be valid already or among infos (a path may
 * refer to itself). Paths already valid are updated. All or nothing.
 */
int cix_db_register(struct cix_db *db, const struct cix_path_info *infos, size_t n,
		    struct cix_err *err);

/*
 * Commit the registrations of the database's other writers as they come,
 * until *stop is set (cix-daemon's committer process). -CIX_EEXIST if
 * another process does already. See lib/db-writer.h.
 */
int cix_db_serve_commits(struct cix_db *db, volatile sig_atomic_t *stop, struct cix_err *err);

/* Record that output id of the derivation drv_path is out_path. */
int cix_db_add_drv_output(struct cix_db *db, const char *drv_path, const char *id,
			  const char *out_path, struct cix_err *err);

/*
 * List queries: call fn(path, opaque) for each result, in sorted order.
 * fn returns 0 to go on or a negative code to stop (returned).
 */
typedef int (*cix_path_fn)(const char *path, void *opaque);
int cix_db_references(struct cix_db *db, const char *path, cix_path_fn fn, void *opaque,
		      struct cix_err *err);
int cix_db_referrers(struct cix_db *db, const char *path, cix_path_fn fn, void *opaque,
		     struct cix_err *err);
/* Valid derivations whose outputs include path. */
int cix_db_valid_derivers(struct cix_db *db, const char *path, cix_path_fn fn, void *opaque,
			  struct cix_err *err);
/* Outputs of a derivation, as "id path" pairs: fn gets the path. */
int cix_db_drv_outputs(struct cix_db *db, const char *drv_path, cix_path_fn fn, void *opaque,
		       struct cix_err *err);
/* Every valid path. */
int cix_db_all_valid(struct cix_db *db, cix_path_fn fn, void *opaque, struct cix_err *err);

/*
 * A path's row and references, for lib/db-graph.c: fn(opaque, id, path,
 * referrer, reference) once per reference of path (referrer is its id),
 * or once with referrer = reference = 0 if it has none. id, referrer and
 * reference are the database's row ids of paths (never 0), stable while
 * db is open. Returns 1 if there was a row, 0 if path is not valid (no
 * row), or a negative code (fn's, which stops the query).
 */
typedef int (*cix_db_edge_fn)(void *opaque, int64_t id, const char *path,
			      int64_t referrer, int64_t reference);
int cix_db_path_edges(struct cix_db *db, const char *path, cix_db_edge_fn fn, void *opaque,
		      struct cix_err *err);

/* Which paths cix_db_graph gives. */
enum cix_db_edges_mode {
	CIX_DB_EDGES_PATH,                /* the paths alone */
	CIX_DB_EDGES_REQUISITES,          /* their closure through references */
	CIX_DB_EDGES_REFERRERS_CLOSURE,   /* their closure through referrers */
};

/*
 * A set of store paths and the references among them (lib/db-graph.c).
 * The paths are sorted bytewise, without duplicates; the references of
 * paths[i] that are in the set are the indices refs[refs_at[i] ..
 * refs_at[i + 1]), ascending (so in the paths' order), without
 * duplicates, i itself included if paths[i] refers to itself.
 */
struct cix_db_graph {
	size_t nr;
	char **paths;
	size_t *refs_at;   /* nr + 1 offsets */
	size_t *refs;
};

/*
 * The closure of paths[0..n) (references of references..., or referrers
 * of referrers... for CIX_DB_EDGES_REFERRERS_CLOSURE), the paths
 * included, as a graph; for CIX_DB_EDGES_PATH, the set of paths[0..n)
 * itself. For the closures, every path must be valid (-CIX_ENOTFOUND
 * otherwise); for CIX_DB_EDGES_PATH an invalid path is in the graph
 * without references. g is filled (and must be released) on success only.
 */
int cix_db_graph(struct cix_db *db, const char *const *paths, size_t n,
		 enum cix_db_edges_mode mode, struct cix_db_graph *g, struct cix_err *err);
void cix_db_graph_release(struct cix_db_graph *g);

/*
 * Every valid path, as the garbage collector needs them (lib/db-gc.c),
 * read in one transaction: paths sorted bytewise; for each, its NAR size,
 * the index of its deriver (NONE when the deriver is not valid or
 * unknown), its references and, for a derivation, its valid outputs, as
 * index lists like cix_db_graph's (refs[refs_at[i] .. refs_at[i + 1])).
 */
#define CIX_DB_NONE SIZE_MAX
struct cix_db_all {
	size_t nr;
	char **paths;
	uint64_t *nar_size;
	size_t *deriver;
	size_t *refs_at, *refs;
	size_t *outs_at, *outs;
};
int cix_db_load_all(struct cix_db *db, struct cix_db_all *a, struct cix_err *err);
void cix_db_all_release(struct cix_db_all *a);

/*
 * Make paths[0..n) invalid, in that order, in one transaction: a path
 * that another valid path still refers to (one not made invalid before
 * it) is skipped, and so is one not valid. done[i] says which were made
 * invalid. Returns how many, or a negative code (then none was).
 */
long cix_db_invalidate_many(struct cix_db *db, const char *const *paths, size_t n,
			    unsigned char *done, struct cix_err *err);

/*
 * Make path invalid. Refused (-CIX_EEXIST) while another valid path refers
 * to it; -CIX_ENOTFOUND if it is not valid.
 */
int cix_db_invalidate(struct cix_db *db, const char *path, struct cix_err *err);

/*
 * The valid path starting with prefix ("STOREDIR/HASHPART-", as Nix's
 * queryPathFromHashPart looks for it): 1 and *path (malloc'd), 0 when none.
 */
int cix_db_path_from_hash_part(struct cix_db *db, const char *prefix, char **path,
			       struct cix_err *err);

#endif
