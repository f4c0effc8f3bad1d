// SPDX-License-Identifier: GPL-2.0
/*
 * libaio: one io context per job. Completions signal an eventfd; a small io_uring waits on that
 * eventfd and on the job's doorbell together, so one call sleeps until either moves. The eventfd
 * is read by the ring itself (a read, not a poll): the wake-up also resets its count, so a wait
 * costs one io_uring_enter, not a poll plus read() calls beside it.
 * When nothing but this context's own completions can matter (no doorbell given: the job has
 * nothing in the domain that another member could grant or complete), the wait is a blocking
 * io_getevents(), as fio's own libaio engine waits: the completion wakes the job directly, not
 * through the eventfd and the ring's task work. Completions already in the context's ring are
 * read from user space (the aio ring is mapped into the process), so an empty reap costs no
 * system call.
 * trim and sync_file_range are done synchronously, as fio's libaio engine does.
 */
#include <errno.h>
#include <libaio.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backend.h"

#ifndef IORING_OP_FUTEX_WAIT
#define IORING_OP_FUTEX_WAIT 51
#endif
#define SE_FUTEX2_SIZE_U32 0x02
#define READ_TAG	   1
#define BELL_TAG	   2

/* The kernel's completion ring, at the io_context_t's address (fs/aio.c, struct aio_ring). */
struct se_aio_ring {
	unsigned int id, nr, head, tail;
	unsigned int magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};
#define SE_AIO_RING_MAGIC 0xa10a10a1u

struct aio_backend {
	io_context_t ctx;
	struct iocb *iocbs; /* a ring of depth entries: at most depth in flight */
	unsigned int next;
	struct iocb **batch; /* prepared, not yet submitted */
	unsigned int nbatch;
	struct io_event *events;
	struct se_local_cq local;
	int efd;
	uint64_t efd_count; /* the ring's eventfd read lands here */
	struct io_uring waiter;
	bool read_armed, bell_armed;
	bool completed;		  /* the eventfd read completed: completions may wait for a reap */
	struct se_aio_ring *ring; /* NULL: the kernel's ring is not readable from here */
};

static int laio_init(struct se_backend *b)
{
	struct aio_backend *a = calloc(1, sizeof(*a));
	int r = -ENOMEM;

	if (!a)
		return -ENOMEM;
	a->efd = -1;
	a->iocbs = calloc(b->depth, sizeof(*a->iocbs));
	a->batch = calloc(b->depth, sizeof(*a->batch));
	a->events = calloc(b->depth, sizeof(*a->events));
	if (!a->iocbs || !a->batch || !a->events || se_local_cq_init(&a->local, b->depth))
		goto fail;
	/* Blocking: the ring's read waits for a count instead of failing with EAGAIN. */
	a->efd = eventfd(0, EFD_CLOEXEC);
	if (a->efd < 0) {
		r = -errno;
		goto fail;
	}
	r = io_uring_queue_init(4, &a->waiter, 0);
	if (r < 0)
		goto fail;
	r = io_queue_init((int)b->depth, &a->ctx);
	if (r < 0) {
		io_uring_queue_exit(&a->waiter);
		goto fail;
	}
	a->ring = (struct se_aio_ring *)a->ctx;
	if (a->ring->magic != SE_AIO_RING_MAGIC || a->ring->incompat_features)
		a->ring = NULL;
	b->priv = a;
	return 0;
fail:
	if (a->efd >= 0)
		close(a->efd);
	free(a->iocbs);
	free(a->batch);
	free(a->events);
	se_local_cq_free(&a->local);
	free(a);
	return r;
}

static int laio_issue(struct se_backend *b, const struct se_io *io)
{
	struct aio_backend *a = b->priv;
	struct iocb *cb = &a->iocbs[a->next++ % b->depth];

	switch (io->op) {
	case SE_OP_READ:
		io_prep_pread(cb, io->fd, io->buf, io->len, (long long)io->off);
		break;
	case SE_OP_WRITE:
		io_prep_pwrite(cb, io->fd, io->buf, io->len, (long long)io->off);
		break;
	case SE_OP_SYNC:
		io_prep_fsync(cb, io->fd);
		break;
	case SE_OP_DATASYNC:
		io_prep_fdsync(cb, io->fd);
		break;
	default:
		se_local_cq_push(&a->local, io->tag, se_io_sync(io));
		return 0;
	}
	cb->data = (void *)(uintptr_t)io->tag;
	io_set_eventfd(cb, a->efd);
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
				se_local_cq_push(&a->local,
						 (uint64_t)(uintptr_t)a->batch[done]->data, r);
			break;
		}
		done += (unsigned int)r;
	}
	a->nbatch = 0;
	return 0;
}

static void take_event(struct se_completion *c, const struct io_event *e)
{
	c->tag = (uint64_t)(uintptr_t)e->data;
	/* res is unsigned long: a negative errno shows as a huge value */
	c->res = (int64_t)(long)e->res;
}

/* Completions from the kernel's ring in user space: the kernel moves tail, we move head. */
static int ring_reap(struct se_aio_ring *ring, struct se_completion *c, int max)
{
	unsigned int head = ring->head, tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	int n = 0;

	while (n < max && head != tail) {
		take_event(&c[n++], &ring->events[head]);
		head = (head + 1) % ring->nr;
	}
	if (n)
		__atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
	return n;
}

static int laio_reap(struct se_backend *b, struct se_completion *c, int max)
{
	struct aio_backend *a = b->priv;
	struct timespec zero = { 0, 0 };
	int n = se_local_cq_reap(&a->local, c, max), r;

	if (n >= max)
		return n;
	if (a->ring)
		return n + ring_reap(a->ring, c + n, max - n);
	r = io_getevents(a->ctx, 0, max - n, a->events, &zero);
	for (int i = 0; i < r; i++)
		take_event(&c[n++], &a->events[i]);
	return n;
}

static void drain_waiter(struct aio_backend *a)
{
	struct io_uring_cqe *cqe;

	while (!io_uring_peek_cqe(&a->waiter, &cqe)) {
		if (cqe->user_data == READ_TAG) {
			a->read_armed = false;
			a->completed = true;
		} else if (cqe->user_data == BELL_TAG) {
			a->bell_armed = false;
		}
		io_uring_cqe_seen(&a->waiter, cqe);
	}
}

static int laio_wait(struct se_backend *b, struct se_bell *bell, uint32_t seen, uint64_t deadline)
{
	struct aio_backend *a = b->priv;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts, *tp = NULL;
	uint64_t now = se_now_ns();
	int r;

	if (a->local.n)
		return 0;
	if (!bell) {
		/* Only our own completions can matter: sleep in the aio context itself. */
		struct timespec rts, *rtp = NULL;

		if (a->ring && a->ring->head != __atomic_load_n(&a->ring->tail, __ATOMIC_ACQUIRE))
			return 0;
		if (deadline != UINT64_MAX) {
			if (now >= deadline)
				return 1;
			rts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
			rts.tv_nsec = (long)((deadline - now) % 1000000000ull);
			rtp = &rts;
		}
		r = io_getevents(a->ctx, 1, (long)b->depth, a->events, rtp);
		if (r < 0 && r != -EINTR)
			return r;
		for (int i = 0; i < r; i++)
			se_local_cq_push(&a->local, (uint64_t)(uintptr_t)a->events[i].data,
					 (int64_t)(long)a->events[i].res);
		return r == 0 && deadline != UINT64_MAX ? 1 : 0;
	}
	drain_waiter(a);
	if (a->completed) {
		/* The read took a count the caller may not have reaped yet: it reaps first. The
		 * read armed next only counts completions from here on. */
		a->completed = false;
		return 0;
	}
	if (!a->read_armed && (sqe = io_uring_get_sqe(&a->waiter))) {
		io_uring_prep_read(sqe, a->efd, &a->efd_count, sizeof(a->efd_count), 0);
		sqe->user_data = READ_TAG;
		a->read_armed = true;
	}
	if (bell && !a->bell_armed && (sqe = io_uring_get_sqe(&a->waiter))) {
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_FUTEX_WAIT;
		sqe->fd = SE_FUTEX2_SIZE_U32;
		sqe->addr = (uint64_t)(uintptr_t)&bell->seq;
		sqe->addr2 = seen;
		sqe->addr3 = FUTEX_BITSET_MATCH_ANY;
		sqe->user_data = BELL_TAG;
		a->bell_armed = true;
	}
	if (deadline != UINT64_MAX) {
		if (now >= deadline)
			return 1;
		ts.tv_sec = (long long)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long long)((deadline - now) % 1000000000ull);
		tp = &ts;
	}
	r = io_uring_submit_and_wait_timeout(&a->waiter, &cqe, 1, tp, NULL);
	drain_waiter(a);
	/* Woken by it: the caller reaps now, nothing waits for the next wait. */
	a->completed = false;
	if (r == -ETIME)
		return 1;
	if (r < 0 && r != -EINTR && r != -EAGAIN)
		return r;
	return 0;
}

static void laio_exit(struct se_backend *b)
{
	struct aio_backend *a = b->priv;

	if (!a)
		return;
	io_queue_release(a->ctx);
	io_uring_queue_exit(&a->waiter);
	close(a->efd);
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
