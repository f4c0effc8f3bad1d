// SPDX-License-Identifier: GPL-2.0
/*
 * libfuse3 low-level operations: a directory holding one file, "disk", of the device's size.
 *
 * A loop device with direct I/O over "disk" turns each block request into asynchronous direct
 * I/O on the file, which FUSE sends as background READ/WRITE requests of at most max_pages pages
 * (here 256: 1 MiB, libfuse's default buffer) and max_background at once. Every read, write,
 * fsync (the loop device's flush) and fallocate (its discard) is handed to the core and answered
 * when the model completes it; the handlers never block, so one thread reading /dev/fuse keeps
 * the order in which the kernel queued the requests.
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "mdev.h"

#define INO_DISK 2
#define MAX_IOV 40

struct mdev_fuse {
	struct mdev_core *core;
	struct fuse_session *se;
	struct mdev_fuse_opts o;
	char mnt[512];
	char fsname[128];
	bool mounted;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool ended;
	int loop_rc;
	/* what the kernel and libfuse agreed at INIT */
	unsigned int max_write, max_read, max_background, congestion_threshold, proto_minor;
	bool async_dio;
	bool rt_ok;
	atomic_uint opens;
	char *scratch; /* read replies from a file store; replies are sent one at a time */
};

static struct mdev_fuse *self(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void disk_attr(const struct mdev_fuse *f, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)f->o.size;
		st->st_blksize = 4096;
		st->st_blocks = (blkcnt_t)(f->o.size / 512);
	}
}

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	struct mdev_fuse *f = ud;

	conn->max_background = f->o.max_background;
	conn->congestion_threshold = f->o.max_background;
	conn->max_readahead = 0;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA; /* the file changes only through us */
	f->max_write = conn->max_write;
	f->max_read = conn->max_read;
	f->max_background = conn->max_background;
	f->congestion_threshold = conn->congestion_threshold;
	f->proto_minor = conn->proto_minor;
	f->async_dio = conn->want & FUSE_CAP_ASYNC_DIO;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, "disk")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = INO_DISK;
	e.attr_timeout = 86400;
	e.entry_timeout = 86400;
	disk_attr(self(req), INO_DISK, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != INO_DISK) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	disk_attr(self(req), ino, &st);
	fuse_reply_attr(req, &st, 86400);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if ((to_set & FUSE_SET_ATTR_SIZE) && ino == INO_DISK &&
	    (uint64_t)attr->st_size != self(req)->o.size) {
		fuse_reply_err(req, EPERM); /* a device does not change size */
		return;
	}
	disk_attr(self(req), ino, &st);
	fuse_reply_attr(req, &st, 86400);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != INO_DISK) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fi->direct_io = 1; /* no page cache in front of the model, whatever the opener asks */
	fi->keep_cache = 0;
	atomic_fetch_add(&self(req)->opens, 1);
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct mdev_fuse *f = self(req);
	uint64_t len = size;
	int e;

	(void)ino;
	(void)fi;
	if ((uint64_t)off >= f->o.size)
		len = 0;
	else if (len > f->o.size - (uint64_t)off)
		len = f->o.size - (uint64_t)off;
	if (len == 0) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	e = core_submit(f->core, req, DEVMODEL_READ, (uint64_t)off, len, 0);
	if (e)
		fuse_reply_err(req, e);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct mdev_fuse *f = self(req);
	int e;

	(void)ino;
	(void)fi;
	if ((uint64_t)off >= f->o.size || size > f->o.size - (uint64_t)off) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	e = store_write(f->core->store, buf, (uint64_t)off, size);
	if (e) {
		fuse_reply_err(req, e);
		return;
	}
	e = core_submit(f->core, req, DEVMODEL_WRITE, (uint64_t)off, size, 0);
	if (e)
		fuse_reply_err(req, e);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	int e;

	(void)ino;
	(void)datasync;
	(void)fi;
	e = core_submit(self(req)->core, req, DEVMODEL_FLUSH, 0, 0, 0);
	if (e)
		fuse_reply_err(req, e);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t length,
			 struct fuse_file_info *fi)
{
	struct mdev_fuse *f = self(req);
	int e;

	(void)ino;
	(void)fi;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))) {
		fuse_reply_err(req, 0); /* allocation: the device is already all there */
		return;
	}
	e = store_discard(f->core->store, (uint64_t)off, (uint64_t)length);
	if (!e)
		e = core_submit(f->core, req, DEVMODEL_DISCARD, (uint64_t)off, (uint64_t)length, 0);
	if (e)
		fuse_reply_err(req, e);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	atomic_fetch_sub(&self(req)->opens, 1);
	fuse_reply_err(req, 0);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	fuse_reply_open(req, fi);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	static const char *const names[] = {".", "..", "disk"};
	char buf[512];
	size_t used = 0;
	struct stat st;

	(void)fi;
	for (off_t i = off; i < 3; i++) {
		size_t n;

		memset(&st, 0, sizeof(st));
		st.st_ino = i == 2 ? INO_DISK : FUSE_ROOT_ID;
		st.st_mode = i == 2 ? S_IFREG : S_IFDIR;
		n = fuse_add_direntry(req, buf + used, sizeof(buf) - used, names[i], &st, i + 1);
		if (used + n > size || used + n > sizeof(buf))
			break;
		used += n;
	}
	(void)ino;
	fuse_reply_buf(req, buf, used);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	(void)ino;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = sv.f_frsize = 4096;
	sv.f_blocks = self(req)->o.size / 4096;
	sv.f_files = 2;
	sv.f_namemax = 255;
	fuse_reply_statfs(req, &sv);
}

static const struct fuse_lowlevel_ops ops = {
    .init = op_init,
    .lookup = op_lookup,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .statfs = op_statfs,
    .fallocate = op_fallocate,
};

/* The core's reply function: the data of a read, the length of a write, 0 for the rest. */
static void reply(struct mdev_core *c, struct mdev_rq *r)
{
	fuse_req_t req = r->req;
	struct mdev_fuse *f = fuse_req_userdata(req);

	if (r->err) {
		fuse_reply_err(req, r->err);
		return;
	}
	switch (r->op) {
	case DEVMODEL_READ: {
		struct iovec iov[MAX_IOV];
		int cnt = MAX_IOV, e;

		e = store_read_iov(c->store, r->off, r->len, iov, &cnt, f->scratch);
		if (e)
			fuse_reply_err(req, e);
		else
			fuse_reply_iov(req, iov, cnt);
		break;
	}
	case DEVMODEL_WRITE:
		fuse_reply_write(req, r->len);
		break;
	default:
		fuse_reply_err(req, 0);
		break;
	}
}

mdev_reply_fn mfuse_reply_fn(void)
{
	return reply;
}

struct mdev_fuse *mfuse_create(struct mdev_core *c, const struct mdev_fuse_opts *o, char *err,
			       size_t errlen)
{
	struct mdev_fuse *f = calloc(1, sizeof(*f));
	char opt[256];
	char *argv[4];
	struct fuse_args args;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->core = c;
	f->o = *o;
	snprintf(f->mnt, sizeof(f->mnt), "%s", o->mountpoint);
	f->o.mountpoint = f->mnt;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cv, NULL);
	if (c->store->kind == STORE_FILE) {
		f->scratch = malloc(c->store->zeros_len);
		if (!f->scratch) {
			snprintf(err, errlen, "out of memory");
			free(f);
			return NULL;
		}
	}
	snprintf(f->fsname, sizeof(f->fsname), MDEV_FSNAME_PREFIX "%s:%ld", o->name, (long)getpid());
	snprintf(opt, sizeof(opt), "fsname=%s,subtype=modeldev", f->fsname);
	argv[0] = (char *)"modeldev";
	argv[1] = (char *)"-o";
	argv[2] = opt;
	argv[3] = NULL;
	args = (struct fuse_args)FUSE_ARGS_INIT(3, argv);
	f->se = fuse_session_new(&args, &ops, sizeof(ops), f);
	fuse_opt_free_args(&args);
	if (!f->se) {
		snprintf(err, errlen, "fuse_session_new failed (libfuse3 printed why above)");
		free(f->scratch);
		free(f);
		return NULL;
	}
	if (fuse_session_mount(f->se, f->mnt)) {
		snprintf(err, errlen,
			 "cannot mount the FUSE file system on %s (is /dev/fuse usable and mount "
			 "allowed here? libfuse printed why above)",
			 f->mnt);
		fuse_session_destroy(f->se);
		free(f->scratch);
		free(f);
		return NULL;
	}
	f->mounted = true;
	return f;
}

static void *loop_thread(void *arg)
{
	struct mdev_fuse *f = arg;
	int rc;

	/* like an interrupt handler: the request reaches the model without waiting for a CPU */
	f->rt_ok = mdev_set_rt(f->o.rt_prio);
	if (f->o.threads <= 1) {
		rc = fuse_session_loop(f->se);
	} else {
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();

		fuse_loop_cfg_set_max_threads(cfg, f->o.threads);
		fuse_loop_cfg_set_idle_threads(cfg, f->o.threads);
		fuse_loop_cfg_set_clone_fd(cfg, 1);
		rc = fuse_session_loop_mt(f->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	pthread_mutex_lock(&f->lock);
	f->ended = true;
	f->loop_rc = rc;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

int mfuse_start(struct mdev_fuse *f, char *err, size_t errlen)
{
	int e = pthread_create(&f->thread, NULL, loop_thread, f);

	if (e) {
		snprintf(err, errlen, "cannot start the FUSE thread: %s", strerror(e));
		return -1;
	}
	f->thread_started = true;
	return 0;
}

bool mfuse_ended(struct mdev_fuse *f)
{
	bool e;

	pthread_mutex_lock(&f->lock);
	e = f->ended;
	pthread_mutex_unlock(&f->lock);
	return e;
}

bool mfuse_wait_end(struct mdev_fuse *f, int ms)
{
	struct timespec ts;
	bool e;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&f->lock);
	while (!f->ended)
		if (pthread_cond_timedwait(&f->cv, &f->lock, &ts))
			break;
	e = f->ended;
	pthread_mutex_unlock(&f->lock);
	return e;
}

void mfuse_unmount(struct mdev_fuse *f)
{
	if (!f->mounted)
		return;
	/* Lazily: the loop device keeps the file (and so the connection) until it lets go. */
	umount2(f->mnt, MNT_DETACH);
	f->mounted = false;
}

void mfuse_destroy(struct mdev_fuse *f)
{
	if (!f)
		return;
	mfuse_unmount(f);
	if (f->thread_started && mfuse_ended(f)) {
		pthread_join(f->thread, NULL);
		f->thread_started = false;
	}
	if (!f->thread_started) {
		/* the connection is gone: this closes /dev/fuse and frees the mount point's name */
		fuse_session_unmount(f->se);
		fuse_session_destroy(f->se);
		free(f->scratch);
		free(f);
	}
	/* else: the loop thread is still in read(); process exit closes the connection */
}

void mfuse_info_json(struct mdev_fuse *f, char *buf, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);

	snprintf(buf, len,
		 "{\"fsname\":\"%s\",\"max_write\":%u,\"max_pages\":%ld,\"max_read\":%u,"
		 "\"max_background\":%u,\"congestion_threshold\":%u,\"proto_minor\":%u,"
		 "\"async_dio\":%s,\"threads\":%u,\"rt_prio\":%d,\"opens\":%u}",
		 f->fsname, f->max_write, f->max_write ? ((long)f->max_write - 1) / pg + 1 : 0,
		 f->max_read, f->max_background, f->congestion_threshold, f->proto_minor,
		 f->async_dio ? "true" : "false", f->o.threads ? f->o.threads : 1,
		 f->rt_ok ? f->o.rt_prio : 0, atomic_load(&f->opens));
}
