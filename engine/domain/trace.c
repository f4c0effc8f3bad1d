// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "domain.h"
#include "trace.h"

/* One descriptor per process (fork children reopen: O_APPEND keeps lines whole). */
static int trace_fd = -1;
static pid_t trace_pid;
static const struct se_domain *trace_domain;
static char trace_path[SE_PATH_MAX];

bool se_trace_foreign_symlink(const char *path, unsigned int *uid)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode) || st.st_uid == geteuid() || st.st_uid == 0)
		return false;
	*uid = (unsigned int)st.st_uid;
	return true;
}

/* This process's descriptor for d's trace (the previous one of this process closed). */
static void trace_keep(struct se_domain *d, int fd)
{
	int e = errno; /* the open's, for the caller's message */

	if (trace_fd >= 0 && trace_pid == getpid())
		close(trace_fd);
	trace_fd = fd;
	trace_pid = getpid();
	trace_domain = d;
	snprintf(trace_path, sizeof(trace_path), "%s", d->trace_path);
	errno = e;
}

static int trace_open(struct se_domain *d)
{
	if (trace_fd >= 0 && trace_pid == getpid() && trace_domain == d &&
	    !strcmp(trace_path, d->trace_path))
		return trace_fd;
	/* Not created here: the first open (se_trace_open_first()) did, and what the path names
	 * now must be that file (it may have been replaced since, in a directory others write). */
	trace_keep(d, open(d->trace_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY));
	if (trace_fd >= 0) {
		struct stat st;

		if (fstat(trace_fd, &st) || (uint64_t)st.st_dev != d->trace_dev ||
		    (uint64_t)st.st_ino != d->trace_ino) {
			close(trace_fd);
			trace_fd = -1;
			errno = ESTALE;
		}
	}
	if (trace_fd < 0) {
		fprintf(stderr, "schedengine: sched_trace=%s: %s; tracing off\n", d->trace_path,
			errno == ESTALE ? "no longer the file the domain opened (replaced)"
					: strerror(errno));
		d->trace_on = false;
	}
	return trace_fd;
}

int se_trace_open_first(struct se_domain *d, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	unsigned int uid;

	if (se_trace_foreign_symlink(d->trace_path, &uid)) {
		snprintf(err, errlen, "sched_trace=%s: a symlink owned by uid %u: not followed",
			 d->trace_path, uid);
		return -1;
	}
	fd = open(d->trace_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "sched_trace=%s: %s", d->trace_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	d->trace_dev = (uint64_t)st.st_dev;
	d->trace_ino = (uint64_t)st.st_ino;
	trace_keep(d, fd);
	return 0;
}

static void trace_write(struct se_domain *d, uint64_t now, const char *what)
{
	char line[320];
	uint64_t rel = now > d->created_ns ? now - d->created_ns : 0;
	int fd = trace_open(d), n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%5" PRIu64 ".%09" PRIu64 " %6d %s\n", (uint64_t)(rel / 1000000000u),
		     (uint64_t)(rel % 1000000000u), (int)getpid(), what);
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (write(fd, line, (size_t)n) < 0)
		d->trace_on = false;
}

void se_trace_line(void *ctx, uint64_t now, const char *line)
{
	struct se_domain *d = ctx;

	if (d->trace_on)
		trace_write(d, now, line);
}
