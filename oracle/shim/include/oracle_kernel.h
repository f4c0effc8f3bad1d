/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle's stand-in for the kernel headers the scheduler files include (<linux/...> and the
 * block-local ones): just the types, macros and calls those files use, with the kernel's
 * semantics, in userspace, single-threaded, in the simulator's virtual time. Every <linux/x.h>
 * under shim/include is a one-line include of this file; the kernel files are compiled with
 * -nostdinc so nothing of the system's headers mixes in.
 *
 * ORACLE_KVER (KV(major, minor)) selects the interfaces of the kernel a variant was cut from
 * (the elevator ops of 4.19's legacy and blk-mq halves, 6.12's blk_mq_alloc_data...).
 *
 * Written for this project from the kernel's documented interfaces (the include/linux headers of the
 * versions in ../shared/kernel-src are not copied: the reference tree holds block/ only).
 */
#ifndef ORACLE_KERNEL_H
#define ORACLE_KERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KV(a, b) ((a) * 100 + (b))
#ifndef ORACLE_KVER
#error "ORACLE_KVER is set by the variant's build"
#endif
/* 2.6.x kernels differ by their third number: KV3(2, 6, 32) < KV3(2, 6, 36) < KV3(3, 0, 0). */
#ifndef ORACLE_KSUB
#define ORACLE_KSUB 0
#endif
#define KV3(a, b, c) ((a) * 10000 + (b) * 100 + (c))
#define ORACLE_KVER3 (ORACLE_KVER * 100 + ORACLE_KSUB)
#ifndef ORACLE_HZ
#define ORACLE_HZ 250
#endif

/* ---- types ---------------------------------------------------------------------------------- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
typedef u64 sector_t;
typedef s64 ktime_t;
typedef unsigned int gfp_t;
typedef long ssize_t;
typedef long long loff_t;
typedef int pid_t;
typedef unsigned short umode_t;
typedef unsigned int fmode_t;
typedef unsigned int blk_opf_t;
typedef unsigned int blk_mq_req_flags_t;
typedef unsigned int req_flags_t;
typedef int blk_status_t;
typedef unsigned int blk_qc_t;
typedef unsigned long uintptr;

typedef struct {
	int counter;
} atomic_t;
typedef struct {
	long counter;
} atomic_long_t;
typedef struct {
	s64 counter;
} atomic64_t;
typedef struct {
	int refs;
} refcount_t;
typedef struct {
	int unused;
} spinlock_t;
typedef struct {
	int unused;
} seqlock_t;
struct mutex {
	int unused;
};
struct lock_class_key {
	int unused;
};
struct rcu_head {
	void *next;
};
struct kref {
	refcount_t refcount;
};
struct percpu_ref {
	long count;
};

/* ---- the host (oracle/shim/rt/host.c, the only file built against libc) -------------------- */
void *oracle_host_zalloc(size_t n);
void oracle_host_free(void *p);
void oracle_host_bug(const char *file, int line, const char *what) __attribute__((noreturn));
void oracle_host_warn(const char *file, int line, const char *what);
int oracle_host_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int oracle_host_snprintf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
long oracle_host_strtol(const char *s, char **end, int base);
unsigned long oracle_host_strtoul(const char *s, char **end, int base);

/* ---- compiler, kernel.h --------------------------------------------------------------------- */
#define __init
#define __exit
#define __initdata
#define __read_mostly
#define __cacheline_aligned_in_smp
#define ____cacheline_aligned_in_smp
#define ____cacheline_aligned
#define __rcu
#define __user
#define __iomem
#define __percpu
#define __must_check
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define __always_unused __attribute__((unused))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __cold
#define __force
#define __bitwise
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __randomize_layout
#define fallthrough __attribute__((fallthrough))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define smp_mb() barrier()
#define smp_wmb() barrier()
#define smp_rmb() barrier()
#define smp_mb__after_atomic() barrier()
#define smp_mb__before_atomic() barrier()
#define smp_load_acquire(p) READ_ONCE(*(p))
#define smp_store_release(p, v) WRITE_ONCE(*(p), v)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BITS_PER_LONG 64
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define GENMASK(h, l) (((~0UL) << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define DIV_ROUND_CLOSEST(x, d) (((x) + ((d) / 2)) / (d))
#define ALIGN(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define roundup(x, y) ((((x) + ((y) - 1)) / (y)) * (y))
#define INT_MAX ((int)(~0U >> 1))
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX (~0U)
#define LONG_MAX ((long)(~0UL >> 1))
#define ULONG_MAX (~0UL)
#define U64_MAX ((u64)~0ULL)
#define U32_MAX ((u32)~0U)
#define S64_MAX ((s64)(U64_MAX >> 1))
#define LLONG_MAX S64_MAX
#define NULL_PTR ((void *)0)
#define IS_ENABLED(x) (defined(x))
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
/* The module information lines of the kernel's files expand to nothing (one macro for all). */
#define oracle_module_info(x)
#define MODULE_AUTHOR	   oracle_module_info
#define MODULE_LICENSE	   oracle_module_info
#define MODULE_DESCRIPTION oracle_module_info
#define MODULE_ALIAS	   oracle_module_info
#define THIS_MODULE ((struct module *)0)
struct module;
#define IS_ERR_VALUE(x) unlikely((unsigned long)(void *)(x) >= (unsigned long)-4095)
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}
static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}
static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}
static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define container_of_const container_of

#define __cmp(a, b, op) ((a)op(b) ? (a) : (b))
#define min(a, b)                                                                                  \
	({                                                                                         \
		__typeof__(a) _a = (a);                                                            \
		__typeof__(b) _b = (b);                                                            \
		_a < _b ? _a : _b;                                                                 \
	})
#define max(a, b)                                                                                  \
	({                                                                                         \
		__typeof__(a) _a = (a);                                                            \
		__typeof__(b) _b = (b);                                                            \
		_a > _b ? _a : _b;                                                                 \
	})
#define min_t(t, a, b)                                                                             \
	({                                                                                         \
		t _a = (a);                                                                        \
		t _b = (b);                                                                        \
		_a < _b ? _a : _b;                                                                 \
	})
#define max_t(t, a, b)                                                                             \
	({                                                                                         \
		t _a = (a);                                                                        \
		t _b = (b);                                                                        \
		_a > _b ? _a : _b;                                                                 \
	})
#define clamp(v, lo, hi) min((__typeof__(v))max(v, lo), hi)
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define clamp_val(v, lo, hi) clamp_t(__typeof__(v), v, lo, hi)
#define swap(a, b)                                                                                 \
	do {                                                                                       \
		__typeof__(a) _t = (a);                                                            \
		(a) = (b);                                                                         \
		(b) = _t;                                                                          \
	} while (0)
/* As include/linux/math.h: an unsigned argument is taken as the signed type of its size (bfq's
 * abs(blk_rq_pos(rq) - last_pos) on sector_t is a distance, not a huge number). */
#define __oracle_abs(x, type) ({ type _x = (type)(x); _x < 0 ? -_x : _x; })
#define abs(x)                                                                                     \
	__builtin_choose_expr(                                                                     \
	    sizeof(x) == sizeof(long long), __oracle_abs(x, long long),                            \
	    __builtin_choose_expr(sizeof(x) == sizeof(int), __oracle_abs(x, int),                  \
				  __builtin_choose_expr(sizeof(x) == sizeof(short),                \
							__oracle_abs(x, short),                    \
							__oracle_abs(x, signed char))))

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}
static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}
static inline u64 div64_ul(u64 dividend, unsigned long divisor)
{
	return dividend / divisor;
}
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *rem)
{
	*rem = (u32)(dividend % divisor);
	return dividend / divisor;
}
#define do_div(n, base)                                                                            \
	({                                                                                         \
		u32 _rem = (u32)((n) % (base));                                                    \
		(n) = (n) / (base);                                                                \
		_rem;                                                                              \
	})
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)(((unsigned __int128)a * b) / c);
}
static inline unsigned int hweight32(unsigned int w)
{
	return (unsigned int)__builtin_popcount(w);
}
static inline unsigned long hweight_long(unsigned long w)
{
	return (unsigned long)__builtin_popcountl(w);
}
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}
static inline unsigned long __ffs(unsigned long w)
{
	return (unsigned long)__builtin_ctzl(w);
}
static inline int ilog2_u64(u64 n)
{
	return fls64(n) - 1;
}
#define ilog2(n) ilog2_u64((u64)(n))
static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << fls64(n - 1);
}
static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << (fls64(n) - 1);
}
static inline u64 int_sqrt64(u64 x)
{
	u64 r = 0, b = 1ULL << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}
static inline unsigned long int_sqrt(unsigned long x)
{
	return (unsigned long)int_sqrt64(x);
}

/* ---- strings and formatting ---------------------------------------------------------------- */
/* The C library's own, declared (the shim includes none of its headers): linked as they are. */
void *memset(void *s, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *d, const char *s);
int snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define scnprintf snprintf
#define sysfs_emit(buf, ...) oracle_host_snprintf(buf, 4096, __VA_ARGS__)
#define simple_strtoul oracle_host_strtoul
#define simple_strtol oracle_host_strtol
static inline int kstrtoint(const char *s, unsigned int base, int *res)
{
	char *end;
	long v = oracle_host_strtol(s, &end, (int)base);

	if (end == s)
		return -22;
	*res = (int)v;
	return 0;
}
static inline int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	char *end;
	unsigned long v = oracle_host_strtoul(s, &end, (int)base);

	if (end == s)
		return -22;
	*res = (unsigned int)v;
	return 0;
}
static inline int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	char *end;
	unsigned long v = oracle_host_strtoul(s, &end, (int)base);

	if (end == s)
		return -22;
	*res = v;
	return 0;
}
static inline int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long v;
	int r = kstrtoul(s, base, &v);

	*res = v;
	return r;
}
static inline int kstrtoll(const char *s, unsigned int base, long long *res)
{
	char *end;
	long v = oracle_host_strtol(s, &end, (int)base);

	if (end == s)
		return -22;
	*res = v;
	return 0;
}
static inline int kstrtobool(const char *s, bool *res)
{
	*res = s[0] == '1' || s[0] == 'y' || s[0] == 'Y';
	return 0;
}

/* ---- errors, bugs, printing ----------------------------------------------------------------- */
#define EPERM 1
#define ENOENT 2
#define EIO 5
#define EAGAIN 11
#define ENOMEM 12
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define EOPNOTSUPP 95

#define BUG() oracle_host_bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(c)                                                                                  \
	do {                                                                                       \
		if (unlikely(c))                                                                   \
			oracle_host_bug(__FILE__, __LINE__, "BUG_ON(" #c ")");                     \
	} while (0)
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)
#define WARN_ON(c)                                                                                 \
	({                                                                                         \
		bool _w = !!(c);                                                                   \
		if (unlikely(_w))                                                                  \
			oracle_host_warn(__FILE__, __LINE__, "WARN_ON(" #c ")");                   \
		unlikely(_w);                                                                      \
	})
#define WARN_ON_ONCE(c) WARN_ON(c)
#define WARN(c, ...) WARN_ON(c)
#define WARN_ONCE(c, ...) WARN_ON(c)
#define VM_BUG_ON(c) BUG_ON(c)
#define lockdep_assert_held(l) ((void)(l))
#define lockdep_assert_not_held(l) ((void)(l))
#define might_sleep()
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_INFO ""
#define KERN_DEBUG ""
#define KERN_CONT ""
#define pr_fmt(fmt) fmt
#define printk(...) ((void)0)
#define pr_err(...) ((void)0)
#define pr_warn(...) ((void)0)
#define pr_info(...) ((void)0)
#define pr_debug(...) ((void)0)
#define pr_crit(...) ((void)0)
#define pr_warn_ratelimited(...) ((void)0)
#define pr_err_ratelimited(...) ((void)0)
#define printk_ratelimited(...) ((void)0)

/* ---- locks and RCU: one thread, so nothing to do ------------------------------------------- */
#define spin_lock_init(l) ((void)(l))
#define spin_lock(l) ((void)(l))
#define spin_unlock(l) ((void)(l))
#define spin_lock_irq(l) ((void)(l))
#define spin_unlock_irq(l) ((void)(l))
#define spin_lock_irqsave(l, f) ((void)(l), (f) = 0)
#define spin_unlock_irqrestore(l, f) ((void)(l), (void)(f))
#define spin_trylock(l) ((void)(l), 1)
#define spin_lock_nested(l, c) ((void)(l))
#define spin_is_locked(l) ((void)(l), 1)
#define assert_spin_locked(l) ((void)(l))
#define DEFINE_SPINLOCK(x) spinlock_t x
#define mutex_init(m) ((void)(m))
#define mutex_lock(m) ((void)(m))
#define mutex_unlock(m) ((void)(m))
#define DEFINE_MUTEX(x) struct mutex x
#define local_irq_save(f) ((f) = 0)
#define local_irq_restore(f) ((void)(f))
#define local_irq_disable()
#define local_irq_enable()
#define rcu_read_lock()
#define rcu_read_unlock()
#define rcu_read_lock_held() 1
#define rcu_dereference(p) (p)
#define rcu_dereference_protected(p, c) (p)
#define rcu_dereference_check(p, c) (p)
#define rcu_access_pointer(p) (p)
#define rcu_assign_pointer(p, v) ((p) = (v))
#define RCU_INIT_POINTER(p, v) ((p) = (v))
#define synchronize_rcu()
#define call_rcu(h, f) f(h)
#define kfree_rcu(p, field) kfree(p)
#define preempt_disable()
#define preempt_enable()
#define get_cpu() 0
#define put_cpu()
#define smp_processor_id() 0
#define raw_smp_processor_id() 0
#define num_possible_cpus() 1
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)

/* ---- atomics (single-threaded) ------------------------------------------------------------- */
#define ATOMIC_INIT(i)                                                                             \
	{                                                                                          \
		(i)                                                                                \
	}
#define atomic_read(v) ((v)->counter)
#define atomic_set(v, i) ((v)->counter = (i))
#define atomic_inc(v) ((void)((v)->counter++))
#define atomic_dec(v) ((void)((v)->counter--))
#define atomic_add(i, v) ((void)((v)->counter += (i)))
#define atomic_sub(i, v) ((void)((v)->counter -= (i)))
#define atomic_inc_return(v) (++(v)->counter)
#define atomic_dec_return(v) (--(v)->counter)
#define atomic_dec_and_test(v) (--(v)->counter == 0)
#define atomic_inc_not_zero(v) ((v)->counter ? ((v)->counter++, 1) : 0)
#define atomic_long_read(v) ((v)->counter)
#define atomic_long_set(v, i) ((v)->counter = (i))
#define atomic_long_inc(v) ((void)((v)->counter++))
#define atomic_long_dec(v) ((void)((v)->counter--))
#define atomic_long_dec_and_test(v) (--(v)->counter == 0)
#define atomic64_read(v) ((v)->counter)
#define atomic64_set(v, i) ((v)->counter = (i))
#define atomic64_add(i, v) ((void)((v)->counter += (i)))
#define refcount_set(r, v) ((r)->refs = (v))
#define refcount_read(r) ((r)->refs)
#define refcount_inc(r) ((void)((r)->refs++))
#define refcount_dec(r) ((void)((r)->refs--))
#define refcount_dec_and_test(r) (--(r)->refs == 0)
#define kref_init(k) ((k)->refcount.refs = 1)
#define kref_get(k) ((void)((k)->refcount.refs++))
#define kref_put(k, rel) (--(k)->refcount.refs == 0 ? (rel(k), 1) : 0)
#define cmpxchg(p, o, n)                                                                           \
	({                                                                                         \
		__typeof__(*(p)) _o = *(p);                                                        \
		if (_o == (o))                                                                     \
			*(p) = (n);                                                                \
		_o;                                                                                \
	})
#define xchg(p, n)                                                                                 \
	({                                                                                         \
		__typeof__(*(p)) _o = *(p);                                                        \
		*(p) = (n);                                                                        \
		_o;                                                                                \
	})

/* ---- bit operations ------------------------------------------------------------------------- */
static inline void __set_bit(long nr, volatile unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}
static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}
#define set_bit __set_bit
#define clear_bit __clear_bit
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__set_bit(nr, addr);
	return old;
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__clear_bit(nr, addr);
	return old;
}

/* ---- memory --------------------------------------------------------------------------------- */
#define GFP_KERNEL 0u
#define GFP_NOWAIT 0u
#define GFP_ATOMIC 0u
#define GFP_NOIO 0u
#define __GFP_ZERO 1u
#define __GFP_NOWARN 0u
#define __GFP_NORETRY 0u
#define NUMA_NO_NODE (-1)
#define SLAB_HWCACHE_ALIGN 0u
#define SLAB_ACCOUNT 0u
#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

/* Allocations of an instance are kept on its list and all freed when the next one starts (a run
 * ends with requests in flight, so the file's exit_sched() cannot be called); those made while
 * no instance lives (module_init) are permanent. rt/rt.c. */
void *oracle_kmalloc(size_t n);
void oracle_kfree(const void *p);
static inline void *kmalloc(size_t n, gfp_t f)
{
	(void)f;
	return oracle_kmalloc(n);
}
#define kzalloc(n, f) kmalloc(n, f)
#define kmalloc_node(n, f, node) kmalloc(n, f)
#define kzalloc_node(n, f, node) kmalloc(n, f)
#define kcalloc(c, n, f) kmalloc((size_t)(c) * (n), f)
#define kmalloc_array(c, n, f) kmalloc((size_t)(c) * (n), f)
#define kcalloc_node(c, n, f, node) kmalloc((size_t)(c) * (n), f)
static inline void kfree(const void *p)
{
	oracle_kfree(p);
}
#define kvfree kfree
#define kvzalloc(n, f) kmalloc(n, f)
#define vzalloc(n) kmalloc(n, 0)
#define vfree kfree

/*
 * A slab cache as SLUB's per-CPU freelist behaves: an object freed is the next one allocated
 * from its cache (LIFO), zeroed here as the files ask (__GFP_ZERO, kmem_cache_zalloc). The
 * address matters where a file compares a stale pointer with a new object (bfq's
 * tentative_waker_bfqq after its queue was freed): as on a kernel, and as the embedded policy's
 * queue pool (LIFO too), the new queue can be the freed one. The freelists are emptied at each
 * instance's start (oracle_rt_reset()), when its objects go.
 */
struct kmem_cache {
	size_t size;
	const char *name;
	void *free; /* freed objects, each holding the next one's address */
};
void oracle_kmem_caches_reset(void);
struct kmem_cache *oracle_kmem_cache_create(const char *name, size_t size);
#define kmem_cache_create(name, size, align, flags, ctor) oracle_kmem_cache_create(name, size)
#define KMEM_CACHE(s, flags) oracle_kmem_cache_create(#s, sizeof(struct s))
void oracle_kmem_cache_destroy(struct kmem_cache *c);
#define kmem_cache_destroy oracle_kmem_cache_destroy
static inline void *kmem_cache_alloc(struct kmem_cache *c, gfp_t f)
{
	void *p = c->free;

	if (!p)
		return kmalloc(c->size, f);
	c->free = *(void **)p;
	memset(p, 0, c->size);
	return p;
}
#define kmem_cache_zalloc kmem_cache_alloc
#define kmem_cache_alloc_node(c, f, node) kmem_cache_alloc(c, f)
static inline void kmem_cache_free(struct kmem_cache *c, void *p)
{
	if (!p)
		return;
	*(void **)p = c->free;
	c->free = p;
}

/* ---- lists (include/linux/list.h) ----------------------------------------------------------- */
struct list_head {
	struct list_head *next, *prev;
};
struct hlist_head {
	struct hlist_node *first;
};
struct hlist_node {
	struct hlist_node *next, **pprev;
};
#define LIST_HEAD_INIT(name)                                                                       \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	prev->next = next;
}
static inline void list_del(struct list_head *e)
{
	__list_del(e->prev, e->next);
	e->next = (struct list_head *)0x100;
	e->prev = (struct list_head *)0x122;
}
static inline void list_del_init(struct list_head *e)
{
	__list_del(e->prev, e->next);
	INIT_LIST_HEAD(e);
}
static inline void list_move(struct list_head *l, struct list_head *head)
{
	__list_del(l->prev, l->next);
	list_add(l, head);
}
static inline void list_move_tail(struct list_head *l, struct list_head *head)
{
	__list_del(l->prev, l->next);
	list_add_tail(l, head);
}
static inline void list_replace_init(struct list_head *old, struct list_head *n)
{
	n->next = old->next;
	n->next->prev = n;
	n->prev = old->prev;
	n->prev->next = n;
	INIT_LIST_HEAD(old);
}
static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}
#define list_empty_careful list_empty
static inline int list_is_last(const struct list_head *l, const struct list_head *head)
{
	return l->next == head;
}
static inline int list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}
static inline void __list_splice(const struct list_head *list, struct list_head *prev,
				 struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}
static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member)                                                \
	(!list_empty(ptr) ? list_first_entry(ptr, type, member) : NULL)
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) list_entry((pos)->member.prev, __typeof__(*(pos)), member)
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head)                                                           \
	for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)
#define list_for_each_entry(pos, head, member)                                                     \
	for (pos = list_first_entry(head, __typeof__(*pos), member); &pos->member != (head);      \
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_reverse(pos, head, member)                                             \
	for (pos = list_last_entry(head, __typeof__(*pos), member); &pos->member != (head);       \
	     pos = list_prev_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)                                             \
	for (pos = list_first_entry(head, __typeof__(*pos), member),                              \
	    n = list_next_entry(pos, member);                                                      \
	     &pos->member != (head); pos = n, n = list_next_entry(n, member))

#define HLIST_HEAD_INIT                                                                            \
	{                                                                                          \
		.first = NULL                                                                      \
	}
#define INIT_HLIST_HEAD(ptr) ((ptr)->first = NULL)
static inline void INIT_HLIST_NODE(struct hlist_node *h)
{
	h->next = NULL;
	h->pprev = NULL;
}
static inline int hlist_unhashed(const struct hlist_node *h)
{
	return !h->pprev;
}
static inline int hlist_empty(const struct hlist_head *h)
{
	return !h->first;
}
static inline void __hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next, **pprev = n->pprev;

	*pprev = next;
	if (next)
		next->pprev = pprev;
}
static inline void hlist_del(struct hlist_node *n)
{
	__hlist_del(n);
	n->next = NULL;
	n->pprev = NULL;
}
static inline void hlist_del_init(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		INIT_HLIST_NODE(n);
	}
}
static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	if (first)
		first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}
#define hlist_entry(ptr, type, member) container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member)                                                        \
	({                                                                                         \
		__typeof__(ptr) ____ptr = (ptr);                                                   \
		____ptr ? hlist_entry(____ptr, type, member) : NULL;                               \
	})
#if ORACLE_KVER >= KV(3, 9)
#define hlist_for_each_entry(pos, head, member)                                                    \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); pos;              \
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
#define hlist_for_each_entry_safe(pos, n, head, member)                                            \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*pos), member);                     \
	     pos && ({                                                                             \
		     n = pos->member.next;                                                         \
		     1;                                                                            \
	     });                                                                                   \
	     pos = hlist_entry_safe(n, __typeof__(*pos), member))
#else
/* Before 3.9 the iterators also took the struct hlist_node cursor (and the next one). */
#define hlist_for_each_entry(tpos, pos, head, member)                                              \
	for (pos = (head)->first;                                                                  \
	     pos && ({                                                                             \
		     tpos = hlist_entry(pos, __typeof__(*tpos), member);                           \
		     1;                                                                            \
	     });                                                                                   \
	     pos = pos->next)
#define hlist_for_each_entry_safe(tpos, pos, n, head, member)                                      \
	for (pos = (head)->first;                                                                  \
	     pos && ({                                                                             \
		     n = pos->next;                                                                \
		     1;                                                                            \
	     }) &&                                                                                 \
	     ({                                                                                    \
		     tpos = hlist_entry(pos, __typeof__(*tpos), member);                           \
		     1;                                                                            \
	     });                                                                                   \
	     pos = n)
#endif
#define hlist_for_each_entry_rcu hlist_for_each_entry
#define hlist_add_head_rcu hlist_add_head
#define hlist_del_rcu hlist_del_init

/* ---- rbtree (include/linux/rbtree.h; rt/rbtree.c) ------------------------------------------ */
struct rb_node {
	unsigned long __rb_parent_color;
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __attribute__((aligned(sizeof(long))));
struct rb_root {
	struct rb_node *rb_node;
};
struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};
#define RB_ROOT                                                                                    \
	(struct rb_root)                                                                           \
	{                                                                                          \
		NULL,                                                                              \
	}
#define RB_ROOT_CACHED                                                                             \
	(struct rb_root_cached)                                                                    \
	{                                                                                          \
		{                                                                                  \
			NULL,                                                                      \
		},                                                                                 \
		    NULL                                                                           \
	}
#define rb_parent(r) ((struct rb_node *)((r)->__rb_parent_color & ~3))
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member)                                                           \
	({                                                                                         \
		__typeof__(ptr) ____ptr = (ptr);                                                   \
		____ptr ? rb_entry(____ptr, type, member) : NULL;                                  \
	})
#define RB_EMPTY_ROOT(root) (READ_ONCE((root)->rb_node) == NULL)
#define RB_EMPTY_NODE(node) ((node)->__rb_parent_color == (unsigned long)(node))
#define RB_CLEAR_NODE(node) ((node)->__rb_parent_color = (unsigned long)(node))
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **rb_link)
{
	node->__rb_parent_color = (unsigned long)parent;
	node->rb_left = node->rb_right = NULL;
	*rb_link = node;
}
void rb_insert_color(struct rb_node *, struct rb_root *);
void rb_erase(struct rb_node *, struct rb_root *);
struct rb_node *rb_next(const struct rb_node *);
struct rb_node *rb_prev(const struct rb_node *);
struct rb_node *rb_first(const struct rb_root *);
struct rb_node *rb_last(const struct rb_root *);
void rb_replace_node(struct rb_node *victim, struct rb_node *n, struct rb_root *root);
static inline void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root,
					  bool leftmost)
{
	if (leftmost)
		root->rb_leftmost = node;
	rb_insert_color(node, &root->rb_root);
}
static inline struct rb_node *rb_erase_cached(struct rb_node *node, struct rb_root_cached *root)
{
	struct rb_node *leftmost = NULL;

	if (root->rb_leftmost == node)
		leftmost = root->rb_leftmost = rb_next(node);
	rb_erase(node, &root->rb_root);
	return leftmost;
}
#define rb_first_cached(root) (root)->rb_leftmost
static inline struct rb_node *rb_add_cached(struct rb_node *node, struct rb_root_cached *tree,
					    bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &tree->rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(node, parent, link);
	rb_insert_color_cached(node, tree, leftmost);
	return leftmost ? node : NULL;
}

/* ---- time: jiffies, ktime, timers ----------------------------------------------------------- */
#define HZ ORACLE_HZ
#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_USEC 1000LL
#define USEC_PER_SEC 1000000LL
#define USEC_PER_MSEC 1000LL
#define MSEC_PER_SEC 1000LL
#define TICK_NSEC (NSEC_PER_SEC / HZ)
/* The simulator's clock, set by the adapter before each call into the kernel file: ns since the
 * simulation started, and jiffies from the kernel's INITIAL_JIFFIES (which wraps 5 minutes after
 * boot, to catch wrap bugs: the files' time_after() must cope as they do in the kernel). */
extern u64 oracle_now_ns;
extern unsigned long oracle_jiffies;
#define INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ))
#define jiffies oracle_jiffies
#define jiffies_64 ((u64)oracle_jiffies)
#define MAX_JIFFY_OFFSET ((LONG_MAX >> 1) - 1)
/* The monotonic clock (ktime) reads ORACLE_BOOT_NS more than the simulator's time: a workload
 * runs long after boot, and a file that keeps times in u64 (cfq's rb_key = now - slice_resid,
 * a front insertion 1 s before the first key) wraps near 0, where a real kernel's clock never
 * is. A variant's configuration (config/<id>.h) sets it; 0 by default. */
#ifndef ORACLE_BOOT_NS
#define ORACLE_BOOT_NS 0ULL
#endif
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_in_range(a, b, c) (time_after_eq(a, b) && time_before_eq(a, c))
#define time_is_before_jiffies(a) time_after(jiffies, a)
#define time_is_after_jiffies(a) time_before(jiffies, a)
#define time_is_before_eq_jiffies(a) time_after_eq(jiffies, a)
#define time_is_after_eq_jiffies(a) time_before_eq(jiffies, a)
#define time_after64(a, b) ((s64)((b) - (a)) < 0)
#define time_before64(a, b) time_after64(b, a)
static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)(j * (1000 / HZ));
}
static inline unsigned int jiffies_to_usecs(unsigned long j)
{
	return (unsigned int)(j * (1000000 / HZ));
}
static inline u64 jiffies_to_nsecs(unsigned long j)
{
	return (u64)j * TICK_NSEC;
}
static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return (m + (1000 / HZ) - 1) / (1000 / HZ);
}
static inline unsigned long usecs_to_jiffies(unsigned int u)
{
	return (u + (1000000 / HZ) - 1) / (1000000 / HZ);
}
static inline unsigned long nsecs_to_jiffies(u64 n)
{
	return (unsigned long)(n / TICK_NSEC);
}
static inline u64 nsecs_to_jiffies64(u64 n)
{
	return n / TICK_NSEC;
}
static inline s64 ktime_get_ns(void)
{
	return (s64)(oracle_now_ns + ORACLE_BOOT_NS);
}
static inline ktime_t ktime_get(void)
{
	return (ktime_t)(oracle_now_ns + ORACLE_BOOT_NS);
}
#define local_clock() ((u64)(oracle_now_ns + ORACLE_BOOT_NS))
#define sched_clock() ((u64)(oracle_now_ns + ORACLE_BOOT_NS))
#define ktime_to_ns(t) ((s64)(t))
#define ns_to_ktime(n) ((ktime_t)(n))
#define ktime_set(s, ns) ((ktime_t)((s)*NSEC_PER_SEC + (ns)))
#define ktime_add_ns(t, n) ((t) + (n))
#define ktime_sub(a, b) ((a) - (b))
#define ktime_add(a, b) ((a) + (b))
#define ktime_to_us(t) ((t) / 1000)
#define ktime_us_delta(a, b) (((a) - (b)) / 1000)
#define ktime_compare(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
enum hrtimer_mode { HRTIMER_MODE_ABS = 0, HRTIMER_MODE_REL = 1, HRTIMER_MODE_PINNED = 2 };
#define HRTIMER_MODE_REL_PINNED (HRTIMER_MODE_REL | HRTIMER_MODE_PINNED)
#define HRTIMER_MODE_ABS_PINNED (HRTIMER_MODE_ABS | HRTIMER_MODE_PINNED)
#define CLOCK_MONOTONIC 1
typedef int clockid_t;
/* A timer of the kernel file: armed ones are kept on the variant's timer list (rt/time.c); the
 * adapter reports the earliest as the policy's next timer and runs them when it is due. */
struct oracle_timer {
	struct list_head armed;
	u64 expires_ns;
	u64 seq; /* arming order: timers due at the same time fire in it */
	bool active;
	void (*run)(struct oracle_timer *t);
};
struct hrtimer {
	struct oracle_timer ot;
	enum hrtimer_restart (*function)(struct hrtimer *);
};
void oracle_timer_arm(struct oracle_timer *t, u64 expires_ns);
bool oracle_timer_cancel(struct oracle_timer *t);
void hrtimer_init(struct hrtimer *t, clockid_t clock, enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *t, ktime_t tim, const enum hrtimer_mode mode);
static inline int hrtimer_cancel(struct hrtimer *t)
{
	return oracle_timer_cancel(&t->ot);
}
#define hrtimer_try_to_cancel hrtimer_cancel
static inline bool hrtimer_active(const struct hrtimer *t)
{
	return t->ot.active;
}
#define hrtimer_is_queued hrtimer_active
#define hrtimer_setup(t, fn, clock, mode) (hrtimer_init(t, clock, mode), (t)->function = (fn))

struct timer_list {
	struct oracle_timer ot;
	unsigned long expires;
#if ORACLE_KVER < KV(4, 15)
	/* Before 4.15 (timer_setup()), the callback took the timer's data: function(data). */
	void (*function)(unsigned long);
	void (*function_tl)(struct timer_list *);
#else
	void (*function)(struct timer_list *);
#endif
	unsigned long data; /* before 4.15: function(data) */
	void (*function_ul)(unsigned long);
};
void oracle_timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned int f);
#define timer_setup(t, fn, flags) oracle_timer_setup(t, fn, flags)
#if ORACLE_KVER < KV(4, 15)
/* init_timer(), then .function and .data set by the caller. */
void oracle_init_timer(struct timer_list *t);
#define init_timer(t) oracle_init_timer(t)
#endif
int mod_timer(struct timer_list *t, unsigned long expires);
static inline int del_timer(struct timer_list *t)
{
	return oracle_timer_cancel(&t->ot);
}
#define del_timer_sync del_timer
#define timer_delete del_timer
#define timer_delete_sync del_timer
static inline int timer_pending(const struct timer_list *t)
{
	return t->ot.active;
}
#define from_timer(var, callback_timer, timer_fieldname)                                           \
	container_of(callback_timer, __typeof__(*var), timer_fieldname)

/* Work items: the kernel files queue kblockd work to run the queue later. The simulator's block
 * layer decides when a queue runs (as it does for the embedded policies): queueing such work
 * asks for a run (oracle_run_requested()). */
struct work_struct {
	void (*func)(struct work_struct *);
	bool pending;
};
struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
};
#define INIT_WORK(w, f) ((w)->func = (f), (w)->pending = false)
void oracle_queue_run(void);
#if ORACLE_KVER >= KV(3, 16)
static inline bool kblockd_schedule_work(struct work_struct *w)
{
	(void)w;
	oracle_queue_run();
	return true;
}
#else
/* Before 3.16 it named the queue too. */
struct request_queue;
static inline int kblockd_schedule_work(struct request_queue *q, struct work_struct *w)
{
	(void)q;
	(void)w;
	oracle_queue_run();
	return 1;
}
#endif
static inline bool cancel_work_sync(struct work_struct *w)
{
	(void)w;
	return false;
}
#define flush_work(w) ((void)(w))

/* ---- misc kernel objects the files touch --------------------------------------------------- */
struct kobject {
	const char *name;
};
#define kobject_put(k) ((void)(k))
#define kobject_get(k) (k)
struct attribute {
	const char *name;
	umode_t mode;
};
#define S_IRUGO 0444
#define S_IWUSR 0200
#define __ATTR(_name, _mode, _show, _store)                                                        \
	{                                                                                          \
		.attr = {.name = __stringify(_name), .mode = (_mode) }, .show = _show,             \
		.store = _store                                                                    \
	}
#define __ATTR_NULL                                                                                \
	{                                                                                          \
		.attr = {.name = NULL }                                                            \
	}
#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)
struct seq_file;
struct device;
struct page;
struct cgroup_subsys_state;
struct task_struct {
	pid_t pid;
	struct io_context *io_context;
	int prio;
	int ioprio;
};
extern struct task_struct *oracle_current;
#define current oracle_current
#define task_pid_nr(t) ((t)->pid)
#define PF_EXITING 0
static inline int task_nice(const struct task_struct *t)
{
	(void)t;
	return 0;
}
#define IOPRIO_NORM 4

#define module_init(fn)                                                                            \
	int ORACLE_VSYM(module_init)(void)                                                         \
	{                                                                                          \
		return fn();                                                                       \
	}
#define module_exit(fn)                                                                            \
	void ORACLE_VSYM(module_exit)(void)                                                        \
	{                                                                                          \
		fn();                                                                              \
	}
#define ORACLE_VSYM2(v, s) oracle_##v##_##s
#define ORACLE_VSYM1(v, s) ORACLE_VSYM2(v, s)
#define ORACLE_VSYM(s) ORACLE_VSYM1(ORACLE_VARIANT, s)

#include "oracle_block.h"

#endif
