/* build-int.h - between the builder (build.c) and the scheduler (build-sched.c) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILD_INT_H
#define CIX_BUILD_INT_H

#include <pthread.h>

#include "build.h"
#include "build-users.h"
#include "db.h"
#include "drv.h"
#include "json-value.h"
#include "strvec.h"

#define MAX_DEPTH 1024

/* The build directory, as the builder sees it. */
#define SANDBOX_BUILD_DIR "/build"

/* One derivation being built. */
struct building {
	pthread_mutex_t *lock;   /* held except while the builder runs */
	int check;               /* rebuild valid outputs and compare */
	int repair;              /* rebuild them and put the new ones in their place */
	struct cix_store *s;
	const char *drv_path;
	struct cix_drv *drv;
	const struct cix_build_opts *opts;
	struct cix_path_lock *locks;
	size_t nr_locks;
	char *build_dir;
	struct cix_build_user user;  /* or none: a user namespace */
	/*
	 * Outputs valid before the build (some of them may be, when others
	 * were deleted): left exactly as they are, whatever the build does
	 * (doc/security.md item 13); the build's copies of them are dropped.
	 */
	unsigned char *valid;
	/* __json parsed (__structuredAttrs), or NULL: attributes are the environment's. */
	struct cix_jv *attrs;
};

/*
 * build-env.c: what the builder starts with, made while the database may
 * be used (before the builder's directory exists): its environment, as
 * Nix 2.8's initEnv makes it, and the files to write in its directory
 * (passAsFile, exportReferencesGraph, .attrs.json and .attrs.sh). Each
 * output's hash placeholder (builtins.placeholder) is replaced by its
 * path in the environment, the arguments and these files.
 */
struct cix_build_setup {
	struct strvec env;                  /* KEY=VALUE */
	struct strvec file_names, file_data;
	struct strvec ph_from, ph_to;       /* placeholder -> output path */
};
#define CIX_BUILD_SETUP_INIT { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT }

/* The paths a derivation's build reads: its sources, the wanted outputs of its inputs. */
int cix_build_input_roots(struct cix_store *s, const struct cix_drv *drv, struct strvec *out,
			  struct cix_err *err);
/* The closure of such roots (lib/build.c). */
int cix_build_roots_closure(struct cix_store *s, const struct strvec *roots,
			    struct cix_db_graph *g, struct cix_err *err);

/*
 * What an output of drv may refer to: its inputs' closure, then its
 * outputs (full, borrowed from inputs and drv), with a scanner of their
 * hash parts to feed the output's NAR to; found gives, after the scan,
 * the candidates found, sorted and unique (allocated) (lib/build.c).
 */
struct cix_refscan;
struct cix_build_refs {
	const char **full;
	size_t n;
	struct cix_refscan *scan;
};
int cix_build_refs_init(struct cix_build_refs *br, const struct cix_db_graph *inputs,
			const struct cix_drv *drv, size_t store_len, struct cix_err *err);
void cix_build_refs_found(const struct cix_build_refs *br, char ***refs, size_t *nr);
void cix_build_refs_release(struct cix_build_refs *br);

/*
 * build-remote.c: offloading. A slot of a machine of ms that fits (system,
 * features), is not marked down, and has one free, the least loaded (jobs
 * running there, by all cix processes, over its speed factor): 1 when
 * taken (release it after the build), 0 when every such machine is busy,
 * -1 when there is none.
 */
struct cix_machine;
struct cix_machines;
struct cix_offload_slot {
	int fd;
	size_t machine;
};
int cix_offload_take(struct cix_store *s, const struct cix_machines *ms, const char *system,
		     const char *const *features, size_t nf, struct cix_offload_slot *slot);
void cix_offload_release(struct cix_offload_slot *slot);
/* Pass m over for a while (it did not answer). */
void cix_offload_mark_down(struct cix_store *s, const struct cix_machine *m);
/*
 * Build drv on m: the closure of its inputs copied there, the derivation
 * sent whole (BuildDerivation), its build output to opts->log_fd, its
 * outputs copied back, checked, and registered here; lock (held) is let
 * go while the network is waited for. -EHOSTUNREACH (m marked down) when
 * m cannot be reached.
 */
int cix_offload_build(struct cix_store *s, const struct cix_machine *m, const char *drv_path,
		      const struct cix_drv *drv, const struct cix_build_opts *opts,
		      pthread_mutex_t *lock, struct cix_err *err);

/*
 * build-fetch.c: outs (drv's outputs not valid here) from there, the
 * store of the machine that built drv from inputs (its input roots):
 * each checked (NAR hash and size; references scanned for, exactly those
 * the machine says, among the inputs' closure and the outputs), then
 * registered, references first. name is the machine, in messages.
 */
int cix_offload_fetch(struct cix_store *s, struct cix_store *there, const char *name,
		      const struct cix_drv *drv, const struct strvec *inputs,
		      const struct strvec *outs, struct cix_err *err);

/* Parse __json into b->attrs, if the derivation has one. */
int cix_build_attrs_load(struct building *b, struct cix_err *err);
int cix_build_setup_make(struct building *b, const struct cix_db_graph *inputs,
			 struct cix_build_setup *st, struct cix_err *err);
/* Write the files into b->build_dir, the build user's. */
int cix_build_setup_write(const struct building *b, const struct cix_build_setup *st,
			  struct cix_err *err);
void cix_build_setup_release(struct cix_build_setup *st);
/* s with the placeholders replaced: a new string. */
char *cix_build_rewrite(const struct cix_build_setup *st, const char *s);
/*
 * A list-of-strings attribute: a list of __json, or the words of an
 * environment variable. 0 when absent, 1 when present (pushed onto out),
 * or an error.
 */
int cix_build_strings_attr(const struct building *b, const char *name, struct strvec *out,
			   struct cix_err *err);
void cix_build_file_add(struct cix_build_setup *st, const char *name, const char *data);

/*
 * build-attrs.c: structured attributes (.attrs.json, .attrs.sh) and
 * exportReferencesGraph, for setup (the database used: b->lock held).
 */
int cix_build_structured_files(struct building *b, const struct cix_db_graph *inputs,
			       struct cix_build_setup *st, struct cix_err *err);
int cix_build_export_graphs(struct building *b, const struct cix_db_graph *inputs,
			    struct cix_build_setup *st, struct cix_err *err);

/*
 * build-checks.c: after the outputs' references are known, before they
 * are registered (infos[i] is drv->outputs[i]'s): allowedReferences,
 * allowedRequisites, disallowedReferences, disallowedRequisites (and
 * maxSize, maxClosureSize, with __structuredAttrs' outputChecks).
 */
int cix_build_check_outputs(struct building *b, const struct cix_path_info *infos,
			    struct cix_err *err);
/*
 * A fixed output o whose hash is got (algo as the derivation's), not the
 * one wanted: registered under the path its content has (unless it has
 * references, or that path is valid already), then the error, as Nix's.
 */
int cix_build_fod_mismatch(struct building *b, const struct cix_drv_output *o,
			   struct cix_path_info *info, const struct cix_hash *got,
			   struct cix_err *err);

/*
 * What a sandbox runs: the derivation's builder with its arguments, or
 * cix-builtin for a builtin; the host paths it needs besides its inputs.
 */
struct cix_build_job {
	const char *builder;                /* inside the sandbox */
	struct strvec argv;
	struct strvec extra;                /* extra paths (at the same place) */
	struct strvec hosts, insides;       /* binds: host path -> inside path */
};

#define CIX_BUILD_JOB_INIT { NULL, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT }

void cix_build_job_release(struct cix_build_job *j);

/*
 * build-builtin.c: the job of a builtin:fetchurl derivation: cix-builtin,
 * found beside the running program (or in ../libexec/cix), bound into the
 * sandbox with the libraries it loads, the mirror lists and the local
 * content-addressed mirrors ($CIX_MIRRORS_FILE or /etc/cix/mirrors,
 * $CIX_CAS_DIRS); file:// URLs refused when no_file_urls.
 */
/*
 * build-platform.c: can this machine build drv (its system, a built-in
 * builder it has)? 0, or why not.
 */
int cix_build_check_runnable(const char *drv_path, const struct cix_drv *drv,
			     struct cix_err *err);

int cix_build_fetchurl_job(struct cix_build_job *j, int no_file_urls, struct cix_err *err);

/* Build b->drv (its inputs valid), with b->lock held; 0 or an error. */
int cix_build_one(struct building *b, struct cix_err *err);
/* 1 when every output of drv is valid, 0 when not, or an error. */
int cix_build_outputs_valid(struct cix_store *s, const struct cix_drv *drv, struct cix_err *err);

#endif
