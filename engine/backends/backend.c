// SPDX-License-Identifier: GPL-2.0
/* The backend table, synchronous requests and the local completion queue. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend.h"

const struct se_backend_ops *se_backend_by_name(const char *name)
{
	static const struct se_backend_ops *const all[] = {&se_backend_io_uring, &se_backend_libaio,
							   &se_backend_psync};

	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(name, all[i]->name))
			return all[i];
	return NULL;
}

int64_t se_io_sync(const struct se_io *io)
{
	ssize_t r;

	switch (io->op) {
	case SE_OP_READ:
		r = pread(io->fd, io->buf, io->len, (off_t)io->off);
		return r < 0 ? -errno : r;
	case SE_OP_WRITE:
		r = pwrite(io->fd, io->buf, io->len, (off_t)io->off);
		return r < 0 ? -errno : r;
	case SE_OP_SYNC:
		return fsync(io->fd) ? -errno : 0;
	case SE_OP_DATASYNC:
		return fdatasync(io->fd) ? -errno : 0;
	case SE_OP_SYNC_FILE_RANGE:
		return sync_file_range(io->fd, (off_t)io->off, (off_t)io->len, io->sfr_flags)
			   ? -errno
			   : 0;
	case SE_OP_TRIM:
		if (io->blockdev) {
			uint64_t range[2] = {io->off, io->len};

			return ioctl(io->fd, BLKDISCARD, range) ? -errno : (int64_t)io->len;
		}
		/* fio's trim is BLKDISCARD only; on a regular file the equivalent is a hole. */
		if (fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)io->off,
			      (off_t)io->len))
			return -errno;
		return (int64_t)io->len;
	default:
		return -EINVAL;
	}
}

int se_local_cq_init(struct se_local_cq *q, unsigned int cap)
{
	/* mmap: also set up in the device context (backend_uring.c, uring_init()) */
	void *m = mmap(NULL, (size_t)cap * sizeof(*q->c), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	q->c = m == MAP_FAILED ? NULL : m;
	q->head = q->n = 0;
	q->cap = cap;
	return q->c ? 0 : -1;
}

void se_local_cq_push(struct se_local_cq *q, uint64_t tag, int64_t res)
{
	struct se_completion *c = &q->c[(q->head + q->n) % q->cap];

	c->tag = tag;
	c->res = res;
	q->n++;
}

int se_local_cq_reap(struct se_local_cq *q, struct se_completion *c, int max)
{
	int n = 0;

	while (q->n && n < max) {
		c[n++] = q->c[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	return n;
}

void se_local_cq_free(struct se_local_cq *q)
{
	if (q->c)
		munmap(q->c, (size_t)q->cap * sizeof(*q->c));
	q->c = NULL;
}
