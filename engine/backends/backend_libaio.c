// SPDX-License-Identifier: GPL-2.0
/*
 * libaio: one io context per job. Every iocb signals the job's doorbell eventfd on completion,
 * so one ppoll() waits for completions and grants alike.
 */
#include <errno.h>
#include <libaio.h>
#include <string.h>

#include "fio.h"

#include "backend_local.h"
#include "domain.h"

struct aio_backend {
	io_context_t ctx;
	struct iocb *iocbs;	/* one per slot index */
	struct iocb **batch;	/* prepared, not yet submitted */
	unsigned int nbatch;
	struct io_event *events;
	struct se_local_cq local;
};

static int laio_init(struct se_backend *b)
{
	struct aio_backend *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return -ENOMEM;
	a->iocbs = calloc(b->depth, sizeof(*a->iocbs));
	a->batch = calloc(b->depth, sizeof(*a->batch));
	a->events = calloc(b->depth, sizeof(*a->events));
	if (!a->iocbs || !a->batch || !a->events || se_local_cq_init(&a->local, b->depth)) {
		r = -ENOMEM;
		goto fail;
	}
	r = io_queue_init((int)b->depth, &a->ctx);
	if (r < 0)
		goto fail;
	b->priv = a;
	return 0;
fail:
	free(a->iocbs);
	free(a->batch);
	free(a->events);
	se_local_cq_free(&a->local);
	free(a);
	return r;
}

static int laio_issue(struct se_backend *b, struct se_slot *slot, struct io_u *io_u)
{
	struct aio_backend *a = b->priv;
	struct iocb *cb = &a->iocbs[slot->index];
	int fd = io_u->file->fd;

	switch (io_u->ddir) {
	case DDIR_READ:
		io_prep_pread(cb, fd, io_u->xfer_buf, io_u->xfer_buflen, (long long)io_u->offset);
		break;
	case DDIR_WRITE:
		io_prep_pwrite(cb, fd, io_u->xfer_buf, io_u->xfer_buflen, (long long)io_u->offset);
		break;
	case DDIR_SYNC:
		io_prep_fsync(cb, fd);
		break;
	case DDIR_DATASYNC:
		io_prep_fdsync(cb, fd);
		break;
	default: /* trim, sync_file_range: synchronously, as fio's libaio engine does */
		se_local_cq_push(&a->local, slot, se_backend_sync_op(b->td, io_u));
		return 0;
	}
	cb->data = slot;
	io_set_eventfd(cb, b->doorbell);
	a->batch[a->nbatch++] = cb;
	return 0;
}

static int laio_flush(struct se_backend *b)
{
	struct aio_backend *a = b->priv;
	unsigned int done = 0;

	while (done < a->nbatch) {
		int r = io_submit(a->ctx, (long)(a->nbatch - done), a->batch + done);

		if (r == -EAGAIN || r == -EINTR)
			continue;
		if (r < 0) {
			/* Fail the rest rather than lose them. */
			for (; done < a->nbatch; done++)
				se_local_cq_push(&a->local, a->batch[done]->data, r);
			break;
		}
		done += (unsigned int)r;
	}
	a->nbatch = 0;
	return 0;
}

static int laio_reap(struct se_backend *b, struct se_completion *c, int max)
{
	struct aio_backend *a = b->priv;
	struct timespec zero = { 0, 0 };
	int n = se_local_cq_reap(&a->local, c, max), r;

	if (n >= max)
		return n;
	r = io_getevents(a->ctx, 0, max - n, a->events, &zero);
	for (int i = 0; i < r; i++) {
		c[n].slot = a->events[i].data;
		/* res is unsigned long: a negative errno shows as a huge value */
		c[n].res = (long long)(long)a->events[i].res;
		n++;
	}
	return n;
}

static int laio_wait(struct se_backend *b, uint64_t deadline)
{
	struct aio_backend *a = b->priv;

	if (a->local.n)
		return 0;
	return se_doorbell_wait(b->doorbell, deadline);
}

static void laio_exit(struct se_backend *b)
{
	struct aio_backend *a = b->priv;

	if (!a)
		return;
	io_queue_release(a->ctx);
	free(a->iocbs);
	free(a->batch);
	free(a->events);
	se_local_cq_free(&a->local);
	free(a);
	b->priv = NULL;
}

const struct se_backend_ops se_backend_libaio = {
	.name = "libaio",
	.init = laio_init,
	.issue = laio_issue,
	.flush = laio_flush,
	.reap = laio_reap,
	.wait = laio_wait,
	.exit = laio_exit,
};
