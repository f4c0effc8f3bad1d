// SPDX-License-Identifier: GPL-2.0
/* null: every request completes at its submission; no parameters, no state of its own. */
#include "devmodel_impl.h"

static void null_defaults(struct devmodel_params *p)
{
	p->queue_depth = 1024;
}

static void null_submit(struct devmodel *m, uint32_t slot, uint64_t now)
{
	dm_complete_at(m, slot, now);
}

const struct devmodel_ops dm_null_ops = {
    .name = "null",
    .defaults = null_defaults,
    .submit = null_submit,
};
