/* gnu-release.h - GNU releases: versions, source URLs, release directory listings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef CIX_GNU_RELEASE_H
#define CIX_GNU_RELEASE_H

#include <stddef.h>
#include "err.h"

/* Where GNU's releases are, when neither --gnu-url nor $CIX_GNU_URL says. */
#define CIX_GNU_URL_DEFAULT "https://ftp.gnu.org/gnu"

/*
 * Compare two versions as `sort -V` (GNU's filevercmp, dpkg's order)
 * does: runs of digits numerically (leading zeros ignored), the rest
 * character by character, letters before other characters, '~' before
 * everything, even the end. Negative, zero or positive as strcmp.
 */
int cix_gnu_version_cmp(const char *a, const char *b);

/* The compressions of release tarballs: NAME-VERSION.tar.EXT. */
enum { CIX_GNU_TAR_GZ = 1, CIX_GNU_TAR_XZ = 2, CIX_GNU_TAR_BZ2 = 4, CIX_GNU_TAR_LZ = 8 };
/* "gz" -> CIX_GNU_TAR_GZ...; 0 when not one of them. */
int cix_gnu_tar_ext(const char *ext, size_t len);
const char *cix_gnu_tar_ext_name(int ext);

/*
 * A package's source taken apart. Its URL is mirror://gnu/DIR/FILE, or
 * BASE/DIR/FILE with BASE the GNU URL in use (or ftp.gnu.org/gnu,
 * ftpmirror.gnu.org over http, https or ftp), and FILE is
 * PROJECT-VERSION.tar.EXT with VERSION the package's version.
 */
struct cix_gnu_source {
	char *dir;          /* "hello": the release directory, below the GNU URL */
	char *project;      /* "hello": what the tarballs' names start with */
	int ext;            /* CIX_GNU_TAR_* */
};

/* 1 and *out filled when url is a GNU release as above; 0 when not. */
int cix_gnu_source_parse(const char *url, const char *version, const char *base,
			 struct cix_gnu_source *out);
void cix_gnu_source_release(struct cix_gnu_source *s);

/*
 * The newest release of project in a directory listing: an HTML index as
 * ftp.gnu.org serves it, or an FTP listing (LIST or NLST), read as words;
 * every word PROJECT-VERSION.tar.{gz,xz,bz2,lz} counts (VERSION starting
 * with a digit; signatures and other files do not). *version is malloc'd;
 * *exts receives the compressions that version has. 0, or -CIX_ENOTFOUND
 * when the listing has no release of project.
 */
int cix_gnu_latest_release(const char *listing, size_t len, const char *project,
			   char **version, int *exts, struct cix_err *err);

#endif
