// SPDX-License-Identifier: GPL-2.0
/* The queue's trace ring: records of [time, length, text], 8-byte aligned, wrapping. */
#include <stdio.h>
#include <string.h>

#include "trace.h"

struct rec {
	uint64_t now;
	uint32_t len; /* text bytes; UINT32_MAX: padding to the end of the ring */
	uint32_t pad;
};

#define REC_ALIGN(x) (((x) + 7) & ~(uint64_t)7)
#define PAD_MARK UINT32_MAX

size_t sched_trace_size(uint32_t bytes)
{
	return bytes ? sizeof(struct sched_trace) + REC_ALIGN(bytes) : 0;
}

void sched_trace_init(struct sched_trace *t, uint32_t bytes)
{
	memset(t, 0, sizeof(*t));
	t->size = (uint32_t)REC_ALIGN(bytes);
}

void sched_trace_vprintf(struct sched_trace *t, uint64_t now, const char *fmt, va_list ap)
{
	char line[SCHED_TRACE_LINE_MAX];
	uint64_t need, off, room;
	struct rec r;
	int n;

	if (!sched_trace_on(t))
		return;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	need = REC_ALIGN(sizeof(r) + (uint64_t)n);
	off = t->head % t->size;
	room = t->size - off;
	/* A record never wraps: pad to the end of the ring when it does not fit there. */
	if (need > room && t->head + room + need - t->tail > t->size)
		goto drop;
	if (need <= room && t->head + need - t->tail > t->size)
		goto drop;
	if (need > room) {
		r.now = now;
		r.len = PAD_MARK;
		r.pad = 0;
		if (room >= sizeof(r))
			memcpy(t->buf + off, &r, sizeof(r));
		t->head += room;
		off = 0;
	}
	r.now = now;
	r.len = (uint32_t)n;
	r.pad = 0;
	memcpy(t->buf + off, &r, sizeof(r));
	memcpy(t->buf + off + sizeof(r), line, (size_t)n);
	t->head += need;
	return;
drop:
	t->dropped++;
}

void sched_trace_printf(struct sched_trace *t, uint64_t now, const char *fmt, ...)
{
	va_list ap;

	if (!sched_trace_on(t))
		return;
	va_start(ap, fmt);
	sched_trace_vprintf(t, now, fmt, ap);
	va_end(ap);
}

unsigned int sched_trace_drain(struct sched_trace *t, sched_trace_fn fn, void *ctx)
{
	char line[SCHED_TRACE_LINE_MAX];
	unsigned int n = 0;

	if (!sched_trace_on(t))
		return 0;
	while (t->tail < t->head) {
		uint64_t off = t->tail % t->size, room = t->size - off;
		struct rec r;

		if (room < sizeof(r)) {
			t->tail += room;
			continue;
		}
		memcpy(&r, t->buf + off, sizeof(r));
		if (r.len == PAD_MARK) {
			t->tail += room;
			continue;
		}
		memcpy(line, t->buf + off + sizeof(r), r.len);
		line[r.len] = '\0';
		t->tail += REC_ALIGN(sizeof(r) + r.len);
		if (fn)
			fn(ctx, r.now, line);
		n++;
	}
	return n;
}
