/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue's trace: a ring of text lines kept inside the scheduler's own memory, as blktrace
 * hangs off the request_queue. The block layer (I/D/C/S events) and the policies (their
 * cfq_log-style lines) append to it; whoever owns the queue drains it (the engine to the
 * sched_trace file after each locked section, the simulator and the tests to their own sink).
 * No function pointer is stored: the ring may live in memory shared by processes.
 */
#ifndef SCHED_TRACE_H
#define SCHED_TRACE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_TRACE_LINE_MAX 256

struct sched_trace {
	uint32_t size; /* bytes of buf; 0: tracing off */
	uint32_t pad;
	uint64_t head;	  /* bytes written (monotonic) */
	uint64_t tail;	  /* bytes drained (monotonic) */
	uint64_t dropped; /* lines lost because the ring was full */
	char buf[];	  /* size bytes, a multiple of 8 */
};

/* Receives one line (no newline) logged at time now. */
typedef void (*sched_trace_fn)(void *ctx, uint64_t now, const char *line);

/* Bytes to reserve for a ring holding about `bytes` of lines (0: no ring). */
size_t sched_trace_size(uint32_t bytes);
void sched_trace_init(struct sched_trace *t, uint32_t bytes);

static inline bool sched_trace_on(const struct sched_trace *t)
{
	return t && t->size;
}

/* Appends one line; dropped (and counted) when the ring is full. */
void sched_trace_printf(struct sched_trace *t, uint64_t now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sched_trace_vprintf(struct sched_trace *t, uint64_t now, const char *fmt, va_list ap);
/* Hands every line to fn, oldest first, and empties the ring. Returns how many. */
unsigned int sched_trace_drain(struct sched_trace *t, sched_trace_fn fn, void *ctx);

#endif
