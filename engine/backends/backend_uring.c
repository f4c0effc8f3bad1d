// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring: one ring per job (and one for the device context). The ring also waits on the
 * owner's doorbell (IORING_OP_FUTEX_WAIT, Linux 6.7+), so one io_uring_enter() both submits and
 * sleeps until an I/O completes or another member has something for it. On older kernels the
 * wait wakes every millisecond to look at the doorbell.
 */
#include <errno.h>
#include <sys/mman.h>

#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#ifndef IORING_OP_FUTEX_WAIT
#define IORING_OP_FUTEX_WAIT 51
#endif
#define SE_FUTEX2_SIZE_U32 0x02
#define BELL_TAG	   ((uint64_t)1) /* request tags are slot addresses: never 1 */
#define POLL_FALLBACK_NS   1000000ull

struct uring_backend {
	struct io_uring ring;
	struct se_local_cq local; /* trim and sync_file_range on files: done synchronously */
	unsigned int pending;	  /* SQEs not yet submitted */
	bool futex_ok;		  /* the kernel has IORING_OP_FUTEX_WAIT */
	bool bell_armed;
};

/* A probe on the stack (liburing's own allocates): see uring_init(). */
static bool probe_futex(struct io_uring *ring)
{
	struct {
		struct io_uring_probe p;
		struct io_uring_probe_op ops[256];
	} pr;

	memset(&pr, 0, sizeof(pr));
	if (io_uring_register_probe(ring, &pr.p, 256) < 0)
		return false;
	return pr.p.last_op >= IORING_OP_FUTEX_WAIT &&
	       (pr.p.ops[IORING_OP_FUTEX_WAIT].flags & IO_URING_OP_SUPPORTED);
}

static int uring_init(struct se_backend *b)
{
	/* mmap, not calloc: the device context (a fork of a multithreaded fio) sets this backend
	 * up, and an allocator lock held by another thread at the fork is never released there. */
	struct uring_backend *u =
	    mmap(NULL, sizeof(*u), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct io_uring_params p;
	int r;
	/*
	 * The same set-up flags as fio's io_uring engine (only this task uses the ring), falling
	 * back on older kernels. +1 SQ entry for the doorbell wait.
	 */
	static const unsigned int flag_sets[] = {
	    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	    IORING_SETUP_COOP_TASKRUN,
	    0,
	};

	if (u == MAP_FAILED)
		return -ENOMEM;
	r = -EINVAL;
	for (unsigned int i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]) && r == -EINVAL;
	     i++) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | flag_sets[i];
		p.cq_entries = 2 * (b->depth + 1);
		r = io_uring_queue_init_params(b->depth + 1, &u->ring, &p);
	}
	if (r < 0 || se_local_cq_init(&u->local, b->depth)) {
		if (r >= 0)
			io_uring_queue_exit(&u->ring);
		munmap(u, sizeof(*u));
		return r < 0 ? r : -ENOMEM;
	}
	/* Registered ring fd (5.18+): io_uring_enter() skips the fd lookup; optional. */
	io_uring_register_ring_fd(&u->ring);
	u->futex_ok = probe_futex(&u->ring);
	b->priv = u;
	return 0;
}

static struct io_uring_sqe *get_sqe(struct uring_backend *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		io_uring_submit(&u->ring);
		u->pending = 0;
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static int uring_issue(struct se_backend *b, const struct se_io *io)
{
	struct uring_backend *u = b->priv;
	struct io_uring_sqe *sqe;

	if (io->op == SE_OP_TRIM) {
		se_local_cq_push(&u->local, io->tag, se_io_sync(io));
		return 0;
	}
	sqe = get_sqe(u);
	if (!sqe)
		return -EBUSY;
	switch (io->op) {
	case SE_OP_READ:
		io_uring_prep_read(sqe, io->fd, io->buf, (unsigned int)io->len, io->off);
		break;
	case SE_OP_WRITE:
		io_uring_prep_write(sqe, io->fd, io->buf, (unsigned int)io->len, io->off);
		break;
	case SE_OP_DATASYNC:
		io_uring_prep_fsync(sqe, io->fd, IORING_FSYNC_DATASYNC);
		break;
	case SE_OP_SYNC_FILE_RANGE:
		io_uring_prep_rw(IORING_OP_SYNC_FILE_RANGE, sqe, io->fd, NULL,
				 (unsigned int)io->len, io->off);
		sqe->sync_range_flags = io->sfr_flags;
		break;
	default: /* SE_OP_SYNC */
		io_uring_prep_fsync(sqe, io->fd, 0);
		break;
	}
	io_uring_sqe_set_data64(sqe, io->tag);
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

			if (cqe->user_data == BELL_TAG) {
				u->bell_armed = false;
				if (cqe->res == -EINVAL || cqe->res == -EOPNOTSUPP)
					u->futex_ok = false;
				continue;
			}
			c[n].tag = cqe->user_data;
			c[n].res = cqe->res;
			n++;
		}
		io_uring_cq_advance(&u->ring, got);
	}
	return n;
}

static void arm_bell(struct uring_backend *u, struct se_bell *bell, uint32_t seen)
{
	struct io_uring_sqe *sqe;

	if (u->bell_armed || !u->futex_ok)
		return;
	sqe = get_sqe(u);
	if (!sqe)
		return;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_FUTEX_WAIT;
	sqe->fd = SE_FUTEX2_SIZE_U32; /* shared: keyed by the page, any process may wake it */
	sqe->addr = (uint64_t)(uintptr_t)&bell->seq;
	sqe->addr2 = seen;
	sqe->addr3 = FUTEX_BITSET_MATCH_ANY;
	sqe->user_data = BELL_TAG;
	u->pending++;
	u->bell_armed = true;
}

static int uring_wait(struct se_backend *b, struct se_bell *bell, uint32_t seen, uint64_t deadline)
{
	struct uring_backend *u = b->priv;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts, *tp = NULL;
	uint64_t now = se_now_ns(), until = deadline;
	int r;

	if (u->local.n || io_uring_cq_ready(&u->ring))
		return 0;
	if (bell)
		arm_bell(u, bell, seen);
	if (bell && !u->futex_ok && (until == UINT64_MAX || until > now + POLL_FALLBACK_NS))
		until = now + POLL_FALLBACK_NS;
	if (until != UINT64_MAX) {
		if (now >= until)
			return 1;
		ts.tv_sec = (long long)((until - now) / 1000000000ull);
		ts.tv_nsec = (long long)((until - now) % 1000000000ull);
		tp = &ts;
	}
	r = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, tp, NULL);
	u->pending = 0;
	if (r == -ETIME)
		return until == deadline ? 1 : 0;
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
	munmap(u, sizeof(*u));
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
