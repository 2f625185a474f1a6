/* publish.c - the store served over HTTP as a binary cache (libmicrohttpd) */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "publish.h"
#include "cache-file.h"
#include "db.h"
#include "encoding.h"
#include "hash.h"
#include "nar.h"
#include "narinfo.h"
#include "store.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_PART_LEN 32

struct cix_publish {
	struct cix_publish_opts o;
	struct cix_store *s;
	pthread_mutex_t lock;          /* the store's database: one thread at a time */
	struct MHD_Daemon *d;
	unsigned port;
};

/* ---- narinfos ---- */

static char *base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return xstrdup(slash ? slash + 1 : path);
}

int cix_publish_narinfo(struct cix_store *s, const char *path, const char *url,
			enum cix_comp comp, const struct cix_hash *file_hash, uint64_t file_size,
			const struct cix_secret_key *key, struct strbuf *out, struct cix_err *err)
{
	struct cix_path_info info;
	struct cix_narinfo ni = CIX_NARINFO_INIT;
	struct strbuf fp = STRBUF_INIT, sig = STRBUF_INIT;
	int r;

	if ((r = cix_store_query(s, path, &info, err)) < 0)
		return r;
	ni.store_path = xstrdup(path);
	ni.url = xstrdup(url);
	ni.compression = xstrdup(cix_comp_name(comp));
	if (file_hash) {
		ni.has_file_hash = ni.has_file_size = 1;
		ni.file_hash = *file_hash;
		ni.file_size = file_size;
	}
	ni.nar_hash = info.nar_hash;
	ni.nar_size = info.nar_size;
	for (size_t i = 0; i < info.nr_refs; i++) {
		char *b = base(info.refs[i]);
		strvec_push(&ni.refs, b);
		free(b);
	}
	if (info.deriver)
		ni.deriver = base(info.deriver);
	if (info.ca)
		ni.ca = xstrdup(info.ca);
	for (char *p = info.sigs, *sp; p && *p; p = sp ? sp + 1 : p + strlen(p)) {
		sp = strchr(p, ' ');
		struct strbuf one = STRBUF_INIT;
		strbuf_add(&one, p, sp ? (size_t)(sp - p) : strlen(p));
		if (one.len)
			strvec_push(&ni.sigs, one.buf);
		strbuf_release(&one);
	}
	if (key) {
		if ((r = cix_narinfo_fingerprint(&ni, s->store_dir, &fp, err)) < 0 ||
		    (r = cix_sign_detached(key, fp.buf, fp.len, &sig, err)) < 0)
			goto out;
		strvec_push(&ni.sigs, sig.buf);
	}
	cix_narinfo_format(&ni, s->store_dir, out);
out:
	strbuf_release(&fp);
	strbuf_release(&sig);
	cix_narinfo_release(&ni);
	cix_path_info_release(&info);
	return r;
}

/* ---- NARs ---- */

static int fd_sink(void *opaque, const void *data, size_t len)
{
	return cix_write_full(*(int *)opaque, data, len);
}

/* path's NAR, compressed, into fd (not closed). */
static int write_nar(const char *path, enum cix_comp comp, int level, int fd, struct cix_err *err)
{
	struct cix_zsink *z = cix_zsink_new(comp, level, fd_sink, &fd);
	int r = cix_nar_dump(path, cix_zsink_write, z, err);
	if (r == 0)
		r = cix_zsink_finish(z, err);
	cix_zsink_free(z);
	return r;
}

struct nar_job {
	char *path;
	enum cix_comp comp;
	int level, fd;
};

static void *nar_thread(void *arg)
{
	struct nar_job *j = arg;
	struct cix_err err = { 0 };
	/* A failure leaves the client a short stream: its hash check refuses it. */
	(void)write_nar(j->path, j->comp, j->level, j->fd, &err);
	close(j->fd);
	free(j->path);
	free(j);
	return NULL;
}

struct hashing_sink {
	int fd;
	struct cix_hash_ctx h;
	uint64_t size;
};

static int hashing_write(void *opaque, const void *data, size_t len)
{
	struct hashing_sink *hs = opaque;
	cix_hash_update(&hs->h, data, len);
	hs->size += len;
	return cix_write_full(hs->fd, data, len);
}

/*
 * The compressed NAR of path in the cache directory (made if need be):
 * its file name in file, its hash and size.
 */
static int baked(const struct cix_publish_opts *o, const char *path, const char *hash_part,
		 struct strbuf *file, struct cix_hash *fh, uint64_t *size, struct cix_err *err)
{
	struct strbuf meta = STRBUF_INIT, tmp = STRBUF_INIT, text = STRBUF_INIT;
	struct hashing_sink hs = { -1, { 0 }, 0 };
	struct cix_zsink *z = NULL;
	unsigned long long n;
	int r = 0;

	strbuf_addf(file, "%s/nar/%s.nar%s", o->cache_dir, hash_part, cix_comp_ext(o->comp));
	strbuf_addf(&meta, "%s.meta", file->buf);
	/* "sha256:NIXBASE32 SIZE": what was made before. */
	if (strbuf_read_file(&text, meta.buf, 4096) == 0 && text.len > 7 + 52 + 1 &&
	    text.buf[text.len - 1] == '\n')
		strbuf_setlen(&text, text.len - 1);
	if (text.len > 7 + 52 + 1 && !memcmp(text.buf, "sha256:", 7) && text.buf[7 + 52] == ' ' &&
	    cix_nixbase32_decode(text.buf + 7, 52, fh->bytes, 32) == 32 &&
	    cix_parse_decimal(text.buf + 7 + 53, UINT64_MAX, &n) == 0 && access(file->buf, R_OK) == 0) {
		fh->algo = CIX_HASH_SHA256;
		fh->len = 32;
		*size = n;
		goto out;
	}
	strbuf_reset(&text);
	strbuf_addf(&tmp, "%s/nar", o->cache_dir);
	if ((r = cix_mkdirs(tmp.buf, err)) < 0)
		goto out;
	strbuf_reset(&tmp);
	strbuf_addf(&tmp, "%s.tmp-%ld-%lu", file->buf, (long)getpid(), (unsigned long)pthread_self());
	hs.fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (hs.fd < 0) {
		r = cix_error_errno(err, -errno, "cannot create '%s'", tmp.buf);
		goto out;
	}
	cix_hash_init(&hs.h, CIX_HASH_SHA256);
	z = cix_zsink_new(o->comp, o->level, hashing_write, &hs);
	r = cix_nar_dump(path, cix_zsink_write, z, err);
	if (r == 0)
		r = cix_zsink_finish(z, err);
	cix_hash_final(&hs.h, fh);
	if (close(hs.fd) < 0 && r == 0)
		r = cix_error_errno(err, -errno, "cannot write '%s'", tmp.buf);
	if (r == 0 && rename(tmp.buf, file->buf) < 0)
		r = cix_error_errno(err, -errno, "cannot rename '%s'", tmp.buf);
	if (r < 0) {
		unlink(tmp.buf);
		goto out;
	}
	*size = hs.size;
	strbuf_addstr(&text, "sha256:");
	cix_nixbase32_encode(&text, fh->bytes, fh->len);
	strbuf_addf(&text, " %llu\n", (unsigned long long)hs.size);
	r = cix_cache_write(meta.buf, text.buf, text.len, err);
out:
	cix_zsink_free(z);
	strbuf_release(&meta);
	strbuf_release(&tmp);
	strbuf_release(&text);
	return r;
}

int cix_publish_to_cache(struct cix_store *s, const struct cix_publish_opts *o, const char *path,
			 struct strbuf *out, struct cix_err *err)
{
	struct strbuf file = STRBUF_INIT, url = STRBUF_INIT, text = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	char hash_part[HASH_PART_LEN + 1];
	struct cix_hash fh;
	uint64_t size = 0;
	int r;

	if (!slash || strlen(slash + 1) < HASH_PART_LEN)
		return cix_error(err, -CIX_EINVAL, "'%s' is not a store path", path);
	memcpy(hash_part, slash + 1, HASH_PART_LEN);
	hash_part[HASH_PART_LEN] = '\0';
	if ((r = baked(o, path, hash_part, &file, &fh, &size, err)) < 0)
		goto out;
	strbuf_addf(&url, "nar/%s.nar%s", hash_part, cix_comp_ext(o->comp));
	if ((r = cix_publish_narinfo(s, path, url.buf, o->comp, &fh, size,
				     o->signing ? &o->key : NULL, &text, err)) < 0)
		goto out;
	/* Beside its NAR: the directory is a cache a static server can serve. */
	strbuf_reset(&file);
	strbuf_addf(&file, "%s/%s.narinfo", o->cache_dir, hash_part);
	if ((r = cix_cache_write(file.buf, text.buf, text.len, err)) < 0)
		goto out;
	strbuf_reset(&file);
	strbuf_addf(&file, "%s/nix-cache-info", o->cache_dir);
	strbuf_reset(&url);
	strbuf_addf(&url, "StoreDir: %s\n", s->store_dir);
	if (access(file.buf, F_OK) < 0)
		r = cix_cache_write(file.buf, url.buf, url.len, err);
	if (!r && out)
		strbuf_add(out, text.buf, text.len);
out:
	strbuf_release(&file);
	strbuf_release(&url);
	strbuf_release(&text);
	return r;
}

/* ---- HTTP ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     const char *body, size_t len, unsigned long ttl)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body,
								     MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;
	char cc[64];
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", type);
	if (ttl) {
		snprintf(cc, sizeof(cc), "max-age=%lu", ttl);
		MHD_add_response_header(resp, "Cache-Control", cc);
	}
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result not_found(struct MHD_Connection *c)
{
	static const char msg[] = "not found\n";
	return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", msg, sizeof(msg) - 1, 0);
}

static enum MHD_Result failure(struct MHD_Connection *c, const struct cix_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	enum MHD_Result ret;
	strbuf_addf(&sb, "%s\n", err->msg);
	ret = reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", sb.buf, sb.len, 0);
	strbuf_release(&sb);
	return ret;
}

/* "HASHPART" then exactly suffix: the hash part, or NULL. */
static int hash_part_of(const char *s, const char *suffix, char out[HASH_PART_LEN + 1])
{
	if (strlen(s) != HASH_PART_LEN + strlen(suffix) || strcmp(s + HASH_PART_LEN, suffix))
		return 0;
	for (int i = 0; i < HASH_PART_LEN; i++)
		if (!strchr(cix_nixbase32_chars, s[i]) || !s[i])
			return 0;
	memcpy(out, s, HASH_PART_LEN);
	out[HASH_PART_LEN] = '\0';
	return 1;
}

/* The valid path of that hash part: 1 (*path malloc'd), 0 none, or an error. */
static int lookup(struct cix_publish *p, const char *hash_part, char **path, struct cix_err *err)
{
	struct strbuf prefix = STRBUF_INIT;
	int r;
	strbuf_addf(&prefix, "%s/%s-", p->s->store_dir, hash_part);
	r = cix_db_path_from_hash_part(p->s->db, prefix.buf, path, err);
	strbuf_release(&prefix);
	return r;
}

static enum MHD_Result serve_narinfo(struct cix_publish *p, struct MHD_Connection *c,
				     const char *hash_part)
{
	struct strbuf text = STRBUF_INIT, url = STRBUF_INIT;
	struct cix_err err = { 0 };
	char *path = NULL;
	enum MHD_Result ret;
	int r, found;

	pthread_mutex_lock(&p->lock);
	r = lookup(p, hash_part, &path, &err);
	found = r > 0;
	if (found && p->o.cache_dir) {
		r = cix_publish_to_cache(p->s, &p->o, path, &text, &err);
	} else if (found) {
		strbuf_addf(&url, "nar/%s.nar%s", hash_part, cix_comp_ext(p->o.comp));
		r = cix_publish_narinfo(p->s, path, url.buf, p->o.comp, NULL, 0,
					p->o.signing ? &p->o.key : NULL, &text, &err);
	}
	pthread_mutex_unlock(&p->lock);
	if (r < 0)
		ret = failure(c, &err);
	else if (!found)
		ret = not_found(c);
	else
		ret = reply(c, MHD_HTTP_OK, "text/x-nix-narinfo", text.buf, text.len, p->o.ttl);
	free(path);
	strbuf_release(&text);
	strbuf_release(&url);
	return ret;
}

static enum MHD_Result serve_nar(struct cix_publish *p, struct MHD_Connection *c,
				 const char *hash_part)
{
	struct strbuf file = STRBUF_INIT;
	struct cix_err err = { 0 };
	struct MHD_Response *resp = NULL;
	struct cix_hash fh;
	uint64_t size;
	char *path = NULL;
	enum MHD_Result ret;
	int r, fd;

	pthread_mutex_lock(&p->lock);
	r = lookup(p, hash_part, &path, &err);
	if (r > 0 && p->o.cache_dir)
		r = baked(&p->o, path, hash_part, &file, &fh, &size, &err) < 0 ? -1 : 1;
	pthread_mutex_unlock(&p->lock);
	if (r <= 0) {
		ret = r < 0 ? failure(c, &err) : not_found(c);
		goto out;
	}
	if (p->o.cache_dir) {
		struct stat st;
		fd = open(file.buf, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || fstat(fd, &st) < 0) {
			cix_error_errno(&err, -errno, "cannot open '%s'", file.buf);
			if (fd >= 0)
				close(fd);
			ret = failure(c, &err);
			goto out;
		}
		resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	} else {
		int fds[2];
		pthread_t t;
		struct nar_job *j;
		if (pipe2(fds, O_CLOEXEC) < 0) {
			cix_error_errno(&err, -errno, "cannot make a pipe");
			ret = failure(c, &err);
			goto out;
		}
		j = xcalloc(1, sizeof(*j));
		j->path = path;
		path = NULL;
		j->comp = p->o.comp;
		j->level = p->o.level;
		j->fd = fds[1];
		if (pthread_create(&t, NULL, nar_thread, j) != 0) {
			close(fds[0]);
			close(fds[1]);
			free(j->path);
			free(j);
			cix_error(&err, -EAGAIN, "cannot start a thread");
			ret = failure(c, &err);
			goto out;
		}
		pthread_detach(t);
		resp = MHD_create_response_from_pipe(fds[0]);
	}
	if (!resp) {
		ret = MHD_NO;
		goto out;
	}
	MHD_add_response_header(resp, "Content-Type", "application/x-nix-nar");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
out:
	free(path);
	strbuf_release(&file);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct cix_publish *p = cls;
	char hash_part[HASH_PART_LEN + 1], suffix[32];
	(void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;

	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char msg[] = "method not allowed\n";
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", msg, sizeof(msg) - 1, 0);
	}
	if (!strcmp(url, "/nix-cache-info")) {
		struct strbuf sb = STRBUF_INIT;
		enum MHD_Result ret;
		strbuf_addf(&sb, "StoreDir: %s\nWantMassQuery: 1\nPriority: 40\n", p->s->store_dir);
		ret = reply(c, MHD_HTTP_OK, "text/x-nix-cache-info", sb.buf, sb.len, 0);
		strbuf_release(&sb);
		return ret;
	}
	if (url[0] == '/' && hash_part_of(url + 1, ".narinfo", hash_part))
		return serve_narinfo(p, c, hash_part);
	snprintf(suffix, sizeof(suffix), ".nar%s", cix_comp_ext(p->o.comp));
	if (!strncmp(url, "/nar/", 5) && hash_part_of(url + 5, suffix, hash_part))
		return serve_nar(p, c, hash_part);
	return not_found(c);
}

/* ---- the server ---- */

int cix_publish_start(const struct cix_publish_opts *o, struct cix_publish **out,
		      struct cix_err *err)
{
	struct cix_publish *p = xcalloc(1, sizeof(*p));
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	const union MHD_DaemonInfo *info;
	int r;

	p->o = *o;
	if (inet_pton(AF_INET, o->address, &sin.sin_addr) != 1) {
		free(p);
		return cix_error(err, -CIX_EINVAL, "invalid address '%s' (an IPv4 address)",
				 o->address);
	}
	if ((r = cix_store_open(NULL, NULL, &p->s, err)) < 0) {
		free(p);
		return r;
	}
	if (o->cache_dir) {
		struct strbuf file = STRBUF_INIT, text = STRBUF_INIT;
		strbuf_addf(&file, "%s/nix-cache-info", o->cache_dir);
		strbuf_addf(&text, "StoreDir: %s\n", p->s->store_dir);
		r = cix_cache_write(file.buf, text.buf, text.len, err);
		strbuf_release(&file);
		strbuf_release(&text);
		if (r < 0) {
			cix_store_close(p->s);
			free(p);
			return r;
		}
	}
	pthread_mutex_init(&p->lock, NULL);
	p->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD,
				(uint16_t)o->port, NULL, NULL, handle, p,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
	if (!p->d) {
		r = cix_error(err, -EADDRINUSE, "cannot listen on %s:%u", o->address, o->port);
		cix_store_close(p->s);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return r;
	}
	info = MHD_get_daemon_info(p->d, MHD_DAEMON_INFO_BIND_PORT);
	p->port = info ? info->port : o->port;
	*out = p;
	return 0;
}

unsigned cix_publish_port(const struct cix_publish *p)
{
	return p->port;
}

const char *cix_publish_store_dir(const struct cix_publish *p)
{
	return p->s->store_dir;
}

void cix_publish_stop(struct cix_publish *p)
{
	if (!p)
		return;
	MHD_stop_daemon(p->d);
	cix_store_close(p->s);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
