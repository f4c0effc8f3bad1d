/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-mq.h as the scheduler files see it: the oracle shim (oracle_kernel.h). */
#include "oracle_kernel.h"
