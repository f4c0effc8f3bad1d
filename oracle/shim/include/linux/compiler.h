/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/compiler.h>: the oracle shim (oracle_kernel.h). */
#include "oracle_kernel.h"
