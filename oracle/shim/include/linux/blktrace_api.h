/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/blktrace_api.h>: the oracle shim (oracle_kernel.h). */
#include "oracle_kernel.h"
