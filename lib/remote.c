/* remote.c - a client of cix-daemon (or nix-daemon): the worker protocol, client side */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "remote.h"
#include "drv.h"
#include "encoding.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The daemon must speak at least this minor version (framed AddToStore). */
#define OLDEST_DAEMON_MINOR 25

static void say(struct cix_remote *r, const char *s, size_t len)
{
	if (r->log_fd >= 0 && cix_write_full(r->log_fd, s, len) < 0)
		r->log_fd = -1;
}

static int skip_fields(struct cix_remote *r, struct strbuf *first, struct cix_err *err)
{
	uint64_t n, type, v;
	struct strbuf s = STRBUF_INIT;
	int ret = cix_wire_read_u64(&r->w, &n, err);
	if (!ret && n > 1024)
		ret = cix_error(err, -CIX_EFORMAT, "too many fields");
	for (uint64_t i = 0; !ret && i < n; i++) {
		if ((ret = cix_wire_read_u64(&r->w, &type, err)) < 0)
			break;
		if (type == 0)
			ret = cix_wire_read_u64(&r->w, &v, err);
		else if (type == 1)
			ret = cix_wire_read_string(&r->w, i == 0 && first ? first : &s,
						   CIX_WIRE_MAX_STRING, err);
		else
			ret = cix_error(err, -CIX_EFORMAT, "bad field type");
	}
	strbuf_release(&s);
	return ret;
}

/*
 * The daemon's stderr frames up to LAST (0) or ERROR (the daemon's
 * message in err). Messages and build log lines go to log_fd.
 */
static int read_frames(struct cix_remote *r, struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT;
	uint64_t code, x;
	int ret;
	for (;;) {
		if ((ret = cix_wire_read_u64(&r->w, &code, err)) < 0)
			break;
		if (code == CIX_STDERR_LAST) {
			ret = 0;
			break;
		}
		if (code == CIX_STDERR_NEXT) {
			if ((ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_STRING, err)) < 0)
				break;
			say(r, s.buf, s.len);
		} else if (code == CIX_STDERR_START_ACTIVITY) {
			/* id, level, type, text, fields, parent */
			uint64_t id, level, type, parent;
			if ((ret = cix_wire_read_u64(&r->w, &id, err)) < 0 ||
			    (ret = cix_wire_read_u64(&r->w, &level, err)) < 0 ||
			    (ret = cix_wire_read_u64(&r->w, &type, err)) < 0 ||
			    (ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_STRING, err)) < 0 ||
			    (ret = skip_fields(r, NULL, err)) < 0 ||
			    (ret = cix_wire_read_u64(&r->w, &parent, err)) < 0)
				break;
		} else if (code == CIX_STDERR_STOP_ACTIVITY) {
			if ((ret = cix_wire_read_u64(&r->w, &x, err)) < 0)
				break;
		} else if (code == CIX_STDERR_RESULT) {
			uint64_t id, type;
			strbuf_reset(&s);
			if ((ret = cix_wire_read_u64(&r->w, &id, err)) < 0 ||
			    (ret = cix_wire_read_u64(&r->w, &type, err)) < 0 ||
			    (ret = skip_fields(r, &s, err)) < 0)
				break;
			if (type == 101) {   /* a build log line */
				strbuf_addch(&s, '\n');
				say(r, s.buf, s.len);
			}
		} else if (code == CIX_STDERR_ERROR) {
			struct strbuf msg = STRBUF_INIT;
			if (r->minor >= 26) {
				uint64_t level, pos, traces;
				if ((ret = cix_wire_read_string(&r->w, &s, 64, err)) < 0 ||
				    (ret = cix_wire_read_u64(&r->w, &level, err)) < 0 ||
				    (ret = cix_wire_read_string(&r->w, &s, 256, err)) < 0 ||
				    (ret = cix_wire_read_string(&r->w, &msg, CIX_WIRE_MAX_STRING, err)) < 0 ||
				    (ret = cix_wire_read_u64(&r->w, &pos, err)) < 0 ||
				    (ret = cix_wire_read_u64(&r->w, &traces, err)) < 0) {
					strbuf_release(&msg);
					break;
				}
				for (uint64_t i = 0; !ret && i < traces && i < 1024; i++)
					if (!(ret = cix_wire_read_u64(&r->w, &pos, err)))
						ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_STRING, err);
			} else {
				if ((ret = cix_wire_read_string(&r->w, &msg, CIX_WIRE_MAX_STRING, err)) == 0)
					ret = cix_wire_read_u64(&r->w, &x, err);
			}
			if (!ret)
				ret = cix_error(err, -CIX_EMISMATCH, "%s", msg.buf);
			else
				r->broken = 1;
			strbuf_release(&msg);
			strbuf_release(&s);
			return ret;
		} else {
			ret = cix_error(err, -CIX_EFORMAT, "unknown message %#llx from the daemon",
					(unsigned long long)code);
			break;
		}
	}
	if (ret < 0 && ret != -CIX_EMISMATCH)
		r->broken = 1;
	strbuf_release(&s);
	return ret;
}

/* Did ret (of a read or write) come from the daemon's end closing? */
static int closed_by_daemon(const struct cix_remote *r, int ret)
{
	return r->w.eof || ret == -EPIPE || ret == -ECONNRESET;
}

/* read_frames, and a daemon gone in the middle said in words a user understands. */
static int process_stderr(struct cix_remote *r, struct cix_err *err)
{
	int ret = read_frames(r, err);
	if (ret < 0 && ret != -CIX_EMISMATCH && closed_by_daemon(r, ret))
		ret = cix_error(err, -EPIPE, "the daemon closed the connection");
	return ret;
}

/*
 * A write failed (ret): when the daemon closed its end, it may have said
 * why first (a refusal, a request too large): that, else that it closed.
 */
static int write_failed(struct cix_remote *r, int ret, struct cix_err *err)
{
	r->broken = 1;
	if (!closed_by_daemon(r, ret))
		return ret;
	struct cix_err said = { 0 };
	if (process_stderr(r, &said) == -CIX_EMISMATCH) {
		*err = said;
		return -CIX_EMISMATCH;
	}
	return cix_error(err, -EPIPE, "the daemon closed the connection");
}

int cix_remote_call(struct cix_remote *r, struct cix_err *err)
{
	int ret;
	if (r->broken)
		return cix_error(err, -EPIPE, "the connection to the daemon is broken");
	if ((ret = cix_wire_flush(&r->w, err)) < 0)
		return write_failed(r, ret, err);
	return process_stderr(r, err);
}

int cix_remote_connect(const char *socket_path, struct cix_err *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(socket_path) >= sizeof(addr.sun_path))
		return cix_error(err, -ENAMETOOLONG, "socket path '%s' is too long", socket_path);
	strcpy(addr.sun_path, socket_path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return cix_error_errno(err, -errno, "cannot create a socket");
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = cix_error_errno(err, -errno, "cannot connect to the daemon at '%s'", socket_path);
		close(fd);
		return ret;
	}
	return fd;
}

int cix_remote_open(const char *socket_path, struct cix_remote **out, struct cix_err *err)
{
	int fd = cix_remote_connect(socket_path, err);
	return fd < 0 ? fd : cix_remote_open_fd(fd, socket_path, 0, out, err);
}

int cix_remote_open_fd(int fd, const char *name, int timeout_ms, struct cix_remote **out,
		       struct cix_err *err)
{
	struct cix_remote *r;
	uint64_t magic, version;
	int ret;

	r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->log_fd = 2;
	cix_wire_init(&r->w, fd);
	r->w.timeout_ms = timeout_ms;
	cix_wire_write_u64(&r->w, CIX_WORKER_MAGIC_1);
	if ((ret = cix_wire_flush(&r->w, err)) < 0 ||
	    (ret = cix_wire_read_u64(&r->w, &magic, err)) < 0) {
		if (closed_by_daemon(r, ret))
			ret = cix_error(err, -EPIPE, "the daemon closed the connection");
		goto fail;
	}
	if (magic != CIX_WORKER_MAGIC_2) {
		ret = cix_error(err, -CIX_EFORMAT, "'%s' does not speak the worker protocol", name);
		goto fail;
	}
	if ((ret = cix_wire_read_u64(&r->w, &version, err)) < 0)
		goto fail;
	if (CIX_PROTOCOL_MAJOR(version) != CIX_PROTOCOL_MAJOR(CIX_PROTOCOL_VERSION) ||
	    CIX_PROTOCOL_MINOR(version) < OLDEST_DAEMON_MINOR) {
		ret = cix_error(err, -CIX_EUNSUPPORTED, "the daemon's protocol version %#llx is too old",
				(unsigned long long)version);
		goto fail;
	}
	r->minor = CIX_PROTOCOL_MINOR(version) < CIX_PROTOCOL_MINOR(CIX_PROTOCOL_VERSION)
		   ? CIX_PROTOCOL_MINOR(version) : CIX_PROTOCOL_MINOR(CIX_PROTOCOL_VERSION);
	cix_wire_write_u64(&r->w, CIX_PROTOCOL_VERSION);
	cix_wire_write_u64(&r->w, 0);   /* no CPU affinity */
	cix_wire_write_u64(&r->w, 0);   /* reserveSpace */
	if ((ret = cix_wire_flush(&r->w, err)) < 0)
		goto fail;
	if (r->minor >= 33) {
		struct strbuf v = STRBUF_INIT;
		ret = cix_wire_read_string(&r->w, &v, 256, err);
		strbuf_release(&v);
		if (ret < 0)
			goto fail;
	}
	if ((ret = process_stderr(r, err)) < 0)
		goto fail;
	r->w.timeout_ms = 0;   /* a build may keep the daemon quiet for long */
	*out = r;
	return 0;
fail:
	cix_remote_close(r);
	return ret;
}

void cix_remote_close(struct cix_remote *r)
{
	if (!r)
		return;
	cix_wire_release(&r->w);
	close(r->fd);
	free(r);
}

int cix_remote_is_valid(struct cix_remote *r, const char *path, struct cix_err *err)
{
	uint64_t v;
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_IS_VALID_PATH);
	cix_wire_write_str(&r->w, path);
	if ((ret = cix_remote_call(r, err)) < 0 || (ret = cix_wire_read_u64(&r->w, &v, err)) < 0)
		return ret;
	return v != 0;
}

static int read_info(struct cix_remote *r, struct cix_path_info *info, struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT;
	struct strvec refs = STRVEC_INIT, sigs = STRVEC_INIT;
	uint64_t t;
	int ret, ultimate;
	if ((ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_PATH, err)) < 0)
		goto out;
	info->deriver = s.len ? xstrdup(s.buf) : NULL;
	if ((ret = cix_wire_read_string(&r->w, &s, 128, err)) < 0)
		goto out;
	info->nar_hash.algo = CIX_HASH_SHA256;
	info->nar_hash.len = 32;
	if (cix_base16_decode(s.buf, s.len, info->nar_hash.bytes, 32) != 32) {
		ret = cix_error(err, -CIX_EFORMAT, "bad NAR hash from the daemon");
		goto out;
	}
	if ((ret = cix_wire_read_strings(&r->w, &refs, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, err)) < 0 ||
	    (ret = cix_wire_read_u64(&r->w, &t, err)) < 0)
		goto out;
	info->reg_time = (int64_t)t;
	if ((ret = cix_wire_read_u64(&r->w, &info->nar_size, err)) < 0 ||
	    (ret = cix_wire_read_bool(&r->w, &ultimate, err)) < 0 ||
	    (ret = cix_wire_read_strings(&r->w, &sigs, 1024, 4096, err)) < 0 ||
	    (ret = cix_wire_read_string(&r->w, &s, 1024, err)) < 0)
		goto out;
	info->ca = s.len ? xstrdup(s.buf) : NULL;
	info->ultimate = ultimate;
	info->refs = refs.v ? refs.v : xcalloc(1, sizeof(char *));
	info->nr_refs = refs.nr;
	refs = (struct strvec)STRVEC_INIT;
	if (sigs.nr) {
		struct strbuf j = STRBUF_INIT;
		for (size_t i = 0; i < sigs.nr; i++)
			strbuf_addf(&j, "%s%s", i ? " " : "", sigs.v[i]);
		info->sigs = strbuf_detach(&j, NULL);
	}
out:
	strbuf_release(&s);
	strvec_clear(&refs);
	strvec_clear(&sigs);
	return ret;
}

int cix_remote_query(struct cix_remote *r, const char *path, struct cix_path_info *info,
		     struct cix_err *err)
{
	uint64_t found;
	int ret;
	memset(info, 0, sizeof(*info));
	cix_wire_write_u64(&r->w, CIX_OP_QUERY_PATH_INFO);
	cix_wire_write_str(&r->w, path);
	if ((ret = cix_remote_call(r, err)) < 0 || (ret = cix_wire_read_u64(&r->w, &found, err)) < 0)
		return ret;
	if (!found)
		return cix_error(err, -CIX_ENOTFOUND, "path '%s' is not valid", path);
	info->path = xstrdup(path);
	if ((ret = read_info(r, info, err)) < 0) {
		r->broken = 1;
		cix_path_info_release(info);
		memset(info, 0, sizeof(*info));
	}
	return ret;
}

int cix_remote_list(struct cix_remote *r, enum cix_worker_op op, const char *path,
		    cix_path_fn fn, void *opaque, struct cix_err *err)
{
	struct strvec out = STRVEC_INIT;
	int ret;
	cix_wire_write_u64(&r->w, op);
	cix_wire_write_str(&r->w, path);
	if ((ret = cix_remote_call(r, err)) == 0 &&
	    (ret = cix_wire_read_strings(&r->w, &out, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, err)) == 0)
		for (size_t i = 0; !ret && i < out.nr; i++)
			ret = fn(out.v[i], opaque);
	strvec_clear(&out);
	return ret;
}

/* ---- Adding ---- */

/*
 * Frames of data, as the daemon reads them (u64 length, bytes, no
 * padding). A failed write is kept in send_err, for data_sent.
 */
static int frame_sink(void *opaque, const void *data, size_t len)
{
	struct cix_remote *r = opaque;
	if (!len)
		return 0;
	cix_wire_write_u64(&r->w, len);
	cix_wire_write(&r->w, data, len);
	if (r->w.wbuf.len >= 65536 && (r->send_err = cix_wire_flush(&r->w, NULL)) < 0)
		return r->send_err;
	return 0;
}

/*
 * After frames were sent (ret: how that went): a failed write is the
 * daemon's doing, said as such; any other failure leaves the daemon
 * waiting for the rest of the frames, which it cannot be told.
 */
static int data_sent(struct cix_remote *r, int ret, struct cix_err *err)
{
	if (ret >= 0)
		return ret;
	if (r->send_err < 0) {
		ret = r->send_err;
		r->send_err = 0;
		return write_failed(r, ret, err);
	}
	r->broken = 1;
	return ret;
}

static int send_file(struct cix_remote *r, const char *src, struct cix_err *err)
{
	char buf[65536];
	int fd = open(src, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n;
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open '%s'", src);
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && (ret = frame_sink(r, buf, (size_t)n)) < 0)
			break;
	if (n < 0)
		ret = cix_error_errno(err, -errno, "cannot read '%s'", src);
	close(fd);
	return ret;
}

/* AddToStore (1.25+): the last frame sent; the reply is the path and its info. */
static int add_reply(struct cix_remote *r, struct strbuf *out, struct cix_err *err)
{
	struct strbuf path = STRBUF_INIT;
	struct cix_path_info info = { 0 };
	int ret;
	cix_wire_write_u64(&r->w, 0);   /* the last frame */
	if ((ret = cix_remote_call(r, err)) >= 0 &&
	    (ret = cix_wire_read_string(&r->w, &path, CIX_WIRE_MAX_PATH, err)) >= 0 &&
	    (ret = read_info(r, &info, err)) >= 0)
		strbuf_addstr(out, path.buf);
	cix_path_info_release(&info);
	strbuf_release(&path);
	return ret;
}

int cix_remote_add(struct cix_remote *r, const char *src, const char *name,
		   enum cix_add_method method, enum cix_hash_algo algo, struct strbuf *out,
		   struct cix_err *err)
{
	struct strbuf m = STRBUF_INIT;
	int ret;

	if (method == CIX_ADD_FLAT) {
		struct stat st;
		if (stat(src, &st) < 0)
			return cix_error_errno(err, -errno, "cannot stat '%s'", src);
		if (!S_ISREG(st.st_mode))
			return cix_error(err, -CIX_EINVAL, "'%s' is not a regular file", src);
	}
	strbuf_addf(&m, "%s%s", method == CIX_ADD_TEXT ? "text:" :
				method == CIX_ADD_RECURSIVE ? "fixed:r:" : "fixed:",
		    cix_hash_algo_name(algo));
	cix_wire_write_u64(&r->w, CIX_OP_ADD_TO_STORE);
	cix_wire_write_str(&r->w, name);
	cix_wire_write_str(&r->w, m.buf);
	cix_wire_write_u64(&r->w, 0);   /* references */
	cix_wire_write_u64(&r->w, 0);   /* repair */
	ret = method == CIX_ADD_RECURSIVE ? cix_nar_dump(src, frame_sink, r, err)
					  : send_file(r, src, err);
	if ((ret = data_sent(r, ret, err)) >= 0)
		ret = add_reply(r, out, err);
	strbuf_release(&m);
	return ret;
}

int cix_remote_add_text(struct cix_remote *r, const char *name, const void *text, size_t len,
			const char *const *refs, size_t nr_refs, struct strbuf *out,
			struct cix_err *err)
{
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_ADD_TO_STORE);
	cix_wire_write_str(&r->w, name);
	cix_wire_write_str(&r->w, "text:sha256");
	cix_wire_write_strings(&r->w, refs, nr_refs);
	cix_wire_write_u64(&r->w, 0);   /* repair */
	if (len && (ret = data_sent(r, frame_sink(r, text, len), err)) < 0)
		return ret;
	return add_reply(r, out, err);
}

/* Frames of the NAR that src gives, read to its end. */
static int send_source(struct cix_remote *r, cix_source_fn src, void *opaque, struct cix_err *err)
{
	char buf[65536];
	ssize_t n;
	int ret;
	while ((n = src(opaque, buf, sizeof(buf))) > 0)
		if ((ret = frame_sink(r, buf, (size_t)n)) < 0)
			return ret;
	return n < 0 ? cix_error(err, (int)n, "cannot read the NAR to send") : 0;
}

/*
 * A ValidPathInfo (Nix's format 16): path, deriver, NAR hash (base16),
 * references, registration time, NAR size, ultimate, signatures, content
 * address.
 */
static void enc_info(struct strbuf *b, const struct cix_path_info *info)
{
	struct strbuf h = STRBUF_INIT;
	struct strvec sigs = STRVEC_INIT;
	cix_base16_encode(&h, info->nar_hash.bytes, info->nar_hash.len);
	if (info->sigs)
		strvec_split(&sigs, info->sigs, " ");
	cix_wire_encode_str(b, info->path);
	cix_wire_encode_str(b, info->deriver);
	cix_wire_encode_str(b, h.buf);
	cix_wire_encode_u64(b, info->nr_refs);
	for (size_t i = 0; i < info->nr_refs; i++)
		cix_wire_encode_str(b, info->refs[i]);
	cix_wire_encode_u64(b, (uint64_t)info->reg_time);
	cix_wire_encode_u64(b, info->nar_size);
	cix_wire_encode_u64(b, 0);   /* ultimate */
	cix_wire_encode_u64(b, sigs.nr);
	for (size_t i = 0; i < sigs.nr; i++)
		cix_wire_encode_str(b, sigs.v[i]);
	cix_wire_encode_str(b, info->ca);
	strvec_clear(&sigs);
	strbuf_release(&h);
}

/* The NAR of in, as frames. */
static int send_nar(struct cix_remote *r, const struct cix_nar_input *in, struct cix_err *err)
{
	return in->fs_path ? cix_nar_dump(in->fs_path, frame_sink, r, err)
			   : send_source(r, in->src, in->opaque, err);
}

int cix_remote_add_nar(struct cix_remote *r, const struct cix_path_info *info,
		       const struct cix_nar_input *in, struct cix_err *err)
{
	struct strbuf b = STRBUF_INIT;
	int ret;
	enc_info(&b, info);
	cix_wire_write_u64(&r->w, CIX_OP_ADD_TO_STORE_NAR);
	cix_wire_write(&r->w, b.buf, b.len);
	strbuf_release(&b);
	cix_wire_write_u64(&r->w, 0);   /* repair */
	cix_wire_write_u64(&r->w, 1);   /* dontCheckSigs (the daemon decides) */
	if ((ret = data_sent(r, send_nar(r, in, err), err)) < 0)
		return ret;
	cix_wire_write_u64(&r->w, 0);
	return cix_remote_call(r, err);
}

int cix_remote_add_multiple(struct cix_remote *r, struct cix_path_info *infos, size_t n,
			    const struct cix_nar_provider *np, struct cix_err *err)
{
	struct strbuf b = STRBUF_INIT;
	int ret = 0;
	cix_wire_write_u64(&r->w, CIX_OP_ADD_MULTIPLE_TO_STORE);
	cix_wire_write_u64(&r->w, 0);   /* repair */
	cix_wire_write_u64(&r->w, 1);   /* dontCheckSigs (the daemon decides) */
	cix_wire_encode_u64(&b, n);
	for (size_t i = 0; ret >= 0 && i < n; i++) {
		struct cix_nar_input in = { 0 };
		enc_info(&b, &infos[i]);
		ret = frame_sink(r, b.buf, b.len);
		strbuf_reset(&b);
		if (ret < 0 || (ret = np->open(np->opaque, i, &in, err)) < 0)
			break;
		ret = send_nar(r, &in, err);
		np->close(np->opaque, i);
		if (r->send_err < 0)
			ret = r->send_err;
	}
	strbuf_release(&b);
	if ((ret = data_sent(r, ret, err)) < 0)
		return ret;
	cix_wire_write_u64(&r->w, 0);
	return cix_remote_call(r, err);
}

int cix_remote_valid_paths(struct cix_remote *r, const char *const *paths, size_t n,
			   struct strvec *valid, struct cix_err *err)
{
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_QUERY_VALID_PATHS);
	cix_wire_write_strings(&r->w, paths, n);
	if (r->minor >= 27)
		cix_wire_write_u64(&r->w, 0);   /* substitute: no */
	if ((ret = cix_remote_call(r, err)) == 0 &&
	    (ret = cix_wire_read_strings(&r->w, valid, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH, err)) < 0)
		r->broken = 1;
	return ret;
}

/* The raw NAR that follows LAST: read exactly one, and pass it on. */
struct nar_tee {
	struct cix_wire_source src;
	cix_sink_fn sink;
	void *opaque;
	int sink_err;
};

static ssize_t tee_read(void *opaque, void *buf, size_t len)
{
	struct nar_tee *t = opaque;
	ssize_t n = cix_wire_source_read(&t->src, buf, len);
	if (n > 0 && !t->sink_err && (t->sink_err = t->sink(t->opaque, buf, (size_t)n)) < 0)
		return t->sink_err;
	return n;
}

int cix_remote_nar(struct cix_remote *r, const char *path, cix_sink_fn sink, void *opaque,
		   struct cix_err *err)
{
	struct nar_tee t = { CIX_WIRE_SOURCE_INIT(&r->w), sink, opaque, 0 };
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_NAR_FROM_PATH);
	cix_wire_write_str(&r->w, path);
	if ((ret = cix_remote_call(r, err)) < 0)
		return ret;
	/* The NAR's own structure says where it ends. */
	ret = cix_nar_check(tee_read, &t, NULL, NULL, err);
	if (ret < 0)
		r->broken = 1;
	return ret;
}

int cix_remote_nar_begin(struct cix_remote *r, const char *path, uint64_t nar_size,
			 struct cix_remote_nar *rn, struct cix_err *err)
{
	*rn = (struct cix_remote_nar){ r, CIX_WIRE_SOURCE_INIT(&r->w), nar_size };
	cix_wire_write_u64(&r->w, CIX_OP_NAR_FROM_PATH);
	cix_wire_write_str(&r->w, path);
	return cix_remote_call(r, err);
}

ssize_t cix_remote_nar_read(void *opaque, void *buf, size_t len)
{
	struct cix_remote_nar *rn = opaque;
	ssize_t n;
	if (!rn->left)
		return 0;
	n = cix_wire_source_read(&rn->src, buf, len < rn->left ? len : (size_t)rn->left);
	if (n == 0)
		return -EPIPE;   /* the NAR is shorter than its size */
	if (n > 0)
		rn->left -= (uint64_t)n;
	return n;
}

void cix_remote_nar_end(struct cix_remote_nar *rn)
{
	if (rn->left)
		rn->r->broken = 1;   /* the rest of the NAR is still on its way */
}

/* ---- Builds and upkeep ---- */

static int set_options(struct cix_remote *r, const struct cix_build_opts *o, struct cix_err *err)
{
	cix_wire_write_u64(&r->w, CIX_OP_SET_OPTIONS);
	cix_wire_write_u64(&r->w, (uint64_t)o->keep_failed);
	cix_wire_write_u64(&r->w, (uint64_t)o->keep_going);
	cix_wire_write_u64(&r->w, (uint64_t)o->fallback);
	cix_wire_write_u64(&r->w, 3);             /* verbosity: info */
	cix_wire_write_u64(&r->w, o->no_build ? 0 : o->max_jobs ? o->max_jobs : 1);
	cix_wire_write_u64(&r->w, o->max_silent);
	cix_wire_write_u64(&r->w, 1);             /* obsolete useBuildHook */
	cix_wire_write_u64(&r->w, 0);             /* verboseBuild */
	cix_wire_write_u64(&r->w, 0);             /* obsolete logType */
	cix_wire_write_u64(&r->w, 0);             /* obsolete printBuildTrace */
	cix_wire_write_u64(&r->w, o->cores);
	cix_wire_write_u64(&r->w, !o->no_substitutes);
	/* what the fixed fields cannot say, by name */
	char t[32], l[32];
	snprintf(t, sizeof(t), "%u", o->timeout);
	snprintf(l, sizeof(l), "%llu", o->max_log);
	cix_wire_write_u64(&r->w, 2 + !!o->substitute_urls + !!o->builders);
	cix_wire_write_str(&r->w, "timeout");
	cix_wire_write_str(&r->w, t);
	cix_wire_write_str(&r->w, "max-build-log-size");
	cix_wire_write_str(&r->w, l);
	if (o->substitute_urls) {
		cix_wire_write_str(&r->w, "substituters");
		cix_wire_write_str(&r->w, o->substitute_urls);
	}
	if (o->builders) {
		cix_wire_write_str(&r->w, "builders");
		cix_wire_write_str(&r->w, o->builders);
	}
	return cix_remote_call(r, err);
}

/*
 * The call of a build, which may be silent as long as the build may (its
 * own max-silent-time is the daemon's to enforce): no time limit then.
 */
static int call_build(struct cix_remote *r, struct cix_err *err)
{
	int limit = r->w.timeout_ms, ret;
	r->w.timeout_ms = 0;
	ret = cix_remote_call(r, err);
	r->w.timeout_ms = limit;
	return ret;
}

/* The DerivedPaths DRV!* of every derivation. */
static void write_targets(struct cix_remote *r, const char *const *drvs, size_t n)
{
	cix_wire_write_u64(&r->w, n);
	for (size_t i = 0; i < n; i++) {
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "%s!*", drvs[i]);
		cix_wire_write_str(&r->w, t.buf);
		strbuf_release(&t);
	}
}

int cix_remote_query_missing(struct cix_remote *r, const char *const *drvs, size_t n,
			     const struct cix_build_opts *opts, struct cix_build_missing *m,
			     struct cix_err *err)
{
	struct strvec unknown = STRVEC_INIT;
	int ret;
	if ((ret = set_options(r, opts, err)) < 0)
		return ret;
	cix_wire_write_u64(&r->w, CIX_OP_QUERY_MISSING);
	write_targets(r, drvs, n);
	if ((ret = cix_remote_call(r, err)) < 0 ||
	    (ret = cix_wire_read_strings(&r->w, &m->builds, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH,
					 err)) < 0 ||
	    (ret = cix_wire_read_strings(&r->w, &m->fetches, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH,
					 err)) < 0 ||
	    (ret = cix_wire_read_strings(&r->w, &unknown, CIX_WIRE_MAX_LIST, CIX_WIRE_MAX_PATH,
					 err)) < 0 ||
	    (ret = cix_wire_read_u64(&r->w, &m->download_size, err)) < 0 ||
	    (ret = cix_wire_read_u64(&r->w, &m->nar_size, err)) < 0)
		r->broken = 1;
	strvec_clear(&unknown);
	return ret < 0 ? ret : 0;
}

/* n BuildResults; the first failure becomes the error (104: not deterministic). */
static int read_build_results(struct cix_remote *r, size_t n, struct cix_err *err)
{
	struct strbuf s = STRBUF_INIT, msg = STRBUF_INIT;
	uint64_t count, status, x;
	int ret, failed = 0;
	if ((ret = cix_wire_read_u64(&r->w, &count, err)) < 0)
		goto out;
	if (count > CIX_WIRE_MAX_LIST) {
		ret = cix_error(err, -CIX_EFORMAT, "too many build results");
		goto out;
	}
	for (uint64_t i = 0; i < count; i++) {
		if ((ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_PATH + 1024, err)) < 0 ||
		    (ret = cix_wire_read_u64(&r->w, &status, err)) < 0 ||
		    (ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_STRING, err)) < 0)
			goto out;
		if (status > 2 && !failed) {
			failed = 1;
			ret = cix_error(err, status == 12 ? -CIX_ENONDET :
					     status == 8 ? -ETIMEDOUT : -CIX_EBUILD, "%s", s.buf);
		}
		for (int k = 0; k < 4; k++)   /* timesBuilt, nonDet, start, stop */
			if ((ret = cix_wire_read_u64(&r->w, &x, err)) < 0)
				goto out;
		uint64_t outs;
		if ((ret = cix_wire_read_u64(&r->w, &outs, err)) < 0)
			goto out;
		for (uint64_t k = 0; k < 2 * outs && k < 2 * CIX_WIRE_MAX_LIST; k++)
			if ((ret = cix_wire_read_string(&r->w, &s, CIX_WIRE_MAX_STRING, err)) < 0)
				goto out;
	}
	ret = failed ? err->code : 0;
out:
	if (ret < 0 && !failed)
		r->broken = 1;
	strbuf_release(&s);
	strbuf_release(&msg);
	(void)n;
	return ret;
}

int cix_remote_build(struct cix_remote *r, const char *const *drvs, size_t n,
		     const struct cix_build_opts *opts, struct cix_err *err)
{
	uint64_t one;
	int ret;
	if (!n)
		return 0;
	if ((ret = set_options(r, opts, err)) < 0)
		return ret;
	/* BuildPathsWithResults: a result per target says how it went. */
	cix_wire_write_u64(&r->w, r->minor >= 34 ? CIX_OP_BUILD_PATHS_WITH_RESULTS : CIX_OP_BUILD_PATHS);
	write_targets(r, drvs, n);
	cix_wire_write_u64(&r->w, opts->check ? 2 : 0);
	if ((ret = call_build(r, err)) < 0)
		return ret;
	if (r->minor < 34)
		return cix_wire_read_u64(&r->w, &one, err);
	return read_build_results(r, n, err);
}

/* A BasicDerivation: drv without its input derivations, whose outputs are among inputs. */
static void write_basic_drv(struct cix_remote *r, const struct cix_drv *drv,
			    const char *const *inputs, size_t nr_inputs)
{
	cix_wire_write_u64(&r->w, drv->nr_outputs);
	for (size_t i = 0; i < drv->nr_outputs; i++) {
		cix_wire_write_str(&r->w, drv->outputs[i].name);
		cix_wire_write_str(&r->w, drv->outputs[i].path);
		cix_wire_write_str(&r->w, drv->outputs[i].hash_algo);
		cix_wire_write_str(&r->w, drv->outputs[i].hash);
	}
	cix_wire_write_strings(&r->w, inputs, nr_inputs);
	cix_wire_write_str(&r->w, drv->platform);
	cix_wire_write_str(&r->w, drv->builder);
	cix_wire_write_strings(&r->w, (const char *const *)drv->args, drv->nr_args);
	cix_wire_write_u64(&r->w, drv->nr_env);
	for (size_t i = 0; i < drv->nr_env; i++) {
		cix_wire_write_str(&r->w, drv->env[i].key);
		cix_wire_write_str(&r->w, drv->env[i].value);
	}
}

int cix_remote_build_derivation(struct cix_remote *r, const char *drv_path,
				const struct cix_drv *drv, const char *const *inputs,
				size_t nr_inputs, const struct cix_build_opts *opts,
				struct cix_err *err)
{
	struct strbuf msg = STRBUF_INIT;
	uint64_t status, x;
	int ret;
	if ((ret = set_options(r, opts, err)) < 0)
		return ret;
	cix_wire_write_u64(&r->w, CIX_OP_BUILD_DERIVATION);
	cix_wire_write_str(&r->w, drv_path);
	write_basic_drv(r, drv, inputs, nr_inputs);
	cix_wire_write_u64(&r->w, opts->check ? 2 : 0);
	if ((ret = call_build(r, err)) < 0)
		return ret;
	if ((ret = cix_wire_read_u64(&r->w, &status, err)) < 0 ||
	    (ret = cix_wire_read_string(&r->w, &msg, CIX_WIRE_MAX_STRING, err)) < 0)
		goto out;
	for (int k = 0; r->minor >= 29 && k < 4; k++)   /* timesBuilt, nonDet, start, stop */
		if ((ret = cix_wire_read_u64(&r->w, &x, err)) < 0)
			goto out;
	if (r->minor >= 28) {
		uint64_t n;
		if ((ret = cix_wire_read_u64(&r->w, &n, err)) == 0 && n > CIX_WIRE_MAX_LIST)
			ret = cix_error(err, -CIX_EFORMAT, "too many built outputs");
		for (uint64_t k = 0; !ret && k < 2 * n; k++)
			ret = cix_wire_read_string(&r->w, &msg, CIX_WIRE_MAX_STRING, err);
		if (ret < 0)
			goto out;
	}
	if (status > 2)
		ret = cix_error(err, status == 12 ? -CIX_ENONDET : status == 8 ? -ETIMEDOUT
				   : -CIX_EBUILD, "%s", msg.len ? msg.buf : "the build failed");
out:
	if (ret < 0 && ret != -CIX_EBUILD && ret != -CIX_ENONDET && ret != -ETIMEDOUT)
		r->broken = 1;
	strbuf_release(&msg);
	return ret;
}

int cix_remote_verify(struct cix_remote *r, int check_contents, int repair, int *errors,
		      struct cix_err *err)
{
	uint64_t v;
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_VERIFY_STORE);
	cix_wire_write_u64(&r->w, (uint64_t)!!check_contents);
	cix_wire_write_u64(&r->w, (uint64_t)!!repair);
	if ((ret = cix_remote_call(r, err)) < 0 || (ret = cix_wire_read_u64(&r->w, &v, err)) < 0)
		return ret;
	*errors = v != 0;
	return 0;
}

int cix_remote_optimise(struct cix_remote *r, struct cix_err *err)
{
	uint64_t v;
	int ret;
	cix_wire_write_u64(&r->w, CIX_OP_OPTIMISE_STORE);
	if ((ret = cix_remote_call(r, err)) < 0)
		return ret;
	return cix_wire_read_u64(&r->w, &v, err);
}
