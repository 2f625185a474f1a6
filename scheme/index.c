/* index.c - the packages a module exports, for the package index; hints for lookups by name */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"
#include "pkg-index.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* ---- the package index ---- */

struct index_call {
	struct cix_pkg_module *m;
	struct cix_err *err;
	int r;
};

static unsigned long take_number(SCM n)
{
	return scm_is_unsigned_integer(n, 0, 1UL << 30) ? scm_to_ulong(n) : 0;
}

/* gnu/packages/base.scm -> (gnu packages base) */
static SCM module_name(const char *file)
{
	SCM name = SCM_EOL;
	char *rel = xstrdup(file), *save = NULL;
	size_t l = strlen(rel);
	if (l > 4 && !strcmp(rel + l - 4, ".scm"))
		rel[l - 4] = 0;
	for (char *part = strtok_r(rel, "/", &save); part; part = strtok_r(NULL, "/", &save))
		name = scm_cons(scm_from_utf8_symbol(part), name);
	free(rel);
	return scm_reverse_x(name, SCM_EOL);
}

static SCM index_body(void *data)
{
	struct index_call *ic = data;
	struct cix_pkg_module *m = ic->m;
	SCM entries = scm_call_1(scm_c_public_ref("cix ui", "module-package-entries"),
				 module_name(m->rel));
	size_t dl = strlen(m->dir);
	for (; scm_is_pair(entries); entries = SCM_CDR(entries)) {
		SCM e = SCM_CAR(entries);
		if (scm_ilength(e) != 10)
			continue;
		struct cix_pkg_entry *p = cix_pkg_module_add(m);
		p->name = scheme_take_string(scm_list_ref(e, scm_from_int(0)));
		p->version = scheme_take_string(scm_list_ref(e, scm_from_int(1)));
		p->outputs = scheme_take_string(scm_list_ref(e, scm_from_int(2)));
		p->file = scheme_take_string(scm_list_ref(e, scm_from_int(3)));
		p->line = take_number(scm_list_ref(e, scm_from_int(4)));
		p->column = take_number(scm_list_ref(e, scm_from_int(5)));
		p->home_page = scheme_take_string(scm_list_ref(e, scm_from_int(6)));
		p->license = scheme_take_string(scm_list_ref(e, scm_from_int(7)));
		p->synopsis = scheme_take_string(scm_list_ref(e, scm_from_int(8)));
		p->description = scheme_take_string(scm_list_ref(e, scm_from_int(9)));
		/* The place relative to its search directory, as Guix shows it. */
		if (!strncmp(p->file, m->dir, dl) && p->file[dl] == '/')
			memmove(p->file, p->file + dl + 1, strlen(p->file + dl + 1) + 1);
		else if (!*p->file) {
			free(p->file);
			p->file = xstrdup(m->rel);
		}
	}
	return SCM_BOOL_T;
}

static void *do_index(void *data)
{
	struct index_call *ic = data;
	struct cix_err err = { 0 };
	SCM res = scheme_catch(index_body, ic, &err);
	if (SCM_UNBNDP(res)) {
		for (size_t i = 0; i < ic->m->nr_pkgs; i++)
			cix_pkg_entry_release(&ic->m->pkgs[i]);
		ic->m->nr_pkgs = 0;
		ic->m->error = xstrdup(err.msg[0] ? err.msg : "cannot be evaluated");
	}
	return NULL;
}

int cix_scheme_index_module(struct cix_pkg_module *m, struct cix_err *err)
{
	struct index_call ic = { m, err, 0 };
	int r;
	if ((r = cix_scheme_init(err)) < 0)
		return r;
	free(m->error);
	m->error = NULL;
	scm_with_guile(do_index, &ic);
	return 0;
}

/* ---- hints for lookups by name ---- */

/* table[key] = (module . table[key]), each module once. */
static void hint_add(SCM table, const char *key, SCM module)
{
	SCM k = scm_from_utf8_string(key);
	SCM mods = scm_hash_ref(table, k, SCM_EOL);
	if (scm_is_false(scm_member(module, mods)))
		scm_hash_set_x(table, k, scm_cons(module, mods));
}

static SCM hint_body(void *data)
{
	const struct cix_pkg_index *idx = data;
	SCM by_name = scm_c_make_hash_table(idx->nr_mods * 8 + 16);
	SCM by_full = scm_c_make_hash_table(idx->nr_mods * 8 + 16);
	struct strbuf full = STRBUF_INIT;
	for (size_t i = 0; i < idx->nr_mods; i++) {
		const struct cix_pkg_module *m = &idx->mods[i];
		SCM name = module_name(m->rel);
		for (size_t k = 0; k < m->nr_pkgs; k++) {
			strbuf_reset(&full);
			strbuf_addf(&full, "%s-%s", m->pkgs[k].name, m->pkgs[k].version);
			hint_add(by_name, m->pkgs[k].name, name);
			hint_add(by_full, full.buf, name);
		}
	}
	strbuf_release(&full);
	scm_call_2(scm_c_public_ref("gnu packages", "set-package-module-hints!"), by_name,
		   by_full);
	return SCM_BOOL_T;
}

static SCM hint_failed(void *data, SCM key, SCM args)
{
	(void)data, (void)key, (void)args;
	return SCM_BOOL_F;
}

static void *do_hint(void *data)
{
	scm_c_catch(SCM_BOOL_T, hint_body, data, hint_failed, NULL, NULL, NULL);
	return NULL;
}

void cix_scheme_hint_modules(const struct cix_pkg_index *idx)
{
	struct cix_err err = { 0 };
	if (cix_scheme_init(&err) == 0)
		scm_with_guile(do_hint, (void *)idx);
	cix_err_clear(&err);
}
