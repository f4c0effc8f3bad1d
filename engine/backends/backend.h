/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backends issue requests to the real file or device and report completions: each job has one
 * (it holds its io_us' buffers, shared with the domain), and so has the domain's device context.
 * They know nothing of fio: a request is a descriptor, a buffer, an offset, a length and an
 * operation. A backend's wait returns on a completion, on its owner's doorbell (another member
 * has something for it) or at the deadline.
 */
#ifndef ENGINE_BACKEND_H
#define ENGINE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "wake.h"

/* fio's data directions as the backends need them. */
enum se_op {
	SE_OP_READ = 0,
	SE_OP_WRITE,
	SE_OP_SYNC,
	SE_OP_DATASYNC,
	SE_OP_TRIM,
	SE_OP_SYNC_FILE_RANGE,
};

/* One request to issue. */
struct se_io {
	int fd;
	void *buf;
	uint64_t len, off;
	uint8_t op;	    /* enum se_op */
	uint32_t sfr_flags; /* sync_file_range() */
	bool blockdev;	    /* trim: BLKDISCARD, else a punched hole */
	uint64_t tag;	    /* handed back with the completion */
};

struct se_completion {
	uint64_t tag;
	int64_t res; /* bytes transferred, or -errno */
};

struct se_backend;

struct se_backend_ops {
	const char *name;
	/* issue() does the I/O before it returns (psync): its completion is in the next reap(). */
	bool completes_in_issue;
	int (*init)(struct se_backend *b);
	/* Queues one request; it reaches the kernel at flush() at the latest. */
	int (*issue)(struct se_backend *b, const struct se_io *io);
	int (*flush)(struct se_backend *b);
	/* Completions ready now, without blocking. */
	int (*reap)(struct se_backend *b, struct se_completion *c, int max);
	/*
	 * Blocks until a completion may be ready, the bell moves from `seen`, or the deadline
	 * (CLOCK_MONOTONIC ns; UINT64_MAX: none). Returns 1 when the deadline passed, 0
	 * otherwise, -errno on error.
	 */
	int (*wait)(struct se_backend *b, struct se_bell *bell, uint32_t seen, uint64_t deadline);
	void (*exit)(struct se_backend *b);
};

struct se_backend {
	const struct se_backend_ops *ops;
	unsigned int depth; /* most requests in flight at once */
	void *priv;
};

extern const struct se_backend_ops se_backend_io_uring;
extern const struct se_backend_ops se_backend_libaio;
extern const struct se_backend_ops se_backend_psync;

const struct se_backend_ops *se_backend_by_name(const char *name);
/* Does a request synchronously (psync, and trim/sync where a backend has no async form). */
int64_t se_io_sync(const struct se_io *io);

/* Completions a backend finished on the spot wait here until the next reap. */
struct se_local_cq {
	struct se_completion *c;
	unsigned int head, n, cap;
};
int se_local_cq_init(struct se_local_cq *q, unsigned int cap);
void se_local_cq_push(struct se_local_cq *q, uint64_t tag, int64_t res);
int se_local_cq_reap(struct se_local_cq *q, struct se_completion *c, int max);
void se_local_cq_free(struct se_local_cq *q);

#endif
