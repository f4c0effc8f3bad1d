// SPDX-License-Identifier: GPL-2.0
/* psync: pread/pwrite/fsync/trim in the job's own context, one request at a time. */
#include <errno.h>
#include <stdlib.h>

#include "backend.h"

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

static int psync_issue(struct se_backend *b, const struct se_io *io)
{
	se_local_cq_push(b->priv, io->tag, se_io_sync(io));
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

static int psync_wait(struct se_backend *b, struct se_bell *bell, uint32_t seen, uint64_t deadline)
{
	struct se_local_cq *q = b->priv;

	if (q->n)
		return 0;
	if (!bell) {
		uint64_t now = se_now_ns();
		struct timespec ts;

		if (deadline == UINT64_MAX || now >= deadline)
			return 1;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
		nanosleep(&ts, NULL);
		return 1;
	}
	return se_bell_wait(bell, seen, deadline);
}

static void psync_exit(struct se_backend *b)
{
	if (!b->priv)
		return;
	se_local_cq_free(b->priv);
	free(b->priv);
	b->priv = NULL;
}

const struct se_backend_ops se_backend_psync = {
	.name = "psync",
	.completes_in_issue = true,
	.init = psync_init,
	.issue = psync_issue,
	.flush = psync_flush,
	.reap = psync_reap,
	.wait = psync_wait,
	.exit = psync_exit,
};
