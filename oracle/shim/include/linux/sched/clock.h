/* SPDX-License-Identifier: GPL-2.0 */
#include "oracle_kernel.h"
