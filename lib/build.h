/* build.h - realising derivations: scheduling, building, registering outputs */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_BUILD_H
#define CIX_BUILD_H

#include "store.h"
#include "strvec.h"
#include "substitute.h"

struct cix_drv;
struct cix_machines;

/*
 * Processes and threads a build may have at once (a pids cgroup, or
 * RLIMIT_NPROC for a build user; see lib/sandbox.h): a fork bomb stops
 * there.
 */
#define CIX_BUILD_MAX_PROCS 16384

/*
 * The administrator's limits on each build (cix.conf, cix-daemon's
 * options), 0 meaning none. A client's own timeout and log size (in
 * struct cix_build_opts) can only be shorter.
 */
struct cix_build_limits {
	unsigned timeout;               /* build-timeout: seconds in all */
	unsigned long long max_log;     /* max-log-size: bytes of build log */
	unsigned long long memory_max;  /* build-memory-max: bytes of memory and swap */
	unsigned long long shm_size;    /* build-shm-size: bytes of /dev/shm (0: half the RAM) */
	unsigned long long tmp_size;    /* build-tmp-size: bytes of /tmp (0: on disk) */
	unsigned long pids_max;         /* build-pids-max: tasks of one build, or CIX_LIMIT_AUTO */
	unsigned long builds_pids_max;  /* builds-pids-max: tasks of all builds together */
	unsigned long long kept_max_age; /* kept-builds-max-age: seconds a -K directory stays */
	unsigned long kept_max;         /* kept-builds-max: -K directories at most */
	unsigned long long subst_unsigned_max; /* substitute-unsigned-max-size: bytes */
};
/* build-pids-max not given: derived from builds-pids-max (cix_build_limits_pids). */
#define CIX_LIMIT_AUTO (~0UL)
#define CIX_BUILD_DEFAULT_TIMEOUT (24U * 3600)
#define CIX_BUILD_DEFAULT_MAX_LOG (64ULL << 20)

/* What cix_build_opts' on_build is told of. */
enum cix_build_event { CIX_BUILD_STARTED, CIX_BUILD_BUILT, CIX_BUILD_ENDED };

struct cix_build_opts {
	unsigned max_jobs;     /* builds at once (0: 1) */
	unsigned cores;        /* NIX_BUILD_CORES (0: all of them, as Nix) */
	int keep_failed;       /* -K: keep the build directory of a failed build */
	/*
	 * -k: a failed build stops only what needs it; the others go on
	 * (the error is still the first failure's).
	 */
	int keep_going;
	int log_fd;            /* where build output is echoed, or -1 */
	unsigned timeout;      /* seconds a build may take in all (0: no limit) */
	unsigned max_silent;   /* seconds a build may stay silent (0: no limit) */
	unsigned long long max_log; /* bytes of build log (0: no limit) */
	/* The ceilings and the cgroup's limits; NULL: cix.conf's (lib/conf.h). */
	const struct cix_build_limits *limits;
	/*
	 * builtin:fetchurl refuses file:// URLs: set by the daemon for a
	 * client it does not trust.
	 */
	int no_file_urls;
	/*
	 * Build the derivations given again although their outputs are valid,
	 * and compare: -CIX_ENONDET when an output's NAR differs. Nothing is
	 * registered or replaced. Their inputs are realised as usual.
	 */
	int check;
	/*
	 * Build the derivations given again although their outputs are valid,
	 * and put what the build made in the place of those outputs, their
	 * registrations with it (a repair of outputs modified or lost).
	 */
	int repair;
	/*
	 * Substitutes: the missing outputs of a derivation are fetched from
	 * these caches when they have them all (with their closure), and then
	 * its inputs are not needed. NULL or no cache: everything is built.
	 */
	const struct cix_subst_opts *subst;
	/* When substituting fails, build instead (else that is the error). */
	int fallback;
	/* --max-jobs=0: build nothing here; a derivation to build is an error. */
	int no_build;
	/*
	 * Which caches cix_store_build asks when subst is NULL: these URLs
	 * (NULL: cix.conf's; a daemon allows those it trusts, NULL: its
	 * own), or none at all.
	 */
	const char *substitute_urls;
	int no_substitutes;
	/* Build each derivation this many more times and compare (as check). */
	unsigned repeat;
	/*
	 * Or NULL: told of each derivation built here, one call at a time
	 * (the scheduler's lock held): as it starts (err NULL); once built and
	 * its outputs registered (not when checked), when a negative return
	 * fails the build (the daemon's work for a trusted client's settings:
	 * optimise, sign, its post-build hook); and as it ends (err->code 0
	 * when built: Guix's build traces).
	 */
	/*
	 * Machines to offload to (lib/machines.h), or NULL: a derivation that
	 * one of them can build goes there when the local slots (max_jobs)
	 * are all taken, or with no_build; substitutes are still tried first.
	 */
	const struct cix_machines *machines;
	/*
	 * A builders setting (lib/machines.h) given by the user: the local
	 * store parses it into machines (when NULL: cix.conf's builders, else
	 * $CIX_CONF_DIR/machines); a daemon's store asks the daemon to use it.
	 */
	const char *builders;
	int (*on_build)(void *opaque, enum cix_build_event ev, const char *drv_path,
			const struct cix_drv *drv, struct cix_err *err);
	void *on_build_opaque;
};

/* What realising some derivations would do (cix_build_plan). */
struct cix_build_missing {
	struct strvec builds;       /* derivations to build */
	struct strvec fetches;      /* paths to fetch from substitutes */
	uint64_t download_size, nar_size;
};

/*
 * Can this machine run the builders of platform (a derivation's system)?
 * Its own system, i686-linux on x86_64-linux, and "builtin".
 */
int cix_build_can_run(const char *platform);
/* The machine's own system, such as "x86_64-linux". */
const char *cix_build_this_system(void);

/*
 * Make the outputs of the derivation drv_path (a valid store path) valid:
 * its input derivations first, then its builder, unless every output is
 * valid already. The builder runs in the sandbox (lib/sandbox.h), whose
 * root holds only the input closure and the host paths listed in
 * $CIX_EXTRA_SANDBOX_PATHS, with a fresh build directory (below
 * STATE/builds) as /build and Nix's environment; its output is kept,
 * compressed, in the build log (lib/buildlog.h). Outputs are
 * canonicalised, checked (fixed-output hashes), scanned for references
 * among the input closure and the outputs, and registered together with
 * the derivation as deriver. Output paths are locked while building, so
 * that a derivation is built once when two processes ask for it.
 */
int cix_build_derivation(struct cix_store *s, const char *drv_path,
			 const struct cix_build_opts *opts, struct cix_err *err);

/*
 * Repair path, a valid output found modified: build its deriver again
 * with opts (repair: the new outputs take the place of the old ones).
 */
int cix_build_repair_path(struct cix_store *s, const char *path,
			  const struct cix_build_opts *opts, struct cix_err *err);
/* The valid derivation that made path, into drv: what a repair builds. */
int cix_build_repair_deriver(struct cix_store *s, const char *path, struct strbuf *drv,
			     struct cix_err *err);

/*
 * The same for several derivations at once, up to opts->max_jobs builds
 * running in parallel as their inputs become ready. After a failure no new
 * build starts; the first failure is returned.
 */
/*
 * Build drv, sent whole by a client (BuildDerivation: no input
 * derivations, every input a valid path of input_srcs) as drv_path,
 * which need not be in this store; as cix_build_derivation otherwise.
 */
int cix_build_basic(struct cix_store *s, const char *drv_path, struct cix_drv *drv,
		    const struct cix_build_opts *opts, struct cix_err *err);

int cix_build_derivations(struct cix_store *s, const char *const *drv_paths, size_t n,
			  const struct cix_build_opts *opts, struct cix_err *err);

/*
 * What cix_build_derivations would do with opts (asking the caches, but
 * fetching and building nothing), appended to m.
 */
int cix_build_plan(struct cix_store *s, const char *const *drv_paths, size_t n,
		   const struct cix_build_opts *opts, struct cix_build_missing *m,
		   struct cix_err *err);

#endif
