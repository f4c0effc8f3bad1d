// SPDX-License-Identifier: GPL-2.0
/*
 * Where domains live and who may join them.
 *
 * The run's default domain is anonymous shared memory mapped when the engine is loaded (fio's
 * parent parses the job options before it forks the jobs), so every job of the run inherits it.
 *
 * A named domain (sched_domain=NAME) is a file, DIR/schedengine.NAME, where DIR is the caller's
 * private directory /dev/shm/schedengine-<euid> (mode 0700, made on first use) unless
 * sched_domain_dir= says otherwise. fio often runs as root, so nothing in that path is trusted:
 * the directory must be the caller's and closed to others, the file is opened without following
 * links, created exclusively, and used only if it is a regular file of the caller's with mode
 * 0600 and one link, whose header (magic, version, size, creator, address) checks out. A file
 * whose processes are all gone is stale and replaced (a new inode: a process that still maps
 * the old one is never pulled from under); the last process to leave removes the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "domain.h"

#define SE_MAGIC "SCHEDOM3"
/* 23: pc_params.buffer_head_writeback and pc.rq_pages (struct pc), the page cache's slot count;
 * 22: blk_ioc's plug_asleep (a woken sleeper's plug);
 * 21: bfq_sw_requests_merged (bfq's switch array), bfq's insert_merge_init and pos_key_moved
 * counters, blk_rq's merge_tried;
 * 20: bfq_sw_rate_seq_size (bfq's switch array), cfq 2.6.32 (cfq_data, cfq_io_cq, params),
 * max_sectors_kb in se_domain_config, per-group writeback (struct pc, pc_wb, pc_stats), per-group
 * request lists (blk_queue, blk_params); 19: the page cache's waiter bitmaps and wait keys
 * (struct pc, its layout); 18: the hdd model's minimum pre-fetch (params, state, stats); 17:
 * kyber (policy id 4 and its state) beside request merging; 16: request merging (merge counters,
 * plug state) beside the CFQ/BFQ profiles; 15: bfq's 4.12 switches beside cfq's era state; 14:
 * SCHED_MAX_TUNABLES 96 (bfq_sw_* switches), bfq group weight counters / cfq's era state
 * (dispatch list, orig_cfqg, total weight); 13: cfq's profile beside pagecache=auto; 11: cfq
 * queue references, two sync queue slots per process; 10: grant_jobs; 9: sched_request's offset
 * by its node; 8: direct_completions; 7: start times beside pids */
#define SE_VERSION  23
#define SE_MIN_SIZE (64ull << 20)

int se_domain_init(struct se_domain *d, uint64_t size, const char *name, uint32_t max_jobs)
{
	pthread_mutexattr_t a;
	uint64_t ctl;
	int r;

	memset(d, 0, sizeof(*d));
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	r = pthread_mutex_init(&d->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (r)
		return -r;
	d->version = SE_VERSION;
	d->header_size = sizeof(*d);
	d->size = size;
	d->base = (uint64_t)(uintptr_t)d;
	d->creator_uid = (uint32_t)geteuid();
	d->max_jobs = max_jobs;
	d->used = (sizeof(*d) + 4095) & ~4095ull;
	/* The control area (block layer, slots, rings) below, the I/O buffers above. */
	ctl = size / 4 < (1ull << 30) ? size / 4 : (1ull << 30);
	d->buf_start = ctl;
	d->nr_buf_free = 1;
	d->buf_free[0].off = ctl;
	d->buf_free[0].len = size - ctl;
	d->created_ns = se_now_ns();
	d->clock = d->created_ns;
	atomic_store(&d->next_event, UINT64_MAX);
	snprintf(d->name, sizeof(d->name), "%s", name);
	memcpy(d->magic, SE_MAGIC, sizeof(d->magic));
	return 0;
}

/* ---- the run's default domain ------------------------------------------------------------- */

static struct se_domain *default_domain;

__attribute__((constructor)) static void se_domain_load(void)
{
	/* Smaller where the address space is limited (valgrind): the buffers get less room. */
	for (uint64_t size = SE_ARENA_SIZE; size >= SE_MIN_SIZE * 4; size /= 4) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			continue;
		if (se_domain_init(p, size, "default", 0)) {
			munmap(p, size);
			return;
		}
		default_domain = p;
		return;
	}
}

struct se_domain *se_domain_private(uint64_t size, uint32_t max_jobs, char *err, size_t errlen)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %llu bytes: %s", (unsigned long long)size,
			 strerror(errno));
		return NULL;
	}
	if (se_domain_init(p, size, "private", max_jobs)) {
		munmap(p, size);
		snprintf(err, errlen, "cannot initialise the domain lock");
		return NULL;
	}
	return p;
}

void se_domain_private_free(struct se_domain *d)
{
	if (d)
		munmap(d, d->size);
}

/* ---- named domains ------------------------------------------------------------------------- */

/* The named domains this process maps, shared by its jobs (thread mode). */
struct named {
	struct named *next;
	char path[SE_PATH_MAX + 80];
	struct se_domain *d;
	dev_t dev;
	ino_t ino;
	unsigned int refs;
};
static struct named *named_list;
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Every directory above it must be root's or the caller's, and writable by others only when
 * sticky (/tmp, /dev/shm): whoever may rename an entry of a parent can swap the directory the
 * checks saw for another between them and the opens (as sshd's StrictModes asks of ~/.ssh).
 */
static int check_ancestors(const char *dir, char *err, size_t errlen)
{
	char path[SE_PATH_MAX];
	struct stat st;
	char *slash;

	if (dir[0] != '/')
		return 0; /* relative: below the working directory, which is the caller's choice */
	snprintf(path, sizeof(path), "%s", dir);
	while ((slash = strrchr(path, '/'))) {
		slash[slash == path ? 1 : 0] = '\0';
		if (stat(path, &st)) {
			snprintf(err, errlen, "sched_domain_dir=%s: %s: %s", dir, path,
				 strerror(errno));
			return -1;
		}
		if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
		    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
			snprintf(
			    err, errlen,
			    "sched_domain_dir=%s: %s is uid %u's, mode %04o: another user could "
			    "swap the directory",
			    dir, path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
			return -1;
		}
		if (slash == path)
			break;
	}
	return 0;
}

/* Checks a directory named domains may live in: the caller's, closed to everyone else. */
static int check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st)) {
		snprintf(err, errlen, "sched_domain_dir=%s: %s", dir, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "sched_domain_dir=%s: is a symbolic link", dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "sched_domain_dir=%s: not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(
		    err, errlen,
		    "sched_domain_dir=%s: owned by uid %u, not by you (uid %u): name a directory "
		    "of yours with sched_domain_dir=",
		    dir, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -1;
	}
	if (st.st_mode & 022) {
		snprintf(err, errlen,
			 "sched_domain_dir=%s: writable by group or others (mode %04o): another user "
			 "could plant a domain there",
			 dir, (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return check_ancestors(dir, err, errlen);
}

/*
 * The directory's lock: a file of ours in it, 0600, not the directory itself (anyone who may
 * read a 0755 directory could flock it and hang every attach). Returns its fd, locked, or -1.
 */
static int lock_dir(const char *dir, char *err, size_t errlen)
{
	char path[SE_PATH_MAX + 32];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/.schedengine.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "sched_domain: %s: %s", path,
			 errno == ELOOP ? "is a symbolic link" : strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(err, errlen,
			 "sched_domain: %s: not a private file of yours (uid %u, mode %04o)", path,
			 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		goto fail;
	}
	if (flock(fd, LOCK_EX)) {
		snprintf(err, errlen, "sched_domain: %s: %s", path, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int se_domain_default_dir(char *buf, size_t len, char *err, size_t errlen)
{
	snprintf(buf, len, "/dev/shm/schedengine-%u", (unsigned int)geteuid());
	if (mkdir(buf, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "sched_domain: cannot create %s: %s", buf, strerror(errno));
		return -1;
	}
	return check_dir(buf, err, errlen);
}

/* Sized but never initialised (all-zero magic): its creator died under the directory's lock,
 * before any process could attach. Replaced like a stale domain. */
static bool header_unborn(const struct se_domain *h)
{
	static const char zero[sizeof(h->magic)];

	return !memcmp(h->magic, zero, sizeof(h->magic));
}

/* Is a header read from a file one this process may map? One line in err if not. */
static int check_header(const struct se_domain *h, const struct stat *st, const char *path,
			char *err, size_t errlen)
{
	uint64_t base = h->base;

	if (memcmp(h->magic, SE_MAGIC, sizeof(h->magic))) {
		snprintf(err, errlen, "sched_domain: %s is not a schedengine domain (bad magic)", path);
		return -1;
	}
	if (h->version != SE_VERSION || h->header_size != sizeof(*h)) {
		snprintf(err, errlen, "sched_domain: %s: layout version %u, this engine has %u", path,
			 h->version, SE_VERSION);
		return -1;
	}
	if (h->size != (uint64_t)st->st_size || h->size < SE_MIN_SIZE || h->size > SE_ARENA_SIZE) {
		snprintf(err, errlen, "sched_domain: %s: header size %llu does not match the file "
				      "(%llu bytes)",
			 path, (unsigned long long)h->size, (unsigned long long)st->st_size);
		return -1;
	}
	if (!base || (base & 4095) || base + h->size < base || base + h->size > (1ull << 47)) {
		snprintf(err, errlen, "sched_domain: %s: header address %#llx is not a user address",
			 path, (unsigned long long)base);
		return -1;
	}
	if (h->creator_uid != geteuid()) {
		snprintf(err, errlen, "sched_domain: %s: created by uid %u, not by you", path,
			 h->creator_uid);
		return -1;
	}
	if (h->max_jobs > SE_MAX_JOBS_LIMIT || h->nr_jobs > h->max_jobs ||
	    h->nr_attached > SE_MAX_ATTACH || h->nr_files > SE_MAX_FILES ||
	    h->nr_buf_free > SE_BUF_FREE_MAX || h->used > h->size || h->buf_start > h->size ||
	    (h->blk && h->blk >= h->size) || (h->jobs && h->jobs >= h->size)) {
		snprintf(err, errlen, "sched_domain: %s: header counts or offsets out of range", path);
		return -1;
	}
	return 0;
}

/* Attached processes' liveness (se_task_alive()): a zombie counts as gone (in a container whose
 * init does not reap, a killed member's pid stays a zombie, and a domain it kept "alive" would
 * never be replaced or removed), and so does a pid recycled for another process. */
static bool any_attached_alive(const struct se_domain *h)
{
	for (uint32_t i = 0; i < h->nr_attached; i++)
		if (se_task_alive(h->attached[i], h->attached_start[i]))
			return true;
	return false;
}

/* false when the table is full: a process not in it could not keep the domain alive, and a
 * later attacher would take the live domain for a stale one. */
static bool attach_add(struct se_domain *d, pid_t pid)
{
	/* Drop the dead first: pids of a crashed process do not fill the table. */
	uint32_t n = 0;

	for (uint32_t i = 0; i < d->nr_attached; i++)
		if (d->attached[i] != pid && se_task_alive(d->attached[i], d->attached_start[i])) {
			d->attached_start[n] = d->attached_start[i];
			d->attached[n++] = d->attached[i];
		}
	if (n < SE_MAX_ATTACH) {
		d->attached_start[n] = se_task_start(pid);
		d->attached[n++] = pid;
		d->nr_attached = n;
		return true;
	}
	d->nr_attached = n;
	return false;
}

static void attach_del(struct se_domain *d, pid_t pid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < d->nr_attached; i++)
		if (d->attached[i] != pid && se_task_alive(d->attached[i], d->attached_start[i])) {
			d->attached_start[n] = d->attached_start[i];
			d->attached[n++] = d->attached[i];
		}
	d->nr_attached = n;
}

static int check_file(int fd, const struct stat *st, const char *path, char *err, size_t errlen)
{
	(void)fd;
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "sched_domain: %s: not a regular file", path);
		return -1;
	}
	if (st->st_uid != geteuid()) {
		snprintf(err, errlen, "sched_domain: %s: owned by uid %u, not by you (uid %u)", path,
			 (unsigned int)st->st_uid, (unsigned int)geteuid());
		return -1;
	}
	if ((st->st_mode & 07777) != 0600) {
		snprintf(err, errlen, "sched_domain: %s: mode %04o, not 0600", path,
			 (unsigned int)(st->st_mode & 07777));
		return -1;
	}
	if (st->st_nlink != 1) {
		snprintf(err, errlen, "sched_domain: %s: has %lu links, not 1", path,
			 (unsigned long)st->st_nlink);
		return -1;
	}
	return 0;
}

/*
 * Where a new named domain goes. Every member maps it at the same address, so the creator picks
 * one that other processes are unlikely to use: a random 1 GiB-aligned place between 48 and
 * 80 TiB, far below the mmap area near the top and far above the heap (the kernel's own choice
 * only if all tries are taken). ThreadSanitizer allows application memory only in fixed
 * ranges and kills a process that maps elsewhere: there the places come from its middle
 * application range (0x550000000000..0x568000000000, where PIE binaries are loaded).
 */
static void *map_new(int fd, uint64_t size)
{
#if defined(__SANITIZE_THREAD__)
	const uint64_t lo = 0x550000000000ull, span = 0x018000000000ull, align = 1ull << 30;
#else
	const uint64_t lo = 0x300000000000ull, span = 0x200000000000ull, align = 1ull << 30;
#endif
	struct timespec ts;
	uint64_t x;
	void *p;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32;
	for (int i = 0; i < 16; i++) {
		uint64_t addr;

		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ull;
		x ^= x >> 29;
		addr = lo + (x % ((span - size) / align)) * align;
		p = mmap((void *)(uintptr_t)addr, size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, fd, 0);
		if (p == (void *)(uintptr_t)addr)
			return p;
		if (p != MAP_FAILED)
			munmap(p, size);
	}
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
}

/* Maps the file: a fresh domain when it is empty, else the one in it. Under the directory's flock. */
static struct se_domain *map_locked(int fd, const struct stat *st, const char *path,
				    const char *name, uint32_t max_jobs, bool *stale, char *err,
				    size_t errlen)
{
	struct se_domain hdr, *d;
	void *p;
	int r;

	*stale = false;
	if (st->st_size == 0) {
		if (ftruncate(fd, (off_t)SE_ARENA_SIZE)) {
			snprintf(err, errlen, "sched_domain: %s: %s", path, strerror(errno));
			return NULL;
		}
		p = map_new(fd, SE_ARENA_SIZE);
		if (p == MAP_FAILED) {
			snprintf(err, errlen, "sched_domain: %s: mmap: %s", path, strerror(errno));
			return NULL;
		}
		d = p;
		r = se_populate(d, sizeof(*d));
		if (r || se_domain_init(d, SE_ARENA_SIZE, name, max_jobs)) {
			munmap(p, SE_ARENA_SIZE);
			snprintf(err, errlen, "sched_domain: %s: %s", path,
				 r ? strerror(-r) : "cannot initialise its lock");
			return NULL;
		}
		attach_add(d, getpid()); /* the first: the table is empty */
		return d;
	}
	if (pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		snprintf(err, errlen, "sched_domain: %s: shorter than a domain header", path);
		return NULL;
	}
	if (header_unborn(&hdr)) {
		*stale = true;
		return NULL;
	}
	if (check_header(&hdr, st, path, err, errlen))
		return NULL;
	if (!any_attached_alive(&hdr)) {
		*stale = true; /* every process that used it is gone */
		return NULL;
	}
	p = mmap((void *)(uintptr_t)hdr.base, hdr.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, fd, 0);
	if (p == MAP_FAILED || p != (void *)(uintptr_t)hdr.base) {
		if (p != MAP_FAILED)
			munmap(p, hdr.size);
		snprintf(err, errlen,
			 "sched_domain: %s: cannot map it at %#llx in this process (address in use)",
			 path, (unsigned long long)hdr.base);
		return NULL;
	}
	d = p;
	/* The live header, under the directory's flock: the same checks (it is what we will use). */
	if (check_header(d, st, path, err, errlen)) {
		munmap(p, hdr.size);
		return NULL;
	}
	if (!attach_add(d, getpid())) {
		munmap(p, hdr.size);
		snprintf(err, errlen,
			 "sched_domain: %s: %u processes have it mapped, the most it tracks", path,
			 SE_MAX_ATTACH);
		return NULL;
	}
	return d;
}

static struct se_domain *named_attach(const struct se_attach_params *ap, char *err,
				      size_t errlen)
{
	char dir[SE_PATH_MAX], path[SE_PATH_MAX + 80];
	struct se_domain *d = NULL;
	struct named *n;
	int dirfd = -1;

	if (ap->dir && *ap->dir) {
		snprintf(dir, sizeof(dir), "%s", ap->dir);
		if (check_dir(dir, err, errlen))
			return NULL;
	} else if (se_domain_default_dir(dir, sizeof(dir), err, errlen)) {
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/schedengine.%s", dir, ap->name);
	pthread_mutex_lock(&named_lock);
	dirfd = lock_dir(dir, err, errlen);
	if (dirfd < 0)
		goto out;
	for (n = named_list; n; n = n->next) {
		if (!strcmp(n->path, path)) {
			n->refs++;
			d = n->d;
			goto out;
		}
	}
	for (int attempt = 0; attempt < 8 && !d; attempt++) {
		struct stat st, st2;
		bool stale;
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd < 0 && errno == EEXIST)
			fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "sched_domain: %s: %s", path,
				 errno == ELOOP ? "is a symbolic link" : strerror(errno));
			goto out;
		}
		if (fstat(fd, &st)) {
			snprintf(err, errlen, "sched_domain: %s: %s", path, strerror(errno));
			close(fd);
			goto out;
		}
		/* Still the file at that path (not replaced before we opened it)? */
		if (lstat(path, &st2) || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
			close(fd);
			continue;
		}
		if (check_file(fd, &st, path, err, errlen)) {
			close(fd);
			goto out;
		}
		d = map_locked(fd, &st, path, ap->name, ap->max_jobs, &stale, err, errlen);
		if (stale) {
			/* Reclaimed: a new inode, so anything still mapping the old one is safe. */
			unlink(path);
			close(fd);
			continue;
		}
		close(fd);
		if (!d)
			goto out;
		n = calloc(1, sizeof(*n));
		if (!n) {
			munmap(d, d->size);
			d = NULL;
			snprintf(err, errlen, "sched_domain: out of memory");
			goto out;
		}
		snprintf(n->path, sizeof(n->path), "%s", path);
		n->d = d;
		n->dev = st.st_dev;
		n->ino = st.st_ino;
		n->refs = 1;
		n->next = named_list;
		named_list = n;
	}
	if (!d && !*err)
		snprintf(err, errlen, "sched_domain: %s: changed under us repeatedly", path);
out:
	if (dirfd >= 0)
		close(dirfd); /* releases the lock */
	pthread_mutex_unlock(&named_lock);
	return d;
}

/* The checks named_attach() makes, without creating or mapping anything. */
static int named_check(const struct se_attach_params *ap, char *err, size_t errlen)
{
	char dir[SE_PATH_MAX], path[SE_PATH_MAX + 80];
	struct se_domain hdr;
	struct stat st;
	int fd, r = 0;

	if (ap->dir && *ap->dir) {
		snprintf(dir, sizeof(dir), "%s", ap->dir);
		if (check_dir(dir, err, errlen))
			return -1;
	} else if (se_domain_default_dir(dir, sizeof(dir), err, errlen)) {
		return -1;
	}
	snprintf(path, sizeof(path), "%s/schedengine.%s", dir, ap->name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "sched_domain: %s: %s", path,
			 errno == ELOOP ? "is a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || check_file(fd, &st, path, err, errlen))
		r = -1;
	else if (st.st_size && (pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
				(!header_unborn(&hdr) && check_header(&hdr, &st, path, err, errlen))))
		r = -1;
	if (r && !*err)
		snprintf(err, errlen, "sched_domain: %s: not a domain file", path);
	close(fd);
	return r;
}

int se_domain_check(const struct se_attach_params *p, char *err, size_t errlen)
{
	if (!p->name || !*p->name)
		return 0;
	return named_check(p, err, errlen);
}

void se_domain_detach(struct se_domain *d)
{
	struct named **pp, *n;
	char dir[SE_PATH_MAX + 80], *slash, err[256];
	struct stat st;
	int dirfd;

	if (!d || d == default_domain)
		return;
	pthread_mutex_lock(&named_lock);
	for (pp = &named_list; (n = *pp); pp = &n->next)
		if (n->d == d)
			break;
	if (!n || --n->refs) {
		pthread_mutex_unlock(&named_lock);
		return;
	}
	*pp = n->next;
	snprintf(dir, sizeof(dir), "%s", n->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	dirfd = lock_dir(dir, err, sizeof(err));
	if (dirfd < 0)
		se_log("%s", err);
	if (dirfd >= 0 && !lstat(n->path, &st) && st.st_ino == n->ino && st.st_dev == n->dev) {
		attach_del(d, getpid());
		if (!d->nr_attached)
			unlink(n->path); /* the last one out */
	}
	if (dirfd >= 0)
		close(dirfd);
	munmap(d, d->size);
	free(n);
	pthread_mutex_unlock(&named_lock);
}

struct se_domain *se_domain_attach(const struct se_attach_params *p, char *err, size_t errlen)
{
	if (p->name && *p->name) {
		for (const char *c = p->name; *c; c++) {
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.')) {
				snprintf(err, errlen,
					 "sched_domain=%s: use letters, digits, '-', '_' or '.'",
					 p->name);
				return NULL;
			}
		}
		if (strlen(p->name) >= SE_NAME_MAX) {
			snprintf(err, errlen, "sched_domain=%s: name must be 1..%d characters", p->name,
				 SE_NAME_MAX - 1);
			return NULL;
		}
		return named_attach(p, err, errlen);
	}
	if (!default_domain)
		snprintf(err, errlen, "cannot map the shared scheduler domain (%llu GiB, MAP_SHARED)",
			 (unsigned long long)(SE_ARENA_SIZE >> 30));
	return default_domain;
}
