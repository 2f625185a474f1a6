/* workers.c - the daemon's table of its worker processes, by uid */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "daemon.h"
#include "util.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

/*
 * The parent alone uses this table: the main loop adds to it with SIGCHLD
 * blocked, the SIGCHLD handler removes from it. Nothing here allocates or
 * locks once the table is made, so the handler may call it.
 */
struct worker {
	pid_t pid;           /* 0: a free slot */
	uid_t uid;
	int refuser;         /* only tells its client why it is refused */
};

static struct worker *table;
static size_t slots;
static volatile sig_atomic_t crashes;
/* Workers ended by a signal: they may have left temporaries and roots. */
static volatile sig_atomic_t killed;

void daemon_workers_init(size_t max)
{
	slots = max;
	table = xcalloc(max, sizeof(*table));
}

void daemon_workers_add(pid_t pid, uid_t uid, int refuser)
{
	for (size_t i = 0; i < slots; i++)
		if (!table[i].pid) {
			table[i] = (struct worker){ pid, uid, refuser };
			return;
		}
}

/* Signals that say a process crashed (not that someone ended it). */
static int crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGABRT || sig == SIGSYS || sig == SIGTRAP;
}

int daemon_workers_remove(pid_t pid, int status)
{
	for (size_t i = 0; i < slots; i++)
		if (table[i].pid == pid) {
			table[i].pid = 0;
			if (WIFSIGNALED(status) && crash_signal(WTERMSIG(status)))
				crashes++;
			if (WIFSIGNALED(status))
				killed++;
			return 1;
		}
	return 0;
}

void daemon_workers_count(uid_t uid, unsigned *all, unsigned *of_uid, unsigned *refusers)
{
	*all = *of_uid = *refusers = 0;
	for (size_t i = 0; i < slots; i++) {
		if (!table[i].pid)
			continue;
		if (table[i].refuser) {
			++*refusers;
			continue;
		}
		++*all;
		if (table[i].uid == uid)
			++*of_uid;
	}
}

unsigned daemon_workers_crashes(void)
{
	return (unsigned)crashes;
}

unsigned daemon_workers_killed(void)
{
	return (unsigned)killed;
}
