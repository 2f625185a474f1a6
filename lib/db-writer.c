/* db-writer.c - the queue of a database's writers, in shared memory */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "db-writer.h"
#include "err.h"

#include <pthread.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WRITER_MAGIC UINT64_C(0x6369782d77720004)   /* "cix-wr", layout 4 */
#define NR_SLOTS 128
#define HEADER_SIZE 4096
#define SLOT_SIZE 16384
#define MAP_SIZE (HEADER_SIZE + (size_t)NR_SLOTS * SLOT_SIZE)
/*
 * Slot i is owned through an OFD lock on byte LOCK_BASE + i (past the
 * data); the committer holds one on LOCK_BASE - 1.
 */
#define LOCK_BASE ((off_t)1 << 40)
#define COMMITTER_LOCK (LOCK_BASE - 1)

enum { SLOT_FREE, SLOT_PENDING, SLOT_DONE };

struct header {
	uint64_t magic;
	char boot_id[40];
	pthread_mutex_t mutex;
	uint32_t submitted;          /* futex: requests queued so far */
	uint32_t committer_asleep;   /* the committer waits on submitted */
	uint32_t committer;          /* a committer serves the queue */
};

struct slot {
	uint32_t state;              /* futex, for its owner */
	uint32_t len;
	int32_t code;
	uint32_t waiting;            /* its owner waits on state */
	char msg[CIX_ERR_MSG_MAX];
	unsigned char data[];
};

_Static_assert(sizeof(struct header) <= HEADER_SIZE, "header too large");
_Static_assert(sizeof(struct slot) + CIX_WRITER_DATA_MAX <= SLOT_SIZE, "slot too small");

struct cix_writer {
	int fd;
	unsigned char *map;
	int slot;            /* ours; -1 not claimed yet, -2 none was free */
};

static struct header *header(struct cix_writer *w)
{
	return (struct header *)w->map;
}

static struct slot *slot_at(struct cix_writer *w, int i)
{
	return (struct slot *)(w->map + HEADER_SIZE + (size_t)i * SLOT_SIZE);
}

/* The futex words are in a shared file mapping: not FUTEX_PRIVATE_FLAG. */
static void futex_wait(uint32_t *word, uint32_t val, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static int ofd_lock(struct cix_writer *w, off_t byte, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
	return fcntl(w->fd, F_OFD_SETLK, &fl);
}

static void read_boot_id(char id[40])
{
	memset(id, 0, 40);
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, id, 39) < 0)
			id[0] = '\0';
		close(fd);
	}
}

/* Under the file's flock: make it ready for this boot. */
static int set_up(struct cix_writer *w)
{
	struct header *h = header(w);
	char boot[40];
	pthread_mutexattr_t a;
	int r;

	read_boot_id(boot);
	if (h->magic == WRITER_MAGIC && !memcmp(h->boot_id, boot, sizeof(boot)))
		return 0;
	/* Requests of an earlier boot may name files lost with it: dropped. */
	for (int i = 0; i < NR_SLOTS; i++)
		if (slot_at(w, i)->state != SLOT_FREE)
			slot_at(w, i)->state = SLOT_FREE;
	h->submitted = h->committer_asleep = h->committer = 0;
	if (pthread_mutexattr_init(&a))
		return -1;
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(&h->mutex, &a);
	pthread_mutexattr_destroy(&a);
	if (r)
		return -1;
	memcpy(h->boot_id, boot, sizeof(boot));
	__atomic_store_n(&h->magic, WRITER_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

struct cix_writer *cix_writer_open(const char *path)
{
	struct cix_writer *w = xcalloc(1, sizeof(*w));
	struct stat st;

	w->slot = -1;
	w->map = MAP_FAILED;
	/* (O_NONBLOCK: a FIFO put there would not hang the open) */
	if ((w->fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600)) < 0)
		goto fail;
	while (flock(w->fd, LOCK_EX) < 0)
		if (errno != EINTR)
			goto fail;
	/*
	 * Every block of the file allocated, not a sparse file: a store on a
	 * full disk must not turn a write to the mapping into SIGBUS (without
	 * the file, SQLite's locks serve alone).
	 */
	if (fstat(w->fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto fail;
	/* (once allocated, it stays so: no call per opening, ~0.1 ms each) */
	if ((st.st_size < (off_t)MAP_SIZE || (uint64_t)st.st_blocks * 512 < MAP_SIZE) &&
	    posix_fallocate(w->fd, 0, (off_t)MAP_SIZE) != 0)
		goto fail;
	w->map = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
	if (w->map == MAP_FAILED || set_up(w) < 0)
		goto fail;
	flock(w->fd, LOCK_UN);
	return w;
fail:
	cix_writer_close(w);
	return NULL;
}

void cix_writer_close(struct cix_writer *w)
{
	if (!w)
		return;
	if (w->slot >= 0)
		__atomic_store_n(&slot_at(w, w->slot)->state, SLOT_FREE, __ATOMIC_RELEASE);
	if (w->map != MAP_FAILED)
		munmap(w->map, MAP_SIZE);
	if (w->fd >= 0)
		close(w->fd);   /* and with it the slot's lock */
	free(w);
}

void cix_writer_lock(struct cix_writer *w)
{
	if (w && pthread_mutex_lock(&header(w)->mutex) == EOWNERDEAD)
		pthread_mutex_consistent(&header(w)->mutex);
}

void cix_writer_unlock(struct cix_writer *w)
{
	if (w)
		pthread_mutex_unlock(&header(w)->mutex);
}

static int claim_slot(struct cix_writer *w)
{
	int start = (int)(getpid() % NR_SLOTS);
	for (int k = 0; k < NR_SLOTS; k++) {
		int i = (start + k) % NR_SLOTS;
		if (ofd_lock(w, LOCK_BASE + i, F_WRLCK) < 0)
			continue;
		/* Its owner died with a request waiting: left to a committer. */
		if (__atomic_load_n(&slot_at(w, i)->state, __ATOMIC_ACQUIRE) == SLOT_PENDING) {
			ofd_lock(w, LOCK_BASE + i, F_UNLCK);
			continue;
		}
		slot_at(w, i)->state = SLOT_FREE;
		return w->slot = i;
	}
	return w->slot = -2;
}

int cix_writer_submit(struct cix_writer *w, const void *data, size_t len)
{
	if (!w || len > CIX_WRITER_DATA_MAX || w->slot == -2 ||
	    (w->slot == -1 && claim_slot(w) < 0))
		return -1;
	struct slot *s = slot_at(w, w->slot);
	memcpy(s->data, data, len);
	s->len = (uint32_t)len;
	s->code = 0;
	s->msg[0] = '\0';
	s->waiting = 0;
	__atomic_store_n(&s->state, SLOT_PENDING, __ATOMIC_SEQ_CST);
	struct header *h = header(w);
	__atomic_add_fetch(&h->submitted, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&h->committer_asleep, __ATOMIC_SEQ_CST))
		futex_wake(&h->submitted);
	return 0;
}

int cix_writer_next(struct cix_writer *w, int *cursor, void *buf, size_t *len)
{
	for (int i = *cursor; w && i < NR_SLOTS; i++) {
		struct slot *s = slot_at(w, i);
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_PENDING)
			continue;
		*len = s->len <= CIX_WRITER_DATA_MAX ? s->len : 0;
		memcpy(buf, s->data, *len);
		*cursor = i + 1;
		return i;
	}
	return -1;
}

void cix_writer_done(struct cix_writer *w, int slot, int code, const char *msg)
{
	struct slot *s = slot_at(w, slot);
	s->code = code;
	snprintf(s->msg, sizeof(s->msg), "%s", msg ? msg : "");
	__atomic_store_n(&s->state, SLOT_DONE, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->waiting, __ATOMIC_SEQ_CST))
		futex_wake(&s->state);
}

int cix_writer_serve(struct cix_writer *w)
{
	if (!w || ofd_lock(w, COMMITTER_LOCK, F_WRLCK) < 0)
		return -1;
	__atomic_store_n(&header(w)->committer, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void cix_writer_unserve(struct cix_writer *w)
{
	__atomic_store_n(&header(w)->committer, 0, __ATOMIC_SEQ_CST);
	ofd_lock(w, COMMITTER_LOCK, F_UNLCK);
}

uint32_t cix_writer_submitted(struct cix_writer *w)
{
	/* (Said again each round: a submitter may have thought it gone.) */
	__atomic_store_n(&header(w)->committer, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&header(w)->submitted, __ATOMIC_SEQ_CST);
}

void cix_writer_wait_submit(struct cix_writer *w, uint32_t seen, int timeout_ms)
{
	struct header *h = header(w);
	__atomic_store_n(&h->committer_asleep, 1, __ATOMIC_SEQ_CST);
	futex_wait(&h->submitted, seen, timeout_ms);
	__atomic_store_n(&h->committer_asleep, 0, __ATOMIC_SEQ_CST);
}

/* No process holds the committer's lock: it is gone. */
static int committer_gone(struct cix_writer *w)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = COMMITTER_LOCK, .l_len = 1,
	};
	return fcntl(w->fd, F_OFD_GETLK, &fl) == 0 && fl.l_type == F_UNLCK;
}

int cix_writer_wait_done(struct cix_writer *w, int timeout_ms)
{
	if (!w || w->slot < 0)
		return 0;
	struct header *h = header(w);
	struct slot *s = slot_at(w, w->slot);
	for (int waited = 0; waited < timeout_ms; waited += 50) {
		if (!__atomic_load_n(&h->committer, __ATOMIC_SEQ_CST))
			break;
		__atomic_store_n(&s->waiting, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == SLOT_PENDING)
			futex_wait(&s->state, SLOT_PENDING, 50);
		if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == SLOT_DONE)
			return 1;
		if (committer_gone(w)) {
			__atomic_store_n(&h->committer, 0, __ATOMIC_SEQ_CST);
			break;
		}
	}
	return 0;
}

int cix_writer_served(struct cix_writer *w)
{
	return w && __atomic_load_n(&header(w)->committer, __ATOMIC_SEQ_CST);
}

int cix_writer_result(struct cix_writer *w, char *msg, size_t size)
{
	struct slot *s = slot_at(w, w->slot);
	int code;
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_DONE) {
		snprintf(msg, size, "database: a registration was not committed");
		code = -CIX_EFORMAT;
	} else {
		code = s->code < 0 ? s->code : 0;
		snprintf(msg, size, "%.*s", (int)sizeof(s->msg) - 1, s->msg);
	}
	__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
	return code;
}
