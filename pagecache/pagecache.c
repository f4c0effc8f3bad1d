// SPDX-License-Identifier: GPL-2.0
/* The page cache: layout, parameters, chunks and frames, page accounting, the inode lists,
 * the system calls' entry points and the host protocol. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_internal.h"

#define ALIGN16(x) (((x) + 15) & ~(uint64_t)15)

/* ---- parameters ---- */

static const char *const profile_names[PC_PROFILE_NR] = {"6.12", "2.6.29"};

const char *pc_profile_name(enum pc_profile profile)
{
	return (unsigned int)profile < PC_PROFILE_NR ? profile_names[profile] : "?";
}

int pc_profile_by_name(const char *name)
{
	for (int i = 0; i < PC_PROFILE_NR; i++)
		if (!strcmp(name, profile_names[i]))
			return i;
	return -1;
}

void pc_params_defaults(struct pc_params *p, enum pc_profile profile)
{
	memset(p, 0, sizeof(*p));
	p->cache_bytes = 1ull << 30;
	p->max_files = 256;
	p->max_tasks = 256;
	p->max_wbs = 1;
	/* mm/page-writeback.c: the same defaults since 2.6.29 ("writeback: double the dirty
	 * thresholds", 20/10; recalled, not checked) */
	p->dirty_background_ratio = 10;
	p->dirty_ratio = 20;
	p->dirty_expire_centisecs = 3000;
	p->dirty_writeback_centisecs = 500;
	p->read_ahead_kb = 128; /* VM_READAHEAD_PAGES */
	p->nr_cpus = 2;
	p->fsync_flush = true;
	if (profile == PC_PROFILE_LINUX_2_6_29) {
		p->max_sectors_kb = 512; /* BLK_DEF_MAX_SECTORS 1024 sectors on 2.6.x */
		p->hz = 250;		 /* the distributions' CONFIG_HZ of the time */
		p->switches = 0;
	} else {
		p->max_sectors_kb = 1280; /* BLK_DEF_MAX_SECTORS_CAP, 6.x */
		p->hz = 1000;
		p->switches = PC_SW_IOLESS_THROTTLE | PC_SW_PER_BDI_FLUSHER |
			      PC_SW_CHUNK_BY_BANDWIDTH | PC_SW_SYNC_WRITEBACK_REQ_SYNC |
			      PC_SW_CGROUP_WRITEBACK | PC_SW_REQUEUE_IO_ALL;
	}
}

static const struct {
	const char *name;
	uint32_t sw;
} switch_names[] = {
    {"ioless_throttle", PC_SW_IOLESS_THROTTLE},
    {"per_bdi_flusher", PC_SW_PER_BDI_FLUSHER},
    {"chunk_by_bandwidth", PC_SW_CHUNK_BY_BANDWIDTH},
    {"sync_writeback_req_sync", PC_SW_SYNC_WRITEBACK_REQ_SYNC},
    {"cgroup_writeback", PC_SW_CGROUP_WRITEBACK},
    {"requeue_io_all", PC_SW_REQUEUE_IO_ALL},
};

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (!v || !*v || *v == '-')
		return -1;
	x = strtoull(v, &end, 10);
	if (*end)
		return -1;
	*out = x;
	return 0;
}

const char *const pc_tunable_names[PC_NR_TUNABLES] = {
    "dirty_background_ratio", "dirty_background_bytes",	   "dirty_ratio",   "dirty_bytes",
    "dirty_expire_centisecs", "dirty_writeback_centisecs", "read_ahead_kb", "max_sectors_kb",
    "buffer_head_writeback",
};

int pc_apply_tunables(struct pc_params *p, const char *list, char *err, size_t errlen)
{
	char buf[512], *save = NULL, *tok;

	if (!list || !*list)
		return 0;
	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "page cache tunables: list too long (%zu characters)",
			 strlen(list));
		return -1;
	}
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		bool known = false;

		if (!eq) {
			snprintf(err, errlen, "page cache tunable '%s': want name=value", tok);
			return -1;
		}
		*eq = '\0';
		for (int i = 0; i < PC_NR_TUNABLES; i++)
			known |= !strcmp(tok, pc_tunable_names[i]);
		if (!known) {
			snprintf(err, errlen, "%s: not a page cache tunable", tok);
			return -1;
		}
		if (pc_set_param(p, tok, eq + 1, err, errlen))
			return -1;
	}
	return 0;
}

int pc_tunables_join(const char *const vals[PC_NR_TUNABLES], bool pagecache_on, char *out,
		     size_t outlen, char *err, size_t errlen)
{
	size_t len = 0;

	if (outlen)
		out[0] = '\0';
	for (int i = 0; i < PC_NR_TUNABLES; i++) {
		struct pc_params chk;

		if (!vals[i])
			continue;
		/* max_sectors_kb is the block layer's too (its merges): taken without a cache. */
		if (!pagecache_on && i != PC_MAX_SECTORS_KB_PARAM) {
			snprintf(err, errlen, "%s=%s: needs pagecache=on (or 6.12, 2.6.29)",
				 pc_tunable_names[i], vals[i]);
			return -1;
		}
		/* pairs: dirty_background_ratio/_bytes (0, 1), dirty_ratio/dirty_bytes (2, 3) */
		if ((i == 1 || i == 3) && vals[i - 1]) {
			snprintf(err, errlen, "%s and %s: give one of the two",
				 pc_tunable_names[i - 1], pc_tunable_names[i]);
			return -1;
		}
		pc_params_defaults(&chk, PC_PROFILE_LINUX_6_12);
		if (pc_set_param(&chk, pc_tunable_names[i], vals[i], err, errlen))
			return -1;
		if ((size_t)snprintf(out + len, outlen - len, "%s%s=%s", len ? "," : "",
				     pc_tunable_names[i], vals[i]) >= outlen - len) {
			snprintf(err, errlen, "%s=%s: the page cache tunables are too long",
				 pc_tunable_names[i], vals[i]);
			return -1;
		}
		len = strlen(out);
	}
	return 0;
}

int pc_set_param(struct pc_params *p, const char *name, const char *value, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t off;
		int is64;
		uint64_t min, max;
	} u[] = {
	    {"dirty_background_ratio", offsetof(struct pc_params, dirty_background_ratio), 0, 0,
	     100},
	    {"dirty_background_bytes", offsetof(struct pc_params, dirty_background_bytes), 1, 0,
	     UINT64_MAX},
	    {"dirty_ratio", offsetof(struct pc_params, dirty_ratio), 0, 0, 100},
	    {"dirty_bytes", offsetof(struct pc_params, dirty_bytes), 1, 0, UINT64_MAX},
	    {"dirty_expire_centisecs", offsetof(struct pc_params, dirty_expire_centisecs), 0, 0,
	     UINT32_MAX},
	    {"dirty_writeback_centisecs", offsetof(struct pc_params, dirty_writeback_centisecs), 0,
	     0, UINT32_MAX},
	    {"read_ahead_kb", offsetof(struct pc_params, read_ahead_kb), 0, 0, 65536},
	    {"max_sectors_kb", offsetof(struct pc_params, max_sectors_kb), 0, 4, 65536},
	    {"buffer_head_writeback", offsetof(struct pc_params, buffer_head_writeback), 0, 0, 1},
	};
	uint64_t x;

	if (parse_u64(value, &x)) {
		snprintf(err, errlen, "%s=%s: not a non-negative integer", name,
			 value ? value : "");
		return -1;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (strcmp(name, u[i].name))
			continue;
		if (x < u[i].min || x > u[i].max) {
			snprintf(err, errlen, "%s=%s: out of range %" PRIu64 "..%" PRIu64, name,
				 value, u[i].min, u[i].max);
			return -1;
		}
		if (u[i].is64)
			*(uint64_t *)((char *)p + u[i].off) = x;
		else
			*(uint32_t *)((char *)p + u[i].off) = (uint32_t)x;
		/* Each bytes/ratio pair is exclusive, as the sysctl handlers make it. */
		if (!strcmp(name, "dirty_ratio"))
			p->dirty_bytes = 0;
		else if (!strcmp(name, "dirty_bytes") && x)
			p->dirty_ratio = 0;
		else if (!strcmp(name, "dirty_background_ratio"))
			p->dirty_background_bytes = 0;
		else if (!strcmp(name, "dirty_background_bytes") && x)
			p->dirty_background_ratio = 0;
		return 0;
	}
	if (!strcmp(name, "pagecache_mb")) {
		p->cache_bytes = x << 20;
		return 0;
	}
	if (!strcmp(name, "fsync_flush")) {
		if (x > 1)
			goto bool_err;
		p->fsync_flush = x;
		return 0;
	}
	for (size_t i = 0; i < sizeof(switch_names) / sizeof(switch_names[0]); i++) {
		if (strcmp(name, switch_names[i].name))
			continue;
		if (x > 1)
			goto bool_err;
		if (x)
			p->switches |= switch_names[i].sw;
		else
			p->switches &= ~switch_names[i].sw;
		return 0;
	}
	snprintf(err, errlen, "%s: no such page cache tunable", name);
	return -1;
bool_err:
	snprintf(err, errlen, "%s=%s: must be 0 or 1", name, value);
	return -1;
}

int pc_params_check(const struct pc_params *p, char *err, size_t errlen)
{
	uint64_t pages = p->cache_bytes >> PC_PAGE_SHIFT;

	if (p->cache_bytes < (4ull << 20) || p->cache_bytes > (1ull << 40)) {
		snprintf(err, errlen, "page cache size %" PRIu64 " bytes: must be 4 MiB..1 TiB",
			 p->cache_bytes);
		return -1;
	}
	if (!p->max_wbs || p->max_wbs > PC_MAX_WBS) {
		snprintf(err, errlen, "page cache: max_wbs must be 1..%u", PC_MAX_WBS);
		return -1;
	}
	if (!p->max_files || p->max_files > PC_MAX_FILES || !p->max_tasks ||
	    p->max_tasks > PC_MAX_TASKS) {
		snprintf(err, errlen, "page cache: max_files and max_tasks must be 1..65536");
		return -1;
	}
	if (p->max_chunks && (p->max_chunks < 16 || p->max_chunks > pages)) {
		snprintf(err, errlen,
			 "page cache: max_chunks %u must be 16..cache pages (%" PRIu64 ")",
			 p->max_chunks, pages);
		return -1;
	}
	if (p->dirty_ratio > 100 || p->dirty_background_ratio > 100 ||
	    (!p->dirty_ratio && !p->dirty_bytes)) {
		snprintf(err, errlen,
			 "dirty_ratio/dirty_background_ratio must be 0..100, and "
			 "dirty_ratio or dirty_bytes set");
		return -1;
	}
	if ((p->dirty_bytes && p->dirty_bytes < 2 * PC_PAGE_SIZE) ||
	    (p->dirty_background_bytes && p->dirty_background_bytes < 2 * PC_PAGE_SIZE)) {
		snprintf(err, errlen, "dirty_bytes/dirty_background_bytes: at least two pages");
		return -1;
	}
	if (p->read_ahead_kb > 65536 || p->max_sectors_kb < 4 || p->max_sectors_kb > 65536) {
		snprintf(err, errlen, "read_ahead_kb must be 0..65536 and max_sectors_kb 4..65536");
		return -1;
	}
	if (!p->hz || p->hz > 10000 || PC_NS_PER_SEC % p->hz || !p->nr_cpus || p->nr_cpus > 4096) {
		snprintf(err, errlen, "page cache: hz must divide 1e9 (1..10000), nr_cpus 1..4096");
		return -1;
	}
	return 0;
}

/* ---- layout ---- */

struct layout {
	uint64_t files, tasks, wbs, waiters, chunks, frames, total;
	uint32_t cache_pages, max_chunks;
};

static void layout_of(const struct pc_params *p, struct layout *l)
{
	l->cache_pages = (uint32_t)(p->cache_bytes >> PC_PAGE_SHIFT);
	l->max_chunks = p->max_chunks ? p->max_chunks : l->cache_pages / 8;
	l->files = ALIGN16(sizeof(struct pc));
	l->tasks = l->files + ALIGN16((uint64_t)p->max_files * sizeof(struct pc_file));
	uint64_t all = (uint64_t)p->max_tasks + p->max_wbs;

	l->wbs = l->tasks + ALIGN16(all * sizeof(struct pc_task));
	l->waiters = l->wbs + ALIGN16((uint64_t)p->max_wbs * sizeof(struct pc_wb));
	l->chunks =
	    l->waiters + ALIGN16((uint64_t)PC_WAITERS_NR * ((all + 63) / 64) * sizeof(uint64_t) +
				 all * sizeof(uint64_t));
	l->frames = l->chunks + ALIGN16((uint64_t)l->max_chunks * sizeof(struct pc_chunk));
	l->total = l->frames + ALIGN16((uint64_t)l->cache_pages * sizeof(uint32_t));
}

size_t pc_size(const struct pc_params *p)
{
	struct layout l;
	char err[8];

	if (pc_params_check(p, err, sizeof(err)))
		return 0;
	layout_of(p, &l);
	return (size_t)l.total;
}

struct pc *pc_init(void *mem, size_t size, const struct pc_params *p, uint64_t now, char *err,
		   size_t errlen)
{
	struct pc *pc = mem;
	struct layout l;
	uint64_t bg, thresh;

	if (pc_params_check(p, err, errlen))
		return NULL;
	layout_of(p, &l);
	if (((uintptr_t)mem & 15) || size < l.total) {
		snprintf(err, errlen,
			 "page cache memory: %zu bytes given, %" PRIu64 " needed, 16-byte aligned",
			 size, l.total);
		return NULL;
	}
	/* The chunks and frames are touched only as they are used. */
	memset(pc, 0, l.chunks);
	pc->p = *p;
	pc->cache_pages = l.cache_pages;
	pc->max_chunks = l.max_chunks;
	pc->max_files = p->max_files;
	pc->max_tasks = p->max_tasks;
	pc->nr_wbs = p->max_wbs;
	pc->nr_all = p->max_tasks + p->max_wbs;
	pc->ra_pages = p->read_ahead_kb >> (PC_PAGE_SHIFT - 10);
	pc->io_pages = p->max_sectors_kb >> (PC_PAGE_SHIFT - 10);
	if (!pc->io_pages)
		pc->io_pages = 1;
	pc->rq_pages = pc->io_pages < PC_MAX_SEGMENTS ? pc->io_pages : PC_MAX_SEGMENTS;
	pc->jiffy_ns = PC_NS_PER_SEC / p->hz;
	pc->off_files = l.files;
	pc->off_tasks = l.tasks;
	pc->off_wbs = l.wbs;
	pc->off_waiters = l.waiters;
	pc->off_chunks = l.chunks;
	pc->off_frames = l.frames;
	pc->root = PC_NONE;
	pc->chunk_free = PC_NONE;
	pc->lru_head = pc->lru_tail = PC_NONE;
	pc->pin_chunk = PC_NONE;
	for (uint32_t f = 0; f < pc->max_files; f++)
		pc_file_of(pc, f)->sync_owner = PC_NONE;
	for (uint32_t t = 0; t < pc->nr_all; t++) {
		struct pc_task *tk = pc_task_of(pc, t);

		tk->sleep_until = PC_NO_TIME;
		tk->ra.file = PC_NONE;
		tk->ra.prev_pos = UINT64_MAX;
	}
	for (uint32_t w = 0; w < pc->nr_wbs; w++) {
		struct pc_wb *wb = pc_wb_of(pc, w);
		struct pc_task *fl = pc_task_of(pc, pc_flusher_task(pc, w));

		for (int i = 0; i < WBL_NR; i++)
			wb->wbl[i].head = wb->wbl[i].tail = PC_NONE;
		/* mm/backing-dev.c wb_init(): the bandwidth and rate limits start at INIT_BW. */
		wb->write_bandwidth = wb->avg_write_bandwidth = PC_INIT_BW;
		wb->dirty_ratelimit = wb->balanced_dirty_ratelimit = PC_INIT_BW;
		wb->bw_time_stamp = pc_jiffies(pc, now);
		wb->fl.timer = PC_NO_TIME;
		wb->fl.last_old_flush = now;
		fl->used = 1;
		fl->call = CALL_FLUSHER;
		fl->phase = PH_FL_IDLE;
	}
	pc_limits(pc, &bg, &thresh);
	/* writeback_set_ratelimit(): the domain's dirty_limit and ratelimit_pages. */
	pc->dom_dirty_limit = thresh;
	pc->dirty_limit_tstamp = pc_jiffies(pc, now);
	if (pc_sw(pc, PC_SW_IOLESS_THROTTLE)) {
		pc->ratelimit_pages = (uint32_t)(thresh / (p->nr_cpus * 32ull));
		if (pc->ratelimit_pages < 16)
			pc->ratelimit_pages = 16;
	} else {
		/* 2.6.x set_ratelimit(): vm_total_pages / (ncpus * 32), 16 .. 4 MiB. */
		uint64_t r = pc->cache_pages / (p->nr_cpus * 32ull);

		pc->ratelimit_pages = (uint32_t)(r < 16 ? 16 : r > 1024 ? 1024 : r);
	}
	/* pdflush's wb_timer runs every dirty_writeback_interval from boot (2.6.x). */
	if (!pc_sw(pc, PC_SW_PER_BDI_FLUSHER) && p->dirty_writeback_centisecs)
		pc_wb_of(pc, 0)->fl.timer = now + p->dirty_writeback_centisecs * 10000000ull;
	pc->clock = now;
	pc->st.thresh = (uint32_t)thresh;
	pc->st.bg_thresh = (uint32_t)bg;
	return pc;
}

uint32_t pc_flusher(const struct pc *pc)
{
	return pc->max_tasks;
}

uint32_t pc_nr_wbs(const struct pc *pc)
{
	return pc->nr_wbs;
}

const struct pc_wb_stats *pc_wb_stats(const struct pc *pc, uint32_t wb)
{
	return wb < pc->nr_wbs ? &pc_wb_of(pc, wb)->st : NULL;
}

bool pc_wb_used(const struct pc *pc, uint32_t wb)
{
	return wb < pc->nr_wbs && pc_wb_of(pc, wb)->st.inodes;
}

/* ---- the treap of chunks ---- */

static uint64_t prio_of(uint64_t key)
{
	uint64_t z = key + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t t_merge(struct pc *pc, uint32_t a, uint32_t b)
{
	struct pc_chunk *A, *B;

	if (a == PC_NONE)
		return b;
	if (b == PC_NONE)
		return a;
	A = pc_chunk_of(pc, a);
	B = pc_chunk_of(pc, b);
	if (prio_of(A->key) > prio_of(B->key)) {
		A->right = t_merge(pc, A->right, b);
		return a;
	}
	B->left = t_merge(pc, a, B->left);
	return b;
}

/* l: keys < key, r: keys >= key. */
static void t_split(struct pc *pc, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	struct pc_chunk *T;

	if (t == PC_NONE) {
		*l = *r = PC_NONE;
		return;
	}
	T = pc_chunk_of(pc, t);
	if (T->key < key) {
		t_split(pc, T->right, key, &T->right, r);
		*l = t;
	} else {
		t_split(pc, T->left, key, l, &T->left);
		*r = t;
	}
}

static void t_insert(struct pc *pc, uint32_t c)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);
	uint32_t l, r;

	C->left = C->right = PC_NONE;
	t_split(pc, pc->root, C->key, &l, &r);
	pc->root = t_merge(pc, t_merge(pc, l, c), r);
}

static void t_erase(struct pc *pc, uint64_t key)
{
	uint32_t l, m, r;

	t_split(pc, pc->root, key, &l, &r);
	t_split(pc, r, key + 1, &m, &r);
	pc->root = t_merge(pc, l, r);
}

static uint32_t t_lower_bound(const struct pc *pc, uint64_t key)
{
	uint32_t t = pc->root, best = PC_NONE;

	while (t != PC_NONE) {
		const struct pc_chunk *T = pc_chunk_of(pc, t);

		if (T->key >= key) {
			best = t;
			t = T->left;
		} else {
			t = T->right;
		}
	}
	return best;
}

uint32_t pc_chunk_find(const struct pc *pc, uint32_t file, uint32_t chunkno)
{
	uint64_t key = pc_key(file, chunkno);
	uint32_t t = pc->root;

	while (t != PC_NONE) {
		const struct pc_chunk *T = pc_chunk_of(pc, t);

		if (T->key == key)
			return t;
		t = key < T->key ? T->left : T->right;
	}
	return PC_NONE;
}

uint32_t pc_chunk_next(const struct pc *pc, uint32_t file, uint32_t chunkno)
{
	uint32_t c = t_lower_bound(pc, pc_key(file, chunkno));

	if (c == PC_NONE || (uint32_t)(pc_chunk_of(pc, c)->key >> 32) != file)
		return PC_NONE;
	return c;
}

/* ---- LRU, chunk and frame allocation, reclaim ---- */

static void lru_del(struct pc *pc, uint32_t c)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);

	if (C->lru_prev != PC_NONE)
		pc_chunk_of(pc, C->lru_prev)->lru_next = C->lru_next;
	else
		pc->lru_head = C->lru_next;
	if (C->lru_next != PC_NONE)
		pc_chunk_of(pc, C->lru_next)->lru_prev = C->lru_prev;
	else
		pc->lru_tail = C->lru_prev;
	C->lru_prev = C->lru_next = PC_NONE;
}

static void lru_add_tail(struct pc *pc, uint32_t c)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);

	C->lru_next = PC_NONE;
	C->lru_prev = pc->lru_tail;
	if (pc->lru_tail != PC_NONE)
		pc_chunk_of(pc, pc->lru_tail)->lru_next = c;
	else
		pc->lru_head = c;
	pc->lru_tail = c;
}

/* mark_page_accessed(), at chunk granularity: the chunk becomes the most recently used. */
void pc_lru_touch(struct pc *pc, uint32_t c)
{
	if (pc->lru_tail == c)
		return;
	lru_del(pc, c);
	lru_add_tail(pc, c);
}

static void frame_free(struct pc *pc, uint32_t frame)
{
	pc_frame_stack(pc)[pc->frame_free_top++] = frame;
}

static void chunk_free(struct pc *pc, uint32_t c)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);

	t_erase(pc, C->key);
	lru_del(pc, c);
	C->key = PC_KEY_FREE;
	C->lru_next = pc->chunk_free;
	pc->chunk_free = c;
	pc->nr_chunks--;
	pc->st.chunks = pc->nr_chunks;
}

void pc_chunk_release_if_empty(struct pc *pc, uint32_t c)
{
	if (c != PC_NONE && !pc_chunk_of(pc, c)->present && c != pc->pin_chunk)
		chunk_free(pc, c);
}

/* Drops a clean, unlocked page (reclaim) or any page (truncate, with cancel of dirty). */
void pc_page_drop(struct pc *pc, uint32_t c, uint32_t bit)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);
	uint64_t m = 1ull << bit;
	struct pc_file *f = pc_file_of(pc, (uint32_t)(C->key >> 32));

	if (!(C->present & m))
		return;
	if (C->dirty & m) {
		/* cancel_dirty_page(): truncation of a dirty page */
		pc->nr_dirty--;
		f->nr_dirty--;
		pc_wb_of(pc, pc_file_wbi(pc, f))->nr_reclaimable--;
		pc->st.nr_dirty = pc->nr_dirty;
	}
	if (C->writeback & m) {
		pc->nr_writeback--;
		f->nr_writeback--;
		pc_wb_of(pc, pc_file_wbi(pc, f))->nr_writeback--;
		pc->st.nr_writeback = pc->nr_writeback;
	}
	if (C->locked & m)
		f->nr_locked--;
	C->present &= ~m;
	C->uptodate &= ~m;
	C->dirty &= ~m;
	C->writeback &= ~m;
	C->locked &= ~m;
	C->towrite &= ~m;
	C->ramark &= ~m;
	frame_free(pc, C->frame[bit]);
	C->frame[bit] = PC_NONE;
	pc->nr_cached--;
	f->nr_cached--;
	pc->st.nr_cached = pc->nr_cached;
}

static uint64_t reclaimable(const struct pc_chunk *C)
{
	return C->present & ~(C->dirty | C->writeback | C->locked);
}

/*
 * shrink_page_list() at chunk granularity: from the least recently used chunk on, clean
 * unlocked pages are dropped; a chunk with dirty or writeback pages left is rotated (reclaim
 * skips dirty pages). Returns pages freed.
 */
static uint32_t reclaim(struct pc *pc, uint32_t want)
{
	uint32_t freed = 0, scanned = 0, n = pc->nr_chunks;

	while (freed < want && scanned < n && pc->lru_head != PC_NONE) {
		uint32_t c = pc->lru_head;
		struct pc_chunk *C = pc_chunk_of(pc, c);
		uint64_t r = reclaimable(C);

		scanned++;
		if (c == pc->pin_chunk) {
			pc_lru_touch(pc, c);
			continue;
		}
		while (r) {
			uint32_t bit = (uint32_t)__builtin_ctzll(r);

			r &= r - 1;
			pc_page_drop(pc, c, bit);
			freed++;
		}
		if (!C->present) {
			chunk_free(pc, c);
			pc->st.evicted_chunks++;
		} else {
			pc_lru_touch(pc, c);
		}
	}
	pc->st.reclaimed += freed;
	return freed;
}

static uint32_t frame_alloc(struct pc *pc)
{
	if (!pc->frame_free_top && pc->frame_hwm >= pc->cache_pages)
		reclaim(pc, 32); /* SWAP_CLUSTER_MAX */
	if (pc->frame_free_top)
		return pc_frame_stack(pc)[--pc->frame_free_top];
	if (pc->frame_hwm < pc->cache_pages)
		return pc->frame_hwm++;
	return PC_NONE;
}

/* A chunk for (file, chunkno), new and empty; PC_NONE when the table is full of chunks that
 * hold dirty, writeback or locked pages. */
static uint32_t chunk_alloc(struct pc *pc, uint32_t file, uint32_t chunkno)
{
	uint32_t c = PC_NONE;
	struct pc_chunk *C;

	if (pc->chunk_free != PC_NONE) {
		c = pc->chunk_free;
		pc->chunk_free = pc_chunk_of(pc, c)->lru_next;
	} else if (pc->chunk_hwm < pc->max_chunks) {
		c = pc->chunk_hwm++;
	} else {
		/* The chunk table is full: reclaim the least recently used chunk that holds
		 * only clean pages (all of its pages). */
		for (uint32_t s = 0, n = pc->nr_chunks; s < n && pc->lru_head != PC_NONE; s++) {
			uint32_t v = pc->lru_head;
			struct pc_chunk *V = pc_chunk_of(pc, v);

			if (v != pc->pin_chunk && reclaimable(V) == V->present) {
				uint64_t r = V->present;

				while (r) {
					uint32_t bit = (uint32_t)__builtin_ctzll(r);

					r &= r - 1;
					pc_page_drop(pc, v, bit);
					pc->st.reclaimed++;
				}
				chunk_free(pc, v);
				pc->st.evicted_chunks++;
				c = pc->chunk_free;
				pc->chunk_free = pc_chunk_of(pc, c)->lru_next;
				break;
			}
			pc_lru_touch(pc, v);
		}
		if (c == PC_NONE)
			return PC_NONE;
	}
	C = pc_chunk_of(pc, c);
	memset(C, 0, offsetof(struct pc_chunk, frame));
	for (uint32_t i = 0; i < PC_CHUNK_PAGES; i++)
		C->frame[i] = PC_NONE;
	C->key = pc_key(file, chunkno);
	C->lru_prev = C->lru_next = PC_NONE;
	t_insert(pc, c);
	lru_add_tail(pc, c);
	pc->nr_chunks++;
	pc->st.chunks = pc->nr_chunks;
	if (pc->nr_chunks > pc->st.max_chunks_used)
		pc->st.max_chunks_used = pc->nr_chunks;
	return c;
}

bool pc_page_alloc(struct pc *pc, uint32_t file, uint32_t index)
{
	uint32_t cn = index >> PC_CHUNK_SHIFT, bit = index & (PC_CHUNK_PAGES - 1);
	uint32_t c = pc_chunk_find(pc, file, cn), frame, saved = pc->pin_chunk;
	struct pc_chunk *C;
	struct pc_file *f = pc_file_of(pc, file);

	if (c == PC_NONE) {
		c = chunk_alloc(pc, file, cn);
		if (c == PC_NONE)
			return false;
	}
	C = pc_chunk_of(pc, c);
	if (C->present & (1ull << bit))
		return true;
	pc->pin_chunk = c;
	frame = frame_alloc(pc);
	pc->pin_chunk = saved;
	if (frame == PC_NONE) {
		pc_chunk_release_if_empty(pc, c);
		return false;
	}
	C->present |= 1ull << bit;
	C->frame[bit] = frame;
	pc->nr_cached++;
	f->nr_cached++;
	pc->st.nr_cached = pc->nr_cached;
	if (pc->nr_cached > pc->st.max_cached)
		pc->st.max_cached = pc->nr_cached;
	pc_lru_touch(pc, c);
	return true;
}

uint32_t pc_page_bits(const struct pc *pc, uint32_t file, uint32_t index, uint32_t *chunk)
{
	uint32_t c = pc_chunk_find(pc, file, index >> PC_CHUNK_SHIFT);
	const struct pc_chunk *C;
	uint64_t m = 1ull << (index & (PC_CHUNK_PAGES - 1));
	uint32_t s = 0;

	if (chunk)
		*chunk = c;
	if (c == PC_NONE)
		return 0;
	C = pc_chunk_of(pc, c);
	if (!(C->present & m))
		return 0;
	s |= PC_PG_PRESENT;
	s |= C->uptodate & m ? PC_PG_UPTODATE : 0;
	s |= C->dirty & m ? PC_PG_DIRTY : 0;
	s |= C->writeback & m ? PC_PG_WRITEBACK : 0;
	s |= C->locked & m ? PC_PG_LOCKED : 0;
	s |= C->towrite & m ? PC_PG_TOWRITE : 0;
	s |= C->ramark & m ? PC_PG_READAHEAD : 0;
	return s;
}

uint32_t pc_page_state(const struct pc *pc, uint32_t file, uint32_t index)
{
	if (file >= pc->max_files)
		return 0;
	return pc_page_bits(pc, file, index, NULL);
}

uint32_t pc_frame(const struct pc *pc, uint32_t file, uint32_t index)
{
	uint32_t c;

	if (file >= pc->max_files || !pc_page_bits(pc, file, index, &c))
		return PC_NONE;
	return pc_chunk_of(pc, c)->frame[index & (PC_CHUNK_PAGES - 1)];
}

/* ---- the inode lists (b_dirty, b_io, b_more_io) ---- */

void pc_list_del(struct pc *pc, uint32_t f)
{
	struct pc_file *F = pc_file_of(pc, f);
	struct pc_list *l;

	if (F->list == WBL_NONE)
		return;
	l = &pc_wb_of(pc, pc_file_wbi(pc, F))->wbl[F->list];
	if (F->prev != PC_NONE)
		pc_file_of(pc, F->prev)->next = F->next;
	else
		l->head = F->next;
	if (F->next != PC_NONE)
		pc_file_of(pc, F->next)->prev = F->prev;
	else
		l->tail = F->prev;
	l->count--;
	F->list = WBL_NONE;
	F->prev = F->next = PC_NONE;
}

void pc_list_add_head(struct pc *pc, uint32_t f, int list)
{
	struct pc_file *F = pc_file_of(pc, f);
	struct pc_list *l = &pc_wb_of(pc, pc_file_wbi(pc, F))->wbl[list];

	pc_list_del(pc, f);
	F->list = (uint8_t)list;
	F->prev = PC_NONE;
	F->next = l->head;
	if (l->head != PC_NONE)
		pc_file_of(pc, l->head)->prev = f;
	else
		l->tail = f;
	l->head = f;
	l->count++;
}

uint32_t pc_list_tail(const struct pc *pc, uint32_t wb, int list)
{
	return pc_wb_of(pc, wb)->wbl[list].tail;
}

static bool wb_has_dirty_io(const struct pc_wb *wb)
{
	return wb->wbl[WBL_DIRTY].count || wb->wbl[WBL_IO].count || wb->wbl[WBL_MORE_IO].count;
}

/* The flusher's delayed wake-up: queue_delayed_work() never postpones an earlier one. */
void pc_flusher_arm(struct pc *pc, uint32_t wb, uint64_t at)
{
	struct pc_flusher_state *fl = &pc_wb_of(pc, wb)->fl;

	if (at < fl->timer)
		fl->timer = at;
}

/* ---- page transitions and accounting ---- */

uint32_t pc_io_group(const struct pc *pc, uint32_t task, uint32_t file, bool write)
{
	const struct pc_file *f = pc_file_of(pc, file);

	if (write && pc_sw(pc, PC_SW_CGROUP_WRITEBACK) && f->wb_group_set)
		return f->wb_group;
	if (pc_is_flusher(pc, task))
		return 0; /* the flusher is a kworker of the root group */
	return pc_task_of(pc, task)->group;
}

/* folio_account_dirtied() and __mark_inode_dirty(). */
void pc_page_set_dirty(struct pc *pc, uint32_t c, uint32_t bit, uint32_t task, uint64_t now)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);
	uint32_t file = (uint32_t)(C->key >> 32);
	struct pc_file *f = pc_file_of(pc, file);
	struct pc_task *t = pc_task_of(pc, task);
	uint64_t m = 1ull << bit;
	struct pc_wb *wb;
	uint32_t wbi;

	if (C->dirty & m)
		return;
	if (!f->wb_group_set) {
		/* __inode_attach_wb(): the inode's wb is its first dirtier's. */
		f->wb_group = t->group;
		f->wb_group_set = 1;
		wb = pc_file_wb(pc, file);
		if (!wb->st.inodes++)
			pc->nr_wbs_used++;
	}
	wbi = pc_file_wbi(pc, f);
	wb = pc_wb_of(pc, wbi);
	C->dirty |= m;
	pc->nr_dirty++;
	f->nr_dirty++;
	wb->nr_reclaimable++;
	wb->wb_dirtied++;
	wb->st.dirtied++;
	pc->st.dirtied++;
	pc->st.nr_dirty = pc->nr_dirty;
	if (pc->nr_dirty > pc->st.max_dirty)
		pc->st.max_dirty = pc->nr_dirty;
	if (pc->nr_dirty + pc->nr_writeback > pc->st.max_dirty_plus_writeback)
		pc->st.max_dirty_plus_writeback = pc->nr_dirty + pc->nr_writeback;
	t->nr_dirtied++;
	t->st.dirtied++;
	if (pc_sw(pc, PC_SW_IOLESS_THROTTLE))
		pc->bdp_ratelimits++;
	pc_prop_dirtied(pc, t, now, 1);
	if (f->list == WBL_NONE) {
		bool was_empty = !wb_has_dirty_io(wb);

		f->dirtied_when = now;
		pc_list_add_head(pc, file, WBL_DIRTY);
		/* wb_wakeup_delayed(): the first dirty inode arms the periodic writeback. */
		if (was_empty && pc_sw(pc, PC_SW_PER_BDI_FLUSHER) &&
		    pc->p.dirty_writeback_centisecs)
			pc_flusher_arm(pc, wbi,
				       now + pc->p.dirty_writeback_centisecs * 10000000ull);
	}
}

/* clear_page_dirty_for_io() + set_page_writeback(). */
void pc_page_start_writeback(struct pc *pc, uint32_t c, uint32_t bit)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);
	struct pc_file *f = pc_file_of(pc, (uint32_t)(C->key >> 32));
	struct pc_wb *wb = pc_wb_of(pc, pc_file_wbi(pc, f));
	uint64_t m = 1ull << bit;

	if (C->dirty & m) {
		C->dirty &= ~m;
		pc->nr_dirty--;
		f->nr_dirty--;
		wb->nr_reclaimable--;
	}
	C->towrite &= ~m;
	C->writeback |= m;
	pc->nr_writeback++;
	f->nr_writeback++;
	wb->nr_writeback++;
	pc->st.nr_dirty = pc->nr_dirty;
	pc->st.nr_writeback = pc->nr_writeback;
	if (pc->nr_writeback > pc->st.max_writeback)
		pc->st.max_writeback = pc->nr_writeback;
}

/* folio_end_writeback(): WB_WRITTEN counts it, and the wb's writeout completions. */
void pc_page_end_writeback(struct pc *pc, uint32_t c, uint32_t bit, uint64_t now)
{
	struct pc_chunk *C = pc_chunk_of(pc, c);
	struct pc_file *f = pc_file_of(pc, (uint32_t)(C->key >> 32));
	uint64_t m = 1ull << bit;

	if (!(C->writeback & m))
		return;
	C->writeback &= ~m;
	pc->nr_writeback--;
	f->nr_writeback--;
	pc_wb_of(pc, pc_file_wbi(pc, f))->nr_writeback--;
	pc_wb_writeout(pc, pc_file_wbi(pc, f), now);
	pc->st.written++;
	if (f->wb_group_set && f->wb_group < PC_MAX_WBS)
		pc->st.written_by_group[f->wb_group]++;
	pc->st.nr_writeback = pc->nr_writeback;
}

/* ---- tasks, files, wake-ups ---- */

int pc_file_open(struct pc *pc, uint32_t file, uint64_t size)
{
	struct pc_file *f;

	if (file >= pc->max_files)
		return -1;
	f = pc_file_of(pc, file);
	if (!f->open) {
		f->open = 1;
		f->prev = f->next = PC_NONE;
		f->sync_owner = PC_NONE;
	}
	if (size > f->size)
		f->size = size;
	return 0;
}

int pc_task_init(struct pc *pc, uint32_t task, uint32_t group)
{
	struct pc_task *t;

	if (task >= pc->max_tasks)
		return -1;
	t = pc_task_of(pc, task);
	if (t->used && t->call != CALL_NONE)
		return -1;
	memset(t, 0, sizeof(*t));
	pc_set_wait(pc, t, W_NONE);
	t->used = 1;
	t->group = group;
	t->sleep_until = PC_NO_TIME;
	t->nr_dirtied_pause = PC_INIT_NR_DIRTIED_PAUSE;
	t->ra.file = PC_NONE;
	t->ra.prev_pos = UINT64_MAX;
	if (task + 1 > pc->task_hi)
		pc->task_hi = task + 1;
	return 0;
}

int pc_fadvise(struct pc *pc, uint32_t task, uint32_t file, enum pc_fadvise advice)
{
	struct pc_task *t;

	if (task >= pc->max_tasks || file >= pc->max_files || (unsigned int)advice > PC_FADV_RANDOM)
		return -1;
	t = pc_task_of(pc, task);
	t->fadvise = (uint8_t)advice;
	pc_ra_reset(pc, t, file);
	return 0;
}

void pc_wake(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h)
{
	struct pc_task *t = pc_task_of(pc, task);
	if (t->woken || !h || !h->wake)
		return;
	t->woken = 1;
	h->wake(h->ctx, task, now);
}

void pc_task_queue_io(struct pc *pc, uint32_t task, const struct pc_io *io)
{
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_io *q;

	(void)pc;
	if (t->q_count == PC_TASK_QUEUE)
		return; /* callers check for room first */
	q = &t->q[(t->q_head + t->q_count) % PC_TASK_QUEUE];
	*q = *io;
	q->tag = 1; /* from the queue: the task counts it in own_in_flight */
	t->q_count++;
}

bool pc_task_busy(const struct pc *pc, uint32_t task)
{
	return task < pc->max_tasks && pc_task_of(pc, task)->call != CALL_NONE;
}

/* ---- the write path ---- */

static void copy_range(struct pc_result *res, uint64_t lo, uint64_t hi)
{
	if (res->copy_lo == res->copy_hi)
		res->copy_lo = lo;
	res->copy_hi = hi;
}

/*
 * generic_perform_write(): page by page, write_begin (a partial page not uptodate is read
 * first), copy, mark dirty, then balance_dirty_pages_ratelimited().
 */
static int write_run(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		     struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);
	struct pc_file *f = pc_file_of(pc, t->file);

	if (t->phase == PH_BDP || t->phase == PH_BDP_WRITING) {
		int rc = pc_bdp_continue(pc, task, now, h, res);

		if (rc != PC_DONE)
			return rc;
		t->st.throttle_ns += now - t->bdp_start;
		t->phase = PH_COPY;
	}
	while (t->pos < t->end) {
		uint32_t idx = (uint32_t)(t->pos >> PC_PAGE_SHIFT), c, bit;
		uint64_t off = t->pos & (PC_PAGE_SIZE - 1), n = PC_PAGE_SIZE - off;
		uint64_t pstart = (uint64_t)idx << PC_PAGE_SHIFT;
		uint32_t s = pc_page_bits(pc, t->file, idx, &c);
		bool partial, need_read;
		struct pc_chunk *C;
		int rc;

		if (n > t->end - t->pos)
			n = t->end - t->pos;
		partial = off || n < PC_PAGE_SIZE;
		/* block_write_begin(): the rest of the page must come from the disk, unless it
		 * is beyond EOF (zeroed) or the write covers the page up to EOF. */
		need_read = partial && !(s & PC_PG_UPTODATE) && pstart < f->size &&
			    !(off == 0 && t->pos + n >= f->size);
		if (s & PC_PG_LOCKED) {
			/* The page is being read (read-ahead): write_begin waits for its lock. */
			pc_wait_page(pc, t, t->file, idx);
			return PC_WAIT;
		}
		if (!(s & PC_PG_PRESENT)) {
			if (!pc_page_alloc(pc, t->file, idx)) {
				pc_memory_wait(pc, task, now, h);
				return PC_WAIT;
			}
			s = pc_page_bits(pc, t->file, idx, &c);
		}
		if (need_read) {
			if (t->q_count == PC_TASK_QUEUE)
				return PC_SUBMIT;
			pc_read_one(pc, task, t->file, idx, PC_WHY_WRITE_BEGIN);
			pc_wait_page(pc, t, t->file, idx);
			return PC_SUBMIT;
		}
		C = pc_chunk_of(pc, c);
		bit = idx & (PC_CHUNK_PAGES - 1);
		C->uptodate |= 1ull << bit;
		pc_page_set_dirty(pc, c, bit, task, now);
		pc_lru_touch(pc, c);
		copy_range(res, t->pos, t->pos + n);
		t->pos += n;
		t->done += n;
		if (t->pos > f->size)
			f->size = t->pos;
		rc = pc_bdp_ratelimited(pc, task, now, h, res);
		if (rc != PC_DONE) {
			/* Held in balance_dirty_pages() from now: the throttling time. */
			t->bdp_start = now;
			return rc;
		}
	}
	return PC_DONE;
}

/* ---- entry points ---- */

static int begin(struct pc *pc, uint32_t task, uint32_t file, uint64_t *now, struct pc_result *res)
{
	struct pc_task *t;

	memset(res, 0, sizeof(*res));
	res->rc = PC_ERROR;
	if (task >= pc->max_tasks || file >= pc->max_files)
		return -1;
	t = pc_task_of(pc, task);
	if (!t->used || t->call != CALL_NONE || !pc_file_of(pc, file)->open)
		return -1;
	if (*now < pc->clock)
		*now = pc->clock;
	pc->clock = *now;
	t->file = file;
	t->done = 0;
	pc_set_wait(pc, t, W_NONE);
	t->woken = 0;
	t->phase = PH_NONE;
	return 0;
}

static int finish(struct pc *pc, uint32_t task, int rc, struct pc_result *res)
{
	struct pc_task *t = pc_task_of(pc, task);

	res->rc = rc;
	res->bytes = t->done;
	if (rc == PC_SLEEP)
		res->until = t->sleep_until;
	if (rc == PC_DONE && t->call != CALL_FLUSHER) {
		t->call = CALL_NONE;
		t->phase = PH_NONE;
		pc_set_wait(pc, t, W_NONE);
	}
	return rc;
}

int pc_write(struct pc *pc, uint32_t task, uint32_t file, uint64_t off, uint64_t len, uint64_t now,
	     const struct pc_host *h, struct pc_result *res)
{
	struct pc_task *t;

	if (begin(pc, task, file, &now, res))
		return PC_ERROR;
	if (off + len < off || ((off + len + PC_PAGE_SIZE - 1) >> PC_PAGE_SHIFT) > UINT32_MAX)
		return PC_ERROR;
	t = pc_task_of(pc, task);
	t->call = CALL_WRITE;
	t->phase = PH_COPY;
	t->pos = off;
	t->end = off + len;
	return finish(pc, task, write_run(pc, task, now, h, res), res);
}

int pc_read(struct pc *pc, uint32_t task, uint32_t file, uint64_t off, uint64_t len, uint64_t now,
	    const struct pc_host *h, struct pc_result *res)
{
	struct pc_task *t;

	if (begin(pc, task, file, &now, res))
		return PC_ERROR;
	if (off + len < off)
		return PC_ERROR;
	t = pc_task_of(pc, task);
	t->call = CALL_READ;
	t->read_waited = PC_NONE;
	t->pos = off;
	t->end = off + len;
	return finish(pc, task, pc_read_run(pc, task, now, h, res), res);
}

int pc_fsync(struct pc *pc, uint32_t task, uint32_t file, uint64_t now, const struct pc_host *h,
	     struct pc_result *res)
{
	struct pc_task *t;
	uint32_t c;

	(void)h;
	if (begin(pc, task, file, &now, res))
		return PC_ERROR;
	t = pc_task_of(pc, task);
	t->call = CALL_FSYNC;
	t->phase = PH_FSYNC_WRITE;
	t->st.fsyncs++;
	/* tag_pages_for_writeback(): what is dirty now is what this fsync writes. */
	for (c = pc_chunk_next(pc, file, 0); c != PC_NONE;) {
		struct pc_chunk *C = pc_chunk_of(pc, c);
		uint32_t cn = (uint32_t)C->key;

		C->towrite |= C->dirty;
		if (cn == UINT32_MAX)
			break;
		c = pc_chunk_next(pc, file, cn + 1);
	}
	pc_wbc_init(&t->pass.wbc, file, 0, UINT32_MAX, true, false, INT64_MAX);
	t->fsync_wait_pos = 0;
	return finish(pc, task, pc_fsync_run(pc, task, now, res), res);
}

int pc_truncate(struct pc *pc, uint32_t task, uint32_t file, uint64_t now, const struct pc_host *h,
		struct pc_result *res)
{
	struct pc_task *t;

	(void)h;
	if (begin(pc, task, file, &now, res))
		return PC_ERROR;
	t = pc_task_of(pc, task);
	t->call = CALL_TRUNCATE;
	return finish(pc, task, pc_truncate_run(pc, task, now, res), res);
}

/*
 * generic_fadvise(POSIX_FADV_DONTNEED) of bytes [off, off + len) (len 0: to the end):
 * __filemap_fdatawrite_range(WB_SYNC_NONE) over every page the range touches (skipped while the
 * queue is write-congested, which only the 2.6.x profile's pc_set_congested() reports: 6.12 has
 * no such check), then invalidate_mapping_pages() over whole pages only: the first index rounded
 * up, the last one excluding a partial last page (unless the range ends at i_size). Only clean
 * pages not locked nor under writeback go. t->pos .. t->end hold the page indices to drop
 * (none when pos > end).
 */
static int invalidate_run(struct pc *pc, uint32_t task)
{
	struct pc_task *t = pc_task_of(pc, task);
	uint32_t c;

	if (t->phase == PH_FSYNC_WRITE)
		return PC_SUBMIT; /* the walk runs in pc_next_io() */
	if (t->pos > t->end)
		return PC_DONE;
	for (c = pc_chunk_next(pc, t->file, (uint32_t)(t->pos >> PC_CHUNK_SHIFT)); c != PC_NONE;) {
		struct pc_chunk *C = pc_chunk_of(pc, c);
		uint32_t cn = (uint32_t)C->key;
		uint64_t base = (uint64_t)cn << PC_CHUNK_SHIFT, mask = ~0ull, drop;

		if (base > t->end)
			break;
		if (t->pos > base)
			mask <<= t->pos - base;
		if (t->end - base < PC_CHUNK_PAGES - 1)
			mask &= (2ull << (t->end - base)) - 1;
		drop = C->present & ~(C->dirty | C->writeback | C->locked) & mask;
		while (drop) {
			uint32_t bit = (uint32_t)__builtin_ctzll(drop);

			drop &= drop - 1;
			pc_page_drop(pc, c, bit);
		}
		pc_chunk_release_if_empty(pc, c);
		if (cn == UINT32_MAX >> PC_CHUNK_SHIFT)
			break;
		c = pc_chunk_next(pc, t->file, cn + 1);
	}
	return PC_DONE;
}

int pc_invalidate(struct pc *pc, uint32_t task, uint32_t file, uint64_t off, uint64_t len,
		  uint64_t now, const struct pc_host *h, struct pc_result *res)
{
	const uint64_t llong_max = INT64_MAX, last_page = UINT32_MAX;
	struct pc_task *t;
	uint64_t endbyte, first, last;

	(void)h;
	if (begin(pc, task, file, &now, res))
		return PC_ERROR;
	if (off > llong_max)
		return PC_ERROR;
	t = pc_task_of(pc, task);
	t->call = CALL_INVALIDATE;
	/* endbyte is inclusive; len 0 (or an overflow) means "as much as possible". */
	endbyte = off + len;
	if (!len || endbyte < len || endbyte > llong_max)
		endbyte = llong_max;
	else
		endbyte--;
	if (!pc->congested && (off >> PC_PAGE_SHIFT) <= last_page) {
		last = endbyte >> PC_PAGE_SHIFT;
		t->phase = PH_FSYNC_WRITE;
		pc_wbc_init(&t->pass.wbc, file, (uint32_t)(off >> PC_PAGE_SHIFT),
			    (uint32_t)(last < last_page ? last : last_page), false, false,
			    INT64_MAX);
	}
	/* "First and last FULL page!" */
	first = (off + PC_PAGE_SIZE - 1) >> PC_PAGE_SHIFT;
	last = endbyte >> PC_PAGE_SHIFT;
	t->pos = 1;
	t->end = 0;
	if ((endbyte & (PC_PAGE_SIZE - 1)) != PC_PAGE_SIZE - 1 &&
	    endbyte + 1 != pc_file_of(pc, file)->size) {
		if (last == 0)
			return finish(pc, task, invalidate_run(pc, task), res);
		last--;
	}
	if (last >= first && first <= last_page) {
		t->pos = first;
		t->end = last < last_page ? last : last_page;
	}
	return finish(pc, task, invalidate_run(pc, task), res);
}

/* Is the task still blocked? Returns the rc to report, or PC_DONE to go on. */
static int still_blocked(struct pc *pc, uint32_t task, uint64_t now)
{
	struct pc_task *t = pc_task_of(pc, task);

	switch (t->wait) {
	case W_SLEEP:
	case W_CONGESTION: {
		bool over = now >= t->sleep_until || (t->wait == W_CONGESTION && !pc->congested);

		if (!over)
			return PC_SLEEP;
		t->sleep_until = PC_NO_TIME;
		break;
	}
	case W_PAGE:
		if (pc_page_bits(pc, t->wait_file, t->wait_index, NULL) &
		    (PC_PG_LOCKED | PC_PG_WRITEBACK))
			return PC_WAIT;
		break;
	case W_IOS:
		if (t->own_in_flight)
			return PC_WAIT;
		break;
	case W_INODE: {
		uint32_t o = pc_file_of(pc, t->wait_file)->sync_owner;

		if (o != PC_NONE && o != task)
			return PC_WAIT;
		break;
	}
	default:
		break;
	}
	pc_set_wait(pc, t, W_NONE);
	return PC_DONE;
}

int pc_continue(struct pc *pc, uint32_t task, uint64_t now, const struct pc_host *h,
		struct pc_result *res)
{
	struct pc_task *t;
	int rc;

	memset(res, 0, sizeof(*res));
	res->rc = PC_ERROR;
	if (task >= pc->nr_all)
		return PC_ERROR;
	t = pc_task_of(pc, task);
	if (now < pc->clock)
		now = pc->clock;
	pc->clock = now;
	t->woken = 0;
	if (t->call == CALL_NONE)
		return finish(pc, task, PC_DONE, res);
	rc = still_blocked(pc, task, now);
	if (rc != PC_DONE) {
		res->rc = rc;
		res->bytes = t->done;
		res->until = t->sleep_until;
		return rc;
	}
	switch (t->call) {
	case CALL_WRITE:
		rc = write_run(pc, task, now, h, res);
		break;
	case CALL_READ:
		rc = pc_read_run(pc, task, now, h, res);
		break;
	case CALL_FSYNC:
		rc = pc_fsync_run(pc, task, now, res);
		break;
	case CALL_TRUNCATE:
		rc = pc_truncate_run(pc, task, now, res);
		break;
	case CALL_INVALIDATE:
		rc = invalidate_run(pc, task);
		break;
	case CALL_FLUSHER:
		rc = pc_flusher_run(pc, task - pc->max_tasks, now, h, res);
		break;
	default:
		rc = PC_DONE;
	}
	return finish(pc, task, rc, res);
}

int pc_next_io(struct pc *pc, uint32_t task, uint64_t now, struct pc_io *io)
{
	struct pc_task *t;

	if (task >= pc->nr_all)
		return 0;
	t = pc_task_of(pc, task);
	if (now < pc->clock)
		now = pc->clock;
	pc->clock = now;
	if (t->q_count) {
		*io = t->q[t->q_head];
		t->q_head = (t->q_head + 1) % PC_TASK_QUEUE;
		t->q_count--;
		t->own_in_flight++;
		if (io->op == PC_IO_READ) {
			t->st.read_requests++;
			/* by reason too: read, readahead, write_begin (writeback counts its own) */
			pc->st.wb_requests[io->reason]++;
			pc->st.wb_pages[io->reason] += io->npages;
		} else if (io->op == PC_IO_FLUSH) {
			pc->st.wb_requests[io->reason]++;
		}
		return 1;
	}
	if (t->pass.active)
		return pc_pass_next(pc, task, io, now);
	if (t->call == CALL_FSYNC && t->phase == PH_FSYNC_WRITE && t->wait == W_NONE) {
		uint32_t wait_index;
		int r = pc_wbc_next(pc, task, &t->pass.wbc, io, PC_WHY_FSYNC, &wait_index);

		if (r == WALK_IO)
			return 1;
		if (r == WALK_WAIT) {
			/* write_cache_pages(WB_SYNC_ALL): folio_wait_writeback() on a page the
			 * flusher has under writeback, before writing it again. */
			pc_wait_page(pc, t, t->file, wait_index);
			t->st.fsync_waits_on_writeback++;
			t->st.fsync_redirty_waits++;
			return 0;
		}
		t->phase = PH_FSYNC_WAIT;
	}
	if (t->call == CALL_INVALIDATE && t->phase == PH_FSYNC_WRITE) {
		uint32_t wait_index;

		if (pc_wbc_next(pc, task, &t->pass.wbc, io, PC_WHY_FADVISE, &wait_index) == WALK_IO)
			return 1;
		t->phase = PH_NONE;
	}
	return 0;
}

static void pc_io_wake(struct pc *pc, struct pc_task *t, uint32_t k, const struct pc_io *io,
		       uint64_t now, const struct pc_host *h);

void pc_io_done(struct pc *pc, const struct pc_io *io, uint64_t now, const struct pc_host *h)
{
	struct pc_file *f;
	bool any_write = false;

	if (now < pc->clock)
		now = pc->clock;
	pc->clock = now;
	if (io->file >= pc->max_files || io->issuer >= pc->nr_all)
		return;
	f = pc_file_of(pc, io->file);
	for (uint32_t i = 0; i < io->npages; i++) {
		uint32_t idx = io->index + i, c;
		struct pc_chunk *C;
		uint64_t m;

		if (!pc_page_bits(pc, io->file, idx, &c))
			continue; /* truncated meanwhile */
		C = pc_chunk_of(pc, c);
		m = 1ull << (idx & (PC_CHUNK_PAGES - 1));
		if (io->op == PC_IO_READ && (C->locked & m)) {
			/* end_page_read(): uptodate, unlocked */
			C->locked &= ~m;
			C->uptodate |= m;
			f->nr_locked--;
			pc->st.read_pages++;
		} else if (io->op == PC_IO_WRITE && (C->writeback & m)) {
			pc_page_end_writeback(pc, c, idx & (PC_CHUNK_PAGES - 1), now);
			any_write = true;
		}
	}
	if (io->tag) {
		struct pc_task *t = pc_task_of(pc, io->issuer);

		if (t->own_in_flight)
			t->own_in_flight--;
	}
	if (any_write && pc_sw(pc, PC_SW_IOLESS_THROTTLE) &&
	    pc_jiffies(pc, now) >=
		pc_file_wb(pc, io->file)->bw_time_stamp + (pc->p.hz / 5 ? pc->p.hz / 5 : 1))
		pc_bw_update(pc, pc_file_wbi(pc, f), now);
	/* Wake whoever waited for these pages, for memory, or for its own requests: the tasks of
	 * both waiter classes in ascending order; a page's waiter is looked at only when its key
	 * names a page of this request (a waiter's task is a cache miss, its key is not). */
	const uint64_t *pw = pc_waiters(pc, PC_WAITERS_PAGE),
		       *ow = pc_waiters(pc, PC_WAITERS_OTHER), *keys = pc_wait_keys(pc);
	uint64_t lo = pc_page_key(io->file, io->index), hi = lo + io->npages;

	for (uint32_t w = 0, nw = pc_waiter_words(pc); w < nw; w++) {
		for (uint64_t bits = pw[w] | ow[w]; bits; bits &= bits - 1) {
			uint32_t k = w * 64 + (uint32_t)__builtin_ctzll(bits);
			struct pc_task *t;

			if (k >= pc->nr_all)
				break;
			if ((pw[w] & (bits & -bits)) && (keys[k] < lo || keys[k] >= hi))
				continue; /* another page (the W_PAGE case below fails too) */
			t = pc_task_of(pc, k);
			if (!t->used || t->call == CALL_NONE)
				continue;
			pc_io_wake(pc, t, k, io, now, h);
		}
	}
}

/* pc_io_done()'s wake-up of task k, a waiter. */
static void pc_io_wake(struct pc *pc, struct pc_task *t, uint32_t k, const struct pc_io *io,
		       uint64_t now, const struct pc_host *h)
{
	switch (t->wait) {
	case W_PAGE:
		if (t->wait_file == io->file && t->wait_index >= io->index &&
		    t->wait_index < io->index + io->npages &&
		    !(pc_page_bits(pc, t->wait_file, t->wait_index, NULL) &
		      (PC_PG_LOCKED | PC_PG_WRITEBACK)))
			pc_wake(pc, k, now, h);
		break;
	case W_MEMORY:
		pc_wake(pc, k, now, h);
		break;
	case W_IOS:
		if (k == io->issuer && !t->own_in_flight)
			pc_wake(pc, k, now, h);
		break;
	default:
		break;
	}
}

void pc_set_congested(struct pc *pc, bool congested, uint64_t now, const struct pc_host *h)
{
	if (now < pc->clock)
		now = pc->clock;
	pc->clock = now;
	if (pc->congested == congested)
		return;
	pc->congested = congested;
	if (congested)
		return;
	/* clear_bdi_congested(): wakes the congestion_wait() sleepers. */
	for (uint32_t k = pc_next_waiter(pc, PC_WAITERS_TIMED, 0); k < pc->nr_all;
	     k = pc_next_waiter(pc, PC_WAITERS_TIMED, k + 1)) {
		struct pc_task *t = pc_task_of(pc, k);

		if (t->used && t->call != CALL_NONE && t->wait == W_CONGESTION)
			pc_wake(pc, k, now, h);
	}
}

uint64_t pc_next_event(const struct pc *pc)
{
	uint64_t t = PC_NO_TIME;

	for (uint32_t w = 0; w < pc->nr_wbs; w++)
		if (pc_wb_of(pc, w)->fl.timer < t)
			t = pc_wb_of(pc, w)->fl.timer;

	for (uint32_t k = pc_next_waiter(pc, PC_WAITERS_TIMED, 0); k < pc->nr_all;
	     k = pc_next_waiter(pc, PC_WAITERS_TIMED, k + 1)) {
		const struct pc_task *tk = pc_task_of(pc, k);

		if (tk->used && (tk->wait == W_SLEEP || tk->wait == W_CONGESTION) && !tk->woken &&
		    tk->sleep_until < t)
			t = tk->sleep_until;
	}
	return t;
}

void pc_advance(struct pc *pc, uint64_t now, const struct pc_host *h)
{
	if (now < pc->clock)
		now = pc->clock;
	pc->clock = now;
	for (uint32_t k = pc_next_waiter(pc, PC_WAITERS_TIMED, 0); k < pc->nr_all;
	     k = pc_next_waiter(pc, PC_WAITERS_TIMED, k + 1)) {
		struct pc_task *t = pc_task_of(pc, k);

		if (t->used && (t->wait == W_SLEEP || t->wait == W_CONGESTION) &&
		    t->sleep_until <= now)
			pc_wake(pc, k, now, h);
	}
	for (uint32_t w = 0; w < pc->nr_wbs; w++) {
		struct pc_wb *wb = pc_wb_of(pc, w);

		if (wb->fl.timer <= now) {
			wb->fl.timer = PC_NO_TIME;
			pc_flusher_timer(pc, w, now, h);
		}
	}
}

/* ---- queries ---- */

const struct pc_stats *pc_stats(const struct pc *pc)
{
	return &pc->st;
}

const struct pc_task_stats *pc_task_stats(const struct pc *pc, uint32_t task)
{
	return task < pc->nr_all ? &pc_task_of(pc, task)->st : NULL;
}

void pc_file_counts(const struct pc *pc, uint32_t file, uint64_t *cached, uint64_t *dirty,
		    uint64_t *writeback)
{
	const struct pc_file *f = pc_file_of(pc, file < pc->max_files ? file : 0);

	*cached = f->nr_cached;
	*dirty = f->nr_dirty;
	*writeback = f->nr_writeback;
}

void pc_dirty_limits(const struct pc *pc, uint64_t *bg_thresh, uint64_t *thresh)
{
	pc_limits(pc, bg_thresh, thresh);
}

static int treap_check(const struct pc *pc, uint32_t t, uint64_t lo, uint64_t hi, uint32_t *n,
		       char *err, size_t errlen)
{
	const struct pc_chunk *T;

	if (t == PC_NONE)
		return 0;
	T = pc_chunk_of(pc, t);
	if (T->key < lo || T->key > hi) {
		snprintf(err, errlen, "treap: key out of order");
		return -1;
	}
	if ((T->left != PC_NONE && prio_of(pc_chunk_of(pc, T->left)->key) > prio_of(T->key)) ||
	    (T->right != PC_NONE && prio_of(pc_chunk_of(pc, T->right)->key) > prio_of(T->key))) {
		snprintf(err, errlen, "treap: heap order broken");
		return -1;
	}
	(*n)++;
	if (T->key && treap_check(pc, T->left, lo, T->key - 1, n, err, errlen))
		return -1;
	return treap_check(pc, T->right, T->key + 1, hi, n, err, errlen);
}

int pc_check(const struct pc *pc, char *err, size_t errlen)
{
	uint64_t cached = 0, dirty = 0, wb = 0, wbdirty = 0, wbwb = 0;
	uint32_t n = 0, lru = 0, lists = 0;

	if (treap_check(pc, pc->root, 0, UINT64_MAX - 1, &n, err, errlen))
		return -1;
	/* The waiter bitmaps: task k in exactly the class of its wait, in none when it does not
	 * wait; a page's waiter's key names its page. */
	for (uint32_t k = 0; k < pc->nr_all; k++) {
		const struct pc_task *t = pc_task_of(pc, k);
		uint64_t bit = 1ull << (k % 64);
		int cls = t->wait == W_NONE				  ? -1
			  : t->wait == W_SLEEP || t->wait == W_CONGESTION ? PC_WAITERS_TIMED
			  : t->wait == W_PAGE				  ? PC_WAITERS_PAGE
									  : PC_WAITERS_OTHER;

		for (int c = 0; c < PC_WAITERS_NR; c++) {
			if (!(pc_waiters(pc, c)[k / 64] & bit) != (c != cls)) {
				snprintf(err, errlen,
					 "task %u (wait %u): waiter class %d bit wrong", k, t->wait,
					 c);
				return -1;
			}
		}
		if (cls == PC_WAITERS_PAGE &&
		    pc_wait_keys(pc)[k] != pc_page_key(t->wait_file, t->wait_index)) {
			snprintf(err, errlen, "task %u: its wait key is not its page", k);
			return -1;
		}
	}
	if (n != pc->nr_chunks) {
		snprintf(err, errlen, "treap holds %u chunks, counted %u", n, pc->nr_chunks);
		return -1;
	}
	for (uint32_t c = pc->lru_head; c != PC_NONE; c = pc_chunk_of(pc, c)->lru_next) {
		const struct pc_chunk *C = pc_chunk_of(pc, c);

		lru++;
		if (!C->present) {
			snprintf(err, errlen, "an empty chunk is cached");
			return -1;
		}
		if ((C->uptodate | C->dirty | C->writeback | C->locked | C->towrite | C->ramark) &
		    ~C->present) {
			snprintf(err, errlen, "state bits on absent pages");
			return -1;
		}
		if (C->dirty & ~C->uptodate) {
			snprintf(err, errlen, "a dirty page not uptodate");
			return -1;
		}
		if (C->locked & (C->uptodate | C->writeback | C->dirty)) {
			snprintf(err, errlen,
				 "a locked (reading) page uptodate, dirty or under "
				 "writeback");
			return -1;
		}
		cached += (uint64_t)__builtin_popcountll(C->present);
		dirty += (uint64_t)__builtin_popcountll(C->dirty);
		wb += (uint64_t)__builtin_popcountll(C->writeback);
		if (pc_chunk_find(pc, (uint32_t)(C->key >> 32), (uint32_t)C->key) != c) {
			snprintf(err, errlen, "a cached chunk is not in the treap");
			return -1;
		}
	}
	if (lru != n) {
		snprintf(err, errlen, "LRU holds %u chunks, treap %u", lru, n);
		return -1;
	}
	if (cached != pc->nr_cached || dirty != pc->nr_dirty || wb != pc->nr_writeback) {
		snprintf(err, errlen,
			 "counts: cached %" PRIu64 "/%" PRIu64 " dirty %" PRIu64 "/%" PRIu64
			 " writeback %" PRIu64 "/%" PRIu64,
			 cached, pc->nr_cached, dirty, pc->nr_dirty, wb, pc->nr_writeback);
		return -1;
	}
	if (pc->nr_cached > pc->cache_pages || pc->nr_chunks > pc->max_chunks) {
		snprintf(err, errlen, "over the bound: %" PRIu64 " pages, %u chunks", pc->nr_cached,
			 pc->nr_chunks);
		return -1;
	}
	if (pc->nr_cached + pc->frame_free_top + (pc->cache_pages - pc->frame_hwm) !=
	    pc->cache_pages) {
		snprintf(err, errlen, "frames leak: %" PRIu64 " cached + %u free + %u unused != %u",
			 pc->nr_cached, pc->frame_free_top, pc->cache_pages - pc->frame_hwm,
			 pc->cache_pages);
		return -1;
	}
	for (uint32_t f = 0; f < pc->max_files; f++) {
		const struct pc_file *F = pc_file_of(pc, f);

		lists += F->list != WBL_NONE;
		if (F->nr_dirty && F->list == WBL_NONE && F->open) {
			snprintf(err, errlen, "file %u has dirty pages and is on no writeback list",
				 f);
			return -1;
		}
	}
	for (uint32_t w = 0; w < pc->nr_wbs; w++) {
		const struct pc_wb *wb = pc_wb_of(pc, w);

		lists -=
		    wb->wbl[WBL_DIRTY].count + wb->wbl[WBL_IO].count + wb->wbl[WBL_MORE_IO].count;
		wbdirty += wb->nr_reclaimable;
		wbwb += wb->nr_writeback;
	}
	if (lists) {
		snprintf(err, errlen, "writeback lists miscounted");
		return -1;
	}
	if (wbdirty != pc->nr_dirty || wbwb != pc->nr_writeback) {
		snprintf(err, errlen, "the wbs' dirty/writeback pages miscounted");
		return -1;
	}
	return 0;
}
