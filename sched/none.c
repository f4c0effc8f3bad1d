// SPDX-License-Identifier: GPL-2.0
/* The "none" policy: one FIFO, as blk-mq without an elevator. */
#include "none.h"

struct none_state {
	struct sched_list fifo;
	uint32_t queued;
};

static size_t none_state_size(const struct sched_config *cfg)
{
	(void)cfg;
	return sizeof(struct none_state);
}

static int none_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		     uint64_t now)
{
	struct none_state *nd = st;

	(void)cfg;
	(void)dev;
	(void)now;
	sched_list_init(&nd->fifo);
	nd->queued = 0;
	return 0;
}

static void none_insert(void *st, struct sched_request *rq, uint64_t now)
{
	struct none_state *nd = st;

	(void)now;
	sched_list_add_tail(&rq->priv.fifo, &nd->fifo);
	nd->queued++;
}

static struct sched_request *none_dispatch(void *st, uint64_t now)
{
	struct none_state *nd = st;
	struct sched_request *rq;

	(void)now;
	if (sched_list_empty(&nd->fifo))
		return NULL;
	rq = sched_list_first_entry(&nd->fifo, struct sched_request, priv.fifo);
	sched_list_del_init(&rq->priv.fifo);
	nd->queued--;
	return rq;
}

static bool none_completed(void *st, struct sched_request *rq, uint64_t now)
{
	(void)st;
	(void)rq;
	(void)now;
	return false; /* a completion asks for no run (a SCHED_RESTART is the block layer's) */
}

static bool none_has_work(const void *st)
{
	const struct none_state *nd = st;

	return nd->queued != 0;
}

const struct sched_policy_ops sched_none_ops = {
	.name = "none",
	.blk_mode = SCHED_BLK_MQ,
	.tunables = NULL,
	.nr_tunables = 0,
	.state_size = none_state_size,
	.init = none_init,
	.insert = none_insert,
	.dispatch = none_dispatch,
	.completed = none_completed,
	.has_work = none_has_work,
	.entity_exit = NULL,
};
