/* compile.c - the modules `cix pull` brings, checked, loaded and compiled in Guile */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "scheme-int.h"

#include <stdlib.h>

/*
 * `cix pull` checks and compiles a collection in Scheme (given dirs and
 * go-dir): every module checked (pkg/sexp-scan.h: before Guile reads
 * any, as loading one loads those it uses), then loaded, so that each is
 * whole (its procedures defined, not only its macros) when compiling
 * another needs it, then each compiled; the first error as one line naming
 * the file, or the number of modules.
 */
static const char pull_compile_code[] =
	"(lambda (dirs go-dir)\n"
	"  (define (scm-files dir)\n"
	"    ((@ (ice-9 ftw) file-system-fold)\n"
	"     (lambda (name stat result) #t)\n"
	"     (lambda (name stat result)\n"
	"       (if (string-suffix? \".scm\" name) (cons name result) result))\n"
	"     (lambda (name stat result) result)\n"
	"     (lambda (name stat result) result)\n"
	"     (lambda (name stat result) result)\n"
	"     (lambda (name stat errno result)\n"
	"       (error (string-append name \": \" (strerror errno))))\n"
	"     '() dir))\n"
	"  (define (module-name rel)\n"
	"    (map string->symbol (string-split (string-drop-right rel 4) #\\/)))\n"
	"  (define (one-line rel key args)\n"
	"    (let* ((text (false-if-exception\n"
	"                  (call-with-output-string\n"
	"                    (lambda (port) (print-exception port #f key args)))))\n"
	"           (text (string-trim-both\n"
	"                  (string-map (lambda (c) (if (char=? c #\\newline) #\\space c))\n"
	"                              (or text (format #f \"~a ~s\" key args))))))\n"
	"      (if (string-contains text rel) text (string-append rel \": \" text))))\n"
	"  ((@ (ice-9 control) call/ec)\n"
	"   (lambda (return)\n"
	"     (define (try rel thunk)\n"
	"       (catch #t thunk (lambda (key . args) (return (one-line rel key args)))))\n"
	"     (define files\n"
	"       (apply append\n"
	"              (map (lambda (dir)\n"
	"                     (try dir (lambda ()\n"
	"                                (map (lambda (file)\n"
	"                                       (cons file (substring file (+ 1 (string-length dir)))))\n"
	"                                     (sort (scm-files dir) string<?)))))\n"
	"                   dirs)))\n"
	"     (with-fluids ((%file-port-name-canonicalization 'relative))\n"
	"     (parameterize ((current-warning-port (%make-void-port \"w\")))\n"
	"       (for-each (lambda (f)\n"
	"                   (try (cdr f) (lambda () ((@ (cix primitives) %check-source) (car f)))))\n"
	"                 files)\n"
	"       (for-each (lambda (f)\n"
	"                   (try (cdr f) (lambda () (resolve-interface (module-name (cdr f))))))\n"
	"                 files)\n"
	"       (for-each (lambda (f)\n"
	"                   (try (cdr f)\n"
	"                        (lambda ()\n"
	"                          ((@ (system base compile) compile-file)\n"
	"                           (car f)\n"
	"                           #:output-file (string-append go-dir \"/\"\n"
	"                                                        (string-drop-right (cdr f) 4) \".go\")\n"
	"                           #:warning-level 0))))\n"
	"                 files)))\n"
	"     (length files))))\n";

struct pull_call {
	const char *const *dirs;
	size_t nr_dirs;
	const char *go_dir;
	size_t count;
	struct cix_err *err;
	int r;
};

static SCM pull_compile_body(void *data)
{
	struct pull_call *pc = data;
	SCM dirs = SCM_EOL, load_path = scm_c_lookup("%load-path");
	for (size_t i = pc->nr_dirs; i-- > 0;)
		dirs = scm_cons(scm_from_utf8_string(pc->dirs[i]), dirs);
	scm_variable_set_x(load_path, scm_append(scm_list_2(dirs, scm_variable_ref(load_path))));
	SCM res = scm_call_2(scm_c_eval_string(pull_compile_code), dirs,
			     scm_from_utf8_string(pc->go_dir));
	if (scm_is_string(res)) {
		char *s = scm_to_utf8_string(res);
		pc->r = cix_error(pc->err, -CIX_EINVAL, "%s", s);
		free(s);
	} else {
		pc->count = scm_to_size_t(res);
		pc->r = 0;
	}
	return SCM_BOOL_T;
}

static SCM pull_compile_failed(void *data, SCM key, SCM args)
{
	struct pull_call *pc = data;
	SCM msg = scm_simple_format(SCM_BOOL_F, scm_from_utf8_string("~a ~s"),
				    scm_list_2(key, args));
	char *s = scm_to_utf8_string(msg);
	pc->r = cix_error(pc->err, -CIX_EINVAL, "cannot compile the modules: %s", s);
	free(s);
	return SCM_BOOL_F;
}

static void *do_pull_compile(void *data)
{
	scm_variable_set_x(scm_c_lookup("%load-should-auto-compile"), SCM_BOOL_F);
	scm_c_define_module("cix primitives", scheme_define_primitives, NULL);
	scm_c_catch(SCM_BOOL_T, pull_compile_body, data, pull_compile_failed, data, NULL, NULL);
	return NULL;
}

int cix_scheme_compile_modules(const char *const *dirs, size_t nr_dirs, const char *go_dir,
			       size_t *count, struct cix_err *err)
{
	struct pull_call pc = { dirs, nr_dirs, go_dir, 0, err, -CIX_EINVAL };
	int r = scheme_claim_for_compile(err);
	if (r < 0)
		return r;
	scm_with_guile(do_pull_compile, &pc);
	*count = pc.count;
	return pc.r;
}
