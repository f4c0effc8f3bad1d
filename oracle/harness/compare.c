// SPDX-License-Identifier: GPL-2.0
/*
 * One stream through both implementations, and where they part. Each run's trace is the block
 * layer's events (I insert, D dispatch, C complete, S wait for a request) with their times, and
 * the policy's own lines (the kernel file's cfq_log/bfq_log through blktrace, ours in the same
 * form). Both runs start from the same stream, so their block events agree until the policies
 * decide differently; the first block event that differs is the divergence.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

#define TRACE_RING (4u << 20)

extern void (*oracle_bug_hook)(const char *file, int line, const char *what);
extern void (*oracle_warn_hook)(const char *file, int line, const char *what);

static jmp_buf bug_jmp;
static struct oracle_trace *cur;

static void on_bug(const char *file, int line, const char *what)
{
	if (cur) {
		const char *base = strrchr(file, '/');

		snprintf(cur->bug, sizeof(cur->bug), "%s at %s:%d", what, base ? base + 1 : file, line);
		longjmp(bug_jmp, 1);
	}
}

static void on_warn(const char *file, int line, const char *what)
{
	(void)file;
	(void)line;
	(void)what;
	if (cur)
		cur->warns++;
}

static void collect(void *ctx, uint64_t now, const char *line)
{
	struct oracle_trace *t = ctx;
	struct oracle_event *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
		if (!t->ev) {
			perror("oracle");
			exit(1);
		}
	}
	e = &t->ev[t->n++];
	e->t = now;
	e->line = strdup(line);
	e->block = !strncmp(line, "job", 3);
	if (e->block && strstr(line, " D "))
		t->dispatched++;
}

int oracle_run(const struct oracle_stream *s, enum sched_impl impl, struct oracle_trace *t)
{
	struct vsim_config cfg = s->cfg;
	struct vsim_result res;
	int rc;

	memset(t, 0, sizeof(*t));
	cfg.sched.impl = (uint8_t)impl;
	cfg.sched.trace_bytes = TRACE_RING;
	cfg.trace_fn = collect;
	cfg.trace_ctx = t;
	oracle_bug_hook = on_bug;
	oracle_warn_hook = on_warn;
	if (impl == SCHED_IMPL_KERNEL)
		oracle_select(s->v);
	cur = t;
	if (setjmp(bug_jmp)) {
		cur = NULL;
		return -1; /* the run's memory is lost with it: a BUG_ON is rare and ends the stream */
	}
	rc = vsim_run(&cfg, &res, t->err, sizeof(t->err));
	cur = NULL;
	if (rc)
		return -1;
	t->nr_jobs = res.nr_jobs < ORACLE_MAX_JOBS ? res.nr_jobs : ORACLE_MAX_JOBS;
	for (uint32_t j = 0; j < t->nr_jobs; j++) {
		t->job_mbps[j] = res.job[j].bw_bps / 1e6;
		t->job_iops[j] = res.job[j].iops;
	}
	t->mbps = res.total.bw_bps / 1e6;
	t->iops = res.total.iops;
	vsim_result_free(&res);
	return 0;
}

void oracle_trace_free(struct oracle_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->ev[i].line);
	free(t->ev);
	memset(t, 0, sizeof(*t));
}

static size_t next_block(const struct oracle_trace *t, size_t i)
{
	while (i < t->n && !t->ev[i].block)
		i++;
	return i;
}

/* "job3 D RS 1024 + 8" -> 'D' */
static char action(const char *line)
{
	const char *sp = strchr(line, ' ');

	return sp ? sp[1] : '?';
}

void oracle_compare(const struct oracle_trace *emb, const struct oracle_trace *ker,
		    struct oracle_divergence *d)
{
	size_t i = next_block(emb, 0), j = next_block(ker, 0);

	memset(d, 0, sizeof(*d));
	for (;;) {
		const struct oracle_event *a, *b;

		if (i >= emb->n && j >= ker->n) {
			d->verdict = ORACLE_SAME;
			return;
		}
		d->verdict = ORACLE_DIVERGED;
		d->at_embedded = i;
		d->at_kernel = j;
		if (i >= emb->n || j >= ker->n) {
			const struct oracle_event *x = i < emb->n ? &emb->ev[i] : &ker->ev[j];

			d->t = x->t;
			snprintf(d->cls, sizeof(d->cls), "%s", i < emb->n ? "extra" : "missing");
			snprintf(d->what, sizeof(d->what), "%s ends here; the other goes on: %.80s",
				 i < emb->n ? "the kernel's run" : "ours", x->line);
			return;
		}
		a = &emb->ev[i];
		b = &ker->ev[j];
		if (a->t != b->t || strcmp(a->line, b->line)) {
			char ca = action(a->line), cb = action(b->line);

			d->t = a->t < b->t ? a->t : b->t;
			if (ca == 'D' && cb == 'D' && a->t == b->t)
				snprintf(d->cls, sizeof(d->cls), "order");
			else if (ca == cb && !strcmp(a->line, b->line))
				snprintf(d->cls, sizeof(d->cls), "timing");
			else if (ca == 'D' || cb == 'D')
				snprintf(d->cls, sizeof(d->cls), ca == 'D' ? "ours-first" : "kernel-first");
			else
				snprintf(d->cls, sizeof(d->cls), "other");
			snprintf(d->what, sizeof(d->what), "ours %.3f ms %.60s | kernel %.3f ms %.60s",
				 a->t / 1e6, a->line, b->t / 1e6, b->line);
			return;
		}
		i = next_block(emb, i + 1);
		j = next_block(ker, j + 1);
	}
}

enum oracle_verdict oracle_check(const struct oracle_stream *s, struct oracle_divergence *d,
				 struct oracle_trace *emb, struct oracle_trace *ker)
{
	int re = oracle_run(s, SCHED_IMPL_EMBEDDED, emb);
	int rk = oracle_run(s, SCHED_IMPL_KERNEL, ker);

	memset(d, 0, sizeof(*d));
	if (re) {
		d->verdict = ORACLE_ERROR;
		snprintf(d->cls, sizeof(d->cls), "error");
		snprintf(d->what, sizeof(d->what), "ours: %.250s", emb->bug[0] ? emb->bug : emb->err);
		return d->verdict;
	}
	if (rk && ker->bug[0]) {
		d->verdict = ORACLE_KERNEL_BUG;
		snprintf(d->cls, sizeof(d->cls), "bug");
		snprintf(d->what, sizeof(d->what), "kernel file: %.250s", ker->bug);
		return d->verdict;
	}
	if (rk) {
		d->verdict = ORACLE_ERROR;
		snprintf(d->cls, sizeof(d->cls), "error");
		snprintf(d->what, sizeof(d->what), "kernel run: %.250s", ker->err);
		return d->verdict;
	}
	oracle_compare(emb, ker, d);
	return d->verdict;
}

static void side(FILE *f, const char *who, const struct oracle_trace *t, size_t at,
		 unsigned int before, unsigned int after)
{
	size_t lo = at, n = 0;

	/* before: block events (policy lines in between come along) */
	while (lo > 0 && n < before) {
		lo--;
		if (t->ev[lo].block)
			n++;
	}
	fprintf(f, "  %s:\n", who);
	for (size_t i = lo, k = 0; i < t->n && k <= after; i++) {
		fprintf(f, "  %s %12.6f  %s\n", i == at ? ">>" : "  ", t->ev[i].t / 1e9, t->ev[i].line);
		if (i >= at && t->ev[i].block)
			k++;
	}
}

void oracle_print_window(FILE *f, const struct oracle_trace *emb, const struct oracle_trace *ker,
			 const struct oracle_divergence *d, unsigned int before, unsigned int after)
{
	side(f, "ours (sched/)", emb, d->at_embedded, before, after);
	side(f, "kernel file", ker, d->at_kernel, before, after);
}
