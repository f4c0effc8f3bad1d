// SPDX-License-Identifier: GPL-2.0
/*
 * modeldev: serves a device model of models/ as a real block device (FUSE file + loop
 * device with direct I/O), so that the kernel's own schedulers run on exactly the device the
 * embedded schedulers see. See docs/models.md, "Kernel schedulers on a device model".
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mdev.h"

#define MAX_OVERRIDES 64

struct opts {
	const char *name;
	const char *rundir;
	struct devmodel_params params;
	const char *ov_name[MAX_OVERRIDES], *ov_val[MAX_OVERRIDES];
	int nov;
	uint64_t size;
	enum mdev_store_kind store;
	const char *store_path;
	uint64_t mem_limit;
	unsigned int max_background, threads, block_size, max_sectors_kb, nr_rq, tags;
	int rotational; /* -1: from the model */
	const char *scheduler, *nr_requests;
	long watch_pid;
	int rt_prio;
	bool keep_mount;
	int teardown_wait_ms;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: modeldev COMMAND [options]\n"
		"  start   set up a model-backed block device in the background; prints /dev/loopN\n"
		"  run     the same in the foreground (until SIGINT/SIGTERM)\n"
		"  stop    tear a device down (--name), or every one (--all)\n"
		"  stats | reset | info   ask a running daemon (--name): statistics JSON, a fresh\n"
		"          model and statistics (refused while I/O is in flight), its set-up JSON\n"
		"  list    running daemons; reclaim: remove what dead ones left (mounts, loops)\n"
		"  leftovers  every loop device and FUSE mount of ours, live or not (exit 1 if any)\n"
		"  check   can this machine do it? 'ok', or the reason and exit status %d\n"
		"  params  the model parameters (the engine's device_model options)\n"
		"options of start/run:\n"
		"  --name NAME            (md) one daemon per name; its state in RUNDIR/NAME\n"
		"  --model KIND           hdd | ssd | cloud-ssd | null (hdd)\n"
		"  NAME=VALUE             a model parameter, as the engine's options: hdd_rpm=5400\n"
		"  --size SIZE            device size (the model's dev_capacity_gib); offsets are\n"
		"                         the model's offsets, as with device_model= in the engine\n"
		"  --store mem|none|file:PATH   the data (mem: sparse memory, the default)\n"
		"  --mem-limit SIZE       memory store: writes beyond it fail with ENOSPC (4G)\n"
		"  --rotational 0|1       queue/rotational (default: 1 for hdd, else 0)\n"
		"  --scheduler NAME       queue/scheduler to set (none)\n"
		"  --tags N               the device's tags (driver queue depth, set through\n"
		"                         nr_requests under none): dev_queue_depth by default\n"
		"  --nr-requests N        queue/nr_requests to set after the scheduler\n"
		"  --max-sectors-kb N     queue/max_sectors_kb (1024: one FUSE request per block\n"
		"                         request, as max_pages is 256)\n"
		"  --block-size N         logical block size (512)\n"
		"  --max-background N     FUSE requests in flight to the daemon (256)\n"
		"  --threads N            threads reading /dev/fuse (1: requests reach the model in\n"
		"                         the order the kernel queued them)\n"
		"  --rt-prio N            SCHED_FIFO priority of the FUSE reader and the completion\n"
		"                         thread, as a device's interrupts (1; 0: none)\n"
		"  --watch-pid PID        tear down when PID exits (a harness killed by SIGKILL)\n"
		"  --keep-mount           leave the FUSE mount visible in RUNDIR/NAME/mnt\n"
		"  --rundir DIR           (" MDEV_RUNDIR_DEFAULT ", or $MODELDEV_RUNDIR)\n",
		MDEV_EXIT_REFUSED);
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 0: break;
	case 'k': v *= 1024; end++; break;
	case 'm': v *= 1024.0 * 1024; end++; break;
	case 'g': v *= 1024.0 * 1024 * 1024; end++; break;
	case 't': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("modeldev: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static unsigned int parse_uint(const char *opt, const char *s, unsigned int lo, unsigned int hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		die("%s=%s: must be an integer in %u..%u", opt, s, lo, hi);
	return (unsigned int)v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	const char *model = "hdd";
	const char *size = NULL;
	char err[256];
	int kind;

	memset(o, 0, sizeof(*o));
	o->name = "md";
	o->rundir = getenv("MODELDEV_RUNDIR") ? getenv("MODELDEV_RUNDIR") : MDEV_RUNDIR_DEFAULT;
	o->store = STORE_MEM;
	o->mem_limit = 4ull << 30;
	o->max_background = 256;
	o->threads = 1;
	o->block_size = 512;
	o->max_sectors_kb = 1024;
	o->nr_rq = 4096;
	o->rotational = -1;
	o->teardown_wait_ms = 5000;
	o->rt_prio = 1;
	for (int i = 0; i < argc; i++) { /* the model first: parameters are set on its defaults */
		if (!strcmp(argv[i], "--model") && i + 1 < argc)
			model = argv[i + 1];
		else if (!strncmp(argv[i], "--model=", 8))
			model = argv[i] + 8;
	}
	kind = devmodel_kind_by_name(model);
	if (kind < 0)
		die("--model %s: unknown (hdd, ssd, cloud-ssd, null)", model);
	o->params = devmodel_params_defaults((enum devmodel_kind)kind);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char key[64];
		const char *eq;

		if (!strncmp(a, "--", 2)) {
			eq = strchr(a, '=');
			if (eq) {
				snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
				v = eq + 1;
			} else {
				snprintf(key, sizeof(key), "%s", a);
				if (strcmp(a, "--keep-mount") && i + 1 < argc)
					v = argv[++i];
			}
#define IS(s) (!strcmp(key, s))
			if (IS("--keep-mount")) {
				o->keep_mount = true;
				continue;
			}
			{
				static const char *const known[] = {
				    "--model",		"--name",	    "--rundir",
				    "--size",		"--store",	    "--mem-limit",
				    "--rotational",	"--scheduler",	    "--tags",
				    "--nr-requests",	"--max-sectors-kb", "--block-size",
				    "--max-background", "--threads",	    "--rt-prio",
				    "--watch-pid",	"--param",	    NULL};
				int k = 0;

				while (known[k] && !IS(known[k]))
					k++;
				if (!known[k]) /* before taking its value: '--bogus' is unknown */
					die("%s: unknown option (see modeldev --help)", key);
			}
			if (!v)
				die("%s: needs a value", key);
			if (IS("--model"))
				continue;
			else if (IS("--name"))
				o->name = v;
			else if (IS("--rundir"))
				o->rundir = v;
			else if (IS("--size"))
				size = v;
			else if (IS("--store")) {
				if (!strcmp(v, "mem"))
					o->store = STORE_MEM;
				else if (!strcmp(v, "none"))
					o->store = STORE_NONE;
				else if (!strncmp(v, "file:", 5) && v[5]) {
					o->store = STORE_FILE;
					o->store_path = v + 5;
				} else
					die("--store %s: mem, none or file:PATH", v);
			} else if (IS("--mem-limit")) {
				if (parse_size(v, &o->mem_limit))
					die("--mem-limit %s: not a size", v);
			} else if (IS("--rotational"))
				o->rotational = (int)parse_uint(key, v, 0, 1);
			else if (IS("--scheduler"))
				o->scheduler = v;
			else if (IS("--tags"))
				o->tags = parse_uint(key, v, 1, 65536);
			else if (IS("--nr-requests"))
				o->nr_requests = v;
			else if (IS("--max-sectors-kb"))
				o->max_sectors_kb = parse_uint(key, v, 4, 1u << 20);
			else if (IS("--block-size"))
				o->block_size = parse_uint(key, v, 512, 4096);
			else if (IS("--max-background"))
				o->max_background = parse_uint(key, v, 1, 65535);
			else if (IS("--threads"))
				o->threads = parse_uint(key, v, 1, 64);
			else if (IS("--rt-prio"))
				o->rt_prio = (int)parse_uint(key, v, 0, 99);
			else if (IS("--watch-pid"))
				o->watch_pid = (long)parse_uint(key, v, 1, 1u << 30);
			else if (IS("--param")) {
				a = v;
				goto param;
			} else
				die("%s: unknown option (see modeldev --help)", key);
#undef IS
			continue;
		}
	param:
		eq = strchr(a, '=');
		if (!eq)
			die("%s: expected NAME=VALUE or an option (modeldev --help)", a);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
		if (devmodel_set_param(&o->params, key, eq + 1, err, sizeof(err)))
			die("%s", err);
		if (o->nov < MAX_OVERRIDES) {
			o->ov_name[o->nov] = strdup(key);
			o->ov_val[o->nov++] = eq + 1;
		}
	}
	if (devmodel_params_check(&o->params, err, sizeof(err)))
		die("%s", err);
	if (size) {
		if (parse_size(size, &o->size) || o->size < (1u << 20))
			die("--size %s: a size of at least 1M", size);
	} else {
		o->size = o->params.capacity_bytes;
	}
	o->size &= ~(uint64_t)4095;
	if (strlen(o->name) > 20 || strspn(o->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						    "0123456789_-.") != strlen(o->name) ||
	    o->name[0] == '.')
		die("--name %s: up to 20 letters, digits, '_', '-', '.'", o->name);
}

/* ---- the daemon ---------------------------------------------------------------------------- */

struct daemon {
	struct opts *o;
	char dir[512], mnt[600], lockp[600], ctlp[600];
	int lockfd, ctlfd, sigfd, pidfd;
	struct mdev_store store;
	struct mdev_core core;
	bool core_ok;
	struct mdev_fuse *fuse;
	struct mdev_loop loop;
	char tag[64];
	char sched_set[64];
};

/* Reports to whoever waits for readiness ("ok DEV", "refused MSG", "error MSG"). */
static void ready_say(int fd, const char *what, const char *msg)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s %s\n", what, msg);

	if (fd >= 0) {
		if (write(fd, buf, (size_t)n) < 0) { /* the starter is gone: nothing to do */
		}
	} else if (!strcmp(what, "ok")) {
		printf("%s\n", msg);
		fflush(stdout);
	} else {
		fprintf(stderr, "modeldev: %s\n", msg);
	}
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[700];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void info_json(struct daemon *d, char *buf, size_t len)
{
	char fuse[512] = "{}", rot[16] = "", msk[16] = "", mhw[16] = "", sch[128] = "", nr[16] = "";
	char dio[8] = "", qd[16] = "", wbt[16] = "";
	size_t o;
	FILE *f;

	if (d->fuse)
		mfuse_info_json(d->fuse, fuse, sizeof(fuse));
	if (d->loop.fd >= 0) {
		loop_queue_get(&d->loop, "rotational", rot, sizeof(rot));
		loop_queue_get(&d->loop, "max_sectors_kb", msk, sizeof(msk));
		loop_queue_get(&d->loop, "max_hw_sectors_kb", mhw, sizeof(mhw));
		loop_queue_get(&d->loop, "scheduler", sch, sizeof(sch));
		loop_queue_get(&d->loop, "nr_requests", nr, sizeof(nr));
		loop_queue_get(&d->loop, "wbt_lat_usec", wbt, sizeof(wbt));
	}
	{
		char p[128];

		snprintf(p, sizeof(p), "/sys/block/loop%d/loop/dio", d->loop.nr);
		f = fopen(p, "re");
		if (f) {
			if (!fgets(dio, sizeof(dio), f))
				dio[0] = 0;
			fclose(f);
			dio[strcspn(dio, "\n")] = 0;
		}
		f = fopen("/sys/module/loop/parameters/hw_queue_depth", "re");
		if (f) {
			if (!fgets(qd, sizeof(qd), f))
				qd[0] = 0;
			fclose(f);
			qd[strcspn(qd, "\n")] = 0;
		}
	}
	o = (size_t)snprintf(buf, len,
			     "{\"name\":\"%s\",\"pid\":%ld,\"dev\":\"%s\",\"model\":\"%s\","
			     "\"size\":%" PRIu64 ",\"queue_depth\":%u,\"store\":\"%s\",\"params\":{",
			     d->o->name, (long)getpid(), d->loop.dev,
			     devmodel_kind_name(d->o->params.kind), d->o->size,
			     d->o->params.queue_depth,
			     d->o->store == STORE_MEM ? "mem" : d->o->store == STORE_NONE ? "none" : "file");
	for (int i = 0; i < d->o->nov && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\":\"%s\"", i ? "," : "",
				      d->o->ov_name[i], d->o->ov_val[i]);
	if (o < len)
		snprintf(buf + o, len - o,
			 "},\"fuse\":%s,\"queue\":{\"rotational\":\"%s\",\"max_sectors_kb\":\"%s\","
			 "\"max_hw_sectors_kb\":\"%s\",\"scheduler\":\"%s\",\"nr_requests\":\"%s\","
			 "\"wbt_lat_usec\":\"%s\"},"
			 "\"loop\":{\"dio\":\"%s\",\"hw_queue_depth\":\"%s\"},"
			 "\"tags\":%u,\"rt_completion\":%s}",
			 fuse, rot, msk, mhw, sch, nr, wbt, dio, qd,
			 d->o->tags ? d->o->tags : d->o->params.queue_depth,
			 d->core.rt_ok ? "true" : "false");
}

static void teardown(struct daemon *d, const char *why)
{
	char stats[4096];

	fprintf(stderr, "modeldev %s: tearing down (%s)\n", d->o->name, why);
	if (d->ctlfd >= 0) {
		close(d->ctlfd);
		d->ctlfd = -1;
		unlink(d->ctlp);
	}
	if (d->fuse && d->o->keep_mount)
		mfuse_unmount(d->fuse);
	loop_detach(&d->loop); /* waits for the I/O in flight: the completion thread still runs */
	if (d->fuse) {
		mfuse_unmount(d->fuse);
		if (!mfuse_wait_end(d->fuse, d->o->teardown_wait_ms))
			fprintf(stderr,
				"modeldev %s: the loop device is still held open by another process: "
				"it detaches itself at its last close; the FUSE connection is closed "
				"now (its I/O fails)\n",
				d->o->name);
	}
	if (d->core_ok) {
		core_stop(&d->core);
		core_stats_json(&d->core, stats, sizeof(stats));
		fprintf(stderr, "modeldev %s: final stats %s\n", d->o->name, stats);
	}
	mfuse_destroy(d->fuse);
	d->fuse = NULL;
	if (d->core_ok)
		core_destroy(&d->core);
	store_close(&d->store);
	if (d->dir[0]) {
		static const char *const files[] = {"pid", "dev", "info.json", "log"};
		char p[700];

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s", d->dir, files[i]);
			unlink(p);
		}
		rmdir(d->mnt);
		rmdir(d->dir);
	}
	if (d->lockfd >= 0) {
		unlink(d->lockp);
		close(d->lockfd);
	}
}

static void handle_ctl(struct daemon *d, bool *stop)
{
	char cmd[64], out[8192];
	int c = accept4(d->ctlfd, NULL, NULL, SOCK_CLOEXEC);
	struct pollfd p;
	ssize_t n;

	if (c < 0)
		return;
	p.fd = c;
	p.events = POLLIN;
	if (poll(&p, 1, 1000) <= 0 || (n = read(c, cmd, sizeof(cmd) - 1)) <= 0) {
		close(c);
		return;
	}
	cmd[n] = 0;
	cmd[strcspn(cmd, "\r\n")] = 0;
	if (!strcmp(cmd, "stats")) {
		core_stats_json(&d->core, out, sizeof(out));
	} else if (!strcmp(cmd, "info")) {
		info_json(d, out, sizeof(out));
	} else if (!strcmp(cmd, "reset")) {
		int e = 0;

		/* The kernel may still be reaping the last completions: give it a moment. */
		for (int i = 0; i < 200 && (e = core_reset(&d->core)) == EBUSY; i++)
			usleep(10000);
		snprintf(out, sizeof(out), "%s", e ? (e == EBUSY ? "busy: I/O in flight" : "error")
						   : "ok");
	} else if (!strcmp(cmd, "stop")) {
		snprintf(out, sizeof(out), "ok");
		*stop = true;
	} else {
		snprintf(out, sizeof(out), "error: unknown command '%s'", cmd);
	}
	strcat(out, "\n");
	if (send(c, out, strlen(out), MSG_NOSIGNAL) < 0) { /* the client is gone */
	}
	close(c);
}

/* Runs the device until told to stop; ready_fd < 0: foreground (`run`). Returns the exit code. */
static int daemon_main(struct opts *o, int ready_fd)
{
	struct daemon dd, *d = &dd;
	char err[512], buf[8192], path[700], val[32];
	struct sockaddr_un sa;
	struct mdev_fuse_opts fo;
	sigset_t ss;
	int rc = 1, fd;
	const char *fail = "error";
	bool stop = false;
	const char *why = "stopped";

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->store.fd = -1;
	d->lockfd = d->ctlfd = d->sigfd = d->pidfd = -1;
	d->loop.fd = -1;
	prctl(PR_SET_NAME, "modeldev", 0, 0, 0);
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGUSR1);
	sigprocmask(SIG_BLOCK, &ss, NULL); /* before any thread: only signalfd sees them */
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &ss, SFD_CLOEXEC);

	if (geteuid() != 0) {
		snprintf(err, sizeof(err), "needs root (a FUSE mount and a loop device)");
		fail = "refused";
		goto out;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, sizeof(err), "cannot open /dev/fuse: %s", strerror(errno));
		fail = "refused";
		goto out;
	}
	close(fd);
	if (access("/dev/loop-control", R_OK | W_OK)) {
		snprintf(err, sizeof(err), "cannot use /dev/loop-control: %s", strerror(errno));
		fail = "refused";
		goto out;
	}
	if (mkdir(o->rundir, 0755) && errno != EEXIST) {
		snprintf(err, sizeof(err), "cannot create %s: %s", o->rundir, strerror(errno));
		goto out;
	}
	snprintf(d->lockp, sizeof(d->lockp), "%s/%s.lock", o->rundir, o->name);
	d->lockfd = open(d->lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (d->lockfd < 0 || flock(d->lockfd, LOCK_EX | LOCK_NB)) {
		snprintf(err, sizeof(err), "a modeldev named '%s' is already running (%s)", o->name,
			 d->lockp);
		if (d->lockfd >= 0)
			close(d->lockfd);
		d->lockfd = -1;
		goto out;
	}
	snprintf(d->dir, sizeof(d->dir), "%s/%s", o->rundir, o->name);
	snprintf(d->mnt, sizeof(d->mnt), "%s/mnt", d->dir);
	snprintf(d->ctlp, sizeof(d->ctlp), "%s/ctl", d->dir);
	umount2(d->mnt, MNT_DETACH); /* a dead daemon's, if the reclaim missed it */
	if ((mkdir(d->dir, 0755) && errno != EEXIST) || (mkdir(d->mnt, 0755) && errno != EEXIST)) {
		snprintf(err, sizeof(err), "cannot create %s: %s", d->mnt, strerror(errno));
		goto out;
	}
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	write_file(d->dir, "pid", buf);
	snprintf(d->tag, sizeof(d->tag), MDEV_FSNAME_PREFIX "%s:%ld", o->name, (long)getpid());

	if (store_open(&d->store, o->store, o->store_path, o->size, o->mem_limit, err,
		       sizeof(err)))
		goto out;
	if (core_init(&d->core, &o->params, o->nr_rq, &d->store, mfuse_reply_fn(), err,
		      sizeof(err)))
		goto out;
	d->core_ok = true;
	d->core.rt_prio = o->rt_prio;
	if (core_start(&d->core, err, sizeof(err)))
		goto out;
	memset(&fo, 0, sizeof(fo));
	fo.name = o->name;
	fo.mountpoint = d->mnt;
	fo.size = o->size;
	fo.max_background = o->max_background;
	fo.threads = o->threads;
	fo.rt_prio = o->rt_prio;
	d->fuse = mfuse_create(&d->core, &fo, err, sizeof(err));
	if (!d->fuse) {
		fail = "refused";
		goto out;
	}
	if (mfuse_start(d->fuse, err, sizeof(err)))
		goto out;
	snprintf(path, sizeof(path), "%s/disk", d->mnt);
	if (loop_attach(&d->loop, path, d->tag, o->block_size, err, sizeof(err))) {
		if (strstr(err, "direct I/O") || strstr(err, "Operation not permitted") ||
		    strstr(err, "Permission denied") || strstr(err, "no free loop"))
			fail = "refused";
		goto out;
	}
	/* The queue as the model's device: rotational, one FUSE request per block request. */
	snprintf(val, sizeof(val), "%d",
		 o->rotational >= 0 ? o->rotational : o->params.kind == DEVMODEL_HDD);
	if (loop_queue_set(&d->loop, "rotational", val, err, sizeof(err)))
		goto out;
	/* writeback throttling's default target follows rotational (75 ms, else 2 ms) */
	if (loop_queue_set(&d->loop, "wbt_lat_usec", "-1", err, sizeof(err)))
		fprintf(stderr, "modeldev: %s (kept)\n", err);
	{
		char hw[32];
		unsigned int kb = o->max_sectors_kb;

		if (!loop_queue_get(&d->loop, "max_hw_sectors_kb", hw, sizeof(hw)) &&
		    (unsigned int)atoi(hw) < kb)
			kb = (unsigned int)atoi(hw);
		snprintf(val, sizeof(val), "%u", kb);
		if (loop_queue_set(&d->loop, "max_sectors_kb", val, err, sizeof(err)))
			fprintf(stderr, "modeldev: %s (kept the kernel's)\n", err);
	}
	/*
	 * The device's tags: under `none`, nr_requests sizes the driver tags, and that depth stays
	 * when a scheduler is set (which then sizes only its own tags). So the kernel keeps at most
	 * the model's queue depth in the device, as the engine's hw_queue_depth does. A loop
	 * device's queue outlives its attachment: everything is set, nothing inherited.
	 */
	if (loop_queue_set(&d->loop, "scheduler", "none", err, sizeof(err)))
		goto out;
	snprintf(val, sizeof(val), "%u", o->tags ? o->tags : o->params.queue_depth);
	if (loop_queue_set(&d->loop, "nr_requests", val, err, sizeof(err))) {
		char hw[32] = "128";
		FILE *f = fopen("/sys/module/loop/parameters/hw_queue_depth", "re");

		/* more than the loop driver's tag set (its hw_queue_depth): all of that */
		if (f) {
			if (!fgets(hw, sizeof(hw), f))
				snprintf(hw, sizeof(hw), "128");
			fclose(f);
			hw[strcspn(hw, "\n")] = 0;
		}
		if (loop_queue_set(&d->loop, "nr_requests", hw, err, sizeof(err)))
			goto out;
	}
	if (loop_queue_set(&d->loop, "scheduler", o->scheduler ? o->scheduler : "none", err,
			   sizeof(err)))
		goto out;
	if (o->nr_requests &&
	    loop_queue_set(&d->loop, "nr_requests", o->nr_requests, err, sizeof(err)))
		goto out;
	if (!o->keep_mount)
		mfuse_unmount(d->fuse); /* the loop device holds the file: nothing left mounted */
	write_file(d->dir, "dev", d->loop.dev);
	info_json(d, buf, sizeof(buf));
	write_file(d->dir, "info.json", buf);

	d->ctlfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->ctlp);
	unlink(d->ctlp);
	if (d->ctlfd < 0 || bind(d->ctlfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(d->ctlfd, 8)) {
		snprintf(err, sizeof(err), "control socket %s: %s", d->ctlp, strerror(errno));
		goto out;
	}
	if (o->watch_pid > 0) {
		d->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)o->watch_pid, 0);
		if (d->pidfd < 0 && errno == ESRCH) {
			snprintf(err, sizeof(err), "--watch-pid %ld: no such process", o->watch_pid);
			goto out;
		}
	}
	ready_say(ready_fd, "ok", d->loop.dev);
	if (ready_fd >= 0)
		close(ready_fd);
	ready_fd = -1;
	fprintf(stderr, "modeldev %s: %s ready: %s\n", o->name, d->loop.dev, buf);

	while (!stop) {
		struct pollfd p[3] = {{d->sigfd, POLLIN, 0}, {d->ctlfd, POLLIN, 0},
				      {d->pidfd, POLLIN, 0}};
		int n = poll(p, d->pidfd >= 0 ? 3 : 2, 500);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (p[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGUSR1) {
					core_stats_json(&d->core, buf, sizeof(buf));
					fprintf(stderr, "modeldev %s: stats %s\n", o->name, buf);
				} else {
					why = strsignal((int)si.ssi_signo);
					stop = true;
				}
			}
		}
		if (n > 0 && (p[1].revents & POLLIN))
			handle_ctl(d, &stop);
		if (n > 0 && d->pidfd >= 0 && (p[2].revents & POLLIN)) {
			why = "the watched process exited";
			stop = true;
		}
		if (d->pidfd < 0 && o->watch_pid > 0 && kill((pid_t)o->watch_pid, 0) && errno == ESRCH) {
			why = "the watched process exited";
			stop = true;
		}
		if (mfuse_ended(d->fuse)) {
			why = "the FUSE connection ended (unmounted or aborted by someone else)";
			stop = true;
		}
	}
	rc = 0;
	teardown(d, why);
	return rc;
out:
	ready_say(ready_fd, fail, err);
	if (ready_fd >= 0)
		fprintf(stderr, "modeldev %s: %s\n", o->name, err);
	teardown(d, "set-up failed");
	return !strcmp(fail, "refused") ? MDEV_EXIT_REFUSED : 1;
}

/* ---- commands ------------------------------------------------------------------------------ */

/*
 * Starts the daemon in the background (a grandchild in its own session, stdout on /dev/null,
 * stderr in RUNDIR/NAME.log) and waits until it is ready: 0 with the device in dev, or the exit
 * status of a failed set-up with the reason printed.
 */
static int start_bg(struct opts *o, char *dev, size_t devlen)
{
	int pfd[2];
	pid_t pid;
	char line[1200];
	ssize_t n, got = 0;
	int status;

	if (pipe2(pfd, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		char logp[700];
		int fd, dn;

		close(pfd[0]);
		setsid();
		dn = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1); /* a `$(modeldev start)` must not wait for the daemon */
		}
		if (mkdir(o->rundir, 0755) && errno != EEXIST) { /* daemon_main says why */
		}
		snprintf(logp, sizeof(logp), "%s/%s.log", o->rundir, o->name);
		/* the grandchild: no zombie for the starter's shell to reap */
		pid = fork();
		if (pid != 0)
			_exit(pid < 0);
		fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		status = daemon_main(o, pfd[1]);
		if (!status)
			unlink(logp); /* kept after a failure: it says why */
		_exit(status);
	}
	close(pfd[1]);
	waitpid(pid, &status, 0);
	while (got < (ssize_t)sizeof(line) - 1 &&
	       (n = read(pfd[0], line + got, sizeof(line) - 1 - (size_t)got)) > 0)
		got += n;
	close(pfd[0]);
	line[got] = 0;
	line[strcspn(line, "\n")] = 0;
	if (!strncmp(line, "ok ", 3)) {
		snprintf(dev, devlen, "%s", line + 3);
		return 0;
	}
	if (!strncmp(line, "refused ", 8)) {
		fprintf(stderr, "modeldev: %s\n", line + 8);
		return MDEV_EXIT_REFUSED;
	}
	fprintf(stderr, "modeldev: %s\n",
		got ? (strchr(line, ' ') ? strchr(line, ' ') + 1 : line)
		    : "the daemon died during set-up");
	return 1;
}

static int cmd_start(struct opts *o, bool background)
{
	char dev[64];
	int rc;

	mdev_reclaim(o->rundir, true);
	if (!background)
		return daemon_main(o, -1);
	rc = start_bg(o, dev, sizeof(dev));
	if (!rc)
		printf("%s\n", dev);
	return rc;
}

static int ctl_call(const struct opts *o, const char *cmd, char *out, size_t outlen)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t got = 0;
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s/ctl", o->rundir, o->name);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	{
		char line[80];
		int n = snprintf(line, sizeof(line), "%s\n", cmd);

		if (send(fd, line, (size_t)n, MSG_NOSIGNAL) != n) {
			close(fd);
			return -1;
		}
	}
	while (got < outlen - 1 && (n = read(fd, out + got, outlen - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = 0;
	close(fd);
	return 0;
}

static long read_pid(const struct opts *o, const char *name)
{
	char p[700], buf[32];
	FILE *f;
	long pid = -1;

	snprintf(p, sizeof(p), "%s/%s/pid", o->rundir, name);
	f = fopen(p, "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			pid = atol(buf);
		fclose(f);
	}
	return pid;
}

static int stop_one(struct opts *o, const char *name)
{
	char out[256];
	long pid;
	struct opts oo = *o;
	int pfd;

	oo.name = name;
	pid = read_pid(&oo, name);
	if (pid <= 0 || !mdev_pid_alive(pid)) {
		mdev_reclaim(o->rundir, true);
		return 0;
	}
	pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (ctl_call(&oo, "stop", out, sizeof(out)))
		kill((pid_t)pid, SIGTERM);
	for (int i = 0; i < 300; i++) { /* up to 30 s: the daemon waits for its loop device */
		if (pfd >= 0) {
			struct pollfd p = {pfd, POLLIN, 0};

			if (poll(&p, 1, 100) > 0)
				break;
		} else {
			if (!mdev_pid_alive(pid))
				break;
			usleep(100000);
		}
	}
	if (mdev_pid_alive(pid)) {
		fprintf(stderr, "modeldev: %s (pid %ld) did not stop in 30 s: SIGKILL\n", name, pid);
		kill((pid_t)pid, SIGKILL);
		usleep(200000);
	}
	if (pfd >= 0)
		close(pfd);
	mdev_reclaim(o->rundir, true);
	return 0;
}

static int cmd_stop(struct opts *o, bool all)
{
	struct dirent *e;
	DIR *d;

	if (!all)
		return stop_one(o, o->name);
	d = opendir(o->rundir);
	if (d) {
		char names[64][64];
		int n = 0;

		while ((e = readdir(d)) && n < 64)
			if (e->d_name[0] != '.' && e->d_type == DT_DIR)
				snprintf(names[n++], 64, "%s", e->d_name);
		closedir(d);
		for (int i = 0; i < n; i++)
			stop_one(o, names[i]);
	}
	mdev_reclaim(o->rundir, true);
	return 0;
}

static int cmd_list(struct opts *o)
{
	struct dirent *e;
	DIR *d = opendir(o->rundir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[700], dev[64] = "?";
		long pid;
		FILE *f;

		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		pid = read_pid(o, e->d_name);
		snprintf(p, sizeof(p), "%s/%s/dev", o->rundir, e->d_name);
		f = fopen(p, "re");
		if (f) {
			if (!fgets(dev, sizeof(dev), f))
				snprintf(dev, sizeof(dev), "?");
			fclose(f);
		}
		printf("%-20s pid %-8ld %-12s %s\n", e->d_name, pid, dev,
		       mdev_pid_alive(pid) ? "running" : "dead (modeldev reclaim)");
	}
	closedir(d);
	return 0;
}

static void print_param(const char *name, const char *help, void *arg)
{
	(void)arg;
	printf("  %-22s %s\n", name, help);
}

static int cmd_check(struct opts *o)
{
	static char name[32];
	char dev[64];
	void *buf = NULL;
	int fd, rc;

	/* A small null device: set up, one direct read through the loop device, torn down. */
	o->params = devmodel_params_defaults(DEVMODEL_NULL);
	o->size = 16u << 20;
	o->store = STORE_NONE;
	o->nov = 0;
	snprintf(name, sizeof(name), "check-%ld", (long)getpid());
	o->name = name;
	mdev_reclaim(o->rundir, true);
	rc = start_bg(o, dev, sizeof(dev));
	if (rc) {
		printf("refused: see the message above\n");
		return rc == MDEV_EXIT_REFUSED ? MDEV_EXIT_REFUSED : 1;
	}
	fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || posix_memalign(&buf, 4096, 65536) || pread(fd, buf, 65536, 4096) != 65536) {
		printf("refused: a direct read of %s failed: %s\n", dev, strerror(errno));
		rc = MDEV_EXIT_REFUSED;
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	stop_one(o, o->name);
	if (!rc)
		printf("ok: FUSE and loop devices with direct I/O work here (%s)\n", dev);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd;
	char out[16384];

	static const char *const cmds[] = {"start",	"run",	 "stop",   "stats",
					   "reset",	"info",	 "list",   "reclaim",
					   "leftovers", "check", "params", NULL};
	int known = 0;

	if (argc < 2) {
		fprintf(stderr, "modeldev: no command given (see modeldev --help)\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	cmd = argv[1];
	/* the command before its options: 'bogus --name x' names 'bogus' */
	for (int i = 0; cmds[i]; i++)
		known |= !strcmp(cmd, cmds[i]);
	if (!known) {
		fprintf(stderr, "modeldev: unknown command '%s' (see modeldev --help)\n", cmd);
		return 2;
	}
	if (!strcmp(cmd, "params")) {
		printf("device model parameters (as the engine's device_model options):\n");
		devmodel_param_names(print_param, NULL);
		return 0;
	}
	if (!strcmp(cmd, "stop") && argc > 2 && !strcmp(argv[2], "--all")) {
		parse_opts(argc - 3, argv + 3, &o);
		return cmd_stop(&o, true);
	}
	parse_opts(argc - 2, argv + 2, &o);
	if (!strcmp(cmd, "start"))
		return cmd_start(&o, true);
	if (!strcmp(cmd, "run"))
		return cmd_start(&o, false);
	if (!strcmp(cmd, "stop"))
		return cmd_stop(&o, false);
	if (!strcmp(cmd, "reclaim")) {
		int n = mdev_reclaim(o.rundir, true);

		printf("reclaimed %d\n", n);
		return 0;
	}
	if (!strcmp(cmd, "list"))
		return cmd_list(&o);
	if (!strcmp(cmd, "leftovers")) /* exit 1 when there are any: for tests and checks */
		return mdev_list_ours() ? 1 : 0;
	if (!strcmp(cmd, "check"))
		return cmd_check(&o);
	if (!strcmp(cmd, "stats") || !strcmp(cmd, "reset") || !strcmp(cmd, "info")) {
		if (ctl_call(&o, cmd, out, sizeof(out))) {
			fprintf(stderr, "modeldev: no running daemon named '%s' (%s/%s/ctl)\n", o.name,
				o.rundir, o.name);
			return 1;
		}
		fputs(out, stdout);
		return strncmp(out, "busy", 4) && strncmp(out, "error", 5) ? 0 : 1;
	}
	return 2; /* not reached: cmds[] lists every command above */
}
