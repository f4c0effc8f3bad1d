/* SPDX-License-Identifier: GPL-2.0 */
/* <trace/events/kyber.h>: tracepoints are not compiled in. */
#include "oracle_kernel.h"
