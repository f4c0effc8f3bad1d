// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered reads (filemap_read()) and read-ahead (mm/readahead.c of 6.12: page_cache_sync_ra()
 * and page_cache_async_ra(), the two halves of the older ondemand_readahead()), order-0
 * pages only (no large folios).
 */
#include <string.h>

#include "pc_internal.h"

void pc_ra_reset(struct pc *pc, struct pc_task *t, uint32_t file)
{
	memset(&t->ra, 0, sizeof(t->ra));
	t->ra.file = file;
	t->ra.prev_pos = UINT64_MAX; /* file_ra_state_init(): prev_pos = -1 */
	t->ra.ra_pages = pc->ra_pages;
	/* generic_fadvise(): SEQUENTIAL doubles the window, RANDOM sets FMODE_RANDOM. */
	if (t->fadvise == PC_FADV_SEQUENTIAL)
		t->ra.ra_pages = pc->ra_pages * 2;
	t->ra.random = t->fadvise == PC_FADV_RANDOM;
}

static uint64_t roundup_pow2(uint64_t x)
{
	return x <= 1 ? 1 : 1ull << (64 - __builtin_clzll(x - 1));
}

/* get_init_ra_size(): x4 for small requests, x2 for medium, else the maximum. */
static uint64_t init_ra_size(uint64_t size, uint64_t max)
{
	uint64_t n = roundup_pow2(size);

	if (n <= max / 32)
		return n * 4;
	if (n <= max / 4)
		return n * 2;
	return max;
}

/* get_next_ra_size(): x4 while small, x2 up to half the maximum, then the maximum. */
static uint64_t next_ra_size(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/* ractl_max_pages(): an oversize request may read up to the device's optimal I/O. */
static uint64_t ra_max_pages(const struct pc *pc, const struct pc_ra *ra, uint64_t req)
{
	uint64_t max = ra->ra_pages;

	if (req > max && pc->io_pages > max)
		max = req < pc->io_pages ? req : pc->io_pages;
	return max;
}

static bool present(const struct pc *pc, uint32_t file, uint64_t index)
{
	return index <= UINT32_MAX &&
	       (pc_page_bits(pc, file, (uint32_t)index, NULL) & PC_PG_PRESENT);
}

struct run {
	uint32_t first, n;
};

static void queue_run(struct pc *pc, uint32_t task, uint32_t file, struct run *r, bool async)
{
	struct pc_io io;

	if (!r->n)
		return;
	memset(&io, 0, sizeof(io));
	io.file = file;
	io.index = r->first;
	io.npages = r->n;
	io.op = PC_IO_READ;
	io.flags = async ? PC_IO_RAHEAD : 0;
	io.reason = async ? PC_WHY_READAHEAD : PC_WHY_READ;
	io.issuer = task;
	io.group = pc_io_group(pc, task, file, false);
	pc_task_queue_io(pc, task, &io);
	r->n = 0;
}

static void lock_page(struct pc *pc, uint32_t file, uint32_t index)
{
	uint32_t c;
	struct pc_chunk *C;
	uint64_t m = 1ull << (index & (PC_CHUNK_PAGES - 1));

	pc_page_bits(pc, file, index, &c);
	C = pc_chunk_of(pc, c);
	C->locked |= m;
	C->uptodate &= ~m;
	pc_file_of(pc, file)->nr_locked++;
}

/*
 * page_cache_ra_unbounded(): pages index .. index + nr - 1 not yet cached are added locked and
 * read in runs (read_pages() under a plug: one request per contiguous run up to
 * max_sectors_kb); the page at index + nr - lookahead gets PG_readahead.
 */
static void ra_unbounded(struct pc *pc, uint32_t task, uint32_t file, uint64_t index, uint64_t nr,
			 uint64_t lookahead, bool async)
{
	struct pc_task *t = pc_task_of(pc, task);
	uint64_t mark = nr - lookahead;
	struct run r = {0, 0};
	uint32_t queued = t->q_count;

	for (uint64_t i = 0; i < nr; i++) {
		uint64_t idx = index + i;
		uint32_t c;

		if (idx > UINT32_MAX)
			break;
		if (present(pc, file, idx)) {
			queue_run(pc, task, file, &r, async);
			continue;
		}
		/* Room for this run and one more request; else stop as on -ENOMEM. */
		if (t->q_count + 2 > PC_TASK_QUEUE)
			break;
		if (r.n == pc->rq_pages)
			queue_run(pc, task, file, &r, async);
		if (!pc_page_alloc(pc, file, (uint32_t)idx))
			break;
		lock_page(pc, file, (uint32_t)idx);
		if (i == mark) {
			pc_page_bits(pc, file, (uint32_t)idx, &c);
			pc_chunk_of(pc, c)->ramark |= 1ull << (idx & (PC_CHUNK_PAGES - 1));
		}
		if (!r.n)
			r.first = (uint32_t)idx;
		r.n++;
		t->st.ra_pages++;
	}
	queue_run(pc, task, file, &r, async);
	/* read_pages()'s blk_finish_plug() after its last request */
	if (t->q_count > queued)
		t->q[(t->q_head + t->q_count - 1) % PC_TASK_QUEUE].flags |= PC_IO_UNPLUG;
}

/* do_page_cache_ra(): not past the page holding the last byte of the file. */
static void do_ra(struct pc *pc, uint32_t task, uint32_t file, uint64_t index, uint64_t nr,
		  uint64_t lookahead, bool async)
{
	uint64_t isize = pc_file_of(pc, file)->size, end_index;

	if (!isize)
		return;
	end_index = (isize - 1) >> PC_PAGE_SHIFT;
	if (index > end_index)
		return;
	if (nr > end_index - index)
		nr = end_index - index + 1;
	if (lookahead > nr)
		lookahead = nr;
	ra_unbounded(pc, task, file, index, nr, lookahead, async);
}

/* force_page_cache_ra(): FMODE_RANDOM or no window: exactly the request, 2 MiB at a time. */
static void force_ra(struct pc *pc, uint32_t task, uint32_t file, uint64_t index, uint64_t nr)
{
	const struct pc_ra *ra = &pc_task_of(pc, task)->ra;
	uint64_t max = pc->io_pages > ra->ra_pages ? pc->io_pages : ra->ra_pages;

	if (nr > max)
		nr = max;
	while (nr) {
		uint64_t chunk = (2u << 20) >> PC_PAGE_SHIFT;

		if (chunk > nr)
			chunk = nr;
		do_ra(pc, task, file, index, chunk, 0, false);
		index += chunk;
		nr -= chunk;
	}
}

/* page_cache_prev_miss(): the first page not cached going down from index, at most max_scan;
 * UINT64_MAX when the file is cached from its start. */
static uint64_t prev_miss(const struct pc *pc, uint32_t file, uint64_t index, uint64_t max_scan)
{
	for (uint64_t i = 0; i < max_scan; i++) {
		if (i > index)
			return UINT64_MAX;
		if (!present(pc, file, index - i))
			return index - i;
	}
	return index - max_scan;
}

/* page_cache_next_miss(): the first page not cached from index up, at most max_scan. */
static uint64_t next_miss(const struct pc *pc, uint32_t file, uint64_t index, uint64_t max_scan)
{
	for (uint64_t i = 0; i < max_scan; i++)
		if (!present(pc, file, index + i))
			return index + i;
	return index + max_scan;
}

/* page_cache_sync_ra(): a miss at index, req pages asked for. */
static void sync_ra(struct pc *pc, uint32_t task, uint32_t file, uint64_t index, uint64_t req)
{
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_ra *ra = &t->ra;
	uint64_t max, prev_index, miss, contig;

	t->st.ra_sync++;
	if (!ra->ra_pages || ra->random) {
		force_ra(pc, task, file, index, ra->ra_pages ? req : 1);
		return;
	}
	max = ra_max_pages(pc, ra, req);
	prev_index = ra->prev_pos == UINT64_MAX ? UINT64_MAX : ra->prev_pos >> PC_PAGE_SHIFT;
	/* Start of file, oversized read, or sequential cache miss. */
	if (!index || req > max || index - prev_index <= 1) {
		ra->start = (uint32_t)index;
		ra->size = (uint32_t)init_ra_size(req, max);
		ra->async_size = ra->size > req ? (uint32_t)(ra->size - req) : ra->size >> 1;
		goto readit;
	}
	/* The traces a sequential stream leaves in the cache. */
	miss = prev_miss(pc, file, index - 1, max);
	contig = index - miss - 1;
	if (contig <= req) {
		/* Standalone, small random read: as is, the state untouched. */
		do_ra(pc, task, file, index, req, 0, false);
		return;
	}
	if (miss == UINT64_MAX)
		contig *= 2; /* cached from the start: a long-run stream */
	ra->start = (uint32_t)index;
	ra->size = (uint32_t)(contig + req < max ? contig + req : max);
	ra->async_size = 1;
readit:
	do_ra(pc, task, file, ra->start, ra->size, ra->async_size, false);
}

/* page_cache_async_ra(): the reader reached the PG_readahead page at index. */
static void async_ra(struct pc *pc, uint32_t task, uint32_t file, uint64_t index, uint64_t req)
{
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_ra *ra = &t->ra;
	uint32_t c;
	uint32_t s = pc_page_bits(pc, file, (uint32_t)index, &c);
	uint64_t max, expected, start;

	if (!ra->ra_pages)
		return;
	if (s & PC_PG_WRITEBACK)
		return; /* the same bit is PG_reclaim */
	pc_chunk_of(pc, c)->ramark &= ~(1ull << (index & (PC_CHUNK_PAGES - 1)));
	t->st.ra_async++;
	max = ra_max_pages(pc, ra, req);
	expected = (uint64_t)ra->start + ra->size - ra->async_size;
	if (index == expected) {
		/* The expected marker: a sequential stream; ramp up and push forward. */
		uint64_t next = next_ra_size(ra->size, max);

		ra->start += ra->size;
		ra->size = (uint32_t)(next > ra->size ? next : ra->size);
		ra->async_size = ra->size;
		goto readit;
	}
	/* A marker without valid state (interleaved reads): size it from the cache. */
	start = next_miss(pc, file, index + 1, max);
	if (!start || start - index > max)
		return;
	ra->start = (uint32_t)start;
	ra->size = (uint32_t)(start - index + req);
	ra->size = (uint32_t)next_ra_size(ra->size, max);
	ra->async_size = ra->size;
readit:
	do_ra(pc, task, file, ra->start, ra->size, ra->async_size, true);
}

void pc_read_one(struct pc *pc, uint32_t task, uint32_t file, uint32_t index, int reason)
{
	struct pc_io io;

	lock_page(pc, file, index);
	memset(&io, 0, sizeof(io));
	io.file = file;
	io.index = index;
	io.npages = 1;
	io.op = PC_IO_READ;
	io.flags = PC_IO_UNPLUG; /* a read of its own (filemap_read_folio()): no plug to share */
	io.reason = (uint8_t)reason;
	io.issuer = task;
	io.group = pc_io_group(pc, task, file, false);
	pc_task_queue_io(pc, task, &io);
}

static void copy_range(struct pc_result *res, uint64_t lo, uint64_t hi)
{
	if (res->copy_lo == res->copy_hi)
		res->copy_lo = lo;
	res->copy_hi = hi;
}

/*
 * filemap_read(): page by page; a miss starts the synchronous read-ahead, a PG_readahead page
 * the asynchronous one (even while it is still being read), a page not uptodate is waited for.
 */
int pc_read_run(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_file *f = pc_file_of(pc, t->file);
	uint64_t end = t->end < f->size ? t->end : f->size;

	(void)now;
	if (t->ra.file != t->file)
		pc_ra_reset(pc, t, t->file);
	while (t->pos < end) {
		uint32_t idx = (uint32_t)(t->pos >> PC_PAGE_SHIFT), c;
		uint64_t last = (end - 1) >> PC_PAGE_SHIFT, req = last - idx + 1, n;
		uint32_t s = pc_page_bits(pc, t->file, idx, &c);
		bool hit = (s & PC_PG_UPTODATE) && t->read_waited != idx;

		if (!(s & PC_PG_PRESENT)) {
			if (t->q_count + 2 > PC_TASK_QUEUE)
				return PC_SUBMIT;
			sync_ra(pc, task, t->file, idx, req);
			s = pc_page_bits(pc, t->file, idx, &c);
			if (!(s & PC_PG_PRESENT)) {
				/* filemap_create_folio(): the page alone. */
				if (t->q_count == PC_TASK_QUEUE)
					return PC_SUBMIT;
				if (!pc_page_alloc(pc, t->file, idx)) {
					pc_memory_wait(pc, task, now, h);
					return t->q_count ? PC_SUBMIT : PC_WAIT;
				}
				pc_read_one(pc, task, t->file, idx, PC_WHY_READ);
				s = pc_page_bits(pc, t->file, idx, &c);
			}
		}
		if (s & PC_PG_READAHEAD) {
			if (t->q_count + 2 > PC_TASK_QUEUE)
				return PC_SUBMIT;
			async_ra(pc, task, t->file, idx, req);
			continue; /* look at the page again: reclaim may have taken it */
		}
		if (!(s & PC_PG_UPTODATE)) {
			if (!(s & PC_PG_LOCKED)) {
				if (t->q_count == PC_TASK_QUEUE)
					return PC_SUBMIT;
				pc_read_one(pc, task, t->file, idx, PC_WHY_READ);
			}
			pc_wait_page(pc, t, t->file, idx);
			t->read_waited = idx;
			t->st.read_waits++;
			return t->q_count ? PC_SUBMIT : PC_WAIT;
		}
		n = ((uint64_t)idx + 1) << PC_PAGE_SHIFT;
		n = (n < end ? n : end) - t->pos;
		copy_range(res, t->pos, t->pos + n);
		if (hit)
			t->st.read_hits++;
		pc_lru_touch(pc, c);
		t->pos += n;
		t->done += n;
	}
	t->ra.prev_pos = t->pos;
	return PC_DONE;
}
