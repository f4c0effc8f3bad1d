/* Kernel cells: block device lookup, loop devices, scheduler + tunables via sysfs, restore. */
#include "sb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

char *sysfs_read(const char *path)
{
	size_t len;
	char *s = read_file(path, &len);
	if (!s)
		return NULL;
	char *t = xstrdup(trim(s));
	free(s);
	return t;
}

int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, val, strlen(val));
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	return 0;
}

/* "mq-deadline kyber [bfq] none" -> "bfq" */
static void current_sched(const char *s, char *out, size_t n)
{
	out[0] = 0;
	const char *a = strchr(s, '[');
	const char *b = a ? strchr(a, ']') : NULL;
	if (a && b && (size_t)(b - a - 1) < n) {
		memcpy(out, a + 1, (size_t)(b - a - 1));
		out[b - a - 1] = 0;
	} else if (!a) {
		snprintf(out, n, "%s", s); /* "none" on devices without a choice */
	}
}

int kdev_open(struct kdev *d, const char *target, char *err, size_t errlen)
{
	struct stat st;
	if (stat(target, &st)) {
		snprintf(err, errlen, "kernel cell: target '%s' does not exist: %s", target,
			 strerror(errno));
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen,
			 "kernel cell: target '%s' is not a block device (give --target /dev/XXX, "
			 "or no --target for "
			 "a loop device)",
			 target);
		return -1;
	}
	char link[128], real[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, real)) {
		snprintf(err, errlen, "kernel cell: no sysfs entry %s for '%s'", link, target);
		return -1;
	}
	char part[PATH_MAX + 16];
	snprintf(part, sizeof(part), "%s/partition", real);
	if (!access(part, F_OK)) { /* a partition: the queue belongs to the whole disk */
		char *slash = strrchr(real, '/');
		if (slash)
			*slash = 0;
	}
	snprintf(d->name, sizeof(d->name), "%s", base_name(real));
	snprintf(d->devpath, sizeof(d->devpath), "%s", target);
	snprintf(d->qdir, sizeof(d->qdir), "/sys/block/%s/queue", d->name);
	char sched[400];
	snprintf(sched, sizeof(sched), "%s/scheduler", d->qdir);
	if (access(sched, R_OK)) {
		snprintf(err, errlen, "kernel cell: %s has no %s", target, sched);
		return -1;
	}
	return 0;
}

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		break;
	default:
		break;
	}
	return v;
}

int kdev_loop_create(struct kdev *d, const char *image, const char *size, char *err, size_t errlen)
{
	if (geteuid() != 0) {
		snprintf(err, errlen,
			 "kernel cells need root: a loop device is set up (losetup) and "
			 "/sys/block/*/queue/scheduler is written; run as root or give --target on "
			 "a device you may "
			 "change");
		return -1;
	}
	unsigned long long bytes = parse_size(size ? size : "512M");
	if (bytes < (1ULL << 20)) {
		snprintf(err, errlen, "image_size '%s' too small", size);
		return -1;
	}
	journal_loop(image); /* before it exists: a runner killed from here on leaves nothing */
	int fd = open(image, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
		snprintf(err, errlen, "cannot create loop image %s: %s", image, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* allocate the blocks so that direct I/O measures the device, not hole handling */
	int fr = posix_fallocate(fd, 0, (off_t)bytes);
	(void)fr; /* a sparse image is acceptable */
	close(fd);
	const char *argv[] = {"losetup", "--find", "--show", "--direct-io=on", image, NULL};
	int rc = 0;
	char *out = run_capture_all(argv, &rc);
	if (!out || rc != 0) {
		snprintf(err, errlen, "losetup --find --show --direct-io=on %s failed (rc %d): %s",
			 image, rc, out ? trim(out) : "losetup not found");
		free(out);
		unlink(image);
		return -1;
	}
	char *dev = trim(out);
	if (strncmp(dev, "/dev/", 5)) {
		snprintf(err, errlen, "losetup printed '%s', expected /dev/loopN", dev);
		free(out);
		unlink(image);
		return -1;
	}
	char realimg[PATH_MAX];
	snprintf(d->image, sizeof(d->image), "%s", realpath(image, realimg) ? realimg : image);
	int r = kdev_open(d, dev, err, errlen);
	d->is_loop_ours = 1;
	snprintf(d->devpath, sizeof(d->devpath), "%s", dev);
	free(out);
	if (r)
		kdev_loop_destroy(d);
	return r;
}

void kdev_loop_destroy(struct kdev *d)
{
	if (!d->is_loop_ours)
		return;
	kdev_restore(d);
	const char *argv[] = {"losetup", "-d", d->devpath, NULL};
	int rc;
	char *out = run_capture_all(argv, &rc);
	if (rc)
		warnx_("losetup -d %s failed: %s", d->devpath, out ? trim(out) : "");
	free(out);
	if (d->image[0])
		unlink(d->image);
	d->is_loop_ours = 0;
}

/* Readable regular files of dir into a JSON object. */
void sysfs_dir_json(struct strbuf *b, const char *dir)
{
	sb_add(b, "{");
	DIR *dh = opendir(dir);
	int first = 1;
	if (dh) {
		struct dirent *e;
		char **names = NULL;
		int n = 0;
		while ((e = readdir(dh))) {
			if (e->d_name[0] == '.')
				continue;
			names = xrealloc(names, sizeof(*names) * (size_t)(n + 1));
			names[n++] = xstrdup(e->d_name);
		}
		closedir(dh);
		for (int i = 0; i < n; i++) /* sorted for diffable state */
			for (int j = i + 1; j < n; j++)
				if (strcmp(names[i], names[j]) > 0) {
					char *t = names[i];
					names[i] = names[j];
					names[j] = t;
				}
		for (int i = 0; i < n; i++) {
			char *p = path_join(dir, names[i]);
			struct stat st;
			if (!stat(p, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0444)) {
				char *v = sysfs_read(p);
				if (v) {
					if (!first)
						sb_add(b, ",");
					first = 0;
					sb_json_str(b, names[i]);
					sb_add(b, ":");
					sb_json_str(b, v);
					free(v);
				}
			}
			free(p);
			free(names[i]);
		}
		free(names);
	}
	sb_add(b, "}");
}

char *kdev_state_json(const struct kdev *d)
{
	struct strbuf b;
	sb_init(&b);
	sb_add(&b, "{\"device\":");
	sb_json_str(&b, d->name);
	sb_add(&b, ",\"devpath\":");
	sb_json_str(&b, d->devpath);
	sb_add(&b, ",\"queue\":");
	sysfs_dir_json(&b, d->qdir);
	char *io = path_join(d->qdir, "iosched");
	sb_add(&b, ",\"iosched\":");
	sysfs_dir_json(&b, io);
	free(io);
	sb_add(&b, "}");
	return sb_steal(&b);
}

static int same_value(const char *want, const char *got)
{
	if (!strcmp(want, got))
		return 1;
	char *e1, *e2;
	double a = strtod(want, &e1), b = strtod(got, &e2);
	return *want && *got && !*e1 && !*e2 && a == b;
}

static void save_dir_values(struct kvlist *l, const char *dir)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = path_join(dir, e->d_name);
		struct stat st;
		if (!stat(p, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0200) &&
		    (st.st_mode & 0444)) {
			char *v = sysfs_read(p);
			if (v)
				kv_set(l, e->d_name, v);
			free(v);
		}
		free(p);
	}
	closedir(dh);
}

static int write_check(const char *path, const char *what, const char *val, char *err,
		       size_t errlen)
{
	if (sysfs_write(path, val)) {
		snprintf(err, errlen, "cannot set %s=%s (%s): %s", what, val, path,
			 strerror(errno));
		return -1;
	}
	char *got = sysfs_read(path);
	if (!got) {
		snprintf(err, errlen, "cannot read back %s: %s", path, strerror(errno));
		return -1;
	}
	int ok = same_value(val, got);
	if (!ok)
		snprintf(err, errlen, "read-back differs: wrote %s=%s, %s reads '%s'", what, val,
			 path, got);
	free(got);
	return ok ? 0 : -1;
}

int kdev_apply(struct kdev *d, const struct cell *c, char *err, size_t errlen)
{
	char *schedp = path_join(d->qdir, "scheduler");
	char *iodir = path_join(d->qdir, "iosched");
	int rc = -1;
	if (d->is_loop_ours) {
		/* other tools may detach loop devices (losetup -D): make sure ours is still there
		 */
		char *bf = xasprintf("/sys/block/%s/loop/backing_file", d->name);
		char *cur = sysfs_read(bf);
		int same = cur && !strcmp(cur, d->image);
		free(bf);
		free(cur);
		if (!same) {
			snprintf(err, errlen,
				 "loop device %s no longer maps %s (detached by someone else?)",
				 d->devpath, d->image);
			goto out;
		}
	}
	if (!d->saved) {
		char *cur = sysfs_read(schedp);
		if (!cur) {
			snprintf(err, errlen, "cannot read %s: %s", schedp, strerror(errno));
			goto out;
		}
		current_sched(cur, d->old_sched, sizeof(d->old_sched));
		free(cur);
		kv_free(&d->old_iosched);
		kv_free(&d->old_queue);
		save_dir_values(&d->old_iosched, iodir);
		/* recorded before anything changes, so that a killed runner's state can be restored
		 */
		journal_sysfs("sched", schedp, d->old_sched);
		for (int i = 0; i < d->old_iosched.n; i++) {
			char *p = path_join(iodir, d->old_iosched.v[i].key);
			journal_sysfs("iosched", p, d->old_iosched.v[i].val);
			free(p);
		}
		d->saved = 1;
	}
	/* queue/ values depend on the scheduler (nr_requests): save them before switching */
	for (int i = 0; i < c->queue.n; i++) {
		const char *k = c->queue.v[i].key;
		if (kv_get(&d->old_queue, k))
			continue;
		char *q = path_join(d->qdir, k);
		char *old = sysfs_read(q);
		if (old) {
			journal_sysfs("queue", q, old);
			kv_set(&d->old_queue, k, old);
		}
		free(old);
		free(q);
	}
	/* the scheduler */
	if (sysfs_write(schedp, c->sched)) {
		char *avail = sysfs_read(schedp);
		snprintf(err, errlen, "cannot set scheduler '%s' on %s (available: %s): %s",
			 c->sched, d->name, avail ? avail : "?", strerror(errno));
		free(avail);
		goto out;
	}
	char *cur = sysfs_read(schedp), now[64];
	current_sched(cur ? cur : "", now, sizeof(now));
	if (strcmp(now, c->sched)) {
		snprintf(err, errlen, "read-back differs: wrote scheduler=%s, %s reads '%s'",
			 c->sched, schedp, cur ? cur : "");
		free(cur);
		goto out;
	}
	free(cur);
	for (int i = 0; i < c->iosched.n; i++) {
		const char *k = c->iosched.v[i].key, *v = c->iosched.v[i].val;
		char *p = path_join(iodir, k);
		if (access(p, F_OK)) {
			/* a bare key may be a queue/ attribute (nr_requests, rotational, ...) */
			char *q = path_join(d->qdir, k);
			if (!access(q, F_OK)) {
				if (!kv_get(&d->old_queue, k)) {
					char *old = sysfs_read(q);
					if (old) {
						journal_sysfs("queue", q, old);
						kv_set(&d->old_queue, k, old);
					}
					free(old);
				}
				int r = write_check(q, k, v, err, errlen);
				free(q);
				free(p);
				if (r)
					goto out;
				continue;
			}
			free(q);
			struct kvlist have = {0};
			save_dir_values(&have, iodir);
			struct strbuf names;
			sb_init(&names);
			kv_sort(&have);
			for (int j = 0; j < have.n; j++)
				sb_addf(&names, "%s%s", j ? " " : "", have.v[j].key);
			snprintf(err, errlen, "scheduler %s on %s has no tunable '%s' (has: %s)",
				 c->sched, d->name, k, names.s ? names.s : "none");
			sb_free(&names);
			kv_free(&have);
			free(p);
			goto out;
		}
		int r = write_check(p, k, v, err, errlen);
		free(p);
		if (r)
			goto out;
	}
	for (int i = 0; i < c->queue.n; i++) {
		const char *k = c->queue.v[i].key, *v = c->queue.v[i].val;
		char *q = path_join(d->qdir, k);
		if (!kv_get(&d->old_queue, k)) {
			char *old = sysfs_read(q);
			if (old) {
				journal_sysfs("queue", q, old);
				kv_set(&d->old_queue, k, old);
			}
			free(old);
		}
		int r = write_check(q, k, v, err, errlen);
		free(q);
		if (r)
			goto out;
	}
	rc = 0;
out:
	free(schedp);
	free(iodir);
	return rc;
}

void kdev_restore(struct kdev *d)
{
	if (!d->saved)
		return;
	char *schedp = path_join(d->qdir, "scheduler");
	char *iodir = path_join(d->qdir, "iosched");
	if (d->old_sched[0] && sysfs_write(schedp, d->old_sched))
		warnx_("restore: cannot set %s back to %s: %s", schedp, d->old_sched,
		       strerror(errno));
	for (int i = 0; i < d->old_iosched.n; i++) {
		char *p = path_join(iodir, d->old_iosched.v[i].key);
		char *cur = sysfs_read(p);
		if (cur && strcmp(cur, d->old_iosched.v[i].val) &&
		    sysfs_write(p, d->old_iosched.v[i].val))
			warnx_("restore: cannot write %s=%s: %s", p, d->old_iosched.v[i].val,
			       strerror(errno));
		free(cur);
		free(p);
	}
	for (int i = 0; i < d->old_queue.n; i++) {
		char *p = path_join(d->qdir, d->old_queue.v[i].key);
		if (sysfs_write(p, d->old_queue.v[i].val))
			warnx_("restore: cannot write %s=%s: %s", p, d->old_queue.v[i].val,
			       strerror(errno));
		free(p);
	}
	kv_free(&d->old_iosched);
	kv_free(&d->old_queue);
	d->saved = 0;
	free(schedp);
	free(iodir);
}
