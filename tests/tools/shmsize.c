// SPDX-License-Identifier: GPL-2.0
/* Prints the shared-memory size of a scheduler domain as a function of jobs x iodepth. */
#include <stdio.h>

#include "domain.h"
#include "sched.h"

int main(void)
{
	static const unsigned int jobs[] = { 1, 4, 10, 64, 256 };
	static const unsigned int depths[] = { 1, 32, 64, 1024 };
	struct sched_config cfg;
	size_t sched_bytes;

	sched_config_defaults(&cfg, SCHED_POLICY_NONE);
	sched_bytes = sched_size(&cfg);
	printf("header %zu B + scheduler state (none) %zu B + per request slot %zu B\n",
	       sizeof(struct se_domain), sched_bytes, sizeof(struct se_slot) + sizeof(uint32_t));
	printf("%8s", "jobs\\QD");
	for (unsigned int d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
		printf(" %10u", depths[d]);
	printf("\n");
	for (unsigned int j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		printf("%8u", jobs[j]);
		for (unsigned int d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
			size_t bytes = sizeof(struct se_domain) + sched_bytes +
				       (size_t)jobs[j] * ((size_t)depths[d] *
							  (sizeof(struct se_slot) + sizeof(uint32_t)) + 128);
			printf(" %9.2fM", (double)bytes / (1 << 20));
		}
		printf("\n");
	}
	return 0;
}
