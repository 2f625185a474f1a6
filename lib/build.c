/* build.c - realise derivations: inputs first, then the builder, then register */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gc.h"
#include "env.h"
#include "build.h"
#include "conf.h"
#include "build-users.h"
#include "drv.h"
#include "encoding.h"
#include "nar.h"
#include "remove.h"
#include "refscan.h"
#include "sandbox.h"
#include "fetch.h"
#include "builtins.h"
#include "buildlog.h"
#include "strvec.h"
#include "store-path.h"
#include "build-int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>




/* ---- Running the builder ---- */


static void copy_out(int from, struct cix_build_log *log, int echo_fd)
{
	char buf[65536];
	ssize_t n;
	while ((n = read(from, buf, sizeof(buf))) > 0) {
		cix_build_log_write(log, buf, (size_t)n);
		if (echo_fd >= 0 && cix_write_full(echo_fd, buf, (size_t)n) < 0)
			echo_fd = -1;
	}
}

/* ---- Running the builder in the sandbox ---- */

/* Builder output, from the sandbox's pipe to the log file and the terminal. */
struct tee {
	int in, echo_fd;
	struct cix_build_log *log;
};

static void *tee_thread(void *arg)
{
	struct tee *t = arg;
	copy_out(t->in, t->log, t->echo_fd);
	return NULL;
}

/* The words of the environment variable var (a space-separated list), pushed onto out. */
static void env_list(enum cix_env_var var, struct strvec *out)
{
	strvec_split(out, cix_env(var), " \t\n");
}


static void drv_job(const struct cix_drv *drv, const struct cix_build_setup *st,
		    struct cix_build_job *j)
{
	j->builder = drv->builder;
	strvec_push(&j->argv, drv->builder);
	for (size_t i = 0; i < drv->nr_args; i++) {
		char *arg = cix_build_rewrite(st, drv->args[i]);
		strvec_push(&j->argv, arg);
		free(arg);
	}
	env_list(CIX_ENV_EXTRA_SANDBOX_PATHS, &j->extra);
}

/* The administrator's limits (the options' or cix.conf's), and the client's. */
static int set_limits(struct cix_sandbox_spec *spec, const struct cix_build_opts *o,
		      struct cix_err *err)
{
	const struct cix_build_limits *l = o->limits;
	int r;
	if (!l && (r = cix_build_limits_of_conf(&l, err)) < 0)
		return r;
	spec->timeout = (unsigned)cix_limit_lesser(o->timeout, l->timeout);
	spec->max_silent = o->max_silent;
	spec->max_log = cix_limit_lesser(o->max_log, l->max_log);
	spec->max_procs = cix_build_limits_pids(l);
	spec->all_max_procs = l->builds_pids_max;
	spec->memory_max = l->memory_max;
	spec->shm_size = l->shm_size;
	spec->tmp_size = l->tmp_size;
	return 0;
}

/*
 * __cixBinSh: the program the derivation wants at /bin/sh in its sandbox,
 * a file of its own inputs (so the derivation's hash covers it). Only the
 * first stages of the tool chain ask, whose seed programs (Debian's awk,
 * Python, C library) run /bin/sh and cannot be patched; nothing else has
 * a /bin/sh. NULL when not asked; an error when not an input's file.
 */
static int bin_sh_of(const struct building *b, const struct cix_db_graph *inputs,
		     char **host, struct cix_err *err)
{
	const char *want = cix_drv_getenv(b->drv, "__cixBinSh");
	size_t n = strlen(b->s->store_dir);
	char *real;
	*host = NULL;
	if (!want)
		return 0;
	real = realpath(want, NULL);
	if (!real || strncmp(real, b->s->store_dir, n) || real[n] != '/')
		goto bad;
	for (size_t i = 0; i < inputs->nr; i++) {
		size_t l = strlen(inputs->paths[i]);
		if (!strncmp(real, inputs->paths[i], l) && real[l] == '/') {
			struct stat st;
			if (stat(real, &st) < 0 || !S_ISREG(st.st_mode))
				break;
			*host = real;
			return 0;
		}
	}
bad:
	free(real);
	return cix_error(err, -CIX_EINVAL, "'%s': __cixBinSh '%s' is not a file of its inputs",
			 b->drv_path, want);
}

static int run_sandboxed(struct building *b, const struct cix_build_job *job, char **envp,
			 const char *root, const struct cix_db_graph *inputs,
			 struct cix_build_log *log, int *status, struct cix_err *err)
{
	const struct cix_drv *drv = b->drv;
	struct cix_sandbox_spec spec = { 0 };
	struct cix_sandbox_result res;
	struct tee t = { .in = -1, .log = log, .echo_fd = b->opts->log_fd };
	struct cix_sandbox_bind *binds = xcalloc(job->hosts.nr + 2, sizeof(*binds));
	size_t nr_binds = job->hosts.nr;
	char *sh = NULL;
	int pfd[2], r;
	pthread_t th;

	for (size_t i = 0; i < job->hosts.nr; i++) {
		binds[i].host = job->hosts.v[i];
		binds[i].inside = job->insides.v[i];
	}
	if ((r = bin_sh_of(b, inputs, &sh, err)) < 0)
		goto out;
	if (sh) {
		binds[nr_binds].host = sh;
		binds[nr_binds++].inside = "/bin/sh";
	}
	spec.root = root;
	spec.store_dir = b->s->store_dir;
	spec.inputs = (const char *const *)inputs->paths;
	spec.nr_inputs = inputs->nr;
	spec.extra_paths = (const char *const *)job->extra.v;
	spec.nr_extra_paths = job->extra.nr;
	spec.binds = binds;
	spec.nr_binds = nr_binds;
	spec.build_dir = b->build_dir;
	spec.builder = job->builder;
	spec.argv = job->argv.v;
	spec.envp = envp;
	spec.network = cix_drv_is_fixed(drv) ? cix_sandbox_fod_network() : 0;
	spec.linux32 = !strcmp(drv->platform, "i686-linux") &&
		       strcmp(cix_build_this_system(), "i686-linux");
	spec.uid = b->user.uid;
	spec.gid = b->user.gid;
	if ((r = set_limits(&spec, b->opts, err)) < 0)
		goto out;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		r = cix_error_errno(err, -errno, "cannot create pipe");
		goto out;
	}
	t.in = pfd[0];
	spec.log_fd = pfd[1];
	if (pthread_create(&th, NULL, tee_thread, &t)) {
		close(pfd[0]);
		close(pfd[1]);
		r = cix_error(err, -EAGAIN, "cannot create thread");
		goto out;
	}
	r = cix_sandbox_run(&spec, &res, err);
	close(pfd[1]);
	pthread_join(th, NULL);
	close(pfd[0]);
	if (r < 0)
		goto out;
	*status = res.status;
	if (res.timed_out)
		r = cix_error(err, -ETIMEDOUT, "building '%s' timed out after %u seconds",
			      b->drv_path, spec.timeout);
	else if (res.silent_too_long)
		r = cix_error(err, -ETIMEDOUT, "'%s' timed out after %u seconds of silence",
			      b->drv_path, spec.max_silent);
	else if (res.log_too_long)
		r = cix_error(err, -CIX_ELIMIT, "'%s' killed after writing more than %llu bytes of log",
			      b->drv_path, spec.max_log);
	else if (res.oom_killed && (!WIFEXITED(res.status) || WEXITSTATUS(res.status)))
		r = cix_error(err, -ENOMEM, "builder for '%s' ran out of memory (a process was killed "
			      "at build-memory-max, %llu bytes)", b->drv_path, spec.memory_max);
out:
	free(binds);
	free(sh);
	return r;
}

/* Who owns what the builder made: the build user, or us. */
static uid_t owner(const struct building *b)
{
	return b->user.uid != (uid_t)-1 ? b->user.uid : geteuid();
}

/* Open ROOT/STORE_DIR, the sandbox's view of the store; its path goes to dir. */
static int open_root_store(struct building *b, const char *root, struct strbuf *dir,
			   struct cix_err *err)
{
	int fd;
	strbuf_addf(dir, "%s%s", root, b->s->store_dir);
	fd = open(dir->buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? cix_error_errno(err, -errno, "cannot open '%s'", dir->buf) : fd;
}

/*
 * --repair: the new output in the place of the old one, which goes into the
 * root and is removed with it: swapped in one step when the old one is
 * there; a fixed output's copied in (see below) once the old one is gone.
 */
static int replace_output(struct building *b, int rfd, const char *root, const char *base,
			  struct cix_err *err)
{
	struct cix_store *s = b->s;
	struct strbuf from = STRBUF_INIT;
	int r = 0;
	if (!cix_drv_is_fixed(b->drv) &&
	    renameat2(rfd, base, s->store_fd, base, RENAME_EXCHANGE) == 0)
		return 0;
	if (!cix_drv_is_fixed(b->drv) && errno != ENOENT)
		return cix_error_errno(err, -errno, "cannot put '%s' in place", base);
	strbuf_addf(&from, "%s/%s", s->store_dir, base);
	if ((r = cix_remove_path(s, from.buf, err)) < 0)
		goto out;
	strbuf_reset(&from);
	strbuf_addf(&from, "%s%s/%s", root, s->store_dir, base);
	if (cix_drv_is_fixed(b->drv))
		r = cix_store_copy_in(s, from.buf, base, err);
	else if (renameat2(rfd, base, s->store_fd, base, RENAME_NOREPLACE) < 0)
		r = cix_error_errno(err, -errno, "cannot move '%s' into the store", base);
out:
	strbuf_release(&from);
	return r;
}

/*
 * Take the outputs out of the sandbox's root into the store. A fixed-output
 * build had the host's network: another process may hold a descriptor to
 * its output, so that is copied to a fresh inode instead of moved.
 */
static int take_outputs(struct building *b, const char *root, struct cix_err *err)
{
	struct cix_store *s = b->s;
	struct strbuf from = STRBUF_INIT;
	int rfd = open_root_store(b, root, &from, err), r = 0;

	if (rfd < 0) {
		r = rfd;
		goto out;
	}
	for (size_t i = 0; !r && i < b->drv->nr_outputs; i++) {
		const char *base = b->drv->outputs[i].path + strlen(s->store_dir) + 1;
		struct stat st;
		if (b->valid && b->valid[i])
			continue; /* the valid one stays; this copy goes with the root */
		if (fstatat(rfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* reported as missing by register_outputs */
		/*
		 * Canonical before it is in the store, where anyone can see
		 * it; and all of it made by the build.
		 */
		if ((r = cix_canonicalise_owned_at(rfd, base, owner(b), err)) < 0)
			break;
		if (b->repair)
			r = replace_output(b, rfd, root, base, err);
		else if (cix_drv_is_fixed(b->drv)) {
			strbuf_reset(&from);
			strbuf_addf(&from, "%s%s/%s", root, s->store_dir, base);
			r = cix_store_copy_in(s, from.buf, base, err);
		} else if (renameat2(rfd, base, s->store_fd, base, RENAME_NOREPLACE) < 0) {
			r = cix_error_errno(err, -errno, "cannot move '%s' into the store", base);
		}
	}
	close(rfd);
out:
	strbuf_release(&from);
	return r;
}

/* --check: the rebuilt outputs, still in the root, against the registered ones. */
static int compare_outputs(struct building *b, const char *root, struct cix_err *err)
{
	struct cix_store *s = b->s;
	struct strbuf dir = STRBUF_INIT, p = STRBUF_INIT;
	int rfd = open_root_store(b, root, &dir, err), r = 0;

	if (rfd < 0) {
		r = rfd;
		goto out;
	}
	for (size_t i = 0; !r && i < b->drv->nr_outputs; i++) {
		const char *path = b->drv->outputs[i].path, *base = path + strlen(s->store_dir) + 1;
		struct cix_path_info info;
		struct cix_hash h;
		if ((r = cix_canonicalise_owned_at(rfd, base, owner(b), err)) < 0)
			break;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir.buf, base);
		if ((r = cix_nar_hash_path(p.buf, CIX_HASH_SHA256, &h, NULL, err)) < 0 ||
		    (r = cix_db_query(s->db, path, &info, err)) < 0)
			break;
		if (memcmp(h.bytes, info.nar_hash.bytes, 32))
			r = cix_error(err, -CIX_ENONDET,
				      "derivation '%s' may not be deterministic: output '%s' differs",
				      b->drv_path, path);
		cix_path_info_release(&info);
	}
	close(rfd);
out:
	strbuf_release(&dir);
	strbuf_release(&p);
	return r;
}

/* ---- Checking and registering outputs ---- */

/*
 * A flat hash is of a regular file's contents, as Nix: never through a
 * symlink (to a host file, or /dev/zero), nor of an executable.
 */
static int hash_flat(const char *path, enum cix_hash_algo algo, struct cix_hash *got,
		     struct cix_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;
	if (fd < 0 && errno != ELOOP)
		return cix_error_errno(err, -errno, "cannot open '%s'", path);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & S_IXUSR)) {
		if (fd >= 0)
			close(fd);
		return cix_error(err, -CIX_EFORMAT,
				 "output path '%s' should be a non-executable regular file since recursive hashing is not enabled (outputHashMode=flat)",
				 path);
	}
	r = cix_hash_fd(algo, fd, path, got, err);
	close(fd);
	return r;
}

/*
 * nar_sha256: the output's NAR hash, already computed, reused for
 * r:sha256. 1 and the hash in got when it is not the one wanted.
 */
static int check_fixed(const struct cix_drv_output *o, const struct cix_hash *nar_sha256,
		       struct cix_hash *got, struct cix_err *err)
{
	const char *algo_name = o->hash_algo;
	int recursive = !strncmp(algo_name, "r:", 2);
	enum cix_hash_algo algo;
	unsigned char want[CIX_HASH_MAX_SIZE];
	int r;

	if (recursive)
		algo_name += 2;
	if (cix_hash_algo_parse(algo_name, &algo) < 0 ||
	    cix_base16_decode(o->hash, strlen(o->hash), want, sizeof(want)) !=
		    (int)cix_hash_algo_size(algo))
		return cix_error(err, -CIX_EFORMAT, "bad fixed-output hash '%s:%s'",
				 o->hash_algo, o->hash);
	if (recursive && algo == CIX_HASH_SHA256) {
		*got = *nar_sha256;
		r = 0;
	} else {
		r = recursive ? cix_nar_hash_path(o->path, algo, got, NULL, err)
			      : hash_flat(o->path, algo, got, err);
	}
	if (r < 0)
		return r;
	return memcmp(got->bytes, want, got->len) != 0;
}

int cix_build_refs_init(struct cix_build_refs *br, const struct cix_db_graph *inputs,
			const struct cix_drv *drv, size_t store_len, struct cix_err *err)
{
	size_t n = inputs->nr + drv->nr_outputs;
	const char **parts = xcalloc(n + 1, sizeof(*parts));
	br->n = n;
	br->full = xcalloc(n + 1, sizeof(*br->full));
	for (size_t i = 0; i < inputs->nr; i++)
		br->full[i] = inputs->paths[i];
	for (size_t i = 0; i < drv->nr_outputs; i++)
		br->full[inputs->nr + i] = drv->outputs[i].path;
	for (size_t i = 0; i < n; i++)
		parts[i] = xstrndup(br->full[i] + store_len + 1, CIX_STORE_HASH_CHARS);
	br->scan = cix_refscan_new(parts, n, err);
	for (size_t i = 0; i < n; i++)
		free((char *)parts[i]);
	free(parts);
	if (br->scan)
		return 0;
	cix_build_refs_release(br);
	return err && err->code ? err->code : -CIX_EINVAL;
}

void cix_build_refs_found(const struct cix_build_refs *br, char ***refs, size_t *nr)
{
	*refs = xcalloc(br->n + 1, sizeof(char *));
	*nr = 0;
	for (size_t i = 0; i < br->n; i++)
		if (cix_refscan_found(br->scan, i))
			(*refs)[(*nr)++] = xstrdup(br->full[i]);
	/* The database keeps them sorted and unique; so does the export format. */
	*nr = cix_sort_unique(*refs, *nr);
}

void cix_build_refs_release(struct cix_build_refs *br)
{
	cix_refscan_free(br->scan);
	free(br->full);
	memset(br, 0, sizeof(*br));
}

/* Which of the candidates (inputs and outputs) does output path refer to? */
static int scan_refs(const char *path, const struct cix_db_graph *inputs,
		     const struct cix_drv *drv, size_t store_len, struct cix_path_info *info,
		     struct cix_err *err)
{
	struct cix_build_refs br;
	int r = cix_build_refs_init(&br, inputs, drv, store_len, err);
	if (r < 0)
		return r;
	if ((r = cix_refscan_path(br.scan, path, err)) == 0)
		cix_build_refs_found(&br, &info->refs, &info->nr_refs);
	cix_build_refs_release(&br);
	return r;
}

/* The closure of the derivation's inputs: sources and input outputs. */
int cix_build_input_roots(struct cix_store *s, const struct cix_drv *drv, struct strvec *out,
			  struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; i < drv->nr_input_srcs; i++)
		strvec_push(out, drv->input_srcs[i]);
	for (size_t i = 0; !r && i < drv->nr_input_drvs; i++) {
		struct cix_drv *in;
		if ((r = cix_drv_parse_file(drv->input_drvs[i].path, s->store_dir, &in, err)) < 0)
			break;
		for (size_t k = 0; k < drv->input_drvs[i].nr_outputs; k++)
			for (size_t o = 0; o < in->nr_outputs; o++)
				if (!strcmp(in->outputs[o].name, drv->input_drvs[i].outputs[k]))
					strvec_push(out, in->outputs[o].path);
		cix_drv_free(in);
	}
	return r;
}

int cix_build_roots_closure(struct cix_store *s, const struct strvec *roots,
			    struct cix_db_graph *g, struct cix_err *err)
{
	static const char *const none[1];
	return cix_db_graph(s->db, roots->v ? (const char *const *)roots->v : none, roots->nr,
			    CIX_DB_EDGES_REQUISITES, g, err);
}

static int input_closure(struct cix_store *s, const struct cix_drv *drv,
			 struct cix_db_graph *g, struct cix_err *err)
{
	struct strvec roots = STRVEC_INIT;
	int r = cix_build_input_roots(s, drv, &roots, err);
	if (!r)
		r = cix_build_roots_closure(s, &roots, g, err);
	strvec_clear(&roots);
	return r;
}

/* Index of the output whose path is p, or -1. */
static long output_index(const struct cix_drv *drv, const char *p)
{
	for (size_t i = 0; i < drv->nr_outputs; i++)
		if (!strcmp(drv->outputs[i].path, p))
			return (long)i;
	return -1;
}

/* Depth-first search for a cycle among the outputs' references. */
static int find_cycle(const struct cix_drv *drv, const struct cix_path_info *infos, size_t i,
		      unsigned char *state, const char *drv_path, struct cix_err *err)
{
	state[i] = 1; /* on the path */
	for (size_t k = 0; k < infos[i].nr_refs; k++) {
		long j = output_index(drv, infos[i].refs[k]);
		if (j < 0 || (size_t)j == i)
			continue;
		if (state[j] == 1)
			return cix_error(err, -CIX_EFORMAT,
					 "cycle detected in build of '%s' in the references of output '%s' from output '%s'",
					 drv_path, drv->outputs[j].name, drv->outputs[i].name);
		if (!state[j]) {
			int r = find_cycle(drv, infos, (size_t)j, state, drv_path, err);
			if (r < 0)
				return r;
		}
	}
	state[i] = 2; /* done */
	return 0;
}

/* After a successful builder: check, canonicalise, hash, scan, register. */
static int register_outputs(struct building *b, const struct cix_db_graph *inputs,
			    struct cix_err *err)
{
	struct cix_store *s = b->s;
	const struct cix_drv *drv = b->drv;
	struct cix_path_info *infos = xcalloc(drv->nr_outputs + 1, sizeof(*infos));
	size_t store_len = strlen(s->store_dir);
	int r = 0;

	for (size_t i = 0; !r && i < drv->nr_outputs; i++) {
		const struct cix_drv_output *o = &drv->outputs[i];
		const char *base = o->path + store_len + 1;
		struct cix_hash got;
		struct stat st;
		int mismatch;
		if (b->valid && b->valid[i]) {
			/* registered again as it is, for the check of cycles */
			if ((r = cix_db_query(s->db, o->path, &infos[i], err)) < 0)
				break;
			continue;
		}
		if (fstatat(s->store_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = cix_error(err, -CIX_ENOTFOUND, "builder for '%s' failed to produce output path '%s'",
				      b->drv_path, o->path);
			break;
		}
		infos[i].path = xstrdup(o->path);
		infos[i].deriver = xstrdup(b->drv_path);
		infos[i].ultimate = 1;
		if ((r = cix_nar_hash_path(o->path, CIX_HASH_SHA256, &infos[i].nar_hash,
					   &infos[i].nar_size, err)) < 0)
			break;
		if (*o->hash_algo && (r = check_fixed(o, &infos[i].nar_hash, &got, err)) < 0)
			break;
		mismatch = r > 0;
		if ((r = scan_refs(o->path, inputs, drv, store_len, &infos[i], err)) < 0)
			break;
		if (mismatch) {
			/* Registered as what it is, then the error, as Nix 2.8. */
			r = cix_build_fod_mismatch(b, o, &infos[i], &got, err);
			break;
		}
		/* An output named *.drv is a derivation like any other. */
		if ((r = cix_store_admit_drv(s, &infos[i], o->path, NULL, 0, err)) < 0)
			break;
		if (*o->hash_algo) {
			struct strbuf ca = STRBUF_INIT;
			strbuf_addf(&ca, "fixed:%s:", o->hash_algo);
			unsigned char raw[CIX_HASH_MAX_SIZE];
			int len = cix_base16_decode(o->hash, strlen(o->hash), raw, sizeof(raw));
			cix_nixbase32_encode(&ca, raw, len > 0 ? (size_t)len : 0);
			infos[i].ca = strbuf_detach(&ca, NULL);
		}
	}
	if (!r) {
		/* Outputs may refer to each other, but not in a circle. */
		unsigned char *state = xcalloc(drv->nr_outputs + 1, 1);
		for (size_t i = 0; !r && i < drv->nr_outputs; i++)
			if (!state[i])
				r = find_cycle(drv, infos, i, state, b->drv_path, err);
		free(state);
	}
	if (!r)
		r = cix_build_check_outputs(b, infos, err);
	if (!r)
		r = cix_store_register(s, infos, drv->nr_outputs, err);
	for (size_t i = 0; i < drv->nr_outputs; i++)
		cix_path_info_release(&infos[i]);
	free(infos);
	return r;
}

int cix_build_outputs_valid(struct cix_store *s, const struct cix_drv *drv, struct cix_err *err)
{
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		int r = cix_db_is_valid(s->db, drv->outputs[i].path, err);
		if (r <= 0)
			return r;
	}
	return 1;
}

/*
 * -K: keep a failed build's directory, the caller's, under a name no
 * clean-up touches, and say where in the build's error.
 */
static void keep_build_dir(struct building *b, struct cix_err *err)
{
	struct cix_err e = { 0 };
	char *kept = NULL;
	if (cix_build_dir_hand_over(b->build_dir, &b->user, &e) < 0 ||
	    cix_build_dir_keep(b->build_dir, &kept, &e) < 0) {
		cix_remove_tree_at(AT_FDCWD, b->build_dir, NULL);
		return;
	}
	if (err) {
		size_t len = strlen(err->msg);
		snprintf(err->msg + len, sizeof(err->msg) - len, " (build directory kept: '%s')", kept);
	}
	free(kept);
}

int cix_build_one(struct building *b, struct cix_err *err)
{
	struct cix_store *s = b->s;
	const struct cix_drv *drv = b->drv;
	char **outs = xcalloc(drv->nr_outputs + 1, sizeof(*outs));
	struct cix_db_graph inputs = { 0 };
	struct strbuf root = STRBUF_INIT, tmp = STRBUF_INIT;
	struct cix_build_setup setup = CIX_BUILD_SETUP_INIT;
	struct cix_build_job job = CIX_BUILD_JOB_INIT;
	struct cix_build_log *log = NULL;
	int r = cix_build_check_runnable(b->drv_path, drv, err), status = 0, unlocked = 0;

	if (r < 0) {
		free(outs);
		return r;
	}
	/* Lock the outputs in sorted order: two builders never deadlock. */
	for (size_t i = 0; i < drv->nr_outputs; i++)
		outs[i] = drv->outputs[i].path;
	qsort(outs, drv->nr_outputs, sizeof(*outs), cix_cmp_str);
	b->locks = xcalloc(drv->nr_outputs + 1, sizeof(*b->locks));
	/* Another build (of this process too) may hold them: wait unlocked. */
	pthread_mutex_unlock(b->lock);
	for (size_t i = 0; !r && i < drv->nr_outputs; i++)
		if ((r = cix_path_lock(s, outs[i], &b->locks[i], err)) == 0)
			b->nr_locks++;
	pthread_mutex_lock(b->lock);
	if (b->check) {
		/* Only what is valid can be checked; it stays as it is. */
		if (!r && (r = cix_build_outputs_valid(s, drv, err)) == 0)
			r = cix_error(err, -CIX_ENOTFOUND,
				      "some outputs of '%s' are not valid, so checking is not possible",
				      b->drv_path);
		if (r > 0)
			r = 0;
	} else {
		/* Someone else may have built it while we waited. */
		if (!r && !b->repair && (r = cix_build_outputs_valid(s, drv, err)) != 0)
			goto out;
		b->valid = xcalloc(drv->nr_outputs + 1, 1);
		for (size_t i = 0; !r && !b->repair && i < drv->nr_outputs; i++) {
			if ((r = cix_db_is_valid(s->db, drv->outputs[i].path, err)) > 0)
				b->valid[i] = 1;
			else if (!r)   /* a leftover of a crash, say */
				r = cix_remove_path(s, drv->outputs[i].path, err);
			if (r > 0)
				r = 0;
		}
	}
	if (r < 0 || (r = input_closure(s, drv, &inputs, err)) < 0 ||
	    (r = cix_build_attrs_load(b, err)) < 0 ||
	    (r = cix_build_setup_make(b, &inputs, &setup, err)) < 0)
		goto out;
	/*
	 * Until the builder's end, nothing uses the database: let others.
	 * Taking a build user may wait for another build to end.
	 */
	pthread_mutex_unlock(b->lock);
	unlocked = 1;
	/*
	 * The builtins that only link their inputs (lib/builtins.c) run as
	 * cix itself; everything else, builtin:fetchurl too, in the sandbox
	 * as a build user.
	 */
	const struct cix_builtin *bi = cix_builtin_find(drv->builder);
	struct cix_builtin_call call = { drv, b->drv_path, s->store_dir, s->state_dir, NULL,
					 &inputs, b->opts->no_file_urls };
	int sandboxed = !bi || bi->needs_build_user;
	if (sandboxed && (r = cix_build_user_acquire(s, &b->user, err)) < 0)
		goto out;
	if ((r = cix_build_dir_create(s, &b->user, &b->build_dir, err)) < 0 ||
	    (r = cix_build_setup_write(b, &setup, err)) < 0)
		goto out;
	/* The sandbox's root: in the store's file system, for the outputs. */
	cix_store_tmp_name(&tmp);
	strbuf_addf(&root, "%s/.cix-tmp/%s", s->store_dir, tmp.buf);
	if (mkdir(root.buf, 0700) < 0) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", root.buf);
		goto out;
	}
	if ((r = cix_build_log_open(b->drv_path, &log, err)) < 0)
		goto out;
	call.root = root.buf;
	if (!sandboxed) {
		r = bi->run(&call, err);
		if (r < 0 && err) {
			cix_build_log_write(log, err->msg, strlen(err->msg));
			cix_build_log_write(log, "\n", 1);
		}
	} else {
		if (bi)
			r = bi->job(&call, &job, err);
		else
			drv_job(drv, &setup, &job);
		if (r == 0)
			r = run_sandboxed(b, &job, setup.env.v, root.buf, &inputs, log, &status, err);
	}
	if (r < 0)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		r = cix_error(err, -CIX_EBUILD, "builder for '%s' failed with %s %d", b->drv_path,
			      WIFEXITED(status) ? "exit code" : "signal",
			      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		goto out;
	}
	/* Canonicalising and moving in need no database either. */
	if (!b->check && (r = take_outputs(b, root.buf, err)) < 0)
		goto out;
	pthread_mutex_lock(b->lock);
	unlocked = 0;
	if (b->check)
		r = compare_outputs(b, root.buf, err);
	else
		r = register_outputs(b, &inputs, err);
out:
	if (unlocked)
		pthread_mutex_lock(b->lock);
	if (r < 0 && !b->check) {
		/* Nothing of a failed build stays in the store. */
		for (size_t i = 0; i < drv->nr_outputs; i++)
			if (cix_db_is_valid(s->db, drv->outputs[i].path, NULL) == 0)
				cix_remove_path(s, drv->outputs[i].path, NULL);
	}
	/* Nor does the clean-up. */
	pthread_mutex_unlock(b->lock);
	if (root.len)
		cix_remove_tree_at(AT_FDCWD, root.buf, NULL);
	if (b->build_dir && r < 0 && b->opts->keep_failed)
		keep_build_dir(b, err);
	else if (b->build_dir)
		cix_remove_tree_at(AT_FDCWD, b->build_dir, NULL);
	cix_build_user_release(&b->user);
	cix_build_log_close(log);
	pthread_mutex_lock(b->lock);
	for (size_t i = 0; i < b->nr_locks; i++)
		cix_path_unlock(s, &b->locks[i]);
	free(b->locks);
	free(b->valid);
	free(b->build_dir);
	cix_db_graph_release(&inputs);
	strbuf_release(&root);
	strbuf_release(&tmp);
	cix_build_setup_release(&setup);
	cix_jv_free(b->attrs);
	b->attrs = NULL;
	cix_build_job_release(&job);
	free(outs);
	return r < 0 ? r : 0;
}
