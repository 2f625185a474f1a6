/* sandbox.c - run a builder in new namespaces, watch its output and time */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sandbox-int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "quote.h"

/* A set-up that hangs (it should take milliseconds) is abandoned. */
#define SB_SETUP_TIMEOUT_MS 30000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_proc(pid_t pid, const char *file, const char *data,
		      struct cix_err *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cix_error_errno(err, -errno, "cannot open %s", path);
	int ret = cix_write_full(fd, data, strlen(data));
	close(fd);
	if (ret < 0)
		return cix_error_errno(err, ret, "cannot write %s", path);
	return 0;
}

/* Map the sandbox's uid 1000 and gid 100 to the build user or to us. */
static int write_id_maps(pid_t pid, const struct cix_sandbox_spec *s,
			 int privileged, struct cix_err *err)
{
	char buf[64];
	uid_t uid = s->uid != (uid_t)-1 ? s->uid : geteuid();
	gid_t gid = s->uid != (uid_t)-1 ? s->gid : getegid();
	int ret;
	snprintf(buf, sizeof(buf), "%d %u 1\n", CIX_SANDBOX_UID, (unsigned)uid);
	if ((ret = write_proc(pid, "uid_map", buf, err)) < 0)
		return ret;
	if (!privileged && (ret = write_proc(pid, "setgroups", "deny", err)) < 0)
		return ret;
	snprintf(buf, sizeof(buf), "%d %u 1\n", CIX_SANDBOX_GID, (unsigned)gid);
	return write_proc(pid, "gid_map", buf, err);
}

/*
 * The end of the output before the builder's: how long it may take to
 * end by itself. A builder that exits closes its descriptors a moment
 * before it is a zombie; a SIGKILL in that moment would replace its exit
 * status (the kernel reports the group's fatal signal).
 */
#define EOF_GRACE_SECONDS 1.0

/* Kill the builder, PID 1 of its namespace, hence all of it. */
static void kill_tree(int pidfd)
{
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Copy the builder's output to log_fd until it ends, enforcing the time,
 * silence and size limits by killing the PID namespace's init.
 */
static void watch(pid_t pid, int pidfd, int logr, const struct cix_sandbox_spec *s,
		  struct cix_sandbox_result *res, double start)
{
	double last = now(), drain_until = 0, eof_at = 0;
	unsigned long long logged = 0;
	int killed = 0, exited = 0;
	char buf[65536];

	while (logr >= 0 || !exited) {
		struct pollfd pfd[2] = {
			{ .fd = logr, .events = POLLIN },
			{ .fd = exited ? -1 : pidfd, .events = POLLIN },
		};
		int timeout = -1;
		double t = now();
		if (exited) {
			/*
			 * Everything in the namespace is dead; only a process
			 * outside (handed the pipe over a Unix socket)
			 * could hold it open: do not wait for it long.
			 */
			if (t >= drain_until)
				break;
			timeout = (int)((drain_until - t) * 1000) + 1;
		}
		if (!killed && !exited && s->timeout) {
			double left = start + s->timeout - t;
			timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
		}
		/* Silence is of an open output: once it ended, its end rules. */
		if (!killed && !exited && s->max_silent && !eof_at) {
			double left = last + s->max_silent - t;
			int ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
			if (timeout < 0 || ms < timeout)
				timeout = ms;
		}
		if (!killed && !exited && eof_at) {
			double left = eof_at + EOF_GRACE_SECONDS - t;
			int ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
			if (timeout < 0 || ms < timeout)
				timeout = ms;
		}
		int n = poll(pfd, 2, timeout);
		if (n < 0 && errno != EINTR)
			break;
		t = now();
		if (killed || exited) {
			/* nothing to enforce */
		} else if (s->timeout && t >= start + s->timeout) {
			res->timed_out = 1;
			killed = 1;
			kill_tree(pidfd);
		} else if (eof_at && t >= eof_at + EOF_GRACE_SECONDS) {
			/* As Nix 2.8: a builder that closed its output to go on is ended. */
			killed = 1;
			kill_tree(pidfd);
		} else if (s->max_silent && !eof_at && t >= last + s->max_silent) {
			res->silent_too_long = 1;
			killed = 1;
			kill_tree(pidfd);
		}
		if (n <= 0)
			continue;
		if (logr >= 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t r = read(logr, buf, sizeof(buf));
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				close_fd(&logr);
				/* The end of the output is the end of the build. */
				if (!killed && !exited)
					eof_at = t;
			} else {
				last = t;
				size_t w = (size_t)r;
				if (s->max_log && logged + w > s->max_log) {
					w = (size_t)(s->max_log - logged);
					if (!killed && !exited) {
						res->log_too_long = 1;
						killed = 1;
						kill_tree(pidfd);
					}
				}
				logged += w;
				if (s->log_fd >= 0 && w)
					cix_write_full(s->log_fd, buf, w);
			}
		}
		if (!exited && (pfd[1].revents & POLLIN)) {
			/*
			 * The builder, PID 1, ended: the kernel kills the
			 * rest of its namespace, so the pipe closes soon.
			 */
			while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
				;
			exited = 1;
			res->total_seconds = now() - start;
			drain_until = now() + 1;
		}
	}
	if (logr >= 0)
		close(logr);
	if (!exited) {
		kill_tree(pidfd);
		while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
			;
		res->total_seconds = now() - start;
	}
}

/* The child's stack, while it shares our memory (until its execve). */
#define SB_CHILD_STACK (256 * 1024)

#ifdef __SANITIZE_ADDRESS__
/* AddressSanitizer cannot follow a process onto a stack of ours: fork. */
static pid_t clone_child(struct sb_plan *plan, unsigned long flags, void *stack)
{
	(void)stack;
	pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0)
		cix_sandbox_child(plan);
	return pid;
}
#else
static int child_main(void *plan)
{
	cix_sandbox_child(plan);
}

/*
 * CLONE_VM: no copy of our page tables to make, nor copy-on-write faults
 * and TLB shoot-downs in our threads afterwards. The child only makes
 * system calls (errno aside, it writes nothing of ours) and reads the
 * plan, which stays as it is until the child has executed or is gone.
 */
static pid_t clone_child(struct sb_plan *plan, unsigned long flags, void *stack)
{
	return clone(child_main, (char *)stack + SB_CHILD_STACK, (int)flags | CLONE_VM | SIGCHLD,
		     plan);
}
#endif

/*
 * A fixed-output build's network, while the child sets up the rest: then
 * let it execute the builder, with tap0 or, when slirp4netns cannot give
 * it, with loopback only (never the host's namespace), saying why.
 */
static void start_network(const struct cix_sandbox_spec *spec, pid_t pid, struct sb_slirp *sl,
			  int netp[2], struct cix_sandbox_result *res)
{
	char why[256], line[320];
	int loopback = !!(spec->network & CIX_SANDBOX_NET_HOST_LOOPBACK);
	if (cix_sandbox_slirp_start(sl, pid, loopback, why, sizeof(why)) == 0) {
		res->slirp = 1;
	} else if (spec->log_fd >= 0) {
		int n = snprintf(line, sizeof(line), "cix: no network for this fixed-output build"
				 " but loopback: %s\n", why);
		cix_write_full(spec->log_fd, line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
	if (write(netp[1], "1", 1) != 1) {
		/* Cannot happen: the pipe is empty, and we hold its read end. */
	}
	close_fd(&netp[0]);
	close_fd(&netp[1]);
}

int cix_sandbox_run(const struct cix_sandbox_spec *spec,
		    struct cix_sandbox_result *res, struct cix_err *err)
{
	struct sb_plan plan;
	int syncp[2] = { -1, -1 }, statusp[2] = { -1, -1 }, logp[2] = { -1, -1 };
	int netp[2] = { -1, -1 };
	int pidfd = -1, ret;
	struct sb_slirp slirp = { .pid = -1, .pidfd = -1, .exit_fd = -1, .err_fd = -1 };
	pid_t pid = -1;
	struct sb_cgroup cg = { 0 };
	void *stack = MAP_FAILED;

	memset(res, 0, sizeof(*res));
	memset(&plan, 0, sizeof(plan));
	plan.spec = spec;
	plan.drop_groups = geteuid() == 0;
	double t0 = now();
	if ((ret = cix_sandbox_prepare(&plan, err)) < 0)
		goto out;
	cix_sandbox_build_filter(&plan);
	res->prepare_seconds = now() - t0;
	res->seccomp = plan.filter_len > 0;
	if ((ret = cix_sandbox_cgroup_create(&cg, spec, err)) < 0)
		goto out;
	if (cg.memory)
		res->memory_limit = CIX_SANDBOX_LIMIT_CGROUP;
	plan.linux32 = spec->linux32;
	if (cg.pids) {
		res->proc_limit = CIX_SANDBOX_LIMIT_CGROUP;
	} else if (spec->max_procs && spec->uid != (uid_t)-1) {
		plan.nproc = spec->max_procs;
		res->proc_limit = CIX_SANDBOX_LIMIT_RLIMIT;
	}

	if (pipe2(syncp, O_CLOEXEC) < 0 || pipe2(statusp, O_CLOEXEC) < 0 ||
	    pipe2(logp, O_CLOEXEC) < 0 ||
	    (spec->network && pipe2(netp, O_CLOEXEC) < 0)) {
		ret = cix_error_errno(err, -errno, "cannot create a pipe");
		goto out;
	}
	plan.sync_fd = syncp[0];
	plan.status_fd = statusp[1];
	plan.log_fd = logp[1];
	plan.net_fd = netp[0];
	plan.net_wfd = netp[1];

	/* Always a network namespace: the host's holds its abstract sockets. */
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
		CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET;
	stack = mmap(NULL, SB_CHILD_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		ret = cix_error_errno(err, -errno, "cannot allocate the sandbox's stack");
		goto out;
	}
	double start = now();
	pid = clone_child(&plan, flags, stack);
	if (pid < 0) {
		ret = cix_error_errno(err, -errno, "cannot create the sandbox (clone)");
		goto out;
	}

	close_fd(&syncp[0]);
	close_fd(&statusp[1]);
	close_fd(&logp[1]);
	/* netp[0] stays open until start_network: its write raises no SIGPIPE. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		ret = cix_error_errno(err, -errno, "cannot open the sandbox's pidfd");
		goto kill;
	}
	if ((ret = write_id_maps(pid, spec, plan.drop_groups, err)) < 0 ||
	    (ret = cix_sandbox_cgroup_enter(&cg, pid, err)) < 0)
		goto kill;
	/* syncp[1] stays open until the end: the child's sign of our life. */
	if (write(syncp[1], "1", 1) != 1) {
		ret = cix_error_errno(err, -errno, "cannot start the sandbox");
		goto kill;
	}
	if (netp[1] >= 0)
		start_network(spec, pid, &slirp, netp, res);

	/* End of file: the builder was executed; a report: set-up failed. */
	struct sb_failure f;
	struct pollfd spfd = { .fd = statusp[0], .events = POLLIN };
	int pr;
	while ((pr = poll(&spfd, 1, SB_SETUP_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (pr == 0) {
		ret = cix_error(err, -ETIMEDOUT, "sandbox set-up timed out");
		goto kill;
	}
	ssize_t n = cix_read_full(statusp[0], &f, sizeof(f));
	res->setup_seconds = now() - start;
	if (n != 0) {
		char q[256];
		if (n != (ssize_t)sizeof(f)) {
			ret = cix_error(err, -CIX_EFORMAT, "sandbox set-up failed");
			goto kill;
		}
		f.what[sizeof(f.what) - 1] = '\0';
		f.path[sizeof(f.path) - 1] = '\0';
		cix_quote(q, sizeof(q), f.path, strlen(f.path));
		ret = f.err > 0 && f.err < CIX_EBASE ? -f.err : -CIX_EINVAL;
		if (f.path[0])
			cix_error_errno(err, ret, "sandbox: %s '%s'", f.what, q);
		else
			cix_error_errno(err, ret, "sandbox: %s", f.what);
		goto kill;
	}
	watch(pid, pidfd, logp[0], spec, res, start);
	logp[0] = -1;
	res->oom_killed = cix_sandbox_cgroup_oom_killed(&cg);
	ret = 0;
	goto out;

kill:
	if (pidfd >= 0)
		kill_tree(pidfd);
	else
		kill(pid, SIGKILL);   /* not reaped yet: pid is still ours */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
out:
	cix_sandbox_slirp_stop(&slirp);
	close_fd(&netp[0]);
	close_fd(&netp[1]);
	close_fd(&pidfd);
	close_fd(&syncp[0]);
	close_fd(&syncp[1]);
	close_fd(&statusp[0]);
	close_fd(&statusp[1]);
	close_fd(&logp[0]);
	close_fd(&logp[1]);
	if (stack != MAP_FAILED)
		munmap(stack, SB_CHILD_STACK);
	cix_sandbox_plan_release(&plan);
	cix_sandbox_cgroup_remove(&cg);
	return ret;
}
