/* A matrix is checked whole before its first cell runs: its x_axis and baseline, every engine
 * option of every embedded cell, and every cell's generated job file through fio's own parser
 * (fio --parse-only, with the engine loaded). Errors name the matrix line that caused them. */
#include "sb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int verr(struct matrix *m, int line, const char *fmt, ...) SB_ATTR_PRINTF(3, 4);
static int verr(struct matrix *m, int line, const char *fmt, ...)
{
	char msg[800];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(m->err, sizeof(m->err), "%s:%d: %s", m->path, line > 0 ? line : 1, msg);
	return -1;
}

static int line_of(const struct cell *c, const char *key)
{
	const char *l = kv_get(&c->lines, key);
	return l ? atoi(l) : c->line;
}

char *cell_config(const struct matrix *m, const struct cell *c)
{
	struct strbuf b;
	int n = 0;
	const char *only = NULL;
	sb_init(&b);
	for (int i = 0; i < m->naxes; i++) {
		const struct axis *a = &m->axes[i];
		if (a->nalts < 2 || (m->x_axis && !strcmp(a->name, m->x_axis)))
			continue;
		const char *lab = kv_get(&c->labels, a->name);
		sb_addf(&b, "%s%s=%s", n ? " " : "", a->name, lab ? lab : "");
		only = lab;
		n++;
	}
	if (n == 0) {
		sb_free(&b);
		return NULL;
	}
	if (n == 1) {
		sb_free(&b);
		return xstrdup(only ? only : "");
	}
	return sb_steal(&b);
}

/* Whether every whitespace-separated word of want is a label (or "axis=label") of config. */
static int words_match(const char *config, const char *want)
{
	char *w = xstrdup(want), *save = NULL;
	int all = 1;
	for (char *t = strtok_r(w, " \t", &save); t && all; t = strtok_r(NULL, " \t", &save)) {
		char *c = xstrdup(config), *s2 = NULL;
		int hit = 0;
		for (char *u = strtok_r(c, " ", &s2); u && !hit; u = strtok_r(NULL, " ", &s2)) {
			const char *eq = strchr(u, '=');
			hit = !strcmp(u, t) || (eq && !strcmp(eq + 1, t));
		}
		free(c);
		all = hit;
	}
	free(w);
	return all;
}

/* The baseline names one configuration as the reports will: exactly, as a substring, or by its
 * labels in any order (scripts/schedreport/compare.py does the same). */
static int check_baseline(struct matrix *m, struct cell *cells, int n)
{
	struct kvlist configs = {0};
	for (int i = 0; i < n; i++) {
		char *c = cell_config(m, &cells[i]);
		if (c)
			kv_set(&configs, c, "");
		free(c);
	}
	int rc = 0;
	if (!configs.n) {
		rc = verr(m, m->baseline_line,
			  "baseline '%s': this matrix has no configuration to compare (every axis "
			  "but x_axis has "
			  "one alternative)",
			  m->baseline);
	} else {
		int hit = 0;
		for (int i = 0; i < configs.n && !hit; i++)
			hit = !strcmp(configs.v[i].key, m->baseline);
		for (int i = 0; i < configs.n && !hit; i++)
			hit = strstr(configs.v[i].key, m->baseline) != NULL;
		for (int i = 0; i < configs.n && !hit; i++)
			hit = words_match(configs.v[i].key, m->baseline);
		if (!hit) {
			struct strbuf b;
			sb_init(&b);
			for (int i = 0; i < configs.n; i++)
				sb_addf(&b, "%s'%s'", i ? ", " : "", configs.v[i].key);
			rc = verr(m, m->baseline_line,
				  "baseline '%s' matches no configuration (%s)", m->baseline, b.s);
			sb_free(&b);
		}
	}
	kv_free(&configs);
	return rc;
}

/* "sched=cfq tunable (...)" in the engine's help: the scheduler the option belongs to. */
static char *tunable_sched(const char *help)
{
	if (!help || strncmp(help, "sched=", 6))
		return NULL;
	const char *e = strchr(help + 6, ' ');
	if (!e || strncmp(e, " tunable", 8))
		return NULL;
	return xstrndup(help + 6, (size_t)(e - help - 6));
}

/* Does the help name sched as one of the tunable's schedulers ("[also sched=bfq ...]")? */
static bool tunable_also(const char *help, const char *sched)
{
	size_t n = strlen(sched);

	for (const char *p = help; p && (p = strstr(p, "[also sched=")); p++) {
		const char *v = p + strlen("[also sched=");

		if (!strncmp(v, sched, n) && (v[n] == ',' || v[n] == ']' || v[n] == ':'))
			return true;
	}
	return false;
}

static int check_engine_options(struct matrix *m, const struct cell *c, const char *engine_so)
{
	for (int i = 0; i < c->engine_opts.n; i++) {
		const char *k = c->engine_opts.v[i].key;
		if (!strcmp(k, "sched"))
			continue;
		if (!fio_engine_has_option(engine_so, k)) {
			const char *near = fio_closest_option(engine_so, k);
			return verr(
			    m, line_of(c, k),
			    "'%s' is neither a fio option nor an option of the engine %s%s%s%s", k,
			    engine_so, near ? " (did you mean " : "", near ? near : "",
			    near ? "?)" : "");
		}
		const char *help = fio_engine_option_help(engine_so, k);
		char *ts = tunable_sched(help);
		const char *sched = c->sched && *c->sched ? c->sched : "none";
		if (ts && strcmp(ts, sched) && !tunable_also(help, sched)) {
			int r = verr(m, line_of(c, k),
				     "'%s' is a sched=%s tunable, and cell '%s' runs sched=%s", k,
				     ts, c->name, sched);
			free(ts);
			return r;
		}
		free(ts);
	}
	return 0;
}

/* fio --parse-only of one generated job file; its stdout+stderr go to out. Returns the pid. */
static pid_t spawn_parse(const char *jobfile, const char *out, const struct kvlist *env,
			 const char *target)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int nul = open("/dev/null", O_RDONLY);
	if (fd < 0 || nul < 0)
		_exit(126);
	dup2(nul, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	for (int i = 0; env && i < env->n; i++)
		setenv(env->v[i].key, env->v[i].val, 1);
	setenv("TARGET", target, 1);
	execlp(fio_bin_path(), fio_bin_path(), "--parse-only", jobfile, (char *)NULL);
	fprintf(stderr, "cannot run %s: %s\n", fio_bin_path(), strerror(errno));
	_exit(127);
}

/* The matrix line behind fio's complaint: the option it names, if a token set it. */
static int blame_line(const struct cell *c, const char *msg)
{
	const char *p = strstr(msg, "Bad option <");
	const char *key = NULL;
	size_t kl = 0;
	if (p) {
		key = p + 12;
		kl = strcspn(key, "=>");
	} else if ((p = strstr(msg, "failed parsing "))) {
		key = p + 15;
		kl = strcspn(key, "= \n");
	}
	if (key && kl) {
		char *k = xstrndup(key, kl);
		int l = line_of(c, k);
		free(k);
		return l;
	}
	return c->line;
}

/* The line of fio's output that says what is wrong: the engine's own message first, then fio's
 * "Bad option", "failed parsing", then any other "fio:" line but "job ... dropped". */
static char *first_error(const char *out)
{
	static const char *prefer[] = {"schedengine:", "Bad option", "fio: failed parsing",
				       "fio:", ""};
	for (size_t k = 0; k < sizeof(prefer) / sizeof(prefer[0]); k++) {
		const char *p = out;
		while (p && *p) {
			const char *e = strchr(p, '\n');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			char *l = xstrndup(p, n);
			int dropped = strstr(l, "job ") && strstr(l, " dropped");
			if (n && !dropped && !strncmp(l, prefer[k], strlen(prefer[k])))
				return l;
			free(l);
			p = e ? e + 1 : NULL;
		}
	}
	return xstrdup("");
}

int matrix_validate(struct matrix *m, struct cell *cells, int ncells, const char *engine_so,
		    const char *tmpdir)
{
	(void)tmpdir;
	if (m->baseline && check_baseline(m, cells, ncells))
		return -1;
	int any_embedded = 0;
	for (int i = 0; i < ncells; i++)
		if (cells[i].mode == MODE_EMBEDDED) {
			any_embedded = 1;
			if (check_engine_options(m, &cells[i], engine_so))
				return -1;
		}
	/* every cell's job file as fio will read it */
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/schedbench-validate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		int r = verr(m, 1, "cannot create a directory for fio --parse-only: %s",
			     strerror(errno));
		free(dir);
		return r;
	}
	int stats = any_embedded && fio_engine_has_option(engine_so, "sched_stats");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int par = ncpu > 0 ? (int)ncpu : 1;
	pid_t *pids = xcalloc((size_t)ncells, sizeof(pid_t));
	int *status = xcalloc((size_t)ncells, sizeof(int));
	char *target = path_join(dir, "target");
	char *statsp = path_join(dir, "sched_stats.json");
	int running = 0, next = 0, done = 0, rc = 0;
	while (done < ncells) {
		while (running < par && next < ncells) {
			struct cell *c = &cells[next];
			if (c->virt) {
				/* read by fio --showcmd with the engine loaded: schedsim --check */
				pids[next++] = 0;
				done++;
				continue;
			}
			char *gen =
			    jobfile_overlay(c->job_text, c, engine_so, stats ? statsp : NULL);
			char *jf = xasprintf("%s/cell-%d.fio", dir, next);
			char *out = xasprintf("%s/cell-%d.out", dir, next);
			if (write_file(jf, gen, strlen(gen))) {
				rc = verr(m, c->line, "cannot write %s: %s", jf, strerror(errno));
				pids[next] = -1;
			} else {
				pids[next] = spawn_parse(jf, out, &c->env, target);
			}
			if (pids[next] > 0)
				running++;
			else
				status[next] = -1, done++;
			free(gen);
			free(jf);
			free(out);
			next++;
		}
		/* only our own children: a supervisor, if any, is not reaped here */
		int reaped = 0;
		for (int i = 0; i < next; i++) {
			int st;
			if (pids[i] <= 0 || waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
			pids[i] = 0;
			running--;
			done++;
			reaped++;
		}
		if (!reaped && running) {
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	for (int i = 0; i < ncells && !rc; i++) {
		if (status[i] == 0)
			continue;
		char *out = xasprintf("%s/cell-%d.out", dir, i);
		size_t len;
		char *text = read_file(out, &len);
		char *msg = first_error(text ? text : "");
		if (status[i] == 127)
			rc = verr(m, 1, "cannot run fio (%s) to check the job files: %s",
				  fio_bin_path(), msg);
		else
			rc = verr(m, blame_line(&cells[i], text ? text : ""),
				  "cell '%s': fio --parse-only rejects its job file (%s): %s",
				  cells[i].name, cells[i].job_path,
				  *msg ? msg : "exit status not 0");
		free(msg);
		free(text);
		free(out);
	}
	rm_rf(dir);
	free(dir);
	free(target);
	free(statsp);
	free(pids);
	free(status);
	return rc;
}
