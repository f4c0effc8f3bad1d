// SPDX-License-Identifier: GPL-2.0
/* psync: pread/pwrite/fsync/trim in the job's own context, one request at a time. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>

#include "fio.h"

#include "backend_local.h"
#include "domain.h"

static int psync_init(struct se_backend *b)
{
	struct se_local_cq *q = calloc(1, sizeof(*q));

	if (!q || se_local_cq_init(q, b->depth)) {
		free(q);
		return -ENOMEM;
	}
	b->priv = q;
	return 0;
}

static long long do_rw(struct io_u *io_u)
{
	int fd = io_u->file->fd;
	ssize_t r;

	if (io_u->ddir == DDIR_READ)
		r = pread(fd, io_u->xfer_buf, io_u->xfer_buflen, (off_t)io_u->offset);
	else
		r = pwrite(fd, io_u->xfer_buf, io_u->xfer_buflen, (off_t)io_u->offset);
	return r < 0 ? -errno : r;
}

/* Sync and trim go through fio's own helpers, as fio's psync engine does. */
long long se_backend_sync_op(struct thread_data *td, struct io_u *io_u)
{
	int r;

	if (io_u->ddir == DDIR_TRIM && io_u->file->filetype == FIO_TYPE_FILE) {
		/* fio's trim is BLKDISCARD only; on a regular file the equivalent is a hole. */
		if (fallocate(io_u->file->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)io_u->offset, (off_t)io_u->xfer_buflen))
			return -errno;
		return (long long)io_u->xfer_buflen;
	}
	if (io_u->ddir == DDIR_TRIM) {
		r = do_io_u_trim(td, io_u);
		return io_u->error ? -(long long)io_u->error : r;
	}
	r = do_io_u_sync(td, io_u);
	return io_u->error ? -(long long)io_u->error : (r < 0 ? -EIO : 0);
}

static int psync_issue(struct se_backend *b, struct se_slot *slot, struct io_u *io_u)
{
	long long res;

	if (io_u->ddir == DDIR_READ || io_u->ddir == DDIR_WRITE)
		res = do_rw(io_u);
	else
		res = se_backend_sync_op(b->td, io_u);
	se_local_cq_push(b->priv, slot, res);
	return 0;
}

static int psync_flush(struct se_backend *b)
{
	(void)b;
	return 0;
}

static int psync_reap(struct se_backend *b, struct se_completion *c, int max)
{
	return se_local_cq_reap(b->priv, c, max);
}

static int psync_wait(struct se_backend *b, uint64_t deadline)
{
	struct se_local_cq *q = b->priv;

	if (q->n)
		return 0;
	return se_doorbell_wait(b->doorbell, deadline);
}

static void psync_exit(struct se_backend *b)
{
	if (b->priv)
		se_local_cq_free(b->priv);
	free(b->priv);
	b->priv = NULL;
}

const struct se_backend_ops se_backend_psync = {
	.name = "psync",
	.init = psync_init,
	.issue = psync_issue,
	.flush = psync_flush,
	.reap = psync_reap,
	.wait = psync_wait,
	.exit = psync_exit,
};
