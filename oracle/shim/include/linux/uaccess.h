/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/uaccess.h>: the oracle shim (oracle_kernel.h). */
#include "oracle_kernel.h"
