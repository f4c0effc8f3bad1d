/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHED_NONE_H
#define SCHED_NONE_H

#include "sched.h"

extern const struct sched_policy_ops sched_none_ops;

#endif
