// SPDX-License-Identifier: GPL-2.0
/*
 * The domain's files and buffers.
 *
 * Files: jobs register the files they do I/O on by path and open flags; a process that issues a
 * request of another job (the device context) opens the file itself, by path, with the same
 * flags, and keeps the descriptor in a cache of its own (descriptors never enter shared memory).
 *
 * Buffers: fio's iomem_alloc hook puts each job's io_u buffers in the domain's buffer heap, so
 * whoever issues a request reads or writes the job's own buffer at the same address.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "domain.h"

/* A relative name is the job's working directory's: the device context, or a job of another
 * fio run in a named domain, has its own. Registered and compared as absolute. */
static int abs_path(const char *path, char *buf, size_t len)
{
	char cwd[SE_PATH_MAX];

	if (path[0] == '/')
		return snprintf(buf, len, "%s", path) < (int)len ? 0 : -1;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	return snprintf(buf, len, "%s/%s", cwd, path) < (int)len ? 0 : -1;
}

int se_file_register(struct se_domain *d, const char *name, uint32_t flags, bool blockdev, int fd,
		     char *err, size_t errlen)
{
	int idx = -1, free_idx = -1;
	char path[SE_PATH_MAX];
	struct stat st;

	if (abs_path(name, path, sizeof(path))) {
		snprintf(err, errlen, "file name too long for the domain: %s", name);
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	se_lock(d);
	for (uint32_t i = 0; i < d->nr_files; i++) {
		struct se_file *f = &d->files[i];

		if (f->refs && f->flags == flags && !strcmp(f->path, path) &&
		    f->dev == (uint64_t)st.st_dev && f->ino == (uint64_t)st.st_ino) {
			idx = (int)i;
			break;
		}
		if (!f->refs && free_idx < 0)
			free_idx = (int)i;
	}
	if (idx < 0) {
		if (free_idx < 0 && d->nr_files < SE_MAX_FILES)
			free_idx = (int)d->nr_files++;
		if (free_idx < 0) {
			snprintf(err, errlen, "more than %u files open in scheduler domain '%s'",
				 SE_MAX_FILES, d->name);
			se_unlock(d);
			return -1;
		}
		idx = free_idx;
		snprintf(d->files[idx].path, sizeof(d->files[idx].path), "%s", path);
		d->files[idx].flags = flags;
		d->files[idx].blockdev = blockdev;
		d->files[idx].dev = (uint64_t)st.st_dev;
		d->files[idx].ino = (uint64_t)st.st_ino;
		d->files[idx].gen++;
	}
	d->files[idx].refs++;
	se_unlock(d);
	return idx;
}

void se_file_release(struct se_domain *d, uint32_t file)
{
	se_lock(d);
	if (file < d->nr_files && d->files[file].refs)
		d->files[file].refs--;
	se_unlock(d);
}

/* This process's descriptors, by domain file index. */
struct fd_cache {
	const struct se_domain *d;
	uint32_t gen[SE_MAX_FILES];
	int fd[SE_MAX_FILES];
};
static struct fd_cache fdc;
static pthread_mutex_t fdc_lock = PTHREAD_MUTEX_INITIALIZER;

int se_file_fd(struct se_domain *d, uint32_t file)
{
	struct se_file *f;
	int fd;

	if (file >= d->nr_files)
		return -EBADF;
	f = &d->files[file];
	pthread_mutex_lock(&fdc_lock);
	if (fdc.d != d) {
		for (uint32_t i = 0; fdc.d && i < SE_MAX_FILES; i++)
			if (fdc.gen[i] && fdc.fd[i] >= 0)
				close(fdc.fd[i]);
		memset(&fdc, 0, sizeof(fdc));
		fdc.d = d;
	}
	if (fdc.gen[file] == f->gen && fdc.gen[file]) {
		fd = fdc.fd[file];
		goto out;
	}
	if (fdc.gen[file] && fdc.fd[file] >= 0)
		close(fdc.fd[file]);
	/* The job's flags, never creating or truncating: the file exists (the job has it open).
	 * Opened without O_NOFOLLOW (a job's path may be a symlink, /dev/disk/by-id/...), so what
	 * the path names now must be the file the job registered, or nothing is done on it;
	 * O_NONBLOCK until then, so that a FIFO put in its place cannot block the open, and off
	 * after (io_uring would return EAGAIN instead of waiting). */
	fd =
	    open(f->path, (int)((f->flags & (O_ACCMODE | O_DIRECT | O_SYNC | O_DSYNC | O_NOATIME)) |
				O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
	if (fd < 0) {
		fd = -errno;
	} else {
		struct stat st;

		if (fstat(fd, &st) || (uint64_t)st.st_dev != f->dev ||
		    (uint64_t)st.st_ino != f->ino ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
			close(fd);
			fd = -ESTALE;
			se_log("%s: no longer the file its job opened (renamed or replaced): its "
			       "requests fail with ESTALE here",
			       f->path);
		}
	}
	fdc.gen[file] = f->gen;
	fdc.fd[file] = fd;
out:
	pthread_mutex_unlock(&fdc_lock);
	return fd;
}

/* Closes the descriptors of files no job has open any more (the device context, each pass). */
void se_file_sweep(struct se_domain *d);
void se_file_sweep(struct se_domain *d)
{
	pthread_mutex_lock(&fdc_lock);
	for (uint32_t i = 0; fdc.d == d && i < d->nr_files && i < SE_MAX_FILES; i++) {
		if (fdc.gen[i] && (!d->files[i].refs || fdc.gen[i] != d->files[i].gen)) {
			if (fdc.fd[i] >= 0)
				close(fdc.fd[i]);
			fdc.gen[i] = 0;
		}
	}
	pthread_mutex_unlock(&fdc_lock);
}

/* ---- the buffer heap: first fit over a sorted list of free extents ------------------------- */

#define BUF_ALIGN 4096ull

void *se_buf_alloc(struct se_domain *d, uint64_t len)
{
	void *p;

	se_lock(d);
	p = se_buf_alloc_locked(d, len);
	se_unlock(d);
	/* A job's io_u buffers, which it touches anyway: backed now, outside the lock (tens of MB
	 * take milliseconds), so a full file system is this error rather than a SIGBUS. The page
	 * cache's frames (se_buf_alloc_locked(), pagecache_mb) stay backed as they are used. */
	if (p) {
		int r = se_populate(p, len);

		if (r) {
			se_buf_free(d, p, len);
			errno = -r;
			return NULL;
		}
	} else {
		errno = ENOMEM; /* no free extent that large */
	}
	return p;
}

void *se_buf_alloc_locked(struct se_domain *d, uint64_t len)
{
	void *p = NULL;

	len = (len + BUF_ALIGN - 1) & ~(BUF_ALIGN - 1);
	for (uint32_t i = 0; i < d->nr_buf_free; i++) {
		struct se_buf_free *f = &d->buf_free[i];

		if (f->len < len)
			continue;
		p = (char *)d + f->off;
		f->off += len;
		f->len -= len;
		if (!f->len) {
			memmove(f, f + 1, (d->nr_buf_free - i - 1) * sizeof(*f));
			d->nr_buf_free--;
		}
		break;
	}
	return p;
}

void se_buf_free(struct se_domain *d, void *p, uint64_t len)
{
	uint64_t off = (uint64_t)((char *)p - (char *)d);
	uint32_t i;

	if (!p || off < d->buf_start || off >= d->size)
		return;
	len = (len + BUF_ALIGN - 1) & ~(BUF_ALIGN - 1);
	/* Give the pages back (tmpfs-backed for named domains, anonymous shared otherwise). */
	madvise(p, len, MADV_REMOVE);
	se_lock(d);
	for (i = 0; i < d->nr_buf_free && d->buf_free[i].off < off; i++)
		;
	if (i > 0 && d->buf_free[i - 1].off + d->buf_free[i - 1].len == off) {
		d->buf_free[i - 1].len += len;
		if (i < d->nr_buf_free && off + len == d->buf_free[i].off) {
			d->buf_free[i - 1].len += d->buf_free[i].len;
			memmove(&d->buf_free[i], &d->buf_free[i + 1],
				(d->nr_buf_free - i - 1) * sizeof(d->buf_free[0]));
			d->nr_buf_free--;
		}
	} else if (i < d->nr_buf_free && off + len == d->buf_free[i].off) {
		d->buf_free[i].off = off;
		d->buf_free[i].len += len;
	} else if (d->nr_buf_free < SE_BUF_FREE_MAX) {
		memmove(&d->buf_free[i + 1], &d->buf_free[i],
			(d->nr_buf_free - i) * sizeof(d->buf_free[0]));
		d->buf_free[i].off = off;
		d->buf_free[i].len = len;
		d->nr_buf_free++;
	} /* else: the extent is leaked until the domain goes (never with fio's job counts) */
	se_unlock(d);
}

bool se_file_is(struct se_domain *d, uint32_t idx, const char *name)
{
	char path[SE_PATH_MAX];
	bool is;

	if (abs_path(name, path, sizeof(path)))
		return false;
	se_lock(d);
	is = idx < d->nr_files && !strcmp(d->files[idx].path, path);
	se_unlock(d);
	return is;
}
