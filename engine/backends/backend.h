/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backends issue granted requests to the real file or device and report completions. Each job
 * has its own backend instance (it holds the job's buffers). A backend's wait returns on a
 * completion, on the job's doorbell (another member granted it something) or at the deadline.
 */
#ifndef ENGINE_BACKEND_H
#define ENGINE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

struct thread_data;
struct io_u;
struct se_slot;

struct se_completion {
	struct se_slot *slot;
	long long res; /* bytes transferred, or -errno */
};

struct se_backend;

struct se_backend_ops {
	const char *name;
	int (*init)(struct se_backend *b);
	/* Queues one granted request; it reaches the kernel at flush() at the latest. */
	int (*issue)(struct se_backend *b, struct se_slot *slot, struct io_u *io_u);
	int (*flush)(struct se_backend *b);
	/* Completions ready now, without blocking. */
	int (*reap)(struct se_backend *b, struct se_completion *c, int max);
	/*
	 * Blocks until a completion may be ready, the doorbell rang, or deadline (CLOCK_MONOTONIC
	 * ns; UINT64_MAX = none). Returns 1 when the deadline passed, 0 otherwise, -errno on error.
	 */
	int (*wait)(struct se_backend *b, uint64_t deadline);
	void (*exit)(struct se_backend *b);
};

struct se_backend {
	const struct se_backend_ops *ops;
	struct thread_data *td;
	unsigned int depth;
	int doorbell;	/* eventfd, non-blocking */
	void *priv;
};

extern const struct se_backend_ops se_backend_io_uring;
extern const struct se_backend_ops se_backend_libaio;
extern const struct se_backend_ops se_backend_psync;

const struct se_backend_ops *se_backend_by_name(const char *name);
/* fsync/fdatasync/trim done synchronously with fio's helpers: 0/bytes, or -errno. */
long long se_backend_sync_op(struct thread_data *td, struct io_u *io_u);
/* Empties the doorbell eventfd. */
void se_doorbell_drain(int fd);
/* ppoll() on the doorbell until deadline; 1 when it passed. */
int se_doorbell_wait(int fd, uint64_t deadline);

#endif
