/* builder.h - gnu-build, the in-store gnu-build-system driver: shared declarations */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GNU_BUILD_H
#define GNU_BUILD_H

/* Included first by every file of gnu-build, which is built with no -D flags. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

/*
 * gnu-build is compiled inside the store by the bootstrap gcc from the
 * files in builder/ alone: libc only, no libcix.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/stat.h>

/* ---- elf.c: a hostile-safe reader of what the dynamic loader needs ---- */

/* Limits on what elf_read_dyninfo accepts. */
#define ELF_MAX_PHNUM 4096
#define ELF_MAX_DYN 65536
#define ELF_MAX_NEEDED 4096
#define ELF_MAX_RUNPATH 4096
#define ELF_MAX_STRING 65536
#define ELF_MAX_BUILD_ID 64

struct elf_dyninfo {
	int elf_class;		/* 32 or 64 */
	int big_endian;
	unsigned type;		/* e_type: ET_EXEC, ET_DYN, ... */
	int dynamic;		/* has a PT_DYNAMIC segment */
	char *interp;		/* PT_INTERP, or NULL */
	char **needed;		/* DT_NEEDED, in order */
	size_t nr_needed;
	char **runpath;		/* DT_RUNPATH split on ':', else DT_RPATH's */
	size_t nr_runpath;
	int has_runpath;	/* 1 DT_RUNPATH, 2 DT_RPATH only, 0 neither */
	uint64_t runpath_offset;	/* where that string is in the file */
	size_t runpath_len;		/* and its length, without its NUL */
	char build_id[2 * ELF_MAX_BUILD_ID + 1];	/* hex; "" when none */
};

/* Whether buf starts with the ELF magic. */
int elf_has_magic(const unsigned char *buf, size_t len);

/*
 * Parse the ELF image buf[0..len) into *info (zeroed first; free it with
 * elf_dyninfo_free in every case). Returns 0 when parsed, 1 when buf is not
 * an ELF file, -1 when it is a malformed or unsupported ELF file, with a
 * one-line reason in err. Never reads outside buf.
 */
int elf_read_dyninfo(const unsigned char *buf, size_t len, struct elf_dyninfo *info,
		     char *err, size_t errlen);
void elf_dyninfo_free(struct elf_dyninfo *info);
/*
 * The same for the file open as fd, mapped for the while: 1 as well when it
 * is not a regular file of at least 4 bytes; -1 with the reason in err when
 * it cannot be mapped.
 */
int elf_read_fd(int fd, struct elf_dyninfo *info, char *err, size_t errlen);

/* ---- util.c ---- */

#define GB_MAX_DEPTH 128

extern const char *gb_store_dir;	/* NIX_STORE, or "/nix/store" */

void gb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *gb_xmalloc(size_t n);
void *gb_xrealloc(void *p, size_t n);
char *gb_xstrdup(const char *s);
char *gb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write s to f with control bytes and backslashes escaped as \xNN. */
void gb_fput_escaped(FILE *f, const char *s);
/* A printable copy of untrusted bytes, for messages (static buffer, one of 4). */
const char *gb_quote(const char *s);

/* A growable NULL-terminated vector of strings. */
struct strv {
	char **v;
	size_t nr, alloc;
};
void strv_push(struct strv *sv, const char *s);
void strv_push_owned(struct strv *sv, char *s);
/* Split s on any of the characters in seps, skipping empty items. */
void strv_split(struct strv *sv, const char *s, const char *seps);
void strv_clear(struct strv *sv);

/* The absolute path of name in $PATH (malloc'd), or NULL. */
char *gb_which(const char *name);
/*
 * Run argv (argv[0] is looked up in PATH unless it holds a '/') in the
 * current directory and wait. Returns 0 on exit status 0, else -1 with a
 * reason in err.
 */
int gb_run(char *const argv[], char *err, size_t errlen);

/* Whether path is under the store directory. */
int gb_in_store(const char *path);

/*
 * Walk the tree below the directory path without following symlinks, at
 * most GB_MAX_DEPTH levels deep (deeper is an error). visit gets every entry
 * below path, a directory before its contents: the fd of its parent
 * directory, its name there, its full path and its lstat. A non-zero return
 * from visit stops the walk and is returned; -1 on a walk error, err set.
 */
typedef int (*gb_visit_fn)(int dirfd, const char *name, const char *path,
			   const struct stat *st, void *ctx, char *err, size_t errlen);
int gb_walk(const char *path, gb_visit_fn visit, void *ctx, char *err, size_t errlen);

/* The value of an environment variable, or def when unset. */
const char *gb_env_or(const char *name, const char *def);
/* s with each ${NAME} replaced by that variable's value (malloc'd), or NULL. */
char *gb_expand_vars(const char *s, char *err, size_t errlen);

/* ---- phases.c ---- */

struct gb_output {
	char *name;
	char *path;
};

struct gb_build {
	struct gb_output *outs;	/* "out" first */
	size_t nr_outs;
	const char *top;	/* NIX_BUILD_TOP */
	char *bash;		/* bash in PATH, once found */
	struct strv configure_flags, make_flags;
	int tests, parallel_build, parallel_tests, out_of_source, strip, validate;
	long cores;
	/* Cross-building: the GNU triplets of the target and of this machine (env target, build). */
	const char *target, *build;
};

struct gb_phase {
	const char *name;
	int (*fn)(struct gb_build *b, char *err, size_t errlen);
};
/* The built-in phases, ended by a NULL name. */
extern const struct gb_phase gb_builtin_phases[];
/* Find bash in PATH into b->bash; -1 with err set if there is none. */
int gb_need_bash(struct gb_build *b, char *err, size_t errlen);

/* ---- patch.c ---- */

/* Patch shebangs of the executable files below dir. */
int gb_patch_shebangs_tree(const char *dir, char *err, size_t errlen);
/* Patch `SHELL = /bin/sh` in every Makefile below dir to bash. */
int gb_patch_makefiles_tree(const char *dir, const char *bash, char *err, size_t errlen);

/* ---- strip.c ---- */

enum { KIND_NONE, KIND_ELF, KIND_ARCHIVE };
/* The kind of the regular file name in dirfd, by its magic. */
int gb_file_kind(int dirfd, const char *name);
int gb_is_real_dir(const char *path);
int gb_ends_with(const char *s, const char *suffix);

/* tool_prefix: "" or "TRIPLET-" (the target's strip and objcopy). */
int gb_strip_outputs(struct gb_output *outs, size_t nr, const char *tool_prefix, char *err,
		     size_t errlen);
/* ---- runpath.c ---- */

int gb_validate_runpath_outputs(struct gb_output *outs, size_t nr, char *err, size_t errlen);
/*
 * Drop from each RUNPATH of the outputs the store directories that hold
 * none of the libraries the file needs (the ld wrapper adds one for each
 * library a link names, also those --as-needed leaves out).
 */
int gb_shrink_runpath_outputs(struct gb_output *outs, size_t nr, char *err, size_t errlen);

#endif
