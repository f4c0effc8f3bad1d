// SPDX-License-Identifier: GPL-2.0
/*
 * The model-backed device's core: one devmodel state under one lock, as in the engine's domain.
 *
 * Each FUSE request is one model request, submitted at the time the daemon reads it. When the
 * model already holds dev_queue_depth requests, the request waits in a FIFO in front of it (a
 * host queue) and is submitted at the model time a slot frees. A completion thread sleeps until
 * the model's next event (timer slack 1 ns), reaps what completed, in the model's order, and
 * answers the FUSE requests in that order. Model events are processed at their own times, even
 * when the thread that notices them runs late, so the device's timeline is the model's: only the
 * replies are late, and the lateness is measured (stats: late_*).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include "mdev.h"

uint64_t mdev_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool mdev_set_rt(int prio)
{
	struct sched_param sp = {.sched_priority = prio};

	if (prio <= 0)
		return false;
	return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
}

static int model_build(struct mdev_core *c, uint64_t now, char *err, size_t errlen)
{
	size_t need = devmodel_size(&c->params);

	if (!need) {
		if (devmodel_params_check(&c->params, err, errlen) == 0)
			snprintf(err, errlen, "device model: invalid parameters");
		return -1;
	}
	if (need > c->model_size) {
		free(c->model_mem);
		c->model_mem = NULL;
		if (posix_memalign(&c->model_mem, 64, need)) {
			snprintf(err, errlen, "out of memory for the device model (%zu bytes)",
				 need);
			return -1;
		}
		c->model_size = need;
	}
	c->model = devmodel_create_in(c->model_mem, c->model_size, &c->params, now);
	if (!c->model) {
		snprintf(err, errlen, "device model: cannot be created");
		return -1;
	}
	c->model_clock = now;
	c->qd = devmodel_queue_depth(c->model);
	return 0;
}

int core_init(struct mdev_core *c, const struct devmodel_params *p, uint32_t nr_rq,
	      struct mdev_store *store, mdev_reply_fn reply, char *err, size_t errlen)
{
	pthread_condattr_t ca;

	memset(c, 0, sizeof(*c));
	c->params = *p;
	c->store = store;
	c->reply = reply;
	c->sleep_until = 0;
	if (devmodel_params_check(p, err, errlen))
		return -1;
	if (model_build(c, mdev_now(), err, errlen))
		return -1;
	c->nr_rq = nr_rq;
	c->rq = calloc(nr_rq, sizeof(*c->rq));
	if (!c->rq) {
		snprintf(err, errlen, "out of memory for %u requests", nr_rq);
		return -1;
	}
	for (uint32_t i = 0; i < nr_rq; i++)
		c->rq[i].next = i + 1 < nr_rq ? (int32_t)(i + 1) : -1;
	c->free_head = 0;
	c->fifo_head = c->fifo_tail = -1;
	c->done_head = c->done_tail = -1;
	c->st.since_ns = mdev_now();
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->reply_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

/* ---- under c->lock ------------------------------------------------------------------------- */

static void done_push(struct mdev_core *c, int32_t i)
{
	c->rq[i].next = -1;
	if (c->done_tail >= 0)
		c->rq[c->done_tail].next = i;
	else
		c->done_head = i;
	c->done_tail = i;
}

static int32_t done_pop(struct mdev_core *c)
{
	int32_t i = c->done_head;

	if (i >= 0) {
		c->done_head = c->rq[i].next;
		if (c->done_head < 0)
			c->done_tail = -1;
	}
	return i;
}

static void model_submit(struct mdev_core *c, int32_t i, uint64_t at)
{
	struct mdev_rq *r = &c->rq[i];
	uint64_t len = r->len;

	if (at < c->model_clock)
		at = c->model_clock;
	c->model_clock = at;
	/* The model takes up to 2 GiB per request: a larger discard is charged as 2 GiB. */
	if (len > (1ull << 31))
		len = 1ull << 31;
	if (devmodel_submit(c->model, (uint64_t)i, r->off, len, (enum devmodel_op)r->op, at)) {
		/* Cannot happen: the caller checked the depth and the arguments. */
		r->err = EIO;
		r->t_done = at;
		r->state = RQ_DONE;
		c->st.errors++;
		done_push(c, i);
		return;
	}
	r->state = RQ_MODEL;
	r->t_sub = at;
	if (devmodel_in_flight(c->model) > c->st.max_model)
		c->st.max_model = devmodel_in_flight(c->model);
}

/* Model slots free: the FIFO's head goes in at time at. */
static void fifo_refill(struct mdev_core *c, uint64_t at)
{
	while (c->fifo_head >= 0 && devmodel_in_flight(c->model) < c->qd) {
		int32_t i = c->fifo_head;

		c->fifo_head = c->rq[i].next;
		if (c->fifo_head < 0)
			c->fifo_tail = -1;
		c->fifo_len--;
		model_submit(c, i, at > c->rq[i].t_recv ? at : c->rq[i].t_recv);
	}
}

/* Processes every model event up to now, each at its own time. */
static void advance_locked(struct mdev_core *c, uint64_t now)
{
	uint64_t ids[64];

	for (;;) {
		uint64_t t = devmodel_next_completion(c->model);
		int n;

		if (t == DEVMODEL_NO_COMPLETION || t > now)
			break;
		if (t < c->model_clock)
			t = c->model_clock;
		c->model_clock = t;
		n = devmodel_reap(c->model, t, ids, 64);
		for (int k = 0; k < n; k++) {
			struct mdev_rq *r = &c->rq[ids[k]];

			r->t_done = t;
			r->state = RQ_DONE;
			done_push(c, (int32_t)ids[k]);
		}
		fifo_refill(c, t);
	}
}

/* The completion thread must wake by the model's next event. */
static void kick_locked(struct mdev_core *c)
{
	uint64_t t = devmodel_next_completion(c->model);

	if (c->done_head >= 0 || (t != DEVMODEL_NO_COMPLETION && t < c->sleep_until))
		pthread_cond_signal(&c->cv);
}

/* ---- replies ------------------------------------------------------------------------------- */

static void account_reply(struct mdev_core *c, struct mdev_rq *r, uint64_t start, uint64_t sent)
{
	uint64_t late = start > r->t_done ? start - r->t_done : 0, us = late / 1000;
	int b = 0;

	c->st.late_n++;
	c->st.late_sum_ns += late;
	if (late > c->st.late_max_ns)
		c->st.late_max_ns = late;
	while (us && b < MDEV_LATE_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	c->st.late_hist[b]++;
	c->st.resid_sum_ns += sent > r->t_recv ? sent - r->t_recv : 0;
	c->st.reply_sum_ns += sent - start;
	c->st.service_sum_ns += r->t_done > r->t_sub ? r->t_done - r->t_sub : 0;
}

/* Sends the queued replies in order; any thread may call it (the reply lock keeps the order). */
static void flush_replies(struct mdev_core *c)
{
	pthread_mutex_lock(&c->reply_lock);
	for (;;) {
		struct mdev_rq copy;
		int32_t i;
		uint64_t start, sent;

		pthread_mutex_lock(&c->lock);
		i = done_pop(c);
		if (i >= 0) {
			copy = c->rq[i];
			/* Out before the reply: once the kernel has it, the tag (and a new request
			 * on it) may come back before this thread takes the lock again. */
			c->st.outstanding--;
			c->replying++;
		}
		pthread_mutex_unlock(&c->lock);
		if (i < 0)
			break;
		start = mdev_now();
		c->reply(c, &copy);
		sent = mdev_now();
		pthread_mutex_lock(&c->lock);
		account_reply(c, &copy, start, sent);
		c->rq[i].state = RQ_FREE;
		c->rq[i].req = NULL;
		c->rq[i].next = c->free_head;
		c->free_head = i;
		c->replying--;
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&c->reply_lock);
}

static void *completion_thread(void *arg)
{
	struct mdev_core *c = arg;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	prctl(PR_SET_NAME, "modeldev-compl", 0, 0, 0);
	c->rt_ok = mdev_set_rt(c->rt_prio);
	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		uint64_t t;

		c->sleep_until = 0;
		advance_locked(c, mdev_now());
		if (c->done_head >= 0) {
			pthread_mutex_unlock(&c->lock);
			flush_replies(c);
			pthread_mutex_lock(&c->lock);
			continue;
		}
		t = devmodel_next_completion(c->model);
		if (t == DEVMODEL_NO_COMPLETION) {
			c->sleep_until = UINT64_MAX;
			pthread_cond_wait(&c->cv, &c->lock);
		} else {
			struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ull),
					      .tv_nsec = (long)(t % 1000000000ull)};

			c->sleep_until = t;
			pthread_cond_timedwait(&c->cv, &c->lock, &ts);
		}
	}
	c->sleep_until = 0;
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int core_start(struct mdev_core *c, char *err, size_t errlen)
{
	int e = pthread_create(&c->thread, NULL, completion_thread, c);

	if (e) {
		snprintf(err, errlen, "cannot start the completion thread: %s", strerror(e));
		return -1;
	}
	c->thread_started = true;
	return 0;
}

void core_stop(struct mdev_core *c)
{
	if (!c->thread_started)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	c->thread_started = false;
}

void core_destroy(struct mdev_core *c)
{
	core_stop(c);
	free(c->rq);
	free(c->model_mem);
	c->rq = NULL;
	c->model_mem = NULL;
	c->model = NULL;
}

int core_submit(struct mdev_core *c, void *req, enum devmodel_op op, uint64_t off, uint64_t len,
		int err)
{
	struct mdev_rq *r;
	uint64_t now;
	int32_t i;
	int b = 0;
	bool replies;

	pthread_mutex_lock(&c->lock);
	now = mdev_now();
	if (now < c->model_clock)
		now = c->model_clock;
	advance_locked(c, now); /* slots freed by now are free for this request */
	i = c->free_head;
	if (i < 0) {
		pthread_mutex_unlock(&c->lock);
		return EAGAIN;
	}
	r = &c->rq[i];
	c->free_head = r->next;
	r->req = req;
	r->op = (uint8_t)op;
	r->off = off;
	r->len = len;
	r->t_recv = now;
	r->t_sub = now;
	r->err = err;
	r->next = -1;
	c->st.ops[op]++;
	if (op <= DEVMODEL_WRITE)
		c->st.bytes[op] += len;
	if (op <= DEVMODEL_WRITE) {
		while ((512ull << b) < len && b < MDEV_SIZE_BUCKETS - 1)
			b++;
		c->st.size_hist[b]++;
		if (len > c->st.max_len)
			c->st.max_len = len;
	}
	if (++c->st.outstanding > c->st.max_outstanding)
		c->st.max_outstanding = c->st.outstanding;
	if ((op == DEVMODEL_READ || op == DEVMODEL_WRITE) && len == 0) {
		r->t_done = now;
		r->state = RQ_DONE;
		done_push(c, i);
	} else if (c->fifo_head < 0 && devmodel_in_flight(c->model) < c->qd) {
		model_submit(c, i, now);
	} else {
		r->state = RQ_FIFO;
		if (c->fifo_tail >= 0)
			c->rq[c->fifo_tail].next = i;
		else
			c->fifo_head = i;
		c->fifo_tail = i;
		c->fifo_len++;
		c->st.fifo_waits++;
		if (c->fifo_len > c->st.max_fifo)
			c->st.max_fifo = c->fifo_len;
	}
	advance_locked(c, now); /* what completes at once (the null model) is answered now */
	kick_locked(c);
	replies = c->done_head >= 0;
	pthread_mutex_unlock(&c->lock);
	if (replies)
		flush_replies(c);
	return 0;
}

int core_reset(struct mdev_core *c)
{
	char err[200];
	int rc = 0;

	pthread_mutex_lock(&c->lock);
	if (c->st.outstanding || c->replying || devmodel_in_flight(c->model) || c->fifo_len) {
		rc = EBUSY;
	} else if (model_build(c, mdev_now(), err, sizeof(err))) {
		fprintf(stderr, "modeldev: reset: %s\n", err);
		rc = EIO;
	} else {
		memset(&c->st, 0, sizeof(c->st));
		c->st.since_ns = mdev_now();
		c->resets++;
		pthread_cond_signal(&c->cv);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void core_stats_json(struct mdev_core *c, char *buf, size_t len)
{
	struct mdev_stats s;
	struct devmodel_stats ms;
	uint32_t fifo, inflight;
	uint64_t resets;
	size_t o = 0;

	pthread_mutex_lock(&c->lock);
	s = c->st;
	ms = *devmodel_stats(c->model);
	fifo = c->fifo_len;
	inflight = devmodel_in_flight(c->model);
	resets = c->resets;
	pthread_mutex_unlock(&c->lock);
#define OUT(...)                                                                                   \
	do {                                                                                       \
		if (o < len)                                                                       \
			o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__);                      \
	} while (0)
	OUT("{\"model\":\"%s\",\"queue_depth\":%u,\"resets\":%" PRIu64 ",\"seconds\":%.3f,",
	    devmodel_kind_name(c->params.kind), c->qd, resets,
	    (double)(mdev_now() - s.since_ns) / 1e9);
	OUT("\"requests\":{\"read\":%" PRIu64 ",\"write\":%" PRIu64 ",\"flush\":%" PRIu64
	    ",\"discard\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64
	    ",\"max_bytes\":%" PRIu64 ",\"errors\":%" PRIu64 "},",
	    s.ops[0], s.ops[1], s.ops[2], s.ops[3], s.bytes[0], s.bytes[1], s.max_len, s.errors);
	OUT("\"size_hist\":{");
	for (int b = 0, first = 1; b < MDEV_SIZE_BUCKETS; b++)
		if (s.size_hist[b]) {
			OUT("%s\"%llu\":%" PRIu64, first ? "" : ",", 512ull << b, s.size_hist[b]);
			first = 0;
		}
	OUT("},\"depth\":{\"outstanding\":%u,\"max_outstanding\":%u,\"in_model\":%u,\"max_in_"
	    "model\":%u,"
	    "\"fifo\":%u,\"max_fifo\":%u,\"fifo_waits\":%" PRIu64 "},",
	    s.outstanding, s.max_outstanding, inflight, s.max_model, fifo, s.max_fifo,
	    s.fifo_waits);
	OUT("\"reply_late_us\":{\"n\":%" PRIu64 ",\"mean\":%.2f,\"max\":%.1f,\"hist_log2\":[",
	    s.late_n, s.late_n ? (double)s.late_sum_ns / (double)s.late_n / 1000 : 0,
	    (double)s.late_max_ns / 1000);
	for (int b = 0; b < MDEV_LATE_BUCKETS; b++)
		OUT("%s%" PRIu64, b ? "," : "", s.late_hist[b]);
	OUT("]},\"model_service_mean_us\":%.2f,\"reply_syscall_mean_us\":%.2f,"
	    "\"daemon_mean_us\":%.2f,",
	    s.late_n ? (double)s.service_sum_ns / (double)s.late_n / 1000 : 0,
	    s.late_n ? (double)s.reply_sum_ns / (double)s.late_n / 1000 : 0,
	    s.late_n ? (double)s.resid_sum_ns / (double)s.late_n / 1000 : 0);
	OUT("\"device_model\":{\"submitted\":%" PRIu64 ",\"completed\":%" PRIu64
	    ",\"read_hits\":%" PRIu64 ",\"cached_writes\":%" PRIu64 ",\"media_ops\":%" PRIu64
	    ",\"seeks\":%" PRIu64 ",\"destages\":%" PRIu64 ",\"busy_ns\":%" PRIu64
	    ",\"max_in_flight\":%u,\"read_svc_mean_us\":%.1f,\"write_svc_mean_us\":%.1f,"
	    "\"read_writes_ahead_mean\":%.2f,\"writes_backward\":%" PRIu64
	    ",\"writes_discontig\":%" PRIu64 ",\"aged_picks\":%" PRIu64
	    ",\"inflight_mean\":%.3f,\"writes_inflight_mean\":%.3f}}",
	    ms.submitted, ms.completed, ms.read_hits, ms.cached_writes, ms.media_ops, ms.seeks,
	    ms.destages, ms.busy_ns, ms.max_in_flight, dm_mean_us(ms.svc_ns[0], ms.done[0]),
	    dm_mean_us(ms.svc_ns[1], ms.done[1]),
	    ms.ops[0] ? (double)ms.read_writes_ahead / (double)ms.ops[0] : 0.0, ms.writes_backward,
	    ms.writes_discontig, ms.aged_picks, devmodel_occupancy(&ms, false),
	    devmodel_occupancy(&ms, true));
#undef OUT
}
