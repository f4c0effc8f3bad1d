/* The model-backed block device of a matrix with `device = model:KIND` (build/modeldev, FUSE +
 * loop): started once per run, reset before each kernel cell, its statistics stored with each
 * kernel run, stopped at the end (and by the journal's replay, and by the daemon itself when the
 * runner dies: --watch-pid). Also the kernel cells' bdi/ settings (bdi.KEY=V tokens). */
#include "sb.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devmodel.h"

const char *sb_modeldev_bin(void)
{
	static char *bin;
	if (bin)
		return bin;
	const char *e = getenv("SCHEDBENCH_MODELDEV");
	if (e && *e)
		return bin = xstrdup(e);
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		char *d = dir_name(buf);
		char *p = path_join(d, "modeldev");
		free(d);
		if (!access(p, X_OK))
			return bin = p;
		free(p);
	}
	return bin = xstrdup("modeldev");
}

/* A number after "key": in a flat JSON text (modeldev's info); -1 when absent. */
static double json_number(const char *json, const char *key)
{
	char *pat = xasprintf("\"%s\":", key);
	const char *p = json ? strstr(json, pat) : NULL;
	double v = -1;
	if (p) {
		char *end;
		v = strtod(p + strlen(pat), &end);
		if (end == p + strlen(pat))
			v = -1;
	}
	free(pat);
	return v;
}

unsigned long long mdev_matrix_size(const struct matrix *m)
{
	if (m->device_size)
		return parse_size_bytes(m->device_size) & ~4095ull;
	struct devmodel_params p =
	    devmodel_params_defaults((enum devmodel_kind)devmodel_kind_by_name(m->model_kind));
	char e[256];
	for (int i = 0; i < m->device_params.n; i++)
		devmodel_set_param(&p, m->device_params.v[i].key, m->device_params.v[i].val, e,
				   sizeof(e));
	return p.capacity_bytes & ~4095ull;
}

static char *mdev_ctl(const struct mdev *d, const char *what, int *rc)
{
	const char *argv[] = {sb_modeldev_bin(), what, "--name", d->name, NULL};
	return run_capture_all(argv, rc);
}

int mdev_start(struct mdev *d, const struct matrix *m, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "sb%ld", (long)getpid());
	const char *bin = sb_modeldev_bin();
	if (strchr(bin, '/') && access(bin, X_OK)) {
		snprintf(d->refused, sizeof(d->refused),
			 "%s is not built (make; it needs libfuse3-dev)", bin);
		return 3;
	}
	/* what killed runners left: mounts, loop devices of dead daemons */
	const char *rv[] = {bin, "reclaim", NULL};
	int rc = 0;
	free(run_capture_all(rv, &rc));
	char pid[32];
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	const char **argv = xcalloc((size_t)m->device_params.n + 12, sizeof(char *));
	char **owned = xcalloc((size_t)m->device_params.n + 1, sizeof(char *));
	int n = 0;
	argv[n++] = bin;
	argv[n++] = "start";
	argv[n++] = "--name";
	argv[n++] = d->name;
	argv[n++] = "--model";
	argv[n++] = m->model_kind;
	if (m->device_size) {
		argv[n++] = "--size";
		argv[n++] = m->device_size;
	}
	for (int i = 0; i < m->device_params.n; i++) {
		owned[i] = xasprintf("%s=%s", m->device_params.v[i].key, m->device_params.v[i].val);
		argv[n++] = owned[i];
	}
	argv[n++] = "--watch-pid";
	argv[n++] = pid;
	argv[n] = NULL;
	journal_modeldev(d->name, bin); /* before it exists: a killed runner leaves nothing */
	char *out = run_capture_all(argv, &rc);
	for (int i = 0; i < m->device_params.n; i++)
		free(owned[i]);
	free(owned);
	free(argv);
	if (!out || rc != 0) {
		char *t = out ? trim(out) : (char *)"cannot run modeldev";
		/* the last line says why */
		char *nl = strrchr(t, '\n');
		if (rc == 3) {
			snprintf(d->refused, sizeof(d->refused), "%s", nl ? nl + 1 : t);
			free(out);
			return 3;
		}
		snprintf(err, errlen, "modeldev start --model %s failed (rc %d): %s", m->model_kind,
			 rc, nl ? nl + 1 : t);
		free(out);
		return -1;
	}
	/* the device on the last line (messages may come first) */
	char *t = trim(out), *nl = strrchr(t, '\n');
	snprintf(d->dev, sizeof(d->dev), "%s", nl ? nl + 1 : t);
	free(out);
	d->up = 1;
	if (strncmp(d->dev, "/dev/", 5)) {
		snprintf(err, errlen, "modeldev start printed '%s', expected /dev/loopN", d->dev);
		mdev_stop(d);
		return -1;
	}
	d->info = mdev_ctl(d, "info", &rc);
	if (!d->info || rc) {
		snprintf(err, errlen, "modeldev info --name %s failed: %s", d->name,
			 d->info ? trim(d->info) : "");
		mdev_stop(d);
		return -1;
	}
	char *j = json_strip(d->info);
	free(d->info);
	d->info = j;
	double tags = json_number(d->info, "tags"), size = json_number(d->info, "size");
	if (tags < 1 || size < 1) {
		snprintf(err, errlen, "modeldev info: no tags or size in %.200s", d->info);
		mdev_stop(d);
		return -1;
	}
	d->tags = (unsigned)tags;
	d->size = (unsigned long long)size;
	return 0;
}

/* A fresh model and statistics. The daemon refuses while I/O is in flight: fio has exited, but
 * the loop device may still complete its last requests, so it is retried for about 2 s. */
int mdev_reset(struct mdev *d, char *err, size_t errlen)
{
	int rc = 0;
	char *out = NULL;
	for (int i = 0; i < 40; i++) {
		free(out);
		out = mdev_ctl(d, "reset", &rc);
		if (out && rc == 0)
			break;
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (rc)
		snprintf(err, errlen, "modeldev reset --name %s failed for 2 s: %s", d->name,
			 out ? trim(out) : "cannot run modeldev");
	free(out);
	return rc ? -1 : 0;
}

char *mdev_stats(struct mdev *d)
{
	/* what the page cache holds for the device goes out first (the kernel side's writes) */
	const char *fb[] = {"blockdev", "--flushbufs", d->dev, NULL};
	int rc;
	free(run_capture_all(fb, &rc));
	char *out = mdev_ctl(d, "stats", &rc);
	char *j = rc == 0 ? json_strip(out) : NULL;
	free(out);
	return j;
}

void mdev_stop(struct mdev *d)
{
	if (!d->up)
		return;
	int rc;
	char *out = mdev_ctl(d, "stop", &rc);
	if (rc)
		warnx_("modeldev stop --name %s: %s", d->name, out ? trim(out) : "failed");
	free(out);
	journal_modeldev_done(d->name);
	d->up = 0;
}

void mdev_free(struct mdev *d)
{
	free(d->info);
	d->info = NULL;
}

/* ---- bdi/: the kernel cells' writeback limits of the device ---- */

/* max_bytes and min_bytes are kept as ratios of the dirty limit: they read back rounded. */
static int bdi_close(const char *key, const char *want, const char *got)
{
	if (!strcmp(want, got))
		return 1;
	char *e1, *e2;
	double a = strtod(want, &e1), b = strtod(got, &e2);
	if (!*want || !*got || *e1 || *e2)
		return 0;
	if (!strcmp(key, "max_bytes") || !strcmp(key, "min_bytes"))
		return a == b || (a > 0 && b >= a * 0.98 && b <= a * 1.02);
	return a == b;
}

int kdev_bdi_apply(struct kdev *d, const struct cell *c, char *err, size_t errlen)
{
	if (!c->bdi.n)
		return 0;
	char *dir = xasprintf("/sys/block/%s/bdi", d->name);
	int rc = -1;
	if (!d->bdi_saved) {
		/* one setting: max_bytes is written as a ratio, so the ratios are what is restored
		 */
		static const char *keep[] = {"strict_limit", "min_ratio", "max_ratio"};
		kv_free(&d->old_bdi);
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
			char *p = path_join(dir, keep[i]);
			char *v = sysfs_read(p);
			if (v) {
				journal_sysfs("bdi", p, v);
				kv_set(&d->old_bdi, keep[i], v);
			}
			free(v);
			free(p);
		}
		d->bdi_saved = 1;
	}
	for (int i = 0; i < c->bdi.n; i++) {
		const char *k = c->bdi.v[i].key, *v = c->bdi.v[i].val;
		char *p = path_join(dir, k);
		if (access(p, F_OK)) {
			snprintf(err, errlen, "bdi.%s: %s has no file %s", k, dir, k);
			free(p);
			goto out;
		}
		if (!kv_get(&d->old_bdi, k) && strcmp(k, "max_bytes") && strcmp(k, "min_bytes")) {
			char *old = sysfs_read(p);
			if (old) {
				journal_sysfs("bdi", p, old);
				kv_set(&d->old_bdi, k, old);
			}
			free(old);
		}
		if (sysfs_write(p, v)) {
			snprintf(err, errlen, "cannot set bdi.%s=%s (%s): %s", k, v, p,
				 strerror(errno));
			free(p);
			goto out;
		}
		char *got = sysfs_read(p);
		int ok = got && bdi_close(k, v, got);
		if (!ok)
			snprintf(err, errlen, "read-back differs: wrote bdi.%s=%s, %s reads '%s'",
				 k, v, p, got ? got : "");
		free(got);
		free(p);
		if (!ok)
			goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

void kdev_bdi_restore(struct kdev *d)
{
	if (!d->bdi_saved)
		return;
	/* in the reverse order of saving: the ratios last, strict_limit first */
	for (int i = d->old_bdi.n - 1; i >= 0; i--) {
		char *p = xasprintf("/sys/block/%s/bdi/%s", d->name, d->old_bdi.v[i].key);
		char *cur = sysfs_read(p);
		if ((!cur || strcmp(cur, d->old_bdi.v[i].val)) &&
		    sysfs_write(p, d->old_bdi.v[i].val))
			warnx_("restore: cannot write %s=%s: %s", p, d->old_bdi.v[i].val,
			       strerror(errno));
		free(cur);
		free(p);
	}
	kv_free(&d->old_bdi);
	d->bdi_saved = 0;
}
