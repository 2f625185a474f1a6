/* gnu-release.c - GNU releases: versions, source URLs, release directory listings */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "gnu-release.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Where a character of a non-digit run sorts: the end and digits first. */
static int weight(int c)
{
	if (!c || is_digit(c))
		return 0;
	if (c == '~')
		return -1;
	if (is_alpha(c))
		return c;
	return c + 256;
}

int cix_gnu_version_cmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;

	while (*p || *q) {
		/* The non-digit runs, compared character by character. */
		while ((*p && !is_digit(*p)) || (*q && !is_digit(*q))) {
			int wp = weight(*p), wq = weight(*q);
			if (wp != wq)
				return wp < wq ? -1 : 1;
			p++;
			q++;
		}
		/* The digit runs, as numbers of any length. */
		while (*p == '0')
			p++;
		while (*q == '0')
			q++;
		int first = 0;
		while (is_digit(*p) && is_digit(*q)) {
			if (!first)
				first = *p - *q;
			p++;
			q++;
		}
		if (is_digit(*p))
			return 1;
		if (is_digit(*q))
			return -1;
		if (first)
			return first < 0 ? -1 : 1;
	}
	return 0;
}

static const char *const ext_names[] = { "gz", "xz", "bz2", "lz" };

int cix_gnu_tar_ext(const char *ext, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(ext_names); i++)
		if (strlen(ext_names[i]) == len && !memcmp(ext, ext_names[i], len))
			return 1 << i;
	return 0;
}

const char *cix_gnu_tar_ext_name(int ext)
{
	for (size_t i = 0; i < ARRAY_SIZE(ext_names); i++)
		if (ext == 1 << i)
			return ext_names[i];
	return "?";
}

/*
 * name (of length len) as PROJECT-VERSION.tar.EXT: the compression, with
 * the version's start and length; 0 when it is not so.
 */
static int split_tarball(const char *name, size_t len, const char *project,
			 const char **ver, size_t *vlen)
{
	size_t pl = strlen(project);
	const char *tar = NULL;
	for (const char *s = name; s + 5 <= name + len; s++)
		if (!memcmp(s, ".tar.", 5))
			tar = s;
	if (!tar || len <= pl + 1 || memcmp(name, project, pl) || name[pl] != '-')
		return 0;
	int ext = cix_gnu_tar_ext(tar + 5, len - (size_t)(tar + 5 - name));
	*ver = name + pl + 1;
	*vlen = (size_t)(tar - *ver);
	if (!ext || !*vlen || !is_digit(**ver))
		return 0;
	for (size_t i = 0; i < *vlen; i++) {
		int c = (*ver)[i];
		if (!is_digit(c) && !is_alpha(c) && !strchr(".+_-", c))
			return 0;
	}
	return ext;
}

static const char *const gnu_prefixes[] = {
	"mirror://gnu/",
	"https://ftp.gnu.org/gnu/", "http://ftp.gnu.org/gnu/", "ftp://ftp.gnu.org/gnu/",
	"https://ftpmirror.gnu.org/", "http://ftpmirror.gnu.org/", "ftp://ftpmirror.gnu.org/",
};

/* The part of url after a GNU prefix, or NULL. */
static const char *gnu_rest(const char *url, const char *base)
{
	size_t bl = base ? strlen(base) : 0;
	while (bl && base[bl - 1] == '/')
		bl--;
	if (bl && !strncmp(url, base, bl) && url[bl] == '/')
		return url + bl + 1;
	for (size_t i = 0; i < ARRAY_SIZE(gnu_prefixes); i++)
		if (!strncmp(url, gnu_prefixes[i], strlen(gnu_prefixes[i])))
			return url + strlen(gnu_prefixes[i]);
	return NULL;
}

int cix_gnu_source_parse(const char *url, const char *version, const char *base,
			 struct cix_gnu_source *out)
{
	const char *rest = url && version ? gnu_rest(url, base) : NULL, *slash, *file, *ver;
	size_t vlen;
	int ext;

	memset(out, 0, sizeof(*out));
	if (!rest || strcspn(rest, "?#") != strlen(rest) || !(slash = strrchr(rest, '/')) ||
	    slash == rest || strstr(rest, "//") || strstr(rest, ".."))
		return 0;
	file = slash + 1;
	/* The project is what comes before "-VERSION.tar.". */
	const char *dash = strstr(file, "-");
	for (; dash; dash = strchr(dash + 1, '-')) {
		char *project = xstrndup(file, (size_t)(dash - file));
		ext = split_tarball(file, strlen(file), project, &ver, &vlen);
		if (ext && vlen == strlen(version) && !memcmp(ver, version, vlen)) {
			out->project = project;
			out->dir = xstrndup(rest, (size_t)(slash - rest));
			out->ext = ext;
			return 1;
		}
		free(project);
	}
	return 0;
}

void cix_gnu_source_release(struct cix_gnu_source *s)
{
	free(s->dir);
	free(s->project);
	memset(s, 0, sizeof(*s));
}

/* Words of a listing: what lies between these (HTML's and FTP's separators). */
static int separator(int c)
{
	return !c || strchr(" \t\r\n\"'<>=/", c);
}

int cix_gnu_latest_release(const char *listing, size_t len, const char *project,
			   char **version, int *exts, struct cix_err *err)
{
	char *cur = NULL;
	int cur_exts = 0;
	size_t i = 0;

	*version = NULL;
	*exts = 0;
	while (i < len) {
		while (i < len && separator(listing[i]))
			i++;
		size_t start = i;
		while (i < len && !separator(listing[i]))
			i++;
		const char *ver;
		size_t vlen;
		int ext = split_tarball(listing + start, i - start, project, &ver, &vlen);
		if (!ext)
			continue;
		char *v = xstrndup(ver, vlen);
		if (!cur || cix_gnu_version_cmp(v, cur) > 0) {
			free(cur);
			cur = v;
			cur_exts = ext;
			continue;
		}
		if (!strcmp(v, cur))
			cur_exts |= ext;   /* the same release, another compression */
		free(v);
	}
	if (!cur)
		return cix_error(err, -CIX_ENOTFOUND, "no release of '%s' in the listing", project);
	*version = cur;
	*exts = cur_exts;
	return 0;
}
