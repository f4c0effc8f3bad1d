// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback per group (cgroup writeback, 4.2): buffered sequential writers in groups of
 * different weights, one each, on the hdd model in virtual time. With the 6.12 profile each
 * group's dirty pages are written back by its own wb's flusher as the group's async I/O, and
 * balance_dirty_pages() throttles each writer against its wb's share of the dirty limit, so
 * CFQ's and BFQ's group weights set the written bytes; the 2.6.29 profile (one flusher for
 * every group, no cgroup writeback) shows the old equal shares. Deterministic, virtual time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"
#include "vsim.h"

#define SEC 1000000000ull
#define MiB (1ull << 20)
#define GiB (1ull << 30)

struct cgwb_row {
	double share[3];     /* of the written bytes (or device bytes) per writer group */
	double mbps[3];	     /* writeback MB/s per writer group */
	double reader_mbps;  /* the direct reader's */
	uint64_t written[3]; /* pages written back per group's wb */
};

static uint32_t hwqd, nrreq;
static const char *per_group_rl; /* cfq_sw_per_group_rl given ("0", "1"), else the profile's */

static void run_ok(struct vsim_config *cfg, struct vsim_result *res)
{
	char err[256] = "";

	if (vsim_run(cfg, res, err, sizeof(err))) {
		print_error("vsim_run: %s\n", err);
		fail();
	}
	assert_false(res->stalled);
}

/*
 * Writers in groups 1 .. nw (weights w[]), one buffered sequential 4 KiB writer each on a file
 * of its own; with reader, a direct sequential reader in group nw + 1 (weight rw).
 */
static void run_groups(enum sched_policy_id pol, enum pc_profile prof, uint32_t nw,
		       const uint32_t *w, bool reader, uint32_t rw, uint64_t runtime,
		       struct cgwb_row *row)
{
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[4];
	uint64_t tot = 0;
	uint32_t n = 0;

	memset(row, 0, sizeof(*row));
	vsim_config_defaults(&cfg, pol, DEVMODEL_HDD);
	cfg.pagecache = true;
	pc_params_defaults(&cfg.pc, prof);
	for (uint32_t i = 0; i < nw; i++) {
		vsim_job_defaults(&jobs[n]);
		jobs[n].name = "writer";
		jobs[n].rw = VSIM_WRITE;
		jobs[n].direct = false;
		jobs[n].bs = 4096;
		jobs[n].offset = (uint64_t)(i + 1) * 64 * GiB;
		jobs[n].size = 32 * GiB;
		jobs[n].file = i + 1;
		jobs[n].group = i + 1;
		cfg.sched.group_weight[i + 1] = (uint16_t)w[i];
		n++;
	}
	if (reader) {
		vsim_job_defaults(&jobs[n]);
		jobs[n].name = "reader";
		jobs[n].rw = VSIM_READ;
		jobs[n].bs = 128 * 1024;
		jobs[n].size = 32 * GiB;
		jobs[n].file = nw + 1;
		jobs[n].group = nw + 1;
		cfg.sched.group_weight[nw + 1] = (uint16_t)rw;
		n++;
	}
	if (hwqd)
		cfg.sched.hw_queue_depth = hwqd;
	if (nrreq)
		cfg.nr_requests = nrreq;
	if (per_group_rl) {
		char err[256];

		assert_int_equal(sched_config_set_tunable(&cfg.sched, "cfq_sw_per_group_rl",
							  per_group_rl, err, sizeof(err)),
				 0);
	}
	cfg.jobs = jobs;
	cfg.nr_jobs = n;
	cfg.runtime_ns = runtime;
	run_ok(&cfg, &r);
	for (uint32_t i = 0; i < nw; i++) {
		/* written back in the group's name: its wb (6.12), or its inode's pages (one wb) */
		row->written[i] = r.pc.written_by_group[i + 1] * 4096;
		tot += row->written[i];
	}
	for (uint32_t i = 0; i < nw; i++) {
		row->share[i] = tot ? (double)row->written[i] / (double)tot : 0;
		row->mbps[i] = (double)row->written[i] / ((double)runtime / SEC) / 1e6;
	}
	if (reader)
		row->reader_mbps = r.job[nw].bw_bps / 1e6;
	if (getenv("CGWB_DEBUG")) {
		for (uint32_t i = 0; i < r.pc_nr_wbs; i++)
			printf("   wb %u: dirtied %lu written %lu flusher pages %lu reqs %lu bw %u "
			       "ratelimit %u wb_thresh %u\n",
			       i, (unsigned long)r.pc_wb[i].dirtied,
			       (unsigned long)r.pc_wb[i].written,
			       (unsigned long)r.pc_wb[i].wb_pages,
			       (unsigned long)r.pc_wb[i].wb_requests, r.pc_wb[i].write_bw,
			       r.pc_wb[i].dirty_ratelimit, r.pc_wb[i].wb_thresh);
		for (uint32_t i = 0; i < nw; i++)
			printf("   writer %u: dirtied %lu pauses %lu throttled %.2f s\n", i,
			       (unsigned long)r.pc_entity[i].dirtied,
			       (unsigned long)r.pc_entity[i].pauses,
			       (double)r.pc_entity[i].throttle_ns / SEC);
		printf("   thresh %u bg %u\n", r.pc.thresh, r.pc.bg_thresh);
		printf("   admission waits %lu, most requests allocated in one list: async %u "
		       "sync %u\n",
		       (unsigned long)r.admission_waits, r.max_allocated[0], r.max_allocated[1]);
	}
	vsim_result_free(&r);
}

/* Each writer group's share of the written bytes within 25% of its weight's share. */
static void check_shares(const char *what, const struct cgwb_row *row, const uint32_t *w,
			 uint32_t nw)
{
	uint32_t wsum = 0;

	for (uint32_t i = 0; i < nw; i++)
		wsum += w[i];
	for (uint32_t i = 0; i < nw; i++) {
		double want = (double)w[i] / wsum;

		if (row->share[i] < 0.75 * want || row->share[i] > 1.25 * want) {
			print_error(
			    "%s: group %u wrote %.3f of the bytes, its weight's share %.3f\n", what,
			    i + 1, row->share[i], want);
			fail();
		}
	}
}

static void print_row(const char *what, const struct cgwb_row *row, const uint32_t *w)
{
	printf("  %-34s weights %u:%u  written shares %.3f : %.3f  (%.1f + %.1f MB/s)  "
	       "weight shares %.3f : %.3f\n",
	       what, w[0], w[1], row->share[0], row->share[1], row->mbps[0], row->mbps[1],
	       (double)w[0] / (w[0] + w[1]), (double)w[1] / (w[0] + w[1]));
}

static const uint32_t w12[2] = {100, 200}, w14[2] = {100, 400};

/*
 * BFQ (blk-mq): the flushers' async requests reach BFQ only beyond what the drive holds. The
 * hdd model's 32 commands and the kernel's 64 scheduler tags (2 x min(depth, 128)), of which
 * async writes may take half (bfq_limit_depth()), let every writeback request into the drive
 * at once: BFQ has nothing to choose from and the tags go round (equal shares). With
 * nr_requests=256 (queue/nr_requests) requests wait in BFQ, bfqq_request_over_limit() holds
 * each group to its weight's share of the tags, and the weights hold.
 */
static void test_cgwb_bfq(void **state)
{
	struct cgwb_row row;

	(void)state;
	printf("bfq, hdd model, one buffered sequential writer per group, 20 s:\n");
	nrreq = 256;
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w12, false, 0, 20 * SEC, &row);
	print_row("6.12 nr_requests=256", &row, w12);
	check_shares("bfq 6.12 1:2", &row, w12, 2);
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12 nr_requests=256", &row, w14);
	check_shares("bfq 6.12 1:4", &row, w14, 2);
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_2_6_29, 2, w14, false, 0, 20 * SEC, &row);
	print_row("2.6.29 nr_requests=256", &row, w14);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
	nrreq = 0;
	run_groups(SCHED_POLICY_BFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12 nr_requests=auto (64)", &row, w14);
	known_gap("bfq 1:4 with the hdd's 64 tags: group 1's share of the written bytes",
		  row.share[0], 0.4, 0.6,
		  "every async request fits in the drive (32 commands, 32 async tags): BFQ never "
		  "holds one to choose; the kernel alike (docs/pagecache.md)");
}

/*
 * CFQ (4.19, legacy block layer): 1:2 holds; 1:4 does not. It is not the request list: with a
 * list per group (cfq_sw_per_group_rl, blk_get_rl()) no flusher ever sleeps in get_request()
 * (1280 KiB writeback requests, about 100 of 128 allocated at most), and with one list for
 * every group only once in 20 s; the shares are the same either way (0.383 : 0.617). Why CFQ
 * gives the heavier group's async queue no more is not understood yet. The 2.6.29 page cache
 * (no cgroup writeback) is run with one list as its kernels had; with 4.19's lists per group the
 * writers' own writeback in balance_dirty_pages() takes the weights in part (printed).
 */
static void test_cgwb_cfq(void **state)
{
	struct cgwb_row row;

	(void)state;
	printf("cfq, hdd model, one buffered sequential writer per group, 20 s:\n");
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_6_12, 2, w12, false, 0, 20 * SEC, &row);
	print_row("6.12", &row, w12);
	check_shares("cfq 6.12 1:2", &row, w12, 2);
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12", &row, w14);
	assert_true(row.share[1] > 1.3 * row.share[0]);
	known_gap("cfq 1:4: group 1's share of the written bytes (weight share 0.2)", row.share[0],
		  0.3, 0.45,
		  "not the request list (one per group, no flusher waits for a request); not "
		  "understood yet (docs/pagecache.md)");
	per_group_rl = "0";
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_6_12, 2, w14, false, 0, 20 * SEC, &row);
	print_row("6.12, one request list", &row, w14);
	assert_true(row.share[0] > 0.3 && row.share[0] < 0.45);
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_2_6_29, 2, w12, false, 0, 20 * SEC, &row);
	print_row("2.6.29, one request list", &row, w12);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_2_6_29, 2, w14, false, 0, 20 * SEC, &row);
	print_row("2.6.29, one request list", &row, w14);
	assert_true(row.share[0] > 0.4 && row.share[0] < 0.6);
	per_group_rl = NULL;
	run_groups(SCHED_POLICY_CFQ, PC_PROFILE_LINUX_2_6_29, 2, w14, false, 0, 20 * SEC, &row);
	print_row("2.6.29, a list per group", &row, w14);
	assert_true(row.share[0] > 0.3 && row.share[0] <= 0.5);
}

/*
 * A direct sequential reader (128 KiB, one at a time) in a third group beside the two writer
 * groups. It does not keep its weight's share: under cfq 15 MB/s where 40% of its 120 MB/s
 * alone would be 48 (2.6.29's single flusher: 24), under bfq 12 (2.6.29: 34). Printed, and
 * held as a known gap until understood.
 */
static void test_cgwb_reader(void **state)
{
	static const enum sched_policy_id pols[2] = {SCHED_POLICY_CFQ, SCHED_POLICY_BFQ};
	struct cgwb_row row;

	(void)state;
	for (int p = 0; p < 2; p++) {
		double alone, with, old;

		nrreq = p ? 256 : 0;
		run_groups(pols[p], PC_PROFILE_LINUX_6_12, 0, w12, true, 200, 10 * SEC, &row);
		alone = row.reader_mbps;
		run_groups(pols[p], PC_PROFILE_LINUX_2_6_29, 2, w12, true, 200, 10 * SEC, &row);
		printf("%s 2.6.29: the reader beside the writers %.1f MB/s\n", p ? "bfq" : "cfq",
		       row.reader_mbps);
		old = row.reader_mbps;
		run_groups(pols[p], PC_PROFILE_LINUX_6_12, 2, w12, true, 200, 10 * SEC, &row);
		with = row.reader_mbps;
		printf("%s 6.12: a direct reader (weight 200) alone %.1f MB/s, beside writers "
		       "100:200 %.1f MB/s (its weight's share 0.40: %.1f); writers %.3f : %.3f\n",
		       p ? "bfq" : "cfq", alone, with, 0.4 * alone, row.share[0], row.share[1]);
		/* Not kept (both profiles; worse with a flusher per group): see the gap. */
		assert_true(old > 0);
		known_gap(p ? "bfq: the direct reader's MB/s over its weight's share of its "
			      "MB/s alone, beside per-group writeback"
			    : "cfq: the direct reader's MB/s over its weight's share of its "
			      "MB/s alone, beside per-group writeback",
			  with / (0.4 * alone), 0.15, 0.5,
			  "not understood yet; 2.6.29's single flusher costs it less "
			  "(docs/pagecache.md)");
	}
	nrreq = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cgwb_bfq),
	    cmocka_unit_test(test_cgwb_cfq),
	    cmocka_unit_test(test_cgwb_reader),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("cgwb", tests, NULL, NULL);
}
