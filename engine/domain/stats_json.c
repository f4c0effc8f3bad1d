// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "domain.h"
#include "stats_json.h"

void se_outf(struct se_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len)
		o->full = true;
	else
		o->len += (size_t)n;
}

static void se_outc(struct se_out *o, char c)
{
	if (o->full || o->len + 1 >= o->cap) {
		o->full = true;
		return;
	}
	o->buf[o->len++] = c;
	o->buf[o->len] = 0;
}

static void json_string(struct se_out *f, const char *s)
{
	se_outc(f, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			se_outf(f, "\\%c", c);
		else if (c < 0x20)
			se_outf(f, "\\u%04x", c);
		else
			se_outc(f, c);
	}
	se_outc(f, '"');
}

struct emit_ctx {
	struct se_out *f;
	const struct se_domain *d;
	int n;
	int group; /* which group's counters this pass prints; -1 device-wide */
};

static void emit_stat(void *ctx, const char *name, int group, double value)
{
	struct emit_ctx *e = ctx;

	if (group != e->group)
		return;
	se_outf(e->f, "%s\"%s\": %.17g", e->n++ ? ", " : "", name, value);
}

struct timeline_ctx {
	struct se_out *f;
	uint64_t rows;
};

/* "columns": [...] before the first row, then "rows": [[...], ...]. */
static void emit_row(void *ctx, const char *const *columns, unsigned int ncols, const double *row)
{
	struct timeline_ctx *t = ctx;

	if (!t->rows++) {
		se_outf(t->f, "\"columns\": [");
		for (unsigned int i = 0; i < ncols; i++) {
			se_outf(t->f, "%s", i ? ", " : "");
			json_string(t->f, columns[i]);
		}
		se_outf(t->f, "],\n    \"rows\": [");
	}
	se_outf(t->f, "%s\n      [", t->rows > 1 ? "," : "");
	for (unsigned int i = 0; i < ncols; i++)
		se_outf(t->f, "%s%.15g", i ? ", " : "", row[i]);
	se_outf(t->f, "]");
}

static const char *policy_name(const struct se_domain *d)
{
	const struct blk_queue *q = se_blk(d);

	return q ? sched_ops(q->s)->name : "unconfigured";
}

/* The p-th percentile (0..100) of a log2 histogram of ns: its bucket's upper bound, at most
 * the largest value seen. */
static uint64_t hist_pct(const uint64_t *h, unsigned int n, double p, uint64_t max)
{
	uint64_t total = 0, cum = 0, rank;

	for (unsigned int i = 0; i < n; i++)
		total += h[i];
	if (!total)
		return 0;
	rank = (uint64_t)(p / 100.0 * (double)total + 0.5);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < n; i++) {
		cum += h[i];
		if (cum >= rank)
			return i ? ((1ull << i) < max ? 1ull << i : max) : 0;
	}
	return max;
}

void se_stats_json(const struct se_domain *d, struct se_out *f)
{
	const struct blk_queue *q = se_blk(d);
	const struct sched *s = q ? q->s : NULL;
	const struct sched_stats *st = s ? &s->stats : NULL;
	const struct se_job *jobs = se_jobs(d);
	uint64_t group_bytes[SCHED_MAX_GROUPS] = {0}, total_bytes = 0, total_ns = 0;
	uint32_t last = 0;

	se_outf(f, "{\n  \"format\": \"schedengine-stats-2\",\n  \"domain\": ");
	json_string(f, d->name);
	se_outf(f, ",\n  \"sched\": \"%s\",\n", policy_name(d));
	se_outf(f, "  \"hw_queue_depth\": %u,\n  \"rotational\": %s,\n",
		d->cfg.sched.hw_queue_depth, d->cfg.sched.rotational ? "true" : "false");
	se_outf(f, "  \"degraded\": %s,\n", d->degraded ? "true" : "false");
	if (d->degraded) {
		se_outf(f, "  \"degraded_reason\": ");
		json_string(f, d->degraded_why);
		se_outf(f, ",\n");
	}
	/* Shared memory actually used: header, block layer, jobs' slots (and the buffers). */
	se_outf(f, "  \"shm_bytes_used\": %" PRIu64 ",\n  \"shm_bytes_reserved\": %" PRIu64 ",\n",
		d->used, d->size);
	if (q) {
		const struct blk_stats *b = &q->st;

		se_outf(f, "  \"blk_mode\": \"%s\",\n  \"nr_requests\": %u,\n",
			q->mode == SCHED_BLK_MQ ? "mq" : "legacy", q->nr_requests);
		se_outf(f, "  \"admission_waits\": %" PRIu64 ",\n  \"max_waiting\": %u,\n",
			b->admission_waits, b->max_waiting);
		if (q->mode == SCHED_BLK_MQ)
			se_outf(f,
				"  \"max_tags_used\": %u,\n  \"shallow_limited\": %" PRIu64 ",\n",
				b->max_allocated[0], b->shallow_limited);
		else
			se_outf(f, "  \"max_allocated\": {\"sync\": %u, \"async\": %u},\n",
				b->max_allocated[1], b->max_allocated[0]);
		se_outf(
		    f, "  \"admitted_batching\": %" PRIu64 ",\n  \"admitted_must\": %" PRIu64 ",\n",
		    b->admitted_batching, b->admitted_must);
		se_outf(f, "  \"admission_wait_ns_total\": %" PRIu64 ",\n", b->wait_ns);
		/* How late timers ran after their due time (the scheduler sees each on time). */
		se_outf(f,
			"  \"timer_events\": %" PRIu64 ",\n  \"timer_late_ns\": {\"p50\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "},\n",
			b->timer_events, hist_pct(b->timer_late_hist, 40, 50, b->timer_late_max_ns),
			hist_pct(b->timer_late_hist, 40, 99, b->timer_late_max_ns),
			b->timer_late_max_ns);
	}
	se_outf(f, "  \"bypass_dispatched\": %" PRIu64 ",\n  \"stray_completions\": %" PRIu64 ",\n",
		d->bypass_dispatched, d->stray_completions);
	se_outf(f, "  \"issue_errors\": %" PRIu64 ",\n", d->issue_errors);
	se_outf(f, "  \"device_context\": {\"passes\": %" PRIu64 ", \"wakeups\": %" PRIu64 "},\n",
		d->dev_passes, d->dev_wakeups);
	if (s && sched_ops(s)->tunables) {
		se_outf(f, "  \"tunables\": {");
		for (unsigned int i = 0; i < sched_ops(s)->nr_tunables; i++)
			se_outf(f, "%s\"%s\": %" PRId64, i ? ", " : "",
				sched_ops(s)->tunables[i].name, sched_tunable_value(s, i));
		se_outf(f, "},\n");
	}
	if (st) {
		se_outf(f,
			"  \"inserted\": %" PRIu64 ",\n  \"dispatched\": %" PRIu64
			",\n  \"completed\": %" PRIu64 ",\n  \"timer_runs\": %" PRIu64
			",\n  \"max_in_flight\": %u,\n  \"bio_merged\": %" PRIu64
			",\n  \"rq_merged\": %" PRIu64 ",\n",
			st->inserted, st->dispatched, st->completed, st->timer_runs,
			st->max_in_flight, st->bio_merged, st->rq_merged);
		for (uint32_t b = 0; b < SCHED_INFLIGHT_BUCKETS; b++) {
			total_ns += st->inflight_ns[b];
			if (st->inflight_ns[b])
				last = b;
		}
		/* Time spent at each device depth; the last bucket means "this many or more". */
		se_outf(f, "  \"inflight_hist_ns\": [");
		for (uint32_t b = 0; b <= last; b++)
			se_outf(f, "%s%" PRIu64, b ? ", " : "", st->inflight_ns[b]);
		double acc = 0;

		for (uint32_t b = 0; b <= last; b++)
			acc += (double)b * (double)st->inflight_ns[b];
		se_outf(f, "],\n  \"inflight_mean\": %.3f,\n",
			total_ns ? acc / (double)total_ns : 0.0);
	}
	if (s && sched_ops(s)->emit_stats) {
		/* The policy's own counters: idle timer arms/hits/expiries, slices by reason... */
		struct emit_ctx e = {f, d, 0, -1};

		se_outf(f, "  \"policy\": {");
		sched_ops(s)->emit_stats(s->policy, emit_stat, &e);
		se_outf(f, "},\n  \"policy_groups\": {");
		for (uint32_t g = 0, n = 0; g < SCHED_MAX_GROUPS; g++) {
			if (!d->groups[g].used)
				continue;
			e.n = 0;
			e.group = (int)g;
			se_outf(f, "%s\n    ", n++ ? "," : "");
			json_string(f, d->groups[g].name);
			se_outf(f, ": {");
			sched_ops(s)->emit_stats(s->policy, emit_stat, &e);
			se_outf(f, "}");
		}
		se_outf(f, "\n  },\n");
	}
	if (q) {
		/* Merges by kind, and /sys/block/<dev>/stat's reads and writes (completed,
		 * merged, sectors). */
		se_outf(f,
			"  \"merges\": {\"nomerges\": %u, \"plug\": %" PRIu64 ", \"back\": %" PRIu64
			", \"front\": %" PRIu64 ", \"request\": %" PRIu64
			", \"refused_limit\": %" PRIu64 ", \"plug_flushes\": %" PRIu64
			", \"plug_limit_flushes\": %" PRIu64 "},\n",
			q->nomerges, q->st.merges[BLK_MERGE_PLUG], q->st.merges[BLK_MERGE_BACK],
			q->st.merges[BLK_MERGE_FRONT], q->st.merges[BLK_MERGE_REQUEST],
			q->st.merge_refused_limit, q->st.plug_flushes, q->st.plug_limit_flushes);
		se_outf(f,
			"  \"diskstat\": {\"reads\": %" PRIu64 ", \"reads_merged\": %" PRIu64
			", \"read_sectors\": %" PRIu64 ", \"writes\": %" PRIu64
			", \"writes_merged\": %" PRIu64 ", \"write_sectors\": %" PRIu64 "},\n",
			q->st.stat_ios[0], q->st.stat_merges[0], q->st.stat_sectors[0],
			q->st.stat_ios[1], q->st.stat_merges[1], q->st.stat_sectors[1]);
	}
	if (s && sched_ops(s)->emit_timeline) {
		/* The policy's time series (kyber: its pools at each timer run), one row a line. */
		struct timeline_ctx t = {f, 0};

		se_outf(f, "  \"policy_timeline\": {");
		sched_ops(s)->emit_timeline(s->policy, emit_row, &t);
		se_outf(f, "%s]},\n", t.rows ? "\n  " : "\"rows\": [");
	}
	if (q && q->model) {
		const struct devmodel_stats *ms = devmodel_stats(q->model);

		se_outf(f,
			"  \"device_model\": {\"kind\": \"%s\", \"queue_depth\": %u, "
			"\"completed\": %" PRIu64 ", \"read_hits\": %" PRIu64
			", \"cached_writes\": %" PRIu64 ", \"media_ops\": %" PRIu64
			", \"seeks\": %" PRIu64 ", \"min_prefetches\": %" PRIu64
			", \"destages\": %" PRIu64 ", \"busy_ns\": %" PRIu64
			", \"max_in_flight\": %u, \"read_svc_mean_us\": %.1f, "
			"\"write_svc_mean_us\": %.1f, \"read_writes_ahead_mean\": %.2f, "
			"\"writes_backward\": %" PRIu64 ", \"writes_discontig\": %" PRIu64
			", \"aged_picks\": %" PRIu64 ", \"inflight_mean\": %.3f"
			", \"writes_inflight_mean\": %.3f},\n",
			devmodel_kind_name(devmodel_kind(q->model)), devmodel_queue_depth(q->model),
			q->st.model_completions, ms->read_hits, ms->cached_writes, ms->media_ops,
			ms->seeks, ms->min_prefetches, ms->destages, ms->busy_ns, ms->max_in_flight,
			dm_mean_us(ms->svc_ns[0], ms->done[0]),
			dm_mean_us(ms->svc_ns[1], ms->done[1]),
			ms->ops[0] ? (double)ms->read_writes_ahead / (double)ms->ops[0] : 0.0,
			ms->writes_backward, ms->writes_discontig, ms->aged_picks,
			devmodel_occupancy(ms, false), devmodel_occupancy(ms, true));
	}
	se_pc_stats_json(d, f);
	se_outf(f, "  \"jobs\": [");
	for (uint32_t j = 0; jobs && j < d->nr_jobs; j++) {
		const struct se_job *sj = &jobs[j];
		const struct sched_entity_stats *es = s ? sched_entity_stats(s, j) : NULL;

		se_outf(f, "%s\n    {\"job\": %u, \"name\": ", j ? "," : "", j);
		json_string(f, sj->name);
		se_outf(f, ", \"thread_number\": %u, \"subjob\": %u, \"pid\": %d, \"group\": ",
			sj->thread_number, sj->subjob, (int)sj->pid);
		json_string(f, d->groups[sj->group].name);
		se_outf(f,
			", \"died\": %s, \"doorbells\": %" PRIu64 ", \"stolen\": %" PRIu64
			", \"early_completions\": %" PRIu64 ", \"bypassed\": %" PRIu64
			", \"self_runs\": %" PRIu64 ", \"model_polls\": %" PRIu64
			", \"direct_completions\": %" PRIu64,
			sj->died ? "true" : "false", (uint64_t)atomic_load(&sj->bell.rung),
			sj->stolen, sj->early_completions, sj->bypassed, sj->self_runs,
			(uint64_t)atomic_load(&sj->model_polls),
			(uint64_t)atomic_load(&sj->direct_completions));
		if (es) {
			se_outf(f,
				", \"inserted\": %" PRIu64 ", \"dispatched\": %" PRIu64
				", \"completed\": %" PRIu64 ", \"bytes\": %" PRIu64
				", \"wait_ns_total\": %" PRIu64 ", \"wait_ns_mean\": %.1f"
				", \"wait_ns_max\": %" PRIu64 ", \"service_ns_total\": %" PRIu64
				", \"bio_merged\": %" PRIu64 ", \"rq_merged\": %" PRIu64,
				es->inserted, es->dispatched, es->completed, es->bytes, es->wait_ns,
				es->dispatched ? (double)es->wait_ns / (double)es->dispatched : 0.0,
				es->max_wait_ns, es->service_ns, es->bio_merged, es->rq_merged);
			group_bytes[sj->group] += es->bytes;
			total_bytes += es->bytes;
		}
		se_outc(f, '}');
	}
	se_outf(f, "\n  ],\n  \"groups\": [");
	for (uint32_t g = 0, n = 0; g < SCHED_MAX_GROUPS; g++) {
		if (!d->groups[g].used)
			continue;
		se_outf(f, "%s\n    {\"group\": ", n++ ? "," : "");
		json_string(f, d->groups[g].name);
		se_outf(f, ", \"weight\": %u, \"bytes\": %" PRIu64 ", \"share\": %.6f}",
			s ? s->cfg.group_weight[g] : d->groups[g].weight, group_bytes[g],
			total_bytes ? (double)group_bytes[g] / (double)total_bytes : 0.0);
	}
	se_outf(f, "\n  ]\n}\n");
}
