/* The process of one run: fio (here or through fio --client) or the simulator, in its work
 * directory and a process group of its own (killed with the runner: the supervisor and
 * PR_SET_PDEATHSIG), stdout through a pipe (fio's status lines, shown for long cells), stderr
 * into a file. Polled, so that several run at once (one per host). */
#include "sb.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int progress_interval(void)
{
	const char *e = getenv("SCHEDBENCH_PROGRESS");
	int v = e && *e ? atoi(e) : 10;
	return v > 0 ? v : 10;
}

/* The last "Jobs: ..." status line fio printed (its ETA output, \r-separated). */
static void last_status(const char *buf, size_t n, char *out, size_t outlen)
{
	const char *best = NULL;
	size_t bl = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && buf[j] != '\r' && buf[j] != '\n')
			j++;
		/* only whole lines: fio writes one in pieces */
		if (j < n && j - i > 5 && !strncmp(buf + i, "Jobs:", 5))
			best = buf + i, bl = j - i;
		i = j + 1;
	}
	if (best) {
		if (bl >= outlen)
			bl = outlen - 1;
		memcpy(out, best, bl);
		out[bl] = 0;
	}
}

int child_start(struct child *ch, const char *workdir, const char *const argv[],
		const struct kvlist *env, const char *target, const char *errp, const char *stdoutp)
{
	memset(ch, 0, sizeof(*ch));
	ch->pfd = -1;
	ch->sofd = -1;
	snprintf(ch->workdir, sizeof(ch->workdir), "%s", workdir);
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (chdir(workdir))
			_exit(126);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int n = open("/dev/null", O_RDONLY);
		if (e < 0 || n < 0)
			_exit(126);
		dup2(n, 0);
		dup2(pfd[1], 1);
		dup2(e, 2);
		for (int i = 0; env && i < env->n; i++)
			setenv(env->v[i].key, env->v[i].val, 1);
		if (target)
			setenv("TARGET", target, 1);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "schedbench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	setpgid(pid, pid); /* also here: no window in which a signal to the group misses it */
	journal_pgid(pid, workdir, 1);
	ch->pid = pid;
	ch->pfd = pfd[0];
	ch->sofd = open(stdoutp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ch->start = ch->last_print = now_mono();
	ch->pipe_open = 1;
	ch->every = progress_interval();
	return 0;
}

/* One step: reads what it printed (waiting up to timeout_ms for it), shows a long run's
 * status, passes on an interruption, enforces the time budget. 1 when it has exited (reaped,
 * ch->rc set), else 0. */
int child_poll(struct child *ch, int timeout_ms)
{
	if (ch->done)
		return 1;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	int r = waitid(P_PID, (id_t)ch->pid, &si, WEXITED | WNOHANG | WNOWAIT);
	int exited = (r == 0 && si.si_pid == ch->pid) || (r < 0 && errno != EINTR);
	if (!exited && ch->pipe_open) {
		struct pollfd pf = {.fd = ch->pfd, .events = POLLIN};
		if (poll(&pf, 1, timeout_ms) > 0) {
			char buf[4096];
			ssize_t n = read(ch->pfd, buf, sizeof(buf));
			if (n > 0) {
				if (ch->sofd >= 0 && write(ch->sofd, buf, (size_t)n) < 0)
					ch->sofd = -1;
				ch->tail = xrealloc(ch->tail, ch->tail_len + (size_t)n);
				memcpy(ch->tail + ch->tail_len, buf, (size_t)n);
				ch->tail_len += (size_t)n;
				last_status(ch->tail, ch->tail_len, ch->status, sizeof(ch->status));
				if (ch->tail_len > 8192) { /* keep the end: the latest status */
					memmove(ch->tail, ch->tail + ch->tail_len - 4096, 4096);
					ch->tail_len = 4096;
				}
			} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				ch->pipe_open = 0;
			}
		}
	} else if (!exited && timeout_ms > 0) {
		struct timespec ts = {0, (long)timeout_ms * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	double now = now_mono(), el = now - ch->start;
	int long_cell = ch->expect_s <= 0 || ch->expect_s >= ch->every;
	if (!exited && ch->show && long_cell && ch->status[0] &&
	    now - ch->last_print >= ch->every && !g_interrupted) {
		char e[32];
		fmt_hms(e, sizeof(e), el);
		int tty = isatty(1) && !ch->prefix[0];
		if (tty)
			printf("\r      %s %.*s\033[K", e, 100, ch->status);
		else
			printf("      %s%s %.*s\n", ch->prefix, e, 100, ch->status);
		fflush(stdout);
		ch->last_print = now;
		ch->printed = tty;
	}
	if (!exited) {
		if (g_interrupted && ch->sent == 0) {
			kill(-ch->pid, SIGINT); /* fio stops its jobs and still writes its output */
			ch->sent = 1;
			ch->start = now_mono();
		} else if (ch->sent == 1 && el > 10) {
			kill(-ch->pid, SIGKILL);
			kill_in_dir(ch->workdir, SIGKILL);
			ch->sent = 2;
		} else if (!g_interrupted && ch->budget_s > 0 && el > ch->budget_s &&
			   ch->sent == 0) {
			fprintf(stderr, "schedbench: %s exceeded %.0f s, stopping it\n",
				ch->what[0] ? ch->what : "fio", ch->budget_s);
			kill(-ch->pid, SIGTERM);
			ch->sent = 1;
			ch->start = now_mono();
		}
		return 0;
	}
	if (ch->printed)
		printf("\n");
	/* whatever is left of it goes with it (fio's job processes have process groups of their
	 * own, but all run in the work directory), then it is reaped */
	kill(-ch->pid, SIGKILL);
	kill_in_dir(ch->workdir, SIGKILL);
	int st = 0;
	while (waitpid(ch->pid, &st, 0) < 0 && errno == EINTR)
		;
	/* what is left in the pipe */
	if (ch->pipe_open) {
		char buf[4096];
		ssize_t n;
		int fl = fcntl(ch->pfd, F_GETFL);
		fcntl(ch->pfd, F_SETFL, fl | O_NONBLOCK);
		while ((n = read(ch->pfd, buf, sizeof(buf))) > 0)
			if (ch->sofd >= 0 && write(ch->sofd, buf, (size_t)n) < 0)
				break;
	}
	journal_pgid(ch->pid, ch->workdir, 0);
	close(ch->pfd);
	if (ch->sofd >= 0)
		close(ch->sofd);
	free(ch->tail);
	ch->tail = NULL;
	ch->done = 1;
	ch->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return 1;
}

int child_wait(struct child *ch)
{
	while (!child_poll(ch, 100))
		;
	return ch->rc;
}
