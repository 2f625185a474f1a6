/* store-drv.c - derivations entering the store, or built: their outputs are their own */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "store.h"
#include "drv.h"
#include "str-index.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The output paths of a derivation follow from its contents (its hash
 * modulo, or its fixed hash) and from its name. A .drv claiming other
 * paths would let whoever adds it build content at another derivation's
 * output: so every path named *.drv is checked whichever way it comes in
 * (text, flat or recursive add, NAR, import, build output), and again
 * before it is built.
 */

int cix_store_is_drv_path(const char *path)
{
	size_t len = strlen(path);
	return len > 4 && !strcmp(path + len - 4, ".drv");
}

/* Parse the derivation in file: a regular file, never through a symlink. */
static int parse_drv_file(const char *file, const char *store_dir, struct cix_drv **out,
			  struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;

	*out = NULL;
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", file);
	if (fstat(fd, &st) < 0)
		r = cix_error_errno(err, -errno, "cannot stat '%s'", file);
	else if (!S_ISREG(st.st_mode))
		r = cix_error(err, -CIX_EFORMAT, "'%s' is not a regular file", file);
	else if (st.st_size > (off_t)CIX_DRV_MAX_SIZE)
		r = cix_error(err, -CIX_ELIMIT, "'%s' is larger than %u bytes", file,
			      CIX_DRV_MAX_SIZE);
	else if ((r = strbuf_read_fd(&sb, fd)) < 0)
		cix_error_errno(err, r, "cannot read '%s'", file);
	else
		r = cix_drv_parse(sb.buf, sb.len, store_dir, out, err);
	close(fd);
	strbuf_release(&sb);
	return r;
}

/* Where input derivations come from: valid, or registered together with it. */
struct drv_source {
	struct cix_store *s;
	struct cix_str_index pending;   /* over the paths registered with it, if any */
};

static int load_input_drv(void *data, const char *drv_path, struct cix_drv **out,
			  struct cix_err *err)
{
	struct drv_source *src = data;
	int r = cix_str_index_find(&src->pending, drv_path) >= 0;
	if (!r && (r = cix_db_is_valid(src->s->db, drv_path, err)) == 0)
		r = cix_error(err, -CIX_ENOTFOUND, "input derivation '%s' is not valid", drv_path);
	return r < 0 ? r : parse_drv_file(drv_path, src->s->store_dir, out, err);
}

static int load_valid_drv(void *data, const char *drv_path, struct cix_drv **out,
			  struct cix_err *err)
{
	struct drv_source src = { .s = data };
	return load_input_drv(&src, drv_path, out, err);
}

struct cix_drv_hasher *cix_store_drv_hasher(struct cix_store *s)
{
	return cix_drv_hasher_new(s->store_dir, load_valid_drv, s);
}

int cix_store_verify_drv(struct cix_store *s, struct cix_drv_hasher *h, const char *drv_path,
			 const struct cix_drv *drv, struct cix_err *err)
{
	struct strbuf name = STRBUF_INIT;
	struct cix_err e = { 0 };
	int r = cix_drv_name_from_path(s->store_dir, drv_path, &name, &e);
	if (!r)
		r = cix_drv_check_outputs(h, drv, name.buf, NULL, &e);
	strbuf_release(&name);
	return r < 0 ? cix_error(err, r, "derivation '%s' is refused: %s", drv_path, e.msg) : 0;
}

/* Record the outputs of drv in info, for the database. */
static void set_outputs(struct cix_path_info *info, const struct cix_drv *drv)
{
	info->outputs = xcalloc(drv->nr_outputs + 1, sizeof(*info->outputs));
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		info->outputs[i].id = xstrdup(drv->outputs[i].name);
		info->outputs[i].path = xstrdup(drv->outputs[i].path);
	}
	info->nr_outputs = drv->nr_outputs;
}

/*
 * Derivations admitted together (an import's) share one hasher: each
 * input's hash modulo is computed once, not once for every derivation
 * above it, which made an import quadratic in the depth of its graph.
 */
struct cix_drv_admission {
	struct drv_source src;
	struct cix_drv_hasher *hasher;
};

struct cix_drv_admission *cix_store_admission_new(struct cix_store *s,
						  const char *const *pending, size_t nr_pending)
{
	struct cix_drv_admission *a = xcalloc(1, sizeof(*a));
	a->src.s = s;
	if (nr_pending)
		cix_str_index_build(&a->src.pending, pending, nr_pending);
	a->hasher = cix_drv_hasher_new(s->store_dir, load_input_drv, &a->src);
	return a;
}

void cix_store_admission_free(struct cix_drv_admission *a)
{
	if (!a)
		return;
	cix_drv_hasher_free(a->hasher);
	cix_str_index_release(&a->src.pending);
	free(a);
}

int cix_store_admit(struct cix_drv_admission *a, struct cix_path_info *info, const char *file,
		    struct cix_err *err)
{
	struct cix_drv *drv;
	struct cix_err e = { 0 };
	int r;

	if (!cix_store_is_drv_path(info->path))
		return 0;
	if ((r = parse_drv_file(file, a->src.s->store_dir, &drv, &e)) < 0)
		return cix_error(err, r, "derivation '%s' is refused: %s", info->path, e.msg);
	r = cix_store_verify_drv(a->src.s, a->hasher, info->path, drv, err);
	if (!r)
		set_outputs(info, drv);
	cix_drv_free(drv);
	return r;
}

int cix_store_admit_drv(struct cix_store *s, struct cix_path_info *info, const char *file,
			const char *const *pending, size_t nr_pending, struct cix_err *err)
{
	if (!cix_store_is_drv_path(info->path))
		return 0;
	struct cix_drv_admission *a = cix_store_admission_new(s, pending, nr_pending);
	int r = cix_store_admit(a, info, file, err);
	cix_store_admission_free(a);
	return r;
}

void cix_store_admit_drv_release(struct cix_path_info *info)
{
	for (size_t i = 0; i < info->nr_outputs; i++) {
		free(info->outputs[i].id);
		free(info->outputs[i].path);
	}
	free(info->outputs);
	info->outputs = NULL;
	info->nr_outputs = 0;
}
