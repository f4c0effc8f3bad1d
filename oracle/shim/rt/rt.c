// SPDX-License-Identifier: GPL-2.0
/*
 * Time for the kernel files: the clock (ktime_get_ns(), jiffies) is the simulator's virtual time
 * as the adapter last set it; hrtimers and timer_lists are armed on one list and fired by the
 * adapter when the simulator reaches their expiry (the policy's next_timer/timer), each at its own
 * time, as the embedded policies' timers are. A timer_list expires on a jiffy: at the first
 * jiffy at or after its expires value, i.e. at time (expires - INITIAL_JIFFIES) * TICK_NSEC.
 */
#include "oracle_kernel.h"
#include "oracle_rt.h"

struct oracle_rt oracle_rt;
u64 oracle_now_ns;
unsigned long oracle_jiffies;
static u64 epoch_ns; /* the instance's start: jiffies count from it */

static unsigned long jiffies_at(u64 ns)
{
	return INITIAL_JIFFIES + (unsigned long)((ns - epoch_ns) / TICK_NSEC);
}

void oracle_rt_set_now(u64 now_ns)
{
	if (now_ns < oracle_now_ns)
		now_ns = oracle_now_ns;
	oracle_now_ns = now_ns;
	oracle_jiffies = jiffies_at(now_ns);
}

struct alloc_hdr {
	struct list_head link;
	u64 pad; /* 16-byte alignment of what follows */
};

void *oracle_kmalloc(size_t n)
{
	struct alloc_hdr *h = oracle_host_zalloc(sizeof(*h) + n);

	if (!h)
		return NULL;
	if (oracle_rt.live)
		list_add(&h->link, &oracle_rt.allocs);
	else
		INIT_LIST_HEAD(&h->link);
	return h + 1;
}

void oracle_kfree(const void *p)
{
	struct alloc_hdr *h;

	if (!p)
		return;
	h = (struct alloc_hdr *)p - 1;
	list_del(&h->link);
	oracle_host_free(h);
}

void oracle_rt_reset(u64 now_ns)
{
	struct elevator_type *e = oracle_rt.elv_type;

	if (oracle_rt.live) {
		while (!list_empty(&oracle_rt.allocs)) {
			struct alloc_hdr *h = list_first_entry(&oracle_rt.allocs, struct alloc_hdr, link);

			list_del(&h->link);
			oracle_host_free(h);
		}
	}
	oracle_kmem_caches_reset(); /* their objects were the instance's: freed above */
	memset(&oracle_rt, 0, sizeof(oracle_rt));
	oracle_rt.elv_type = e;
	INIT_LIST_HEAD(&oracle_rt.timers);
	INIT_LIST_HEAD(&oracle_rt.allocs);
	oracle_rt.live = true;
	epoch_ns = now_ns;
	oracle_now_ns = now_ns;
	oracle_jiffies = INITIAL_JIFFIES;
}

void oracle_timer_arm(struct oracle_timer *t, u64 expires_ns)
{
	if (t->active)
		list_del(&t->armed);
	t->expires_ns = expires_ns;
	t->seq = ++oracle_rt.timer_seq;
	t->active = true;
	list_add_tail(&t->armed, &oracle_rt.timers);
}

bool oracle_timer_cancel(struct oracle_timer *t)
{
	if (!t->active)
		return false;
	list_del(&t->armed);
	t->active = false;
	return true;
}

static void run_hrtimer(struct oracle_timer *ot)
{
	struct hrtimer *t = container_of(ot, struct hrtimer, ot);

	if (t->function(t) == HRTIMER_RESTART && !ot->active)
		oracle_timer_arm(ot, ot->expires_ns); /* re-armed by hrtimer_forward() */
}

void hrtimer_init(struct hrtimer *t, clockid_t clock, enum hrtimer_mode mode)
{
	(void)clock;
	(void)mode;
	memset(&t->ot, 0, sizeof(t->ot));
	t->ot.run = run_hrtimer;
}

void hrtimer_start(struct hrtimer *t, ktime_t tim, const enum hrtimer_mode mode)
{
	u64 at = (mode & HRTIMER_MODE_REL) ? oracle_now_ns + (u64)tim : (u64)tim - ORACLE_BOOT_NS;

	t->ot.run = run_hrtimer;
	oracle_timer_arm(&t->ot, at);
}

static void run_timer_list(struct oracle_timer *ot)
{
	struct timer_list *t = container_of(ot, struct timer_list, ot);

#if ORACLE_KVER < KV(4, 15)
	if (t->function)
		t->function(t->data);
	else if (t->function_tl)
		t->function_tl(t);
#else
	if (t->function)
		t->function(t);
#endif
	else if (t->function_ul)
		t->function_ul(t->data);
}

void oracle_timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned int f)
{
	(void)f;
	memset(t, 0, sizeof(*t));
#if ORACLE_KVER < KV(4, 15)
	t->function_tl = fn;
#else
	t->function = fn;
#endif
	t->ot.run = run_timer_list;
}

#if ORACLE_KVER < KV(4, 15)
void oracle_init_timer(struct timer_list *t)
{
	memset(t, 0, sizeof(*t));
	t->ot.run = run_timer_list;
}
#endif

int mod_timer(struct timer_list *t, unsigned long expires)
{
	bool was = t->ot.active;
	long d = (long)(expires - INITIAL_JIFFIES);

	t->expires = expires;
	t->ot.run = run_timer_list;
	oracle_timer_arm(&t->ot, epoch_ns + (u64)(d > 0 ? d : 0) * TICK_NSEC);
	return was;
}

u64 oracle_rt_next_timer(void)
{
	struct oracle_timer *t;
	u64 next = U64_MAX;

	list_for_each_entry(t, &oracle_rt.timers, armed)
		if (t->expires_ns < next)
			next = t->expires_ns;
	return next;
}

unsigned int oracle_rt_run_timers(u64 now_ns)
{
	unsigned int n = 0;

	for (;;) {
		struct oracle_timer *t, *first = NULL;

		list_for_each_entry(t, &oracle_rt.timers, armed)
			if (t->expires_ns <= now_ns &&
			    (!first || t->expires_ns < first->expires_ns ||
			     (t->expires_ns == first->expires_ns && t->seq < first->seq)))
				first = t;
		if (!first)
			return n;
		/* The callback sees the clock at the timer's own time, as the kernel's would. */
		oracle_rt_set_now(first->expires_ns > oracle_now_ns ? first->expires_ns : oracle_now_ns);
		oracle_timer_cancel(first);
		first->run(first);
		n++;
	}
}

void oracle_queue_run(void)
{
	oracle_rt.run_requested = true;
}

void oracle_run_hw_queues(struct request_queue *q, bool async)
{
	(void)q;
	(void)async;
	oracle_rt.run_requested = true;
}

bool oracle_rt_take_run(void)
{
	bool r = oracle_rt.run_requested;

	oracle_rt.run_requested = false;
	return r;
}

void oracle_trace_msg(struct request_queue *q, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	(void)q;
	if (!oracle_rt.trace)
		return;
	va_start(ap, fmt);
	oracle_host_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	oracle_rt.trace(oracle_rt.trace_ctx, line);
}

/* The caches made (at module_init, once per process), whose freelists each instance empties. */
static struct kmem_cache *caches[16];
static unsigned int nr_caches;

struct kmem_cache *oracle_kmem_cache_create(const char *name, size_t size)
{
	struct kmem_cache *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (c) {
		c->name = name;
		c->size = size < sizeof(void *) ? sizeof(void *) : size;
		if (nr_caches < sizeof(caches) / sizeof(caches[0]))
			caches[nr_caches++] = c;
	}
	return c;
}

void oracle_kmem_cache_destroy(struct kmem_cache *c)
{
	for (unsigned int i = 0; i < nr_caches; i++)
		if (caches[i] == c)
			caches[i] = caches[--nr_caches];
	kfree(c);
}

void oracle_kmem_caches_reset(void)
{
	for (unsigned int i = 0; i < nr_caches; i++)
		caches[i]->free = NULL;
}

static struct task_struct task0;
struct task_struct *oracle_current = &task0;
