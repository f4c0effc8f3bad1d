/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <trace/events/kyber.h>: the three tracepoints as P lines of the simulator's trace, in the form
 * the embedded kyber writes them ("kyber_adjust WRITE 64"; the device number left out).
 */
#include "oracle_kernel.h"

#ifndef ORACLE_TRACE_KYBER_H
#define ORACLE_TRACE_KYBER_H
#define trace_kyber_latency(dev, domain, type, percentile, numerator, denominator, samples)       \
	oracle_trace_msg(NULL, "kyber_latency %s %s p%u %u/%u samples=%u", domain, type,         \
			 (unsigned int)(percentile), (unsigned int)(numerator),                   \
			 (unsigned int)(denominator), (unsigned int)(samples))
#define trace_kyber_adjust(dev, domain, depth)                                                   \
	oracle_trace_msg(NULL, "kyber_adjust %s %u", domain, (unsigned int)(depth))
#define trace_kyber_throttled(dev, domain) oracle_trace_msg(NULL, "kyber_throttled %s", domain)
#endif
