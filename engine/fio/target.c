// SPDX-License-Identifier: GPL-2.0
/* The target's block device, as sysfs shows it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "target.h"

static int read_int(const char *dir, const char *file)
{
	char p[512];
	FILE *f;
	int v = -1;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int read_elevator(const char *dir)
{
	char p[512], line[256];
	FILE *f;
	int r = -1;

	snprintf(p, sizeof(p), "%s/queue/scheduler", dir);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		r = !strstr(line, "[none]");
	fclose(f);
	return r;
}

/*
 * A file fio has not laid out yet (checked before any job runs): it will be created in its
 * directory, on that directory's file system, so its device is the nearest existing parent's.
 * Without this a job whose file exists and one whose file does not were given different
 * devices (hw_queue_depth 128 and 32) and refused as disagreeing.
 */
static int parent_stat(const char *path, struct stat *st)
{
	char p[4096];
	char *slash;

	if (errno != ENOENT || snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -1;
	while ((slash = strrchr(p, '/'))) {
		if (slash == p) {
			p[1] = '\0';
			return stat(p, st);
		}
		*slash = '\0';
		if (!stat(p, st))
			return 0;
		if (errno != ENOENT)
			return -1;
	}
	return stat(".", st);
}

int se_target_probe(const char *path, struct se_target *t)
{
	struct stat st;
	unsigned int maj, min;
	char dir[256];

	memset(t, 0, sizeof(*t));
	t->rotational = t->nr_tags = t->nr_requests = t->has_elevator = -1;
	if (stat(path, &st) && parent_stat(path, &st))
		return -1;
	if (S_ISBLK(st.st_mode)) {
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
	} else {
		maj = major(st.st_dev);
		min = minor(st.st_dev);
	}
	/* A whole disk has queue/; a partition's queue is its parent's. */
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", maj, min);
	if (read_int(dir, "queue/rotational") < 0)
		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/..", maj, min);
	t->rotational = read_int(dir, "queue/rotational");
	if (t->rotational < 0)
		return -1;
	t->nr_tags = read_int(dir, "mq/0/nr_tags");
	t->nr_requests = read_int(dir, "queue/nr_requests");
	t->has_elevator = read_elevator(dir);
	snprintf(t->dev, sizeof(t->dev), "%u:%u", maj, min);
	return 0;
}
