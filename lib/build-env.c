/* build-env.c - the builder's environment and the files of its directory, as Nix 2.8's */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "build-int.h"
#include "encoding.h"
#include "hash.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cix_build_attrs_load(struct building *b, struct cix_err *err)
{
	const char *json = cix_drv_getenv(b->drv, "__json");
	struct cix_err e = { 0 };
	if (!json)
		return 0;
	if (cix_jv_parse(json, strlen(json), &b->attrs, &e) < 0)
		return cix_error(err, -CIX_EFORMAT, "cannot process __json attribute of '%s': %s",
				 b->drv_path, e.msg);
	if (b->attrs->type != CIX_JV_OBJECT)
		return cix_error(err, -CIX_EFORMAT, "cannot process __json attribute of '%s': "
				 "not an object", b->drv_path);
	return 0;
}

static int not_strings(const struct building *b, const char *name, struct cix_err *err)
{
	return cix_error(err, -CIX_EFORMAT, "attribute '%s' of derivation '%s' must be a list of strings",
			 name, b->drv_path);
}

int cix_build_strings_attr(const struct building *b, const char *name, struct strvec *out,
			   struct cix_err *err)
{
	const struct cix_jv *v;
	const char *s;
	if (!b->attrs) {
		if (!(s = cix_drv_getenv(b->drv, name)))
			return 0;
		strvec_split(out, s, " \t\n\r");
		return 1;
	}
	if (!(v = cix_jv_get(b->attrs, name)))
		return 0;
	if (v->type != CIX_JV_ARRAY)
		return not_strings(b, name, err);
	for (size_t i = 0; i < v->nr; i++) {
		if (v->items[i].type != CIX_JV_STRING)
			return not_strings(b, name, err);
		strvec_push(out, v->items[i].s);
	}
	return 1;
}

/* "/" and the nix-base32 sha256 of "nix-output:NAME": builtins.placeholder. */
static void placeholders(const struct cix_drv *drv, struct cix_build_setup *st)
{
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		struct strbuf in = STRBUF_INIT, ph = STRBUF_INIT;
		struct cix_hash h;
		strbuf_addf(&in, "nix-output:%s", drv->outputs[i].name);
		cix_hash_buf(CIX_HASH_SHA256, in.buf, in.len, &h);
		strbuf_addch(&ph, '/');
		cix_nixbase32_encode(&ph, h.bytes, h.len);
		strvec_push(&st->ph_from, ph.buf);
		strvec_push(&st->ph_to, drv->outputs[i].path);
		strbuf_release(&in);
		strbuf_release(&ph);
	}
}

char *cix_build_rewrite(const struct cix_build_setup *st, const char *s)
{
	struct strbuf out = STRBUF_INIT;
	strbuf_addstr(&out, s);
	for (size_t i = 0; i < st->ph_from.nr; i++) {
		const char *from = st->ph_from.v[i], *to = st->ph_to.v[i], *p, *q;
		struct strbuf next = STRBUF_INIT;
		size_t flen = strlen(from);
		if (!strstr(out.buf, from))
			continue;
		for (p = out.buf; (q = strstr(p, from)); p = q + flen) {
			strbuf_add(&next, p, (size_t)(q - p));
			strbuf_addstr(&next, to);
		}
		strbuf_addstr(&next, p);
		strbuf_release(&out);
		out = next;
	}
	return strbuf_detach(&out, NULL);
}

void cix_build_file_add(struct cix_build_setup *st, const char *name, const char *data)
{
	char *rewritten = cix_build_rewrite(st, data);
	strvec_push(&st->file_names, name);
	strvec_push(&st->file_data, rewritten);
	free(rewritten);
}

static void env_set(struct strvec *e, const char *key, const char *value)
{
	size_t klen = strlen(key);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s=%s", key, value);
	for (size_t i = 0; i < e->nr; i++)
		if (!strncmp(e->v[i], key, klen) && e->v[i][klen] == '=') {
			free(e->v[i]);
			e->v[i] = strbuf_detach(&sb, NULL);
			return;
		}
	strvec_push(e, sb.buf);
	strbuf_release(&sb);
}

/*
 * The derivation's variables; those passAsFile names go to files
 * .attr-HASH instead, whose paths are in NAMEPath.
 */
static void drv_vars(const struct building *b, struct cix_build_setup *st)
{
	struct strvec as_file = STRVEC_INIT;
	const char *names = cix_drv_getenv(b->drv, "passAsFile");
	strvec_split(&as_file, names, " \t\n\r");
	strvec_sort_unique(&as_file);
	for (size_t i = 0; i < b->drv->nr_env; i++) {
		const struct cix_drv_env *kv = &b->drv->env[i];
		struct strbuf file = STRBUF_INIT, var = STRBUF_INIT, path = STRBUF_INIT;
		struct cix_hash h;
		if (strvec_find_sorted(&as_file, kv->key) < 0) {
			env_set(&st->env, kv->key, kv->value);
			continue;
		}
		cix_hash_buf(CIX_HASH_SHA256, kv->key, strlen(kv->key), &h);
		strbuf_addstr(&file, ".attr-");
		cix_nixbase32_encode(&file, h.bytes, h.len);
		cix_build_file_add(st, file.buf, kv->value);
		strbuf_addf(&var, "%sPath", kv->key);
		strbuf_addf(&path, "%s/%s", SANDBOX_BUILD_DIR, file.buf);
		env_set(&st->env, var.buf, path.buf);
		strbuf_release(&file);
		strbuf_release(&var);
		strbuf_release(&path);
	}
	strvec_clear(&as_file);
}

/*
 * Only a fixed-output build, whose result is checked, may see these
 * variables of the process that builds (the daemon's, not a client's).
 */
static int impure_vars(struct building *b, struct cix_build_setup *st, struct cix_err *err)
{
	struct strvec names = STRVEC_INIT;
	int r = cix_build_strings_attr(b, "impureEnvVars", &names, err);
	for (size_t i = 0; r >= 0 && i < names.nr; i++) {
		const char *v = getenv(names.v[i]);
		env_set(&st->env, names.v[i], v ? v : "");
	}
	strvec_clear(&names);
	return r < 0 ? r : 0;
}

/*
 * Nix's order: defaults the derivation may override, its variables
 * (unless structured), the build directory's, then what it may not.
 */
int cix_build_setup_make(struct building *b, const struct cix_db_graph *inputs,
			 struct cix_build_setup *st, struct cix_err *err)
{
	static const char *const dirs[] = { "NIX_BUILD_TOP", "TMPDIR", "TEMPDIR", "TMP", "TEMP", "PWD" };
	unsigned cores = b->opts->cores;
	char buf[32];
	int r;

	placeholders(b->drv, st);
	snprintf(buf, sizeof(buf), "%u", cores ? cores : (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	env_set(&st->env, "PATH", "/path-not-set");
	env_set(&st->env, "HOME", "/homeless-shelter");
	env_set(&st->env, "NIX_STORE", b->s->store_dir);
	env_set(&st->env, "NIX_BUILD_CORES", buf);
	if (!b->attrs)
		drv_vars(b, st);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		env_set(&st->env, dirs[i], SANDBOX_BUILD_DIR);
	if (cix_drv_is_fixed(b->drv)) {
		env_set(&st->env, "NIX_OUTPUT_CHECKED", "1");
		if ((r = impure_vars(b, st, err)) < 0)
			return r;
	}
	env_set(&st->env, "NIX_LOG_FD", "2");
	env_set(&st->env, "TERM", "xterm-256color");
	if (b->attrs) {
		env_set(&st->env, "NIX_ATTRS_SH_FILE", SANDBOX_BUILD_DIR "/.attrs.sh");
		env_set(&st->env, "NIX_ATTRS_JSON_FILE", SANDBOX_BUILD_DIR "/.attrs.json");
		r = cix_build_structured_files(b, inputs, st, err);
	} else {
		r = cix_build_export_graphs(b, inputs, st, err);
	}
	for (size_t i = 0; !r && i < st->env.nr; i++) {
		char *kv = cix_build_rewrite(st, st->env.v[i]);
		free(st->env.v[i]);
		st->env.v[i] = kv;
	}
	return r;
}

static int write_file(const struct building *b, const char *name, const char *data,
		      struct cix_err *err)
{
	struct strbuf p = STRBUF_INIT;
	int fd, r = 0;
	strbuf_addf(&p, "%s/%s", b->build_dir, name);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		r = cix_error_errno(err, -errno, "cannot create '%s'", p.buf);
	else if (cix_write_full(fd, data, strlen(data)) < 0)
		r = cix_error_errno(err, -errno, "cannot write '%s'", p.buf);
	else if (b->user.uid != (uid_t)-1 && fchown(fd, b->user.uid, b->user.gid) < 0)
		r = cix_error_errno(err, -errno, "cannot give '%s' to the build user", p.buf);
	if (fd >= 0)
		close(fd);
	strbuf_release(&p);
	return r;
}

int cix_build_setup_write(const struct building *b, const struct cix_build_setup *st,
			  struct cix_err *err)
{
	int r = 0;
	for (size_t i = 0; !r && i < st->file_names.nr; i++)
		r = write_file(b, st->file_names.v[i], st->file_data.v[i], err);
	return r;
}

void cix_build_setup_release(struct cix_build_setup *st)
{
	strvec_clear(&st->env);
	strvec_clear(&st->file_names);
	strvec_clear(&st->file_data);
	strvec_clear(&st->ph_from);
	strvec_clear(&st->ph_to);
}
