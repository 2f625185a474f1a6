/* drv.h - derivations: the ATerm .drv format, hashing and output paths */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_DRV_H
#define CIX_DRV_H

#include <stddef.h>
#include "err.h"
#include "hash.h"
#include "strbuf.h"

/*
 * A derivation as Nix 2.8 writes it:
 *   Derive([outputs],[inputDrvs],[inputSrcs],"platform","builder",[args],[env])
 * All strings are NUL-terminated and contain no NUL byte. They live in
 * the derivation's own arena and are released by cix_drv_free().
 *
 * A derivation returned by cix_drv_parse() is canonical: outputs, input
 * derivations (and the output names of each), input sources and the
 * environment are sorted by bytes without duplicates, so printing it gives
 * back the parsed bytes exactly.
 */
struct cix_drv_output {
	char *name;
	char *path;
	char *hash_algo;   /* "" (input-addressed), or [r:]md5|sha1|sha256|sha512 */
	char *hash;        /* "" or the lowercase base16 hash */
};

struct cix_drv_input {
	char *path;        /* the .drv store path */
	char **outputs;    /* output names wanted from it */
	size_t nr_outputs;
};

struct cix_drv_env {
	char *key;
	char *value;
};

struct cix_drv_arena;

struct cix_drv {
	struct cix_drv_output *outputs;
	size_t nr_outputs, alloc_outputs;
	struct cix_drv_input *input_drvs;
	size_t nr_input_drvs, alloc_input_drvs;
	char **input_srcs;
	size_t nr_input_srcs, alloc_input_srcs;
	char *platform;
	char *builder;
	char **args;
	size_t nr_args, alloc_args;
	struct cix_drv_env *env;
	size_t nr_env, alloc_env;
	struct cix_drv_arena *arena;
};

/* Bounds on what the parser accepts. */
#define CIX_DRV_MAX_SIZE (64u << 20)  /* bytes of ATerm */

/* ---- drv-parse.c ---- */

/*
 * Parse the ATerm text buf (len bytes, need not be NUL-terminated).
 * The parser is strict: exact punctuation without whitespace, escapes
 * only \" \\ \n \r \t, no raw newline, carriage return, tab or NUL inside
 * strings, every list that Nix prints sorted must be sorted and free of
 * duplicates, nothing after the final ')'. Every store path must lie in
 * store_dir; if store_dir is NULL, the directory of the output paths is
 * used (see cix_drv_store_dir()). Outputs must be input-addressed
 * (path, "", "") or a single fixed output "out" (path, algo, base16 hash);
 * floating and deferred outputs (ca-derivations) are -CIX_EUNSUPPORTED.
 * Returns 0 and a new derivation in *out, or a negative code with err set
 * ("... at byte N: ...").
 */
int cix_drv_parse(const char *buf, size_t len, const char *store_dir,
		  struct cix_drv **out, struct cix_err *err);

/* Read and parse a .drv file (at most CIX_DRV_MAX_SIZE bytes). */
int cix_drv_parse_file(const char *file, const char *store_dir,
		       struct cix_drv **out, struct cix_err *err);

/*
 * The store directory the derivation claims: the directory part of its
 * first non-empty output path, appended to out; -CIX_EUNSUPPORTED if
 * there is none, -CIX_EFORMAT if it has no directory part.
 */
int cix_drv_store_dir(const struct cix_drv *drv, struct strbuf *out,
		      struct cix_err *err);

/* ---- building a derivation in memory (drv-print.c) ---- */

struct cix_drv *cix_drv_new(void);
void cix_drv_free(struct cix_drv *drv);
/* A copy of s (len bytes) in the derivation's arena, NUL-terminated. */
char *cix_drv_strndup(struct cix_drv *drv, const char *s, size_t len);
char *cix_drv_strdup(struct cix_drv *drv, const char *s);

/* These copy their arguments. */
void cix_drv_add_output(struct cix_drv *drv, const char *name, const char *path,
			const char *hash_algo, const char *hash);
void cix_drv_add_input_drv(struct cix_drv *drv, const char *path,
			   const char *const *outputs, size_t nr_outputs);
void cix_drv_add_input_src(struct cix_drv *drv, const char *path);
void cix_drv_add_arg(struct cix_drv *drv, const char *arg);
/* Set (or replace) an environment variable. */
void cix_drv_setenv(struct cix_drv *drv, const char *key, const char *value);
/* The value of key, or NULL (works on sorted and unsorted environments). */
const char *cix_drv_getenv(const struct cix_drv *drv, const char *key);
void cix_drv_set_platform(struct cix_drv *drv, const char *platform);
void cix_drv_set_builder(struct cix_drv *drv, const char *builder);

/*
 * Sort every list that Nix keeps sorted, merging the output names of a
 * repeated input derivation and dropping repeated input sources;
 * -CIX_EFORMAT on a repeated output name. The environment, kept unique by
 * cix_drv_setenv(), is sorted too.
 */
int cix_drv_canonicalize(struct cix_drv *drv, struct cix_err *err);

/* ---- printing (drv-print.c) ---- */

/* Append the ATerm of a canonical derivation, as Nix's unparse does. */
void cix_drv_unparse(const struct cix_drv *drv, struct strbuf *sb);

/*
 * The general form: with mask_outputs, output paths and the values of
 * environment variables named after outputs are printed as "". When
 * inputs is not NULL, it replaces drv->input_drvs (nr_inputs entries,
 * already sorted by path): hashDerivationModulo prints the base16 modulo
 * hashes of the inputs there.
 */
void cix_drv_unparse_ext(const struct cix_drv *drv, struct strbuf *sb,
			 int mask_outputs, const struct cix_drv_input *inputs,
			 size_t nr_inputs);

/* Append s escaped as an ATerm string, with its quotes. */
void cix_drv_print_string(struct strbuf *sb, const char *s);

/* ---- hashing and paths (drv-hash.c) ---- */

/* Is this a fixed-output derivation (a single "out" with a hash)? */
int cix_drv_is_fixed(const struct cix_drv *drv);

/*
 * The derivation name of a .drv store path ("/s/HASH-NAME.drv" gives
 * NAME), appended to name; -CIX_EFORMAT if path is not such a path.
 */
int cix_drv_name_from_path(const char *store_dir, const char *drv_path,
			   struct strbuf *name, struct cix_err *err);

/*
 * The .drv store path: the text path of NAME.drv whose content is the
 * ATerm, with the input sources and input derivations as references.
 */
int cix_drv_store_path(const struct cix_drv *drv, const char *store_dir,
		       const char *drv_name, struct strbuf *out,
		       struct cix_err *err);

/*
 * Loads input derivations for hashDerivationModulo: given the store path
 * of a .drv, return a newly parsed derivation in *out (the hasher frees
 * it), or a negative code with err set.
 */
typedef int (*cix_drv_load_fn)(void *data, const char *drv_path,
			       struct cix_drv **out, struct cix_err *err);

/* Memoises the modulo hash of each input derivation by path. */
struct cix_drv_hasher;

struct cix_drv_hasher *cix_drv_hasher_new(const char *store_dir,
					  cix_drv_load_fn load, void *data);
void cix_drv_hasher_free(struct cix_drv_hasher *h);

/*
 * hashDerivationModulo: for a fixed-output derivation,
 * sha256("fixed:out:" algo ":" hash ":" outPath); otherwise the sha256 of
 * the ATerm with each input derivation replaced by the base16 of its own
 * modulo hash (re-sorted), and with the output paths masked if
 * mask_outputs. drv_name names the derivation (for fixed output paths).
 */
int cix_drv_hash_modulo(struct cix_drv_hasher *h, const struct cix_drv *drv,
			const char *drv_name, int mask_outputs,
			struct cix_hash *out, struct cix_err *err);

/* The same for the derivation at drv_path, loaded and memoised. */
int cix_drv_hash_modulo_path(struct cix_drv_hasher *h, const char *drv_path,
			     struct cix_hash *out, struct cix_err *err);

/*
 * Compute the path of every output into paths[i] (nr_outputs strbufs,
 * appended to): makeFixedOutputPath for a fixed output, otherwise
 * makeOutputPath("output:" ID, hashDerivationModulo(masked), NAME).
 */
int cix_drv_output_paths(struct cix_drv_hasher *h, const struct cix_drv *drv,
			 const char *drv_name, struct strbuf *paths,
			 struct cix_err *err);

/*
 * Check that each output's path and the environment variable named after
 * it equal the recomputed paths: -CIX_EMISMATCH naming the first wrong
 * output otherwise. paths as for cix_drv_output_paths (may be NULL).
 */
int cix_drv_check_outputs(struct cix_drv_hasher *h, const struct cix_drv *drv,
			  const char *drv_name, struct strbuf *paths,
			  struct cix_err *err);

/*
 * Fill in the output paths of a canonical derivation under construction
 * and set the environment variables named after the outputs, as
 * derivationStrict does.
 */
int cix_drv_fill_outputs(struct cix_drv_hasher *h, struct cix_drv *drv,
			 const char *drv_name, struct cix_err *err);

#endif
