/* Matrix files: an INI of [matrix], [set] and [axis.NAME] sections; see README-matrix.md. */
#include "sb.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int merr(struct matrix *m, int line, const char *fmt, ...) SB_ATTR_PRINTF(3, 4);
static int merr(struct matrix *m, int line, const char *fmt, ...)
{
	char msg[800];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(m->err, sizeof(m->err), "%s:%d: %s", m->path, line, msg);
	return -1;
}

static void axis_add_alt(struct axis *a, const char *label, const char *text, int line)
{
	a->alts = xrealloc(a->alts, sizeof(*a->alts) * (size_t)(a->nalts + 1));
	a->alts[a->nalts].label = xstrdup(label);
	a->alts[a->nalts].text = xstrdup(text);
	a->alts[a->nalts].line = line;
	a->nalts++;
}

static struct axis *add_axis(struct matrix *m, const char *name, int line, int at_front)
{
	m->axes = xrealloc(m->axes, sizeof(*m->axes) * (size_t)(m->naxes + 1));
	if (at_front) {
		memmove(m->axes + 1, m->axes, sizeof(*m->axes) * (size_t)m->naxes);
	}
	struct axis *a = at_front ? &m->axes[0] : &m->axes[m->naxes];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->line = line;
	m->naxes++;
	return a;
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	return 1;
}

/* Strips a comment: a line starting with '#' or ';', or " ;"/" #" after whitespace. */
static void strip_comment(char *s)
{
	char *p = s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == ';') {
		*s = 0;
		return;
	}
	for (char *q = p + 1; *q; q++)
		if ((*q == '#' || *q == ';') && (q[-1] == ' ' || q[-1] == '\t')) {
			*q = 0;
			return;
		}
}

/* Splits "a | b | c" into alternatives labelled by their own text. */
static int add_values(struct matrix *m, struct axis *a, const char *val, int line)
{
	char *copy = xstrdup(val);
	char *save = NULL;
	for (char *tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		char *t = trim(tok);
		if (!*t) {
			free(copy);
			return merr(m, line, "empty alternative in 'values' of axis '%s'", a->name);
		}
		for (int i = 0; i < a->nalts; i++)
			if (!strcmp(a->alts[i].label, t)) {
				merr(m, line, "duplicate alternative '%s' in axis '%s'", t, a->name);
				free(copy);
				return -1;
			}
		axis_add_alt(a, t, t, line);
	}
	free(copy);
	return 0;
}

int matrix_parse(struct matrix *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(path);
	m->repeat = 1;
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		snprintf(m->err, sizeof(m->err), "%s: cannot read matrix file: %s", path, strerror(errno));
		return -1;
	}
	enum { S_NONE, S_MATRIX, S_SET, S_AXIS } sec = S_NONE;
	struct axis *cur = NULL;
	struct axis setax = { 0 };
	int have_matrix = 0, jobs_line = 0;
	char *jobs = NULL;
	/* logical lines: continuation lines (leading whitespace) extend the previous key */
	char *lines = text;
	int lineno = 0;
	char *pending_key = NULL;
	struct strbuf pending_val;
	sb_init(&pending_val);
	int pending_line = 0;
	int rc = 0;

	for (;;) {
		char *nl = lines ? strchr(lines, '\n') : NULL;
		char *raw = lines;
		int at_eof = lines == NULL || (*lines == 0 && !nl);
		if (!at_eof) {
			if (nl)
				*nl = 0;
			lines = nl ? nl + 1 : NULL;
			lineno++;
		}
		char *line = NULL;
		int is_cont = 0;
		if (!at_eof) {
			strip_comment(raw);
			is_cont = (raw[0] == ' ' || raw[0] == '\t') && *trim(raw) && pending_key;
			line = trim(raw);
			if (is_cont) {
				sb_add(&pending_val, " ");
				sb_add(&pending_val, line);
				continue;
			}
			if (!*line)
				continue;
		}
		/* flush the pending key = value */
		if (pending_key) {
			char *key = pending_key, *val = trim(pending_val.s ? pending_val.s : (char *)"");
			int ln = pending_line;
			if (sec == S_MATRIX) {
				if (!strcmp(key, "name"))
					free(m->name), m->name = xstrdup(val);
				else if (!strcmp(key, "description"))
					free(m->description), m->description = xstrdup(val);
				else if (!strcmp(key, "jobs") || !strcmp(key, "job"))
					free(jobs), jobs = xstrdup(val), jobs_line = ln;
				else if (!strcmp(key, "repeat")) {
					char *end;
					long r = strtol(val, &end, 10);
					if (*end || r < 1 || r > 100000)
						rc = merr(m, ln, "repeat must be a positive integer, not '%s'", val);
					m->repeat = (int)r;
				} else if (!strcmp(key, "runtime"))
					free(m->runtime), m->runtime = xstrdup(val);
				else if (!strcmp(key, "engine"))
					free(m->engine), m->engine = xstrdup(val);
				else if (!strcmp(key, "target"))
					free(m->target), m->target = xstrdup(val);
				else if (!strcmp(key, "image_size"))
					free(m->image_size), m->image_size = xstrdup(val);
				else if (!strcmp(key, "report"))
					free(m->report), m->report = xstrdup(val);
				else if (!strcmp(key, "x_axis") || !strcmp(key, "x"))
					free(m->x_axis), m->x_axis = xstrdup(val);
				else if (!strcmp(key, "baseline"))
					free(m->baseline), m->baseline = xstrdup(val);
				else
					rc = merr(m, ln, "unknown key '%s' in [matrix] (name, description, jobs, repeat, "
						  "runtime, engine, target, image_size, report, x_axis, baseline)", key);
			} else if (sec == S_SET) {
				if (!*val)
					rc = merr(m, ln, "'%s' has no value", key);
				else {
					char *tok = xasprintf("%s=%s", key, val);
					axis_add_alt(&setax, key, tok, ln);
					free(tok);
				}
			} else if (sec == S_AXIS) {
				if (!*val)
					rc = merr(m, ln, "'%s' has no value", key);
				else if (!strcmp(key, "values"))
					rc = add_values(m, cur, val, ln);
				else {
					for (int i = 0; i < cur->nalts; i++)
						if (!strcmp(cur->alts[i].label, key))
							rc = merr(m, ln, "duplicate alternative '%s' in axis '%s'", key,
								  cur->name);
					if (!rc)
						axis_add_alt(cur, key, val, ln);
				}
			}
			free(pending_key);
			pending_key = NULL;
			sb_free(&pending_val);
			if (rc)
				break;
		}
		if (at_eof)
			break;
		if (line[0] == '[') {
			char *end = strchr(line, ']');
			if (!end || end[1]) {
				rc = merr(m, lineno, "malformed section header '%s' (expected [matrix], [set] or [axis.NAME])",
					  line);
				break;
			}
			*end = 0;
			char *name = trim(line + 1);
			if (!strcmp(name, "matrix")) {
				sec = S_MATRIX;
				have_matrix = 1;
			} else if (!strcmp(name, "set")) {
				sec = S_SET;
				m->set_line = lineno;
			} else if (!strncmp(name, "axis.", 5)) {
				const char *an = name + 5;
				if (!valid_name(an)) {
					rc = merr(m, lineno, "bad axis name '%s' (letters, digits, _ - .)", an);
					break;
				}
				for (int i = 0; i < m->naxes; i++)
					if (!strcmp(m->axes[i].name, an)) {
						rc = merr(m, lineno, "axis '%s' defined twice (first at line %d)", an,
							  m->axes[i].line);
						break;
					}
				if (rc)
					break;
				sec = S_AXIS;
				cur = add_axis(m, an, lineno, 0);
			} else {
				rc = merr(m, lineno, "unknown section [%s] (expected [matrix], [set] or [axis.NAME])", name);
				break;
			}
			continue;
		}
		char *eq = strchr(line, '=');
		if (!eq) {
			rc = merr(m, lineno, "expected 'key = value', got '%s'", line);
			break;
		}
		if (sec == S_NONE) {
			rc = merr(m, lineno, "'%s' outside of a section (start with [matrix])", line);
			break;
		}
		*eq = 0;
		char *key = trim(line);
		if (!*key) {
			rc = merr(m, lineno, "missing key before '='");
			break;
		}
		if (sec != S_AXIS && !valid_name(key)) {
			rc = merr(m, lineno, "bad key '%s'", key);
			break;
		}
		pending_key = xstrdup(key);
		sb_add(&pending_val, trim(eq + 1));
		pending_line = lineno;
	}
	free(pending_key);
	sb_free(&pending_val);
	free(text);
	if (!rc) {
		for (int i = 0; i < m->naxes; i++)
			if (m->axes[i].nalts == 0) {
				rc = merr(m, m->axes[i].line, "axis '%s' has no alternatives", m->axes[i].name);
				break;
			}
	}
	if (!rc && !have_matrix)
		rc = merr(m, lineno ? lineno : 1, "no [matrix] section");
	if (!rc && jobs) {
		int has_jobs_axis = 0;
		for (int i = 0; i < m->naxes; i++)
			if (!strcmp(m->axes[i].name, "jobs"))
				has_jobs_axis = 1;
		if (has_jobs_axis)
			rc = merr(m, jobs_line, "both 'jobs =' and [axis.jobs] given");
		else {
			struct axis *a = add_axis(m, "jobs", jobs_line, 1);
			rc = add_values(m, a, jobs, jobs_line);
			for (int i = 0; !rc && i < a->nalts; i++) {
				/* label: file name without .fio */
				char *lab = xstrdup(base_name(a->alts[i].text));
				char *dot = strrchr(lab, '.');
				if (dot && !strcmp(dot, ".fio"))
					*dot = 0;
				for (int j = 0; j < i; j++)
					if (!strcmp(a->alts[j].label, lab)) {
						free(lab);
						lab = xstrdup(a->alts[i].text);
						break;
					}
				free(a->alts[i].label);
				a->alts[i].label = lab;
				char *t = xasprintf("job:%s", a->alts[i].text);
				free(a->alts[i].text);
				a->alts[i].text = t;
			}
		}
	}
	free(jobs);
	/* the [set] entries become a hidden single-alternative list stored in m->set */
	for (int i = 0; i < setax.nalts; i++) {
		char *k = xasprintf("%d", setax.alts[i].line);
		kv_set(&m->set, setax.alts[i].text, k);
		free(k);
		free(setax.alts[i].label);
		free(setax.alts[i].text);
	}
	free(setax.alts);
	return rc;
}

void matrix_free(struct matrix *m)
{
	free(m->path);
	free(m->name);
	free(m->description);
	free(m->report);
	free(m->x_axis);
	free(m->baseline);
	free(m->runtime);
	free(m->engine);
	free(m->target);
	free(m->image_size);
	kv_free(&m->set);
	for (int i = 0; i < m->naxes; i++) {
		for (int j = 0; j < m->axes[i].nalts; j++) {
			free(m->axes[i].alts[j].label);
			free(m->axes[i].alts[j].text);
		}
		free(m->axes[i].alts);
		free(m->axes[i].name);
	}
	free(m->axes);
	memset(m, 0, sizeof(*m));
}

/* ---- cell expansion ---- */

/* Splits on whitespace, honouring double quotes (removed). */
static char **tokenize(const char *s, int *n)
{
	char **v = NULL;
	*n = 0;
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		struct strbuf b;
		sb_init(&b);
		int inq = 0;
		while (*p && (inq || (*p != ' ' && *p != '\t'))) {
			if (*p == '"')
				inq = !inq;
			else
				sb_addn(&b, p, 1);
			p++;
		}
		v = xrealloc(v, sizeof(*v) * (size_t)(*n + 1));
		v[(*n)++] = sb_steal(&b);
	}
	return v;
}

struct pending {
	char *key, *val;
	int line;
};

struct build {
	struct cell *c;
	struct pending *bare;
	int nbare;
	int mode_line;
	int job_line;
};

static void bare_add(struct build *b, const char *key, const char *val, int line)
{
	for (int i = 0; i < b->nbare; i++)
		if (!strcmp(b->bare[i].key, key)) {
			free(b->bare[i].val);
			b->bare[i].val = xstrdup(val);
			b->bare[i].line = line;
			return;
		}
	b->bare = xrealloc(b->bare, sizeof(*b->bare) * (size_t)(b->nbare + 1));
	b->bare[b->nbare].key = xstrdup(key);
	b->bare[b->nbare].val = xstrdup(val);
	b->bare[b->nbare].line = line;
	b->nbare++;
}

static int valid_key(const char *k)
{
	if (!*k || strstr(k, ".."))
		return 0;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-')
			return 0;
	return 1;
}

static int apply_tokens(struct matrix *m, struct build *b, const char *axis, const char *text, int line)
{
	int nt;
	char **tv = tokenize(text, &nt);
	int rc = 0;
	for (int i = 0; i < nt && !rc; i++) {
		char *t = tv[i];
		char *eq = strchr(t, '=');
		char *colon = strchr(t, ':');
		if (colon && (!eq || colon < eq)) {
			*colon = 0;
			const char *what = t, *arg = colon + 1;
			if (!strcmp(what, "embedded") || !strcmp(what, "kernel")) {
				enum cell_mode md = what[0] == 'e' ? MODE_EMBEDDED : MODE_KERNEL;
				if (b->c->mode != MODE_JOB && b->c->mode != md) {
					rc = merr(m, line, "'%s:%s' conflicts with the %s scheduler set at line %d", what, arg,
						  b->c->mode == MODE_KERNEL ? "kernel" : "embedded", b->mode_line);
					break;
				}
				if (md == MODE_KERNEL && !*arg) {
					rc = merr(m, line, "kernel: needs a scheduler name (none, mq-deadline, bfq, kyber)");
					break;
				}
				if (!valid_key(arg) && *arg) {
					rc = merr(m, line, "bad scheduler name '%s'", arg);
					break;
				}
				b->c->mode = md;
				free(b->c->sched);
				b->c->sched = xstrdup(arg);
				b->mode_line = line;
			} else if (!strcmp(what, "job")) {
				if (!*arg) {
					rc = merr(m, line, "job: needs a job file path");
					break;
				}
				free(b->c->job_path);
				b->c->job_path = xstrdup(arg);
				b->job_line = line;
			} else {
				rc = merr(m, line, "unknown token '%s:%s' (expected embedded:NAME, kernel:NAME, job:PATH or "
					  "key=value)", what, arg);
			}
			continue;
		}
		if (!eq) {
			if (!axis) {
				rc = merr(m, line, "'%s' is not key=value", t);
				break;
			}
			if (!strcmp(axis, "jobs")) {
				free(b->c->job_path);
				b->c->job_path = xstrdup(t);
				b->job_line = line;
				continue;
			}
			/* a bare value in [axis.NAME] means NAME=value */
			char *tok = xasprintf("%s=%s", axis, t);
			free(tv[i]);
			tv[i] = t = tok;
			eq = strchr(t, '=');
		}
		*eq = 0;
		const char *key = t, *val = eq + 1;
		const char *dot = strchr(key, '.');
		if (dot && (size_t)(dot - key) == 7 && !strncmp(key, "section", 7)) {
			/* section.NAME.KEY=V: a job option for one section of the job file */
			const char *last = strrchr(key, '.');
			if (last == dot || !valid_key(last + 1) || strpbrk(dot + 1, "[] \t")) {
				rc = merr(m, line, "bad option name '%s' (section.SECTION.KEY=VALUE)", key);
				break;
			}
			kv_set(&b->c->job_opts, dot + 1, val);
			continue;
		}
		if (dot) {
			size_t pl = (size_t)(dot - key);
			const char *k = dot + 1;
			if (!valid_key(k)) {
				rc = merr(m, line, "bad option name '%s'", key);
				break;
			}
			if (pl == 3 && !strncmp(key, "job", 3))
				kv_set(&b->c->job_opts, k, val);
			else if (pl == 6 && !strncmp(key, "engine", 6))
				kv_set(&b->c->engine_opts, k, val);
			else if (pl == 7 && !strncmp(key, "iosched", 7))
				kv_set(&b->c->iosched, k, val);
			else if (pl == 5 && !strncmp(key, "queue", 5))
				kv_set(&b->c->queue, k, val);
			else if (pl == 3 && !strncmp(key, "env", 3)) {
				if (!strcmp(k, "TARGET"))
					rc = merr(m, line, "env.TARGET is set by schedbench (use target = or --target)");
				else
					kv_set(&b->c->env, k, val);
			} else
				rc = merr(m, line, "unknown prefix in '%s' (job., section., engine., iosched., queue., env.)",
					 key);
			continue;
		}
		if (!valid_key(key)) {
			rc = merr(m, line, "bad option name '%s'", key);
			break;
		}
		bare_add(b, key, val, line);
	}
	for (int i = 0; i < nt; i++)
		free(tv[i]);
	free(tv);
	return rc;
}

static char *resolve_job(const char *given, const char *matrix_path)
{
	if (given[0] == '/')
		return access(given, R_OK) ? NULL : xstrdup(given);
	if (!access(given, R_OK))
		return abs_path(given);
	char *p = path_join(SCHEDBENCH_ROOT, given);
	if (!access(p, R_OK))
		return p;
	free(p);
	char *d = dir_name(matrix_path);
	p = path_join(d, given);
	free(d);
	if (!access(p, R_OK)) {
		char *a = abs_path(p);
		free(p);
		return a;
	}
	free(p);
	return NULL;
}

struct jobcache {
	char *abs, *text;
};

static void cell_finish(struct cell *c, const struct matrix *m, const char *engine, const char *target_given)
{
	kv_sort(&c->engine_opts);
	kv_sort(&c->job_opts);
	kv_sort(&c->iosched);
	kv_sort(&c->queue);
	kv_sort(&c->env);
	struct strbuf b;
	sb_init(&b);
	static const char *modes[] = { "job", "embedded", "kernel" };
	sb_add(&b, "{\"mode\":");
	sb_json_str(&b, modes[c->mode]);
	if (c->mode != MODE_JOB) {
		sb_add(&b, ",\"sched\":");
		sb_json_str(&b, c->sched ? c->sched : "");
	}
	if (c->mode == MODE_EMBEDDED) {
		sb_add(&b, ",\"engine\":");
		sb_json_str(&b, engine);
		sb_add(&b, ",\"engine_opts\":");
		kv_json(&b, &c->engine_opts);
	}
	sb_add(&b, ",\"job_opts\":");
	kv_json(&b, &c->job_opts);
	if (c->mode == MODE_KERNEL) {
		sb_add(&b, ",\"iosched\":");
		kv_json(&b, &c->iosched);
		sb_add(&b, ",\"queue\":");
		kv_json(&b, &c->queue);
	}
	if (c->env.n) { /* only when used: the hashes of cells without env. stay as they were */
		sb_add(&b, ",\"env\":");
		kv_json(&b, &c->env);
	}
	sb_add(&b, ",\"target\":");
	sb_json_str(&b, target_given ? target_given : "");
	sb_add(&b, "}");
	c->overlays_json = sb_steal(&b);

	sb_add(&b, "{");
	for (int i = 0; i < c->labels.n; i++) {
		if (i)
			sb_add(&b, ",");
		sb_json_str(&b, c->labels.v[i].key);
		sb_add(&b, ":");
		sb_json_str(&b, c->labels.v[i].val);
	}
	sb_add(&b, "}");
	c->labels_json = sb_steal(&b);

	for (int i = 0; i < m->naxes; i++) {
		if (m->axes[i].nalts < 2)
			continue;
		if (b.len)
			sb_add(&b, " ");
		sb_addf(&b, "%s=%s", c->labels.v[i].key, c->labels.v[i].val);
	}
	if (!b.len)
		sb_add(&b, m->name ? m->name : "cell");
	c->name = sb_steal(&b);
}

int matrix_expand(struct matrix *m, const char *engine, const char *target_given, struct cell **cells_out,
		  int *ncells_out)
{
	long total = 1;
	for (int i = 0; i < m->naxes; i++) {
		total *= m->axes[i].nalts;
		if (total > 100000)
			return merr(m, m->axes[i].line, "matrix expands to more than 100000 cells");
	}
	struct cell *cells = xcalloc((size_t)total, sizeof(*cells));
	int *idx = xcalloc((size_t)(m->naxes + 1), sizeof(int));
	struct jobcache *jc = NULL;
	int njc = 0;
	int rc = 0;
	for (long ci = 0; ci < total && !rc; ci++) {
		/* odometer: the last axis varies fastest */
		long r = ci;
		for (int a = m->naxes - 1; a >= 0; a--) {
			idx[a] = (int)(r % m->axes[a].nalts);
			r /= m->axes[a].nalts;
		}
		struct cell *c = &cells[ci];
		c->index = (int)ci;
		struct build b = { .c = c };
		if (m->runtime)
			kv_set(&c->job_opts, "runtime", m->runtime);
		for (int s = 0; s < m->set.n && !rc; s++)
			rc = apply_tokens(m, &b, NULL, m->set.v[s].key, atoi(m->set.v[s].val));
		for (int a = 0; a < m->naxes && !rc; a++) {
			const struct alt *al = &m->axes[a].alts[idx[a]];
			kv_set(&c->labels, m->axes[a].name, al->label);
			rc = apply_tokens(m, &b, m->axes[a].name, al->text, al->line);
		}
		/* bare key=value: a fio option, else an engine option (embedded) or iosched tunable (kernel) */
		for (int i = 0; i < b.nbare && !rc; i++) {
			const char *k = b.bare[i].key, *v = b.bare[i].val;
			if (fio_is_core_option(k))
				kv_set(&c->job_opts, k, v);
			else if (c->mode == MODE_EMBEDDED)
				kv_set(&c->engine_opts, k, v);
			else if (c->mode == MODE_KERNEL)
				kv_set(&c->iosched, k, v);
			else
				rc = merr(m, b.bare[i].line,
					  "'%s' is not a fio option and this cell has no embedded:/kernel: scheduler "
					  "(write job.%s=, engine.%s= or iosched.%s=)",
					  k, k, k, k);
		}
		for (int i = 0; i < b.nbare; i++) {
			free(b.bare[i].key);
			free(b.bare[i].val);
		}
		free(b.bare);
		if (rc)
			break;
		if (c->mode == MODE_EMBEDDED && c->sched && *c->sched)
			kv_set(&c->engine_opts, "sched", c->sched);
		if (!c->job_path) {
			rc = merr(m, 1, "no job file: give 'jobs =' in [matrix], an [axis.jobs] or a job:PATH token");
			break;
		}
		int found = -1;
		char *absp = resolve_job(c->job_path, m->path);
		if (!absp) {
			rc = merr(m, b.job_line ? b.job_line : 1, "job file '%s' not found", c->job_path);
			break;
		}
		for (int j = 0; j < njc; j++)
			if (!strcmp(jc[j].abs, absp))
				found = j;
		if (found < 0) {
			size_t len;
			char *t = read_file(absp, &len);
			if (!t) {
				rc = merr(m, b.job_line, "cannot read job file '%s': %s", absp, strerror(errno));
				free(absp);
				break;
			}
			if (strlen(t) != len) {
				rc = merr(m, b.job_line, "job file '%s' contains NUL bytes", absp);
				free(t);
				free(absp);
				break;
			}
			if (jobfile_check(absp, t, m->err, sizeof(m->err))) {
				rc = -1;
				free(t);
				free(absp);
				break;
			}
			jc = xrealloc(jc, sizeof(*jc) * (size_t)(njc + 1));
			jc[njc].abs = xstrdup(absp);
			jc[njc].text = t;
			found = njc++;
		}
		free(absp);
		c->job_abs = xstrdup(jc[found].abs);
		c->job_text = xstrdup(jc[found].text);
		for (int i = 0; i < c->job_opts.n; i++) {
			const char *k = c->job_opts.v[i].key, *dot = strrchr(k, '.');
			if (!dot)
				continue;
			char *sec = xstrndup(k, (size_t)(dot - k));
			int have = jobfile_has_section(c->job_text, sec);
			if (!have)
				rc = merr(m, 1, "section.%s: job file '%s' has no section [%s]", k, c->job_path, sec);
			free(sec);
			if (rc)
				break;
		}
		if (rc)
			break;
		cell_finish(c, m, engine, target_given);
	}
	/* Embedded cells of a matrix with kernel cells run on the kernel cells' device (run.c): that is
	 * part of what they measure, so of their identity. */
	int any_kernel = 0;
	for (long ci = 0; !rc && ci < total; ci++)
		any_kernel |= cells[ci].mode == MODE_KERNEL;
	for (long ci = 0; !rc && any_kernel && ci < total; ci++) {
		struct cell *c = &cells[ci];
		size_t n = strlen(c->overlays_json);
		if (c->mode != MODE_EMBEDDED || !n)
			continue;
		char *o = xasprintf("%.*s,\"device\":\"kernel-cells\"}", (int)(n - 1), c->overlays_json);
		free(c->overlays_json);
		c->overlays_json = o;
	}
	for (int j = 0; j < njc; j++) {
		free(jc[j].abs);
		free(jc[j].text);
	}
	free(jc);
	free(idx);
	if (rc) {
		cells_free(cells, (int)total);
		return -1;
	}
	*cells_out = cells;
	*ncells_out = (int)total;
	return 0;
}

void cells_free(struct cell *cells, int n)
{
	for (int i = 0; i < n; i++) {
		struct cell *c = &cells[i];
		free(c->job_path);
		free(c->job_abs);
		free(c->job_text);
		free(c->sched);
		kv_free(&c->engine_opts);
		kv_free(&c->job_opts);
		kv_free(&c->iosched);
		kv_free(&c->queue);
		kv_free(&c->env);
		kv_free(&c->labels);
		free(c->name);
		free(c->overlays_json);
		free(c->labels_json);
	}
	free(cells);
}

char *cell_hash(const struct cell *c)
{
	struct strbuf b;
	sb_init(&b);
	static const char tag[] = "schedbench-cell-v1";
	sb_addn(&b, tag, sizeof(tag));
	sb_add(&b, c->job_text);
	sb_addn(&b, "", 1);
	sb_add(&b, c->overlays_json);
	char hex[65];
	sha256_hex(b.s, b.len, hex);
	sb_free(&b);
	return xstrdup(hex);
}
