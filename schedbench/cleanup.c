/* What a killed runner leaves behind is undone.
 *
 * Every change a runner makes outside its database is first written to its journal,
 * <tmpdir>/journal-<pid> (fdatasync'd): the sysfs values it is about to change (the scheduler,
 * that scheduler's tunables and queue/ attributes, as they were), the loop images it creates, its
 * scratch directories and the work directory of each fio it starts (fio and its job processes,
 * which fio puts in process groups of their own, all run there). The runner holds an exclusive
 * flock on the journal, shared with its supervisor, a small process forked at start that waits on
 * a pipe: when the runner ends normally it says so and the journal is removed; when the runner
 * dies (SIGKILL, a crash), the pipe closes and the supervisor replays the journal at once: it kills
 * the fio processes, restores the sysfs values, detaches the loop device, removes its image and the
 * scratch directories, and marks the runner's 'running' rows interrupted. If the supervisor died
 * too, the next runner on the same database directory replays every journal nobody holds. */
#include "sb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct jentry {
	char *kind, *a, *b;
};

static int g_jfd = -1;
static char g_jpath[PATH_MAX];
static int g_sv_fd = -1;
static pid_t g_sv_pid;

static void jwrite(const char *kind, const char *a, const char *b)
{
	if (g_jfd < 0)
		return;
	if (strpbrk(a, "\t\n") || (b && strpbrk(b, "\t\n"))) {
		warnx_("journal: cannot record '%s' (tab or newline in it)", a);
		return;
	}
	char *line = b ? xasprintf("%s\t%s\t%s\n", kind, a, b) : xasprintf("%s\t%s\n", kind, a);
	size_t n = strlen(line), off = 0;
	while (off < n) {
		ssize_t w = write(g_jfd, line + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			warnx_("journal %s: %s", g_jpath, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	fdatasync(g_jfd);
	free(line);
}

int journal_open(const char *tmpdir, const char *owner, const char *dbpath)
{
	if (mkdir_p(tmpdir))
		return -1;
	snprintf(g_jpath, sizeof(g_jpath), "%s/journal-%ld", tmpdir, (long)getpid());
	g_jfd = open(g_jpath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (g_jfd < 0)
		return -1;
	if (flock(g_jfd, LOCK_EX | LOCK_NB)) {
		close(g_jfd);
		g_jfd = -1;
		return -1;
	}
	char *adb = abs_path(dbpath);
	jwrite("owner", owner, NULL);
	jwrite("db", adb, NULL);
	free(adb);
	return 0;
}

void journal_sysfs(const char *kind, const char *path, const char *old_value)
{
	jwrite(kind, path, old_value);
}

void journal_loop(const char *image)
{
	jwrite("loop", image, NULL);
}

void journal_dir(const char *path, int add)
{
	jwrite(add ? "dir" : "undir", path, NULL);
}

void journal_pgid(int pgid, const char *cwd, int add)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%d", pgid);
	jwrite(add ? "pgid" : "unpgid", buf, cwd);
}

void journal_modeldev(const char *name, const char *bin)
{
	jwrite("modeldev", name, bin);
}

void journal_modeldev_done(const char *name)
{
	jwrite("unmodeldev", name, NULL);
}

void journal_cgroup(const char *path, int add)
{
	jwrite(add ? "cgroup" : "uncgroup", path, NULL);
}

void journal_restore(const char *path, const char *value)
{
	jwrite("restore", path, value);
}

void journal_remote(const char *server, const char *cleanup_job)
{
	jwrite("remote", server, cleanup_job);
}

void journal_remote_done(const char *server)
{
	jwrite("unremote", server, NULL);
}

/* The entry i of kind is undone by a later entry of kind undo with the same first field. */
static int undone(struct jentry *ents, int n, int i, const char *undo)
{
	for (int j = i + 1; j < n; j++)
		if (!strcmp(ents[j].kind, undo) && !strcmp(ents[j].a, ents[i].a))
			return 1;
	return 0;
}

int supervisor_start(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		signal(SIGINT, SIG_IGN); /* Ctrl-C is the runner's to handle */
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_NAME, "schedbench-sv", 0, 0, 0);
		char c = 0;
		ssize_t n;
		while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n == 1 && c == 'E')
			_exit(0);
		/* the runner is gone without saying so */
		fprintf(stderr, "schedbench: the runner died; cleaning up after it (%s)\n",
			g_jpath);
		journal_replay(g_jpath, 1);
		_exit(0);
	}
	close(p[0]);
	g_sv_fd = p[1];
	g_sv_pid = pid;
	return 0;
}

void journal_close(void)
{
	if (g_sv_fd >= 0) {
		ssize_t w = write(g_sv_fd, "E", 1);
		(void)w;
		close(g_sv_fd);
		g_sv_fd = -1;
		while (waitpid(g_sv_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (g_jfd >= 0) {
		unlink(g_jpath);
		close(g_jfd);
		g_jfd = -1;
	}
}

/* ---- replay ---- */

/* Every process whose working directory is dir (or below it): fio and its job processes (fio puts
 * each job in a process group of its own, so a group kill does not reach them). The scratch
 * directory's name holds the runner's pid and the cell's hash, so nothing else runs there. */
int kill_in_dir(const char *dir, int sig)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	size_t cl = strlen(dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		char path[64], link[PATH_MAX];
		snprintf(path, sizeof(path), "/proc/%ld/cwd", pid);
		ssize_t l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = 0;
		if (strncmp(link, dir, cl) || (link[cl] && link[cl] != '/'))
			continue;
		if (!kill((pid_t)pid, sig))
			n++;
	}
	closedir(d);
	return n;
}

static int loop_of_ours(const char *sysfs_path, struct jentry *ents, int n)
{
	/* the runner's own loop device (/sys/block/loopN/...): only while loopN still maps one of
	 * the journal's images, not a device someone else attached since; a --target device is the
	 * user's */
	int made_loops = 0;
	for (int i = 0; i < n; i++)
		made_loops |= !strcmp(ents[i].kind, "loop");
	if (!made_loops || strncmp(sysfs_path, "/sys/block/loop", 15))
		return 1;
	const char *slash = strchr(sysfs_path + 11, '/');
	if (!slash)
		return 1;
	char *dev = xstrndup(sysfs_path + 11, (size_t)(slash - sysfs_path - 11));
	char *bf = xasprintf("/sys/block/%s/loop/backing_file", dev);
	char *cur = sysfs_read(bf);
	int ok = 0;
	for (int i = 0; cur && i < n; i++)
		if (!strcmp(ents[i].kind, "loop") && !strcmp(ents[i].a, cur))
			ok = 1;
	free(dev);
	free(bf);
	free(cur);
	return ok;
}

static int first_record(struct jentry *ents, int i)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(ents[j].kind, ents[i].kind) && !strcmp(ents[j].a, ents[i].a))
			return 0;
	return 1;
}

int journal_replay(const char *path, int verbose)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text)
		return -1;
	struct jentry *ents = NULL;
	int n = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *t1 = strchr(l, '\t');
		if (!t1)
			continue;
		*t1 = 0;
		char *t2 = strchr(t1 + 1, '\t');
		if (t2)
			*t2 = 0;
		ents = xrealloc(ents, sizeof(*ents) * (size_t)(n + 1));
		ents[n].kind = l;
		ents[n].a = t1 + 1;
		ents[n].b = t2 ? t2 + 1 : NULL;
		n++;
	}
	const char *owner = NULL, *db = NULL;
	for (int i = 0; i < n; i++) {
		if (!strcmp(ents[i].kind, "owner"))
			owner = ents[i].a;
		else if (!strcmp(ents[i].kind, "db"))
			db = ents[i].a;
	}
	/* 1. fio: the process groups the runner started and did not see end */
	int killed = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i].kind, "pgid") || !ents[i].b)
			continue;
		int ended = 0;
		for (int j = i + 1; j < n; j++)
			ended |= !strcmp(ents[j].kind, "unpgid") && !strcmp(ents[j].a, ents[i].a);
		if (!ended)
			killed += kill_in_dir(ents[i].b, SIGKILL);
	}
	if (killed) {
		if (verbose)
			fprintf(stderr, "schedbench: killed %d fio process%s of the dead runner\n",
				killed, killed > 1 ? "es" : "");
		struct timespec ts = {0, 300 * 1000 * 1000};
		nanosleep(&ts, NULL); /* let them go before their files are removed */
	}
	/* 1b. the scratch directories on fio servers: a cleanup job through fio --client */
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i].kind, "remote") || !ents[i].b ||
		    undone(ents, n, i, "unremote") || access(ents[i].b, R_OK))
			continue;
		char *client = xasprintf("--client=%s", ents[i].a);
		const char *argv[] = {fio_bin_path(), client, ents[i].b, NULL};
		int rc;
		free(run_capture_all(argv, &rc));
		if (verbose)
			fprintf(stderr, "schedbench: cleanup job on %s: %s\n", ents[i].a,
				rc ? "failed (the server is gone?)" : "ok");
		free(client);
	}
	/* 2. sysfs as it was before the runner: the scheduler, then its tunables, then queue/,
	 * then the device's bdi/ */
	static const char *order[] = {"sched", "iosched", "queue", "bdi"};
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (int i = 0; i < n; i++) {
			if (strcmp(ents[i].kind, order[o]) || !ents[i].b ||
			    !first_record(ents, i) || !loop_of_ours(ents[i].a, ents, n))
				continue;
			char *cur = sysfs_read(ents[i].a);
			int same = 0;
			if (cur &&
			    o == 0) { /* "mq-deadline [bfq] none": compare the selected one */
				const char *a = strchr(cur, '['), *b = a ? strchr(a, ']') : NULL;
				same = a && b ? (size_t)(b - a - 1) == strlen(ents[i].b) &&
						    !strncmp(a + 1, ents[i].b, (size_t)(b - a - 1))
					      : !strcmp(cur, ents[i].b);
			} else if (cur) {
				same = !strcmp(cur, ents[i].b);
			}
			if (!same) {
				if (sysfs_write(ents[i].a, ents[i].b))
					fprintf(stderr, "schedbench: cannot restore %s=%s: %s\n",
						ents[i].a, ents[i].b, strerror(errno));
				else if (verbose)
					fprintf(stderr, "schedbench: restored %s=%s\n", ents[i].a,
						ents[i].b);
			}
			free(cur);
		}
	/* 2b. the cgroups it made, children first (their jobs were killed in 1) */
	for (int i = n - 1; i >= 0; i--) {
		if (strcmp(ents[i].kind, "cgroup") || undone(ents, n, i, "uncgroup") ||
		    access(ents[i].a, F_OK))
			continue;
		int ok = 0;
		for (int t = 0; t < 50 && !ok; t++) {
			ok = !rmdir(ents[i].a) || errno == ENOENT;
			if (!ok) {
				struct timespec ts = {0, 100 * 1000 * 1000};
				nanosleep(&ts, NULL);
			}
		}
		if (verbose)
			fprintf(stderr, "schedbench: %s cgroup %s\n",
				ok ? "removed" : "cannot remove", ents[i].a);
	}
	/* 2c. other files written back (cgroup.subtree_control) */
	for (int i = n - 1; i >= 0; i--) {
		if (strcmp(ents[i].kind, "restore") || !ents[i].b ||
		    undone(ents, n, i, "unrestore"))
			continue;
		if (sysfs_write(ents[i].a, ents[i].b) && verbose)
			fprintf(stderr, "schedbench: cannot write %s to %s: %s\n", ents[i].b,
				ents[i].a, strerror(errno));
	}
	/* 2d. model-backed devices it started (their daemons also watch the runner) */
	int daemons = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i].kind, "modeldev") || !ents[i].b ||
		    undone(ents, n, i, "unmodeldev"))
			continue;
		const char *argv[] = {ents[i].b, "stop", "--name", ents[i].a, NULL};
		int rc;
		free(run_capture_all(argv, &rc));
		if (verbose)
			fprintf(stderr, "schedbench: stopped model-backed device %s\n", ents[i].a);
		const char *rv[] = {ents[i].b, "reclaim", NULL};
		free(run_capture_all(rv, &rc));
		daemons++;
	}
	(void)daemons;
	/* 3. loop devices over the runner's images, and the images */
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i].kind, "loop"))
			continue;
		const char *argv[] = {"losetup", "-j", ents[i].a, "-O", "NAME", "-n", NULL};
		int rc;
		char *out = run_capture(argv, &rc);
		char *save = NULL;
		for (char *dev = out ? strtok_r(out, "\n", &save) : NULL; dev;
		     dev = strtok_r(NULL, "\n", &save)) {
			const char *dv[] = {"losetup", "-d", trim(dev), NULL};
			char *o2 = run_capture_all(dv, &rc);
			if (verbose)
				fprintf(stderr, "schedbench: detached %s (%s)\n", trim(dev),
					rc ? (o2 ? trim(o2) : "failed") : "ok");
			free(o2);
		}
		free(out);
		if (!unlink(ents[i].a) && verbose)
			fprintf(stderr, "schedbench: removed %s\n", ents[i].a);
	}
	/* 4. scratch directories not removed by the runner itself */
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i].kind, "dir"))
			continue;
		int gone = 0;
		for (int j = i + 1; j < n; j++)
			gone |= !strcmp(ents[j].kind, "undir") && !strcmp(ents[j].a, ents[i].a);
		if (!gone && !access(ents[i].a, F_OK)) {
			rm_rf(ents[i].a);
			if (verbose)
				fprintf(stderr, "schedbench: removed %s\n", ents[i].a);
		}
	}
	/* 5. its runs: 'running' -> 'interrupted' */
	if (owner && db && !access(db, F_OK)) {
		char err[512];
		sqlite3 *h = db_open(db, err, sizeof(err));
		if (h) {
			db_mark_interrupted(h, owner);
			if (verbose && sqlite3_changes(h))
				fprintf(stderr, "schedbench: marked %d run%s of %s interrupted\n",
					sqlite3_changes(h), sqlite3_changes(h) > 1 ? "s" : "",
					owner);
			db_close(h);
		}
	}
	unlink(path);
	free(ents);
	free(text);
	return 0;
}

int journals_reclaim(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "journal-", 8))
			continue;
		char *p = path_join(tmpdir, e->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		/* held by a live runner or its supervisor: not ours to touch */
		if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
			printf("cleaning up after a runner that died (%s):\n", p);
			fflush(stdout);
			journal_replay(p, 1);
			n++;
		}
		if (fd >= 0)
			close(fd);
		free(p);
	}
	closedir(d);
	return n;
}
