/* pull.h - the package collections `cix pull` makes: where they are, and the one cix uses */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_PULL_H
#define CIX_PULL_H

/*
 * `cix pull` builds a git commit's Scheme modules into one store item laid
 * out as an installation prefix, and makes it the next generation of the
 * profile $XDG_CONFIG_HOME/cix/current (~/.config/cix/current when
 * XDG_CONFIG_HOME is unset), as pkg/profile.h manages profiles: current ->
 * current-N-link -> the store item.
 */
#define CIX_PULL_MODULES "share/cix/scheme"     /* the repository's scheme/modules */
#define CIX_PULL_DISTRO "share/cix/distro"      /* its distro */
#define CIX_PULL_DATA "share/cix"               /* with builder/, the data directory */
#define CIX_PULL_BUILDER "share/cix/builder"    /* its builder (when it has one) */
#define CIX_PULL_GO "lib/cix/scheme/go"         /* the modules compiled */
#define CIX_PULL_COMMIT "commit"                /* the commit's full name and a newline */

/* The profile's name (malloc'd), or NULL when neither variable is an absolute path. */
char *cix_pull_profile(void);

/*
 * The store item of the pulled generation cix uses (malloc'd), the real
 * path `current` leads to; NULL when there is none (or it is not a
 * directory), and when $CIX_SCHEME_PATH or $CIX_SCHEME_COMPILED_PATH is set
 * and not empty: those say where the modules are, and win.
 */
char *cix_pull_tree(void);

/*
 * The search path of a pulled tree's modules (TREE/CIX_PULL_MODULES and
 * TREE/CIX_PULL_DISTRO) and their compiled path, appended to sb.
 */
struct strbuf;
void cix_pull_search_path(const char *tree, struct strbuf *sb);
void cix_pull_compiled_path(const char *tree, struct strbuf *sb);

#endif
