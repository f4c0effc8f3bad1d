// SPDX-License-Identifier: GPL-2.0
/*
 * The loop device over the FUSE file, and the reclaim of what dead daemons left behind.
 *
 * The loop device is configured in one LOOP_CONFIGURE with direct I/O (without it the loop
 * driver serialises every request through the page cache) and AUTOCLEAR, and the daemon keeps
 * it open for its whole life: if the daemon is killed, the device detaches itself at the last
 * close. Its lo_file_name says whose it is, "schedengine-modeldev:NAME:PID", so that a later
 * start finds the leftovers of a dead daemon, whatever the state of the run directory.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mdev.h"

static int read_small(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, out, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = 0;
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = 0;
	return 0;
}

static int write_small(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

/* /dev/loopN may be missing where no udev runs: make it. */
static int open_loop_node(int nr, int flags)
{
	char dev[32];
	int fd;

	snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
	fd = open(dev, flags | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (mknod(dev, S_IFBLK | 0660, makedev(7, (unsigned int)nr)) && errno != EEXIST)
			return -1;
		fd = open(dev, flags | O_CLOEXEC);
	}
	return fd;
}

int loop_attach(struct mdev_loop *l, const char *path, const char *tag, unsigned int block_size,
		char *err, size_t errlen)
{
	struct loop_config cfg;
	char p[128], v[32];
	int ctl, ffd, tries;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	snprintf(l->name, sizeof(l->name), "%s", tag);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		snprintf(err, errlen, "cannot open /dev/loop-control: %s", strerror(errno));
		return -1;
	}
	ffd = open(path, O_RDWR | O_CLOEXEC);
	if (ffd < 0) {
		snprintf(err, errlen, "cannot open the FUSE file %s: %s", path, strerror(errno));
		close(ctl);
		return -1;
	}
	for (tries = 0; tries < 20; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (nr < 0) {
			snprintf(err, errlen, "no free loop device (LOOP_CTL_GET_FREE): %s",
				 strerror(errno));
			break;
		}
		l->fd = open_loop_node(nr, O_RDWR);
		if (l->fd < 0) {
			snprintf(err, errlen, "cannot open /dev/loop%d: %s", nr, strerror(errno));
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)ffd;
		cfg.block_size = block_size;
		cfg.info.lo_flags = LO_FLAGS_DIRECT_IO | LO_FLAGS_AUTOCLEAR;
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", tag);
		if (ioctl(l->fd, LOOP_CONFIGURE, &cfg) == 0) {
			l->nr = nr;
			snprintf(l->dev, sizeof(l->dev), "/dev/loop%d", nr);
			break;
		}
		snprintf(err, errlen, "LOOP_CONFIGURE on /dev/loop%d: %s", nr, strerror(errno));
		close(l->fd);
		l->fd = -1;
		if (errno != EBUSY) /* EBUSY: someone took it between GET_FREE and CONFIGURE */
			break;
	}
	close(ffd);
	close(ctl);
	if (l->fd < 0)
		return -1;
	/* Direct I/O must have stuck: without it every request is serialised. */
	snprintf(p, sizeof(p), "/sys/block/loop%d/loop/dio", l->nr);
	if (read_small(p, v, sizeof(v)) || strcmp(v, "1")) {
		ioctl(l->fd, LOOP_SET_DIRECT_IO, 1UL);
		if (read_small(p, v, sizeof(v)) || strcmp(v, "1")) {
			snprintf(err, errlen,
				 "the kernel refused direct I/O for %s over the FUSE file (%s reads "
				 "'%s'): the loop device would serialise every request",
				 l->dev, p, v);
			loop_detach(l);
			return -1;
		}
	}
	return 0;
}

void loop_detach(struct mdev_loop *l)
{
	if (l->fd < 0)
		return;
	/* With other openers the kernel defers the clear to the last close (autoclear). */
	if (ioctl(l->fd, LOOP_CLR_FD, 0) && errno != ENXIO)
		fprintf(stderr, "modeldev: LOOP_CLR_FD %s: %s (cleared at its last close)\n", l->dev,
			strerror(errno));
	close(l->fd);
	l->fd = -1;
}

int loop_queue_set(const struct mdev_loop *l, const char *attr, const char *val, char *err,
		   size_t errlen)
{
	char p[160];

	snprintf(p, sizeof(p), "/sys/block/loop%d/queue/%s", l->nr, attr);
	if (write_small(p, val)) {
		snprintf(err, errlen, "cannot write %s=%s: %s", p, val, strerror(errno));
		return -1;
	}
	return 0;
}

int loop_queue_get(const struct mdev_loop *l, const char *attr, char *out, size_t outlen)
{
	char p[160];

	snprintf(p, sizeof(p), "/sys/block/loop%d/queue/%s", l->nr, attr);
	return read_small(p, out, outlen);
}

/* ---- reclaim ------------------------------------------------------------------------------- */

long mdev_tag_pid(const char *tag)
{
	const char *c;
	char *end;
	long pid;

	if (strncmp(tag, MDEV_FSNAME_PREFIX, strlen(MDEV_FSNAME_PREFIX)))
		return -1;
	c = strrchr(tag, ':');
	if (!c || !c[1])
		return -1;
	pid = strtol(c + 1, &end, 10);
	return *end || pid <= 0 ? -1 : pid;
}

bool mdev_pid_alive(long pid)
{
	char p[64], comm[64], stat[512], *rp;

	if (pid <= 0)
		return false;
	if (kill((pid_t)pid, 0) && errno != EPERM)
		return false;
	snprintf(p, sizeof(p), "/proc/%ld/comm", pid);
	if (read_small(p, comm, sizeof(comm)) || strncmp(comm, "modeldev", 8))
		return false;
	/* an exited daemon not yet reaped (a zombie) is gone */
	snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
	if (read_small(p, stat, sizeof(stat)))
		return false;
	rp = strrchr(stat, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* Loop devices whose lo_file_name is a dead daemon's tag; list: print every one of ours. */
static int reclaim_loops(bool list, bool verbose)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct loop_info64 info;
		char p[300], v[8];
		int nr, fd;
		long pid;

		if (strncmp(e->d_name, "loop", 4) || !isdigit((unsigned char)e->d_name[4]))
			continue;
		nr = atoi(e->d_name + 4);
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		if (access(p, F_OK)) /* not attached */
			continue;
		(void)v;
		fd = open_loop_node(nr, O_RDONLY);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (ioctl(fd, LOOP_GET_STATUS64, &info)) {
			close(fd);
			continue;
		}
		info.lo_file_name[LO_NAME_SIZE - 1] = 0;
		pid = mdev_tag_pid((const char *)info.lo_file_name);
		if (pid > 0 && list) {
			printf("loop /dev/loop%d %s (daemon %s)\n", nr, (const char *)info.lo_file_name,
			       mdev_pid_alive(pid) ? "running" : "dead");
			n++;
		} else if (pid > 0 && !mdev_pid_alive(pid)) {
			if (ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno == ENXIO) {
				n++;
				if (verbose)
					fprintf(stderr, "modeldev: reclaim: detached /dev/loop%d (%s)\n",
						nr, (const char *)info.lo_file_name);
			} else if (verbose) {
				fprintf(stderr,
					"modeldev: reclaim: /dev/loop%d (%s) is still open somewhere: "
					"it detaches at its last close (%s)\n",
					nr, (const char *)info.lo_file_name, strerror(errno));
			}
		}
		close(fd);
	}
	closedir(d);
	return n;
}

/* Unescapes the octal escapes of /proc/self/mountinfo fields in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* FUSE mounts named schedengine-modeldev:NAME:PID of dead daemons; list: print all of ours. */
static int reclaim_mounts(bool list, bool verbose)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	char *found[64];
	int nf = 0, n = 0;

	if (!f)
		return 0;
	while (nf < 64 && fgets(line, sizeof(line), f)) {
		/* id parent maj:min root mountpoint opts ... - fstype source superopts */
		char *fields[8], *sep = strstr(line, " - "), *save = NULL, *tok;
		int k = 0;
		char fstype[128] = "", source[256] = "";

		if (!sep)
			continue;
		*sep = 0;
		for (tok = strtok_r(line, " ", &save); tok && k < 8; tok = strtok_r(NULL, " ", &save))
			fields[k++] = tok;
		if (k < 5 || sscanf(sep + 3, "%127s %255s", fstype, source) != 2)
			continue;
		if (strncmp(fstype, "fuse", 4))
			continue;
		unescape(source);
		if (strncmp(source, MDEV_FSNAME_PREFIX, strlen(MDEV_FSNAME_PREFIX)))
			continue;
		unescape(fields[4]);
		if (list) {
			printf("mount %s %s (daemon %s)\n", fields[4], source,
			       mdev_pid_alive(mdev_tag_pid(source)) ? "running" : "dead");
			n++;
			continue;
		}
		if (mdev_pid_alive(mdev_tag_pid(source)))
			continue;
		found[nf++] = strdup(fields[4]);
	}
	fclose(f);
	for (int i = 0; i < nf; i++) {
		if (found[i] && umount2(found[i], MNT_DETACH) == 0) {
			n++;
			if (verbose)
				fprintf(stderr, "modeldev: reclaim: unmounted %s\n", found[i]);
		} else if (found[i] && verbose) {
			fprintf(stderr, "modeldev: reclaim: cannot unmount %s: %s\n", found[i],
				strerror(errno));
		}
		free(found[i]);
	}
	return n;
}

static void rm_rundir(const char *dir)
{
	static const char *const files[] = {"pid", "dev", "info.json", "ctl"};
	char logp[600];
	char p[600];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/mnt", dir);
	rmdir(p);
	rmdir(dir);
	snprintf(logp, sizeof(logp), "%s.log", dir);
	unlink(logp);
}

/* Run directories of dead daemons: their lock (RUNDIR/NAME.lock) is free. */
static int reclaim_rundirs(const char *rundir, bool verbose)
{
	DIR *d = opendir(rundir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char dir[512], p[600], mnt[600];
		struct stat st;
		int lfd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", rundir, e->d_name);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(p, sizeof(p), "%s.lock", dir);
		lfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB)) {
			if (lfd >= 0)
				close(lfd); /* held: a live daemon */
			continue;
		}
		snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
		if (umount2(mnt, MNT_DETACH) == 0 && verbose)
			fprintf(stderr, "modeldev: reclaim: unmounted %s\n", mnt);
		rm_rundir(dir);
		if (verbose)
			fprintf(stderr, "modeldev: reclaim: removed %s (its daemon is gone)\n", dir);
		n++;
		unlink(p);
		close(lfd);
	}
	closedir(d);
	return n;
}

int mdev_reclaim(const char *rundir, bool verbose)
{
	int n = 0;

	n += reclaim_loops(false, verbose);
	n += reclaim_mounts(false, verbose);
	n += reclaim_rundirs(rundir, verbose);
	return n;
}

int mdev_list_ours(void)
{
	return reclaim_loops(true, false) + reclaim_mounts(true, false);
}
