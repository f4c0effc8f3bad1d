/* Kernel cells whose jobs name cgroup= / cgroup_weight=: fio's own cgroup support is cgroup-v1
 * blkio.weight, which today's kernels do not have, so the runner makes the cgroups itself
 * (<hierarchy>/schedengine-xc-NAME: children of the hierarchy's root, one level as the engine's
 * groups are; under a parent cgroup bfq's next_queue_may_preempt(), which looks at the root
 * level only, never lets one group's queue preempt the other's, and the engine's one-level
 * groups do), gives each its bfq weight once bfq is the device's
 * scheduler (blkio.bfq.weight on cgroup v1, io.bfq.weight on v2), and the job overlay moves each
 * job process in from exec_prerun (jobfile.c). Every directory and every write is journaled
 * first, so a killed runner's cgroups are removed by its supervisor or the next runner. */
#include "sb.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CG_PREFIX "schedengine-xc-"
#define CG_OLD_PARENT "schedengine-xc" /* the parent cgroup of earlier versions */

void job_cgroups(const char *job_text, struct kvlist *out)
{
	/* per section: its cgroup and weight; [global]'s are inherited by the job sections */
	char *gname = NULL, *gweight = NULL, *name = NULL, *weight = NULL;
	int in_global = 0, any_section = 0;
	const char *p = job_text;
	for (;;) {
		const char *e = p ? strchr(p, '\n') : NULL;
		int eof = !p || !*p;
		char *line = eof ? NULL : xstrndup(p, e ? (size_t)(e - p) : strlen(p));
		char *t = line ? trim(line) : NULL;
		if (eof || *t == '[') {
			if (any_section && !in_global) {
				const char *n = name ? name : gname, *w = weight ? weight : gweight;
				if (n && *n)
					kv_set(out, n, w ? w : "");
			}
			if (eof) {
				free(line);
				break;
			}
			any_section = 1;
			in_global = !strncmp(t, "[global]", 8);
			free(name);
			free(weight);
			name = weight = NULL;
		} else if (*t && *t != ';' && *t != '#') {
			char *eq = strchr(t, '=');
			if (eq) {
				*eq = 0;
				char *k = trim(t), *v = trim(eq + 1);
				char **dst = NULL;
				if (!strcmp(k, "cgroup"))
					dst = in_global ? &gname : &name;
				else if (!strcmp(k, "cgroup_weight"))
					dst = in_global ? &gweight : &weight;
				if (dst) {
					free(*dst);
					*dst = xstrdup(v);
				}
			}
		}
		free(line);
		p = e ? e + 1 : NULL;
	}
	free(gname);
	free(gweight);
	free(name);
	free(weight);
}

/* The hierarchy with bfq weights: cgroup v1 blkio, else v2 with the io controller. */
static int cg_hierarchy(struct cgset *s)
{
	if (!access("/sys/fs/cgroup/blkio/cgroup.procs", F_OK)) {
		snprintf(s->base, sizeof(s->base), "/sys/fs/cgroup/blkio");
		snprintf(s->weight_file, sizeof(s->weight_file), "blkio.bfq.weight");
		s->v2 = 0;
		return 0;
	}
	static const char *bases[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		char *ctl = path_join(bases[i], "cgroup.controllers");
		char *v = sysfs_read(ctl);
		int io = 0;
		for (char *save = NULL, *t = v ? strtok_r(v, " ", &save) : NULL; t;
		     t = strtok_r(NULL, " ", &save))
			io |= !strcmp(t, "io");
		free(v);
		free(ctl);
		if (io) {
			snprintf(s->base, sizeof(s->base), "%s", bases[i]);
			snprintf(s->weight_file, sizeof(s->weight_file), "io.bfq.weight");
			s->v2 = 1;
			return 0;
		}
	}
	return -1;
}

/* "+io" in a cgroup v2 subtree_control, journaled with how to undo it. */
static int enable_io(const char *dir, char *err, size_t errlen)
{
	char *p = path_join(dir, "cgroup.subtree_control");
	char *cur = sysfs_read(p);
	int on = 0;
	for (char *save = NULL, *t = cur ? strtok_r(cur, " ", &save) : NULL; t;
	     t = strtok_r(NULL, " ", &save))
		on |= !strcmp(t, "io");
	free(cur);
	int rc = 0;
	if (!on) {
		journal_restore(p, "-io");
		if (sysfs_write(p, "+io")) {
			snprintf(err, errlen, "cannot enable the io controller in %s: %s", p,
				 strerror(errno));
			rc = -1;
		}
	}
	free(p);
	return rc;
}

int cg_setup(struct cgset *s, const struct kvlist *groups, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (cg_hierarchy(s)) {
		snprintf(err, errlen,
			 "the job file names cgroups, and this machine has neither the cgroup-v1 "
			 "blkio hierarchy nor cgroup v2 with the io controller: jobs cannot be "
			 "placed in weighted groups");
		return -1;
	}
	if (s->v2 && enable_io(s->base, err, errlen))
		return -1;
	kv_copy(&s->groups, groups);
	for (int i = 0; i < groups->n; i++) {
		const char *g = groups->v[i].key;
		if (strchr(g, '/') || !strcmp(g, ".") || !strcmp(g, "..")) {
			snprintf(err, errlen, "cgroup=%s: a group name, not a path", g);
			return -1;
		}
		char *p = xasprintf("%s/" CG_PREFIX "%s", s->base, g);
		journal_cgroup(p, 1);
		if (mkdir(p, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create cgroup %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		kv_set(&s->paths, g, p);
		free(p);
	}
	return 0;
}

int cg_set_weights(struct cgset *s, const char *sched, char *err, size_t errlen)
{
	for (int i = 0; i < s->groups.n; i++) {
		const char *w = s->groups.v[i].val;
		if (!*w)
			continue;
		char *wf = path_join(kv_get(&s->paths, s->groups.v[i].key), s->weight_file);
		if (access(wf, F_OK)) {
			if (!strcmp(sched, "bfq")) {
				snprintf(err, errlen,
					 "%s missing: bfq's cgroup weights need "
					 "CONFIG_BFQ_GROUP_IOSCHED",
					 wf);
				free(wf);
				return -1;
			}
			free(wf); /* only bfq has group weights: the groups stay, unweighted */
			continue;
		}
		int bad = sysfs_write(wf, w);
		char *got = bad ? NULL : sysfs_read(wf);
		const char *last = got ? strrchr(got, ' ') : NULL;
		last = last ? last + 1 : got;
		if (bad || !last || strcmp(last, w)) {
			snprintf(err, errlen, "%s: wrote %s, reads '%s'%s%s", wf, w, got ? got : "",
				 bad ? ": " : "", bad ? strerror(errno) : "");
			free(got);
			free(wf);
			return -1;
		}
		free(got);
		free(wf);
	}
	return 0;
}

/* rmdir, retried for up to 5 s (the last job processes are still leaving). */
static int rmdir_wait(const char *p)
{
	for (int i = 0; i < 50; i++) {
		if (!rmdir(p) || errno == ENOENT)
			return 0;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return -1;
}

void cg_teardown(struct cgset *s)
{
	for (int i = 0; i < s->paths.n; i++) {
		if (rmdir_wait(s->paths.v[i].val))
			warnx_("cannot remove cgroup %s: %s", s->paths.v[i].val, strerror(errno));
		else
			journal_cgroup(s->paths.v[i].val, 0);
	}
	kv_free(&s->groups);
	kv_free(&s->paths);
}

/* An empty cgroup of a killed runner goes; one with processes is in use. */
static void reclaim_dir(const char *p)
{
	struct stat st;
	if (!stat(p, &st) && S_ISDIR(st.st_mode) && !rmdir(p))
		printf("removed cgroup %s left by a killed runner\n", p);
}

void cg_reclaim_stale(void)
{
	struct cgset s;
	memset(&s, 0, sizeof(s));
	if (cg_hierarchy(&s))
		return;
	DIR *d = opendir(s.base);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, CG_PREFIX, strlen(CG_PREFIX)))
				continue;
			char *p = path_join(s.base, e->d_name);
			reclaim_dir(p);
			free(p);
		}
		closedir(d);
	}
	/* earlier versions' layout: <base>/schedengine-xc/NAME */
	char *old = path_join(s.base, CG_OLD_PARENT);
	d = opendir(old);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char *p = path_join(old, e->d_name);
			reclaim_dir(p);
			free(p);
		}
		closedir(d);
		rmdir(old);
	}
	free(old);
}
