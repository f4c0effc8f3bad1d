// SPDX-License-Identifier: GPL-2.0
/*
 * ssd and cloud-ssd: a tandem of FCFS stages whose times are all known at submission.
 *   front end: one command at a time, cmd_us + len / link rate (controller, SATA link, or a
 *              cloud provider's IOPS throttle);
 *   units:     `units` parallel servers (flash dies/channels, backend servers), chosen by
 *              address stripe or earliest free, busy read_us/write_us + len / unit rate;
 *   latency:   lat_us with no capacity limit (completion path, network).
 * Requests leave the front end in submission order, so each unit sees them in that order too
 * and FCFS at submission is exact. Unit time and latency are jittered (uniform +-jitter_pct).
 */
#include "devmodel_impl.h"

static const struct devmodel_flash_params *fparams(const struct devmodel_params *p)
{
	return p->kind == DEVMODEL_CLOUD_SSD ? &p->cloud : &p->ssd;
}

static size_t flash_size(const struct devmodel_params *p, size_t off)
{
	return off + (size_t)fparams(p)->units * sizeof(uint64_t);
}

static uint64_t us_to_ns(double us)
{
	return (uint64_t)(us * 1000.0 + 0.5);
}

static void flash_init(struct devmodel *m, size_t off, uint64_t now)
{
	const struct devmodel_flash_params *fp = fparams(&m->p);
	struct dm_flash *f = &m->u.flash;
	uint64_t *unit_free;

	f->ctrl_free = now;
	f->cmd_ns = us_to_ns(fp->cmd_us);
	f->read_ns = us_to_ns(fp->read_us);
	f->write_ns = us_to_ns(fp->write_us);
	f->lat_ns = us_to_ns(fp->lat_us);
	f->flush_ns = us_to_ns(fp->flush_us);
	f->link_ns_per_byte = fp->link_mbps > 0 ? 1000.0 / fp->link_mbps : 0;
	f->unit_ns_per_byte = fp->unit_mbps > 0 ? 1000.0 / fp->unit_mbps : 0;
	f->jitter = fp->jitter_pct / 100.0;
	f->stripe = (uint64_t)fp->stripe_kib * 1024;
	f->units = fp->units;
	f->by_address = fp->unit_by_address != 0;
	f->off_units = off;
	unit_free = dm_at(m, off);
	for (uint32_t u = 0; u < f->units; u++)
		unit_free[u] = now;
}

/* t scaled by a uniform factor in [1 - jitter, 1 + jitter]. */
static uint64_t jittered(struct devmodel *m, uint64_t t)
{
	double j = m->u.flash.jitter;

	if (j <= 0 || !t)
		return t;
	return (uint64_t)((double)t * (1.0 - j + 2.0 * j * dm_rand_unit(m)) + 0.5);
}

static void flash_submit(struct devmodel *m, uint32_t i, uint64_t now)
{
	struct dm_flash *f = &m->u.flash;
	struct dm_slot *s = &dm_slots(m)[i];
	uint64_t *unit_free = dm_at(m, f->off_units);
	uint64_t start, ctrl_done, svc, done;
	uint32_t u = 0;

	start = now > f->ctrl_free ? now : f->ctrl_free;
	ctrl_done = start + f->cmd_ns + (uint64_t)((double)s->len * f->link_ns_per_byte);
	m->st.busy_ns += ctrl_done - start;
	f->ctrl_free = ctrl_done;

	switch (s->op) {
	case DEVMODEL_READ:
	case DEVMODEL_WRITE:
		if (f->by_address) {
			u = (uint32_t)(((s->lba << DM_SECTOR_SHIFT) / f->stripe) % f->units);
		} else {
			for (uint32_t k = 1; k < f->units; k++)
				if (unit_free[k] < unit_free[u])
					u = k;
		}
		svc = s->op == DEVMODEL_READ ? f->read_ns : f->write_ns;
		svc = jittered(m, svc) + (uint64_t)((double)s->len * f->unit_ns_per_byte);
		start = ctrl_done > unit_free[u] ? ctrl_done : unit_free[u];
		unit_free[u] = start + svc;
		done = start + svc + jittered(m, f->lat_ns);
		break;
	case DEVMODEL_FLUSH:
		/* Everything accepted before is on stable media once every unit is idle. */
		start = ctrl_done;
		for (u = 0; u < f->units; u++)
			if (unit_free[u] > start)
				start = unit_free[u];
		done = start + f->flush_ns + jittered(m, f->lat_ns);
		break;
	default: /* discard: the front end only */
		done = ctrl_done + jittered(m, f->lat_ns);
		break;
	}
	dm_complete_at(m, i, done);
}

/* ssd and cloud-ssd share the model and differ in their parameters ("ssd_*", "cloud_*"). */
/* clang-format off */
#define FLASH_PARAMS(pfx, fld)                                                                   \
	{ pfx "_cmd_us", DM_P_DOUBLE, DM_PO(fld.cmd_us), 0, 1e6,                                 \
	  "front end time per command, us" },                                                    \
	{ pfx "_link_mbps", DM_P_DOUBLE, DM_PO(fld.link_mbps), 0, 1e6,                           \
	  "front end transfer rate MB/s (0: no limit)" },                                        \
	{ pfx "_units", DM_P_U32, DM_PO(fld.units), 1, DEVMODEL_MAX_UNITS, "parallel units" },   \
	{ pfx "_unit_by_address", DM_P_U32, DM_PO(fld.unit_by_address), 0, 1,                    \
	  "1: unit chosen by address stripe, 0: earliest free unit" },                           \
	{ pfx "_stripe_kib", DM_P_U32, DM_PO(fld.stripe_kib), 1, 1 << 20,                        \
	  "address stripe, KiB" },                                                               \
	{ pfx "_read_us", DM_P_DOUBLE, DM_PO(fld.read_us), 0, 1e7,                               \
	  "unit busy time per read, us" },                                                       \
	{ pfx "_write_us", DM_P_DOUBLE, DM_PO(fld.write_us), 0, 1e7,                             \
	  "unit busy time per write, us" },                                                      \
	{ pfx "_unit_mbps", DM_P_DOUBLE, DM_PO(fld.unit_mbps), 0, 1e6,                           \
	  "unit transfer rate MB/s (0: no size term)" },                                         \
	{ pfx "_lat_us", DM_P_DOUBLE, DM_PO(fld.lat_us), 0, 1e7,                                 \
	  "fixed latency after the unit, us" },                                                  \
	{ pfx "_flush_us", DM_P_DOUBLE, DM_PO(fld.flush_us), 0, 1e7,                             \
	  "flush time once idle, us" },                                                          \
	{ pfx "_jitter_pct", DM_P_DOUBLE, DM_PO(fld.jitter_pct), 0, 100,                         \
	  "uniform +-% on unit time and latency" }

static const struct dm_param ssd_params[] = { FLASH_PARAMS("ssd", ssd) };
static const struct dm_param cloud_params[] = { FLASH_PARAMS("cloud", cloud) };
/* clang-format on */

/* 2015 local SATA SSD: see devmodel.h. */
static void ssd_param_defaults(struct devmodel_params *p)
{
	p->ssd.cmd_us = 38.8;
	p->ssd.link_mbps = 550;
	p->ssd.units = 4;
	p->ssd.unit_by_address = 1;
	p->ssd.stripe_kib = 4;
	p->ssd.read_us = 130;
	p->ssd.write_us = 60;
	p->ssd.unit_mbps = 400;
	p->ssd.lat_us = 5;
	p->ssd.flush_us = 500;
	p->ssd.jitter_pct = 10;
}

/* 2015 cloud SSD: see devmodel.h. */
static void cloud_param_defaults(struct devmodel_params *p)
{
	p->cloud.cmd_us = 34;
	p->cloud.link_mbps = 0;
	p->cloud.units = 64;
	p->cloud.unit_by_address = 0;
	p->cloud.stripe_kib = 4;
	p->cloud.read_us = 600;
	p->cloud.write_us = 600;
	p->cloud.unit_mbps = 0;
	p->cloud.lat_us = 460;
	p->cloud.flush_us = 1000;
	p->cloud.jitter_pct = 25;
}

static void ssd_defaults(struct devmodel_params *p)
{
	p->capacity_bytes = 256ull * 1000 * 1000 * 1000;
}

static void cloud_ssd_defaults(struct devmodel_params *p)
{
	p->capacity_bytes = 500ull * 1000 * 1000 * 1000;
	p->queue_depth = 64;
}

const struct devmodel_ops dm_ssd_ops = {
    .name = "ssd",
    .params = ssd_params,
    .nr_params = sizeof(ssd_params) / sizeof(ssd_params[0]),
    .param_defaults = ssd_param_defaults,
    .defaults = ssd_defaults,
    .size = flash_size,
    .init = flash_init,
    .submit = flash_submit,
};

const struct devmodel_ops dm_cloud_ssd_ops = {
    .name = "cloud-ssd",
    .alias = "cloud",
    .params = cloud_params,
    .nr_params = sizeof(cloud_params) / sizeof(cloud_params[0]),
    .param_defaults = cloud_param_defaults,
    .defaults = cloud_ssd_defaults,
    .size = flash_size,
    .init = flash_init,
    .submit = flash_submit,
};
