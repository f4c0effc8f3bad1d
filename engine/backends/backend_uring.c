// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring: one ring per job. The ring also polls the job's doorbell eventfd, so a single
 * io_uring_enter() both submits and sleeps until an I/O completes or another member grants
 * this job a request.
 */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <string.h>

#include "fio.h"

#include "backend_local.h"
#include "domain.h"

#define DOORBELL_TAG ((uint64_t)1) /* slots are 64-byte aligned, so never 1 */

struct uring_backend {
	struct io_uring ring;
	struct se_local_cq local; /* trim: done synchronously */
	unsigned int pending;	  /* SQEs not yet submitted */
	bool poll_armed;
};

static int arm_doorbell(struct uring_backend *u, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, DOORBELL_TAG);
	u->pending++;
	u->poll_armed = true;
	return 0;
}

static int uring_init(struct se_backend *b)
{
	struct uring_backend *u = calloc(1, sizeof(*u));
	struct io_uring_params p;
	int r;

	if (!u)
		return -ENOMEM;
	/*
	 * +1 SQ entry for the doorbell poll; CQ sized for every request plus it. The same set-up
	 * flags as fio's io_uring engine (only this job's task uses the ring), falling back on
	 * older kernels.
	 */
	static const unsigned int flag_sets[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	r = -EINVAL;
	for (unsigned int i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]) && r == -EINVAL; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | flag_sets[i];
		p.cq_entries = 2 * (b->depth + 1);
		r = io_uring_queue_init_params(b->depth + 1, &u->ring, &p);
	}
	if (r < 0 || se_local_cq_init(&u->local, b->depth)) {
		free(u);
		return r < 0 ? r : -ENOMEM;
	}
	/* Registered ring fd (5.18+): io_uring_enter() skips the fd lookup; optional. */
	io_uring_register_ring_fd(&u->ring);
	b->priv = u;
	return arm_doorbell(u, b->doorbell);
}

static int uring_issue(struct se_backend *b, struct se_slot *slot, struct io_u *io_u)
{
	struct uring_backend *u = b->priv;
	struct io_uring_sqe *sqe;
	int fd = io_u->file->fd;

	if (io_u->ddir == DDIR_TRIM) {
		se_local_cq_push(&u->local, slot, se_backend_sync_op(b->td, io_u));
		return 0;
	}
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		io_uring_submit(&u->ring);
		u->pending = 0;
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	switch (io_u->ddir) {
	case DDIR_READ:
		io_uring_prep_read(sqe, fd, io_u->xfer_buf, (unsigned int)io_u->xfer_buflen,
				   io_u->offset);
		break;
	case DDIR_WRITE:
		io_uring_prep_write(sqe, fd, io_u->xfer_buf, (unsigned int)io_u->xfer_buflen,
				    io_u->offset);
		break;
	case DDIR_DATASYNC:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	case DDIR_SYNC_FILE_RANGE:
		io_uring_prep_rw(IORING_OP_SYNC_FILE_RANGE, sqe, fd, NULL,
				 (unsigned int)io_u->xfer_buflen, io_u->offset);
		sqe->sync_range_flags = b->td->o.sync_file_range;
		break;
	default: /* DDIR_SYNC */
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	}
	io_uring_sqe_set_data(sqe, slot);
	u->pending++;
	return 0;
}

static int uring_flush(struct se_backend *b)
{
	struct uring_backend *u = b->priv;
	int r;

	if (!u->pending)
		return 0;
	r = io_uring_submit(&u->ring);
	if (r < 0)
		return r;
	u->pending = 0;
	return 0;
}

static int uring_reap(struct se_backend *b, struct se_completion *c, int max)
{
	struct uring_backend *u = b->priv;
	struct io_uring_cqe *cqes[64];
	int n = se_local_cq_reap(&u->local, c, max);

	while (n < max) {
		unsigned int want = (unsigned int)(max - n) < 64 ? (unsigned int)(max - n) : 64;
		unsigned int got = io_uring_peek_batch_cqe(&u->ring, cqes, want);

		if (!got)
			break;
		for (unsigned int i = 0; i < got; i++) {
			struct io_uring_cqe *cqe = cqes[i];

			if (cqe->user_data == DOORBELL_TAG) {
				se_doorbell_drain(b->doorbell);
				u->poll_armed = false;
				continue;
			}
			c[n].slot = io_uring_cqe_get_data(cqe);
			c[n].res = cqe->res;
			n++;
		}
		io_uring_cq_advance(&u->ring, got);
	}
	if (!u->poll_armed)
		arm_doorbell(u, b->doorbell);
	return n;
}

static int uring_wait(struct se_backend *b, uint64_t deadline)
{
	struct uring_backend *u = b->priv;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts, *tp = NULL;
	uint64_t now;
	int r;

	if (u->local.n)
		return 0;
	if (!u->poll_armed)
		arm_doorbell(u, b->doorbell);
	if (deadline != UINT64_MAX) {
		now = se_now_ns();
		if (now >= deadline)
			return 1;
		ts.tv_sec = (long long)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long long)((deadline - now) % 1000000000ull);
		tp = &ts;
	}
	r = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, tp, NULL);
	u->pending = 0;
	if (r == -ETIME)
		return 1;
	if (r < 0 && r != -EINTR && r != -EAGAIN)
		return r;
	return 0;
}

static void uring_exit(struct se_backend *b)
{
	struct uring_backend *u = b->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	se_local_cq_free(&u->local);
	free(u);
	b->priv = NULL;
}

const struct se_backend_ops se_backend_io_uring = {
	.name = "io_uring",
	.init = uring_init,
	.issue = uring_issue,
	.flush = uring_flush,
	.reap = uring_reap,
	.wait = uring_wait,
	.exit = uring_exit,
};
