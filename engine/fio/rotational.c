// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "rotational.h"

static int read_flag(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v == 0 || v == 1 ? v : -1;
}

int se_detect_rotational(const char *path, char *src, size_t srclen)
{
	struct stat st;
	unsigned int maj, min;
	char p[256];
	int v;

	if (stat(path, &st))
		return -1;
	if (S_ISBLK(st.st_mode)) {
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
	} else {
		maj = major(st.st_dev);
		min = minor(st.st_dev);
	}
	/* A whole disk has queue/; a partition's queue is its parent's. */
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/queue/rotational", maj, min);
	v = read_flag(p);
	if (v < 0) {
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/rotational", maj, min);
		v = read_flag(p);
	}
	if (v >= 0)
		snprintf(src, srclen, "%s", p);
	return v;
}
