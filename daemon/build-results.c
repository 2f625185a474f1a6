/* build-results.c - BuildPathsWithResults' answer: a BuildResult per target */
/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A client such as `nix build -o` learns where a derivation's outputs are
 * from the result's builtOutputs: for each output wanted, its DrvOutput
 * ("sha256:<hash modulo, base16>!NAME") and its realisation as JSON. So
 * every wanted output that is valid after the build is listed, whether
 * it was built now or was there already.
 */
#include "build-results.h"
#include "drv.h"
#include "encoding.h"
#include "json.h"
#include "util.h"

#include <errno.h>
#include <string.h>

/* Is name among the outputs "DRV!A,B" wants ("*": all)? */
static int wanted(const char *target, const char *name)
{
	const char *list = strchr(target, '!');
	if (!list || !strcmp(list + 1, "*"))
		return 1;
	size_t n = strlen(name);
	for (const char *p = list + 1; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && !memcmp(p, name, n))
			return 1;
		p += len + (comma != NULL);
	}
	return 0;
}

void daemon_target_init(struct daemon_target *t, const char *target)
{
	*t = (struct daemon_target){ .target = target, .names = STRVEC_INIT,
				     .paths = STRVEC_INIT, .drv_path = STRBUF_INIT,
				     .drv_hash = STRBUF_INIT };
}

void daemon_target_release(struct daemon_target *t)
{
	strvec_clear(&t->names);
	strvec_clear(&t->paths);
	strbuf_release(&t->drv_path);
	strbuf_release(&t->drv_hash);
}

int daemon_target_load(struct cix_store *s, struct cix_drv_hasher *h, struct daemon_target *t,
		       const char *drv_path, struct cix_err *err)
{
	struct cix_drv *drv = NULL;
	struct cix_hash hash;
	int r = cix_drv_parse_file(drv_path, s->store_dir, &drv, err);
	if (r < 0)
		return r;
	t->is_drv = 1;
	for (size_t i = 0; i < drv->nr_outputs; i++)
		if (wanted(t->target, drv->outputs[i].name)) {
			strvec_push(&t->names, drv->outputs[i].name);
			strvec_push(&t->paths, drv->outputs[i].path);
		}
	r = cix_drv_hash_modulo_path(h, drv_path, &hash, err);
	if (!r) {
		strbuf_addstr(&t->drv_hash, "sha256:");
		cix_base16_encode(&t->drv_hash, hash.bytes, hash.len);
	}
	cix_drv_free(drv);
	return r;
}

int daemon_target_valid(struct cix_store *s, const struct daemon_target *t, struct cix_err *err)
{
	for (size_t i = 0; i < t->paths.nr; i++) {
		int r = cix_db_is_valid(s->db, t->paths.v[i], err);
		if (r <= 0)
			return r;
	}
	return 1;
}

/* {"dependentRealisations":{},"id":ID,"outPath":BASE,"signatures":[]} */
static void realisation_json(struct strbuf *out, const char *id, const char *path)
{
	struct cix_json j;
	cix_json_init(&j, out, 0);
	cix_json_begin_object(&j);
	cix_json_key(&j, "dependentRealisations");
	cix_json_begin_object(&j);
	cix_json_end_object(&j);
	cix_json_key(&j, "id");
	cix_json_string(&j, id);
	cix_json_key(&j, "outPath");
	cix_json_string(&j, strrchr(path, '/') + 1);   /* the base name */
	cix_json_key(&j, "signatures");
	cix_json_begin_array(&j);
	cix_json_end_array(&j);
	cix_json_end_object(&j);
}

/* builtOutputs: the wanted outputs valid now (none after a failure). */
static void write_built_outputs(struct conn *c, struct cix_store *s, const struct daemon_target *t,
				int failed)
{
	struct strvec ids = STRVEC_INIT, values = STRVEC_INIT;
	struct strbuf id = STRBUF_INIT, json = STRBUF_INIT;
	for (size_t i = 0; !failed && i < t->paths.nr; i++) {
		if (cix_db_is_valid(s->db, t->paths.v[i], NULL) <= 0)
			continue;
		strbuf_reset(&id);
		strbuf_addf(&id, "%s!%s", t->drv_hash.buf, t->names.v[i]);
		strbuf_reset(&json);
		realisation_json(&json, id.buf, t->paths.v[i]);
		strvec_push(&ids, id.buf);
		strvec_push(&values, json.buf);
	}
	cix_wire_write_u64(&c->w, ids.nr);
	for (size_t i = 0; i < ids.nr; i++) {
		cix_wire_write_str(&c->w, ids.v[i]);
		cix_wire_write_str(&c->w, values.v[i]);
	}
	strvec_clear(&ids);
	strvec_clear(&values);
	strbuf_release(&id);
	strbuf_release(&json);
}

void daemon_write_build_result(struct conn *c, const struct daemon_target *t,
			       const struct daemon_build_times *times)
{
	int failed = t->status != DAEMON_BR_BUILT && t->status != DAEMON_BR_ALREADY_VALID;
	int built = t->status == DAEMON_BR_BUILT;
	cix_wire_write_u64(&c->w, t->status);
	cix_wire_write_str(&c->w, t->msg ? t->msg : "");
	if (c->minor >= 29) {
		cix_wire_write_u64(&c->w, built || t->status == DAEMON_BR_NOT_DETERMINISTIC);
		cix_wire_write_u64(&c->w, t->status == DAEMON_BR_NOT_DETERMINISTIC);
		cix_wire_write_u64(&c->w, built ? (uint64_t)times->start : 0);
		cix_wire_write_u64(&c->w, built ? (uint64_t)times->stop : 0);
	}
	if (c->minor >= 28) {
		if (t->is_drv)
			write_built_outputs(c, c->s, t, failed);
		else
			cix_wire_write_u64(&c->w, 0);
	}
}

unsigned daemon_build_status(int r)
{
	switch (r) {
	case 0: return DAEMON_BR_BUILT;
	case -ETIMEDOUT: return DAEMON_BR_TIMED_OUT;
	case -CIX_ELIMIT: return DAEMON_BR_LOG_LIMIT;
	case -CIX_ENONDET: return DAEMON_BR_NOT_DETERMINISTIC;
	case -CIX_EMISMATCH: case -CIX_EBUILD: return DAEMON_BR_PERMANENT_FAILURE;
	default: return DAEMON_BR_MISC_FAILURE;
	}
}
