// SPDX-License-Identifier: GPL-2.0
/* Backend table and the doorbell helpers shared by the backends. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "domain.h"

const struct se_backend_ops *se_backend_by_name(const char *name)
{
	static const struct se_backend_ops *const all[] = { &se_backend_io_uring,
							    &se_backend_libaio, &se_backend_psync };

	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(name, all[i]->name))
			return all[i];
	return NULL;
}

void se_doorbell_drain(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		;
}

int se_doorbell_wait(int fd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tp = NULL;
	uint64_t now;
	int r;

	if (deadline != UINT64_MAX) {
		now = se_now_ns();
		if (now >= deadline)
			return 1;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
		tp = &ts;
	}
	r = ppoll(&pfd, 1, tp, NULL);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return 1;
	se_doorbell_drain(fd);
	return 0;
}
