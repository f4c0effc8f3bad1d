/* Matrix files: an INI of [matrix], [set] and [axis.NAME] sections; see README-matrix.md. */
#include "sb.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>
#include <regex.h>

#include "devmodel.h"

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
				merr(m, line, "duplicate alternative '%s' in axis '%s'", t,
				     a->name);
				free(copy);
				return -1;
			}
		axis_add_alt(a, t, t, line);
	}
	free(copy);
	return 0;
}

/* ---- reading the INI with inih ----
 * inih (Debian's libinih) does the INI syntax: sections, key = value, ';'/'#' comments, inline
 * comments after whitespace, indented continuation lines and the line of the first syntax error.
 * Its reader callback counts lines and keeps the raw text, so every entry gets its FILE:LINE and
 * what inih cannot tell us (a section without entries, ':' taken as '=', names cut at its
 * limits) is checked against the raw line. */
#define MAX_INI_LINE 16384

struct ini_entry {
	char *section, *key, *val;
	int line;
};

struct ini_ctx {
	FILE *f;
	int lineno, at_line_start;
	char raw[MAX_INI_LINE]; /* the current line as read */
	int too_long;
	struct ini_entry *ents;
	int nents;
	struct {
		char *name;
		int line;
	} * secs;
	int nsecs;
	int err_line;
	char err[400];
};

static char *matrix_reader(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	if (!fgets(str, num, c->f))
		return NULL;
	size_t n = strlen(str);
	if (c->at_line_start) {
		c->lineno++;
		c->raw[0] = 0;
	}
	if (strlen(c->raw) + n < sizeof(c->raw))
		strcat(c->raw, str);
	else
		c->too_long = c->lineno;
	c->at_line_start = n > 0 && str[n - 1] == '\n';
	if (c->at_line_start || feof(c->f)) {
		/* a whole line: note section headers (inih says nothing about empty sections) */
		char *t = xstrdup(c->raw);
		char *l = trim(t);
		if (l[0] == '[') {
			char *e = strchr(l, ']');
			c->secs = xrealloc(c->secs, sizeof(*c->secs) * (size_t)(c->nsecs + 1));
			c->secs[c->nsecs].name = e ? xstrndup(l + 1, (size_t)(e - l - 1)) : NULL;
			c->secs[c->nsecs].line = c->lineno;
			c->nsecs++;
		}
		free(t);
	}
	return str;
}

static int ini_entry_cb(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *c = user;
	const char *r = c->raw;
	int cont = (r[0] == ' ' || r[0] == '\t') && c->nents > 0;

	if (c->err_line)
		return 0;
	if (cont) {
		/* an indented line continues the previous value */
		struct ini_entry *e = &c->ents[c->nents - 1];
		char *v = xasprintf("%s %s", e->val, value);
		free(e->val);
		e->val = v;
		return 1;
	}
	/* the key as written: inih also splits at ':' and cuts long names */
	const char *p = r;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t kl = strcspn(p, "=:");
	char *key = xstrndup(p, kl);
	char *k = trim(key);
	int bad = 0;
	if (p[kl] == ':') {
		snprintf(c->err, sizeof(c->err),
			 "':' before '=' in '%s' (write KEY = VALUE; keys and labels cannot "
			 "contain ':' or '=')",
			 trim(c->raw));
		bad = 1;
	} else if (strcmp(k, name)) {
		snprintf(c->err, sizeof(c->err), "key '%s' is too long (at most 49 characters)", k);
		bad = 1;
	}
	free(key);
	if (bad) {
		c->err_line = c->lineno;
		return 0;
	}
	c->ents = xrealloc(c->ents, sizeof(*c->ents) * (size_t)(c->nents + 1));
	c->ents[c->nents].section = xstrdup(section);
	c->ents[c->nents].key = xstrdup(name);
	c->ents[c->nents].val = xstrdup(value);
	c->ents[c->nents].line = c->lineno;
	c->nents++;
	return 1;
}

static void ini_ctx_free(struct ini_ctx *c)
{
	for (int i = 0; i < c->nents; i++) {
		free(c->ents[i].section);
		free(c->ents[i].key);
		free(c->ents[i].val);
	}
	free(c->ents);
	for (int i = 0; i < c->nsecs; i++)
		free(c->secs[i].name);
	free(c->secs);
}

/* What inih calls a syntax error, said the way a reader of the matrix needs it. */
static int ini_syntax_error(struct matrix *m, int line)
{
	size_t len;
	char *text = read_file(m->path, &len);
	char *l = NULL;
	if (text) {
		char *p = text;
		for (int i = 1; i < line && p; i++) {
			p = strchr(p, '\n');
			if (p)
				p++;
		}
		if (p) {
			char *e = strchr(p, '\n');
			l = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
		}
	}
	char *t = l ? trim(l) : (char *)"";
	int rc;
	if (t[0] == '[')
		rc = merr(m, line,
			  "malformed section header '%s' (expected [matrix], [set] or [axis.NAME])",
			  t);
	else
		rc = merr(m, line, "expected 'key = value', got '%s'", t);
	free(l);
	free(text);
	return rc;
}

int matrix_set_clock(struct matrix *m, const char *clock, int line)
{
	if (strcmp(clock, "real") && strcmp(clock, "virtual") && strcmp(clock, "both"))
		return merr(m, line, "clock must be real, virtual or both, not '%s'", clock);
	if (m->clock != clock) {
		free(m->clock);
		m->clock = xstrdup(clock);
	}
	int have = -1;
	for (int i = 0; i < m->naxes; i++)
		if (!strcmp(m->axes[i].name, "clock"))
			have = i;
	if (!strcmp(clock, "both")) {
		if (have >= 0 && m->axes[have].line != -1)
			return merr(m, line,
				    "clock = both adds an axis 'clock', and the matrix has one "
				    "already (line %d)",
				    m->axes[have].line);
		if (have < 0) {
			struct axis *a = add_axis(m, "clock", -1, 0);
			axis_add_alt(a, "real", "clock=real", line);
			axis_add_alt(a, "virtual", "clock=virtual", line);
		}
	} else if (have >= 0 && m->axes[have].line == -1) {
		/* an axis added by an earlier clock = both */
		struct axis *a = &m->axes[have];
		for (int j = 0; j < a->nalts; j++) {
			free(a->alts[j].label);
			free(a->alts[j].text);
		}
		free(a->alts);
		free(a->name);
		memmove(a, a + 1, sizeof(*a) * (size_t)(m->naxes - have - 1));
		m->naxes--;
	}
	return 0;
}

int matrix_parse(struct matrix *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(path);
	m->repeat = 1;
	m->time_based = -1;
	m->tolerance = -1;
	struct ini_ctx c;
	memset(&c, 0, sizeof(c));
	c.at_line_start = 1;
	c.f = fopen(path, "r");
	if (!c.f) {
		snprintf(m->err, sizeof(m->err), "%s: cannot read matrix file: %s", path,
			 strerror(errno));
		return -1;
	}
	ini_use_stack = 0;
	ini_allow_realloc = 1;
	ini_max_line = MAX_INI_LINE;
	ini_allow_multiline = 1;
	ini_allow_inline_comments = 1;
	ini_inline_comment_prefixes = (char *)";#";
	ini_start_comment_prefixes = (char *)";#";
	ini_stop_on_first_error = 1;
	int r = ini_parse_stream(matrix_reader, &c, ini_entry_cb, &c);
	fclose(c.f);
	int rc = 0;
	if (c.err_line) {
		rc = merr(m, c.err_line, "%s", c.err);
	} else if (c.too_long) {
		rc = merr(m, c.too_long, "line longer than %d characters", MAX_INI_LINE - 2);
	} else if (r > 0) {
		rc = ini_syntax_error(m, r);
	} else if (r < 0) {
		rc = merr(m, 1, "cannot parse (%s)", r == -2 ? "out of memory" : "cannot open");
	}
	/* the sections, in order: [matrix], [set], [axis.NAME] */
	int have_matrix = 0;
	for (int i = 0; !rc && i < c.nsecs; i++) {
		const char *name = c.secs[i].name;
		int line = c.secs[i].line;
		if (!name)
			rc = merr(m, line, "malformed section header (missing ']')");
		else if (strlen(name) >= 49)
			rc = merr(m, line, "section name '%s' is too long (at most 48 characters)",
				  name);
		else if (!strcmp(name, "matrix"))
			have_matrix = 1;
		else if (!strcmp(name, "set"))
			m->set_line = line;
		else if (!strcmp(name, "device"))
			m->device_sec_line = line;
		else if (!strcmp(name, "notes"))
			;
		else if (!strncmp(name, "axis.", 5)) {
			const char *an = name + 5;
			if (!valid_name(an)) {
				rc = merr(m, line, "bad axis name '%s' (letters, digits, _ - .)",
					  an);
				break;
			}
			for (int j = 0; j < m->naxes; j++)
				if (!strcmp(m->axes[j].name, an))
					rc = merr(m, line,
						  "axis '%s' defined twice (first at line %d)", an,
						  m->axes[j].line);
			if (!rc)
				add_axis(m, an, line, 0);
		} else {
			rc = merr(m, line,
				  "unknown section [%s] (expected [matrix], [set], [axis.NAME], "
				  "[device] or [notes])",
				  name);
		}
	}
	char *jobs = NULL;
	struct axis setax = {0};
	for (int i = 0; !rc && i < c.nents; i++) {
		const char *sec = c.ents[i].section, *key = c.ents[i].key;
		char *val = trim(c.ents[i].val);
		int ln = c.ents[i].line;
		if (!*sec) {
			rc = merr(m, ln, "'%s = %s' outside of a section (start with [matrix])",
				  key, val);
		} else if (!strcmp(sec, "matrix")) {
			if (!valid_name(key))
				rc = merr(m, ln, "bad key '%s'", key);
			else if (!strcmp(key, "name"))
				free(m->name), m->name = xstrdup(val);
			else if (!strcmp(key, "description"))
				free(m->description), m->description = xstrdup(val);
			else if (!strcmp(key, "jobs") || !strcmp(key, "job"))
				free(jobs), jobs = xstrdup(val), m->jobs_line = ln;
			else if (!strcmp(key, "repeat")) {
				char *end;
				long v = strtol(val, &end, 10);
				if (!*val || *end || v < 1 || v > 100000)
					rc = merr(m, ln,
						  "repeat must be a positive integer, not '%s'",
						  val);
				m->repeat = (int)v;
			} else if (!strcmp(key, "runtime")) {
				if (parse_seconds(val) <= 0)
					rc = merr(m, ln,
						  "runtime must be a time in seconds (5, 300ms, "
						  "2m), not '%s'",
						  val);
				free(m->runtime), m->runtime = xstrdup(val), m->runtime_line = ln;
			} else if (!strcmp(key, "time_based")) {
				if (!strcmp(val, "1") || !strcmp(val, "yes") ||
				    !strcmp(val, "true"))
					m->time_based = 1;
				else if (!strcmp(val, "0") || !strcmp(val, "no") ||
					 !strcmp(val, "false"))
					m->time_based = 0;
				else
					rc = merr(m, ln, "time_based must be yes or no, not '%s'",
						  val);
			} else if (!strcmp(key, "logs")) {
				free(m->logs), m->logs = xstrdup(val), m->logs_line = ln;
			} else if (!strcmp(key, "log_avg_msec")) {
				char *end;
				long v = strtol(val, &end, 10);
				if (!*val || *end || v < 1)
					rc = merr(m, ln,
						  "log_avg_msec must be a positive integer (ms), "
						  "not '%s'",
						  val);
				free(m->log_avg_msec), m->log_avg_msec = xstrdup(val);
			} else if (!strcmp(key, "engine"))
				free(m->engine), m->engine = xstrdup(val);
			else if (!strcmp(key, "target"))
				free(m->target), m->target = xstrdup(val);
			else if (!strcmp(key, "image_size"))
				free(m->image_size), m->image_size = xstrdup(val);
			else if (!strcmp(key, "report"))
				free(m->report), m->report = xstrdup(val);
			else if (!strcmp(key, "x_axis") || !strcmp(key, "x"))
				free(m->x_axis), m->x_axis = xstrdup(val), m->x_axis_line = ln;
			else if (!strcmp(key, "baseline"))
				free(m->baseline), m->baseline = xstrdup(val),
						   m->baseline_line = ln;
			else if (!strcmp(key, "device")) {
				free(m->device), m->device = xstrdup(val), m->device_line = ln;
				free(m->model_kind), m->model_kind = NULL;
				if (strncmp(val, "model:", 6) || devmodel_kind_by_name(val + 6) < 0)
					rc = merr(m, ln,
						  "device = %s: expected model:KIND (hdd, ssd, "
						  "cloud-ssd, null)",
						  val);
				else
					m->model_kind = xstrdup(val + 6);
			} else if (!strcmp(key, "tolerance")) {
				char *end;
				double v = strtod(val, &end);
				if (!*val || *end || !(v > 0) || v > 1000)
					rc =
					    merr(m, ln,
						 "tolerance must be a percentage above 0 (15), not "
						 "'%s'",
						 val);
				m->tolerance = v, m->tolerance_line = ln;
			} else if (!strcmp(key, "clock")) {
				if (strcmp(val, "real") && strcmp(val, "virtual") &&
				    strcmp(val, "both"))
					rc = merr(m, ln,
						  "clock must be real, virtual or both, not '%s'",
						  val);
				free(m->clock), m->clock = xstrdup(val), m->clock_line = ln;
			} else
				rc = merr(m, ln,
					  "unknown key '%s' in [matrix] (name, description, jobs, "
					  "repeat, runtime, "
					  "time_based, logs, log_avg_msec, engine, target, "
					  "image_size, report, x_axis, "
					  "baseline, device, tolerance, clock)",
					  key);
		} else if (!strcmp(sec, "device")) {
			if (!valid_name(key))
				rc = merr(m, ln, "bad key '%s' in [device]", key);
			else if (!*val)
				rc = merr(m, ln, "'%s' has no value", key);
			else if (!strcmp(key, "size"))
				free(m->device_size), m->device_size = xstrdup(val);
			else {
				char *l = xasprintf("%d", ln);
				kv_set(&m->device_params, key, val);
				kv_set(&m->lines_device, key, l);
				free(l);
			}
		} else if (!strcmp(sec, "notes")) {
			regex_t re;
			if (!*val)
				rc = merr(m, ln, "note '%s' has no explanation", key);
			else if (regcomp(&re, key, REG_EXTENDED | REG_NOSUB))
				rc = merr(m, ln, "note '%s': not a regular expression", key);
			else {
				regfree(&re);
				kv_set(&m->notes, key, val);
			}
		} else if (!strcmp(sec, "set")) {
			if (!valid_name(key))
				rc = merr(m, ln, "bad key '%s'", key);
			else if (!*val)
				rc = merr(m, ln, "'%s' has no value", key);
			else {
				char *tok = xasprintf("%s=%s", key, val);
				axis_add_alt(&setax, key, tok, ln);
				free(tok);
			}
		} else {
			struct axis *cur = NULL;
			for (int j = 0; j < m->naxes; j++)
				if (!strcmp(m->axes[j].name, sec + 5))
					cur = &m->axes[j];
			if (!cur) /* cannot happen: every section was seen by the reader */
				rc = merr(m, ln, "entry outside of a known section");
			else if (!*val)
				rc = merr(m, ln, "'%s' has no value", key);
			else if (!strcmp(key, "values"))
				rc = add_values(m, cur, val, ln);
			else {
				for (int j = 0; j < cur->nalts; j++)
					if (!strcmp(cur->alts[j].label, key))
						rc = merr(m, ln,
							  "duplicate alternative '%s' in axis '%s' "
							  "(first at line %d)",
							  key, cur->name, cur->alts[j].line);
				if (!rc)
					axis_add_alt(cur, key, val, ln);
			}
		}
	}
	int lastline = c.lineno;
	ini_ctx_free(&c);
	if (!rc) {
		for (int i = 0; i < m->naxes; i++)
			if (m->axes[i].nalts == 0) {
				rc = merr(m, m->axes[i].line, "axis '%s' has no alternatives",
					  m->axes[i].name);
				break;
			}
	}
	if (!rc && !have_matrix)
		rc = merr(m, lastline ? lastline : 1, "no [matrix] section");
	if (!rc && m->logs) {
		char *copy = xstrdup(m->logs), *save = NULL;
		for (char *t = strtok_r(copy, " ,", &save); t && !rc;
		     t = strtok_r(NULL, " ,", &save))
			if (strcmp(t, "iops") && strcmp(t, "lat") && strcmp(t, "bw"))
				rc = merr(m, m->logs_line, "logs: unknown log '%s' (iops, lat, bw)",
					  t);
		free(copy);
	}
	if (!rc && jobs) {
		int has_jobs_axis = 0;
		for (int i = 0; i < m->naxes; i++)
			if (!strcmp(m->axes[i].name, "jobs"))
				has_jobs_axis = 1;
		if (has_jobs_axis)
			rc = merr(m, m->jobs_line, "both 'jobs =' and [axis.jobs] given");
		else {
			struct axis *a = add_axis(m, "jobs", m->jobs_line, 1);
			rc = add_values(m, a, jobs, m->jobs_line);
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
	if (!rc && m->x_axis) {
		int found = 0;
		struct strbuf names;
		sb_init(&names);
		for (int i = 0; i < m->naxes; i++) {
			found |= !strcmp(m->axes[i].name, m->x_axis);
			sb_addf(&names, "%s%s", i ? ", " : "", m->axes[i].name);
		}
		if (!found)
			rc = merr(m, m->x_axis_line,
				  "x_axis '%s' is not an axis of this matrix (axes: %s)", m->x_axis,
				  names.s ? names.s : "none");
		sb_free(&names);
	}
	if (!rc && (m->device_sec_line || m->device_size || m->device_params.n) && !m->device)
		rc = merr(m, m->device_sec_line ? m->device_sec_line : 1,
			  "a [device] section needs device = model:KIND in [matrix]");
	if (!rc && m->model_kind) {
		/* the model's parameters as the engine and modeldev will take them */
		struct devmodel_params p = devmodel_params_defaults(
		    (enum devmodel_kind)devmodel_kind_by_name(m->model_kind));
		char e[256];
		for (int i = 0; !rc && i < m->device_params.n; i++) {
			const char *k = m->device_params.v[i].key;
			const char *l = kv_get(&m->lines_device, k);
			if (devmodel_set_param(&p, k, m->device_params.v[i].val, e, sizeof(e)))
				rc = merr(m, l ? atoi(l) : m->device_sec_line, "[device] %s", e);
		}
		if (!rc && devmodel_params_check(&p, e, sizeof(e)))
			rc = merr(m, m->device_sec_line ? m->device_sec_line : m->device_line,
				  "[device] %s", e);
		if (!rc && m->device_size && parse_size_bytes(m->device_size) < (1ull << 20))
			rc = merr(m, m->device_sec_line,
				  "[device] size = %s: a size of at least 1M (4G, 500G)",
				  m->device_size);
	}
	if (!rc && m->clock)
		rc = matrix_set_clock(m, m->clock, m->clock_line);
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
	free(m->logs);
	free(m->log_avg_msec);
	free(m->engine);
	free(m->target);
	free(m->image_size);
	kv_free(&m->set);
	free(m->device);
	free(m->model_kind);
	free(m->device_size);
	free(m->clock);
	kv_free(&m->device_params);
	kv_free(&m->lines_device);
	kv_free(&m->notes);
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

/* Splits on whitespace, honouring double quotes (removed). Returns NULL (n = -1) on an
 * unterminated quote. */
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
		if (inq) {
			for (int i = 0; i < *n; i++)
				free(v[i]);
			free(v);
			*n = -1;
			return NULL;
		}
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
	int clock_given;
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

static void note_line(struct cell *c, const char *key, int line)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%d", line);
	kv_set(&c->lines, key, buf);
}

static int line_or(const struct cell *c, const char *key)
{
	const char *l = kv_get(&c->lines, key);
	return l ? atoi(l) : c->line;
}

static int apply_tokens(struct matrix *m, struct build *b, const char *axis, const char *text,
			int line)
{
	int nt;
	char **tv = tokenize(text, &nt);
	int rc = 0;
	if (nt < 0)
		return merr(m, line, "unterminated '\"' in '%s'", text);
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
					rc = merr(m, line,
						  "'%s:%s' conflicts with the %s scheduler set at "
						  "line %d",
						  what, arg,
						  b->c->mode == MODE_KERNEL ? "kernel" : "embedded",
						  b->mode_line);
					break;
				}
				if (md == MODE_KERNEL && !*arg) {
					rc = merr(m, line,
						  "kernel: needs a scheduler name (none, "
						  "mq-deadline, bfq, kyber)");
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
				rc = merr(m, line,
					  "unknown token '%s:%s' (expected embedded:NAME, "
					  "kernel:NAME, job:PATH or "
					  "key=value)",
					  what, arg);
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
		if (!strcmp(key, "clock")) {
			/* clock=real|virtual: how an embedded cell runs (fio, or the simulator) */
			if (strcmp(val, "real") && strcmp(val, "virtual")) {
				rc = merr(m, line, "clock=%s: expected clock=real or clock=virtual",
					  val);
				break;
			}
			b->c->virt = val[0] == 'v' ? 1 : 0;
			b->c->clock_line = line;
			b->clock_given = 1;
			continue;
		}
		if (dot && (size_t)(dot - key) == 7 && !strncmp(key, "section", 7)) {
			/* section.NAME.KEY=V: a job option for one section of the job file */
			const char *last = strrchr(key, '.');
			if (last == dot || !valid_key(last + 1) || strpbrk(dot + 1, "[] \t")) {
				rc = merr(m, line,
					  "bad option name '%s' (section.SECTION.KEY=VALUE)", key);
				break;
			}
			kv_set(&b->c->job_opts, dot + 1, val);
			note_line(b->c, dot + 1, line);
			continue;
		}
		if (dot) {
			size_t pl = (size_t)(dot - key);
			const char *k = dot + 1;
			if (!valid_key(k)) {
				rc = merr(m, line, "bad option name '%s'", key);
				break;
			}
			note_line(b->c, k, line);
			if (pl == 3 && !strncmp(key, "job", 3))
				kv_set(&b->c->job_opts, k, val);
			else if (pl == 6 && !strncmp(key, "engine", 6))
				kv_set(&b->c->engine_opts, k, val);
			else if (pl == 7 && !strncmp(key, "iosched", 7))
				kv_set(&b->c->iosched, k, val);
			else if (pl == 5 && !strncmp(key, "queue", 5))
				kv_set(&b->c->queue, k, val);
			else if (pl == 3 && !strncmp(key, "bdi", 3))
				kv_set(&b->c->bdi, k, val);
			else if (pl == 3 && !strncmp(key, "env", 3)) {
				if (!strcmp(k, "TARGET"))
					rc = merr(m, line,
						  "env.TARGET is set by schedbench (use target = "
						  "or --target)");
				else
					kv_set(&b->c->env, k, val);
			} else
				rc = merr(m, line,
					  "unknown prefix in '%s' (job., section., engine., "
					  "iosched., queue., bdi., env.)",
					  key);
			continue;
		}
		if (!valid_key(key)) {
			rc = merr(m, line, "bad option name '%s'", key);
			break;
		}
		bare_add(b, key, val, line);
		note_line(b->c, key, line);
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
	char *p;
	if (sb_datadir()) {
		p = path_join(sb_datadir(), given);
		if (!access(p, R_OK))
			return p;
		free(p);
	}
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

static void cell_finish(struct cell *c, const struct matrix *m, const char *engine,
			const char *target_given)
{
	kv_sort(&c->engine_opts);
	kv_sort(&c->job_opts);
	kv_sort(&c->iosched);
	kv_sort(&c->queue);
	kv_sort(&c->env);
	kv_sort(&c->bdi);
	struct strbuf b;
	sb_init(&b);
	static const char *modes[] = {"job", "embedded", "kernel"};
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
	/* (the same: only when used) */
	if (c->mode == MODE_KERNEL && c->bdi.n) {
		sb_add(&b, ",\"bdi\":");
		kv_json(&b, &c->bdi);
	}
	if (m->model_kind && c->mode != MODE_JOB) {
		struct kvlist p = {0};
		kv_copy(&p, &m->device_params);
		kv_sort(&p);
		sb_add(&b, ",\"device\":{\"model\":");
		sb_json_str(&b, m->model_kind);
		sb_add(&b, ",\"params\":");
		kv_json(&b, &p);
		sb_add(&b, ",\"size\":");
		sb_json_str(&b, m->device_size ? m->device_size : "");
		sb_add(&b, "}");
		kv_free(&p);
	}
	if (c->mode == MODE_EMBEDDED && c->virt)
		sb_add(&b, ",\"clock\":\"virtual\"");
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

int matrix_expand(struct matrix *m, const char *engine, const char *target_given,
		  struct cell **cells_out, int *ncells_out)
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
		struct build b = {.c = c};
		c->line = m->jobs_line ? m->jobs_line : 1;
		/* runtime means time-based (fio would stop each job when its data is read once)
		 * unless the matrix says time_based = no; [set] and the axes may still set
		 * time_based */
		if (m->runtime) {
			kv_set(&c->job_opts, "runtime", m->runtime);
			note_line(c, "runtime", m->runtime_line);
		}
		if ((m->runtime && m->time_based != 0) || m->time_based == 1) {
			kv_set(&c->job_opts, "time_based", "1");
			note_line(c, "time_based", m->runtime_line);
		}
		if (m->logs) {
			static const char *logs[][2] = {{"iops", "write_iops_log"},
							{"lat", "write_lat_log"},
							{"bw", "write_bw_log"}};
			for (size_t l = 0; l < sizeof(logs) / sizeof(logs[0]); l++)
				if (strstr(m->logs, logs[l][0])) {
					kv_set(&c->job_opts, logs[l][1], "sb");
					note_line(c, logs[l][1], m->logs_line);
				}
			kv_set(&c->job_opts, "log_avg_msec",
			       m->log_avg_msec ? m->log_avg_msec : "500");
			note_line(c, "log_avg_msec", m->logs_line);
		}
		for (int s = 0; s < m->set.n && !rc; s++)
			rc = apply_tokens(m, &b, NULL, m->set.v[s].key, atoi(m->set.v[s].val));
		for (int a = 0; a < m->naxes && !rc; a++) {
			const struct alt *al = &m->axes[a].alts[idx[a]];
			kv_set(&c->labels, m->axes[a].name, al->label);
			rc = apply_tokens(m, &b, m->axes[a].name, al->text, al->line);
			if (m->axes[a].nalts > 1 || c->line < al->line)
				c->line = al->line;
		}
		/* bare key=value: a fio option, else an engine option (embedded) or iosched tunable
		 * (kernel) */
		for (int i = 0; i < b.nbare && !rc; i++) {
			const char *k = b.bare[i].key, *v = b.bare[i].val;
			if (fio_is_core_option(k))
				kv_set(&c->job_opts, k, v);
			else if (c->mode == MODE_EMBEDDED)
				kv_set(&c->engine_opts, k, v);
			else if (c->mode == MODE_KERNEL)
				kv_set(&c->iosched, k, v);
			else {
				const char *near = fio_closest_option(NULL, k);
				rc = merr(m, b.bare[i].line,
					  "'%s' is not a fio option%s%s%s and this cell has no "
					  "embedded:/kernel: "
					  "scheduler (write job.%s=, engine.%s= or iosched.%s=)",
					  k, near ? " (did you mean " : "", near ? near : "",
					  near ? "?)" : "", k, k, k);
			}
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
		/* the clock: virtual time is for embedded cells (the engine's policies in the
		 * simulator); kernel and plain cells run fio in real time */
		if (!b.clock_given && m->clock && !strcmp(m->clock, "virtual"))
			c->virt = c->mode == MODE_EMBEDDED;
		if (b.clock_given && c->mode != MODE_EMBEDDED &&
		    (c->virt || (m->clock && !strcmp(m->clock, "both")))) {
			rc = merr(m, c->clock_line,
				  "clock=%s is for embedded cells (the simulator runs the engine's "
				  "policies); this is a %s cell, which runs fio in real time%s",
				  c->virt ? "virtual" : "real",
				  c->mode == MODE_KERNEL ? "kernel" : "plain",
				  m->clock && !strcmp(m->clock, "both")
				      ? " (clock = both doubles every cell: use clock = virtual to "
					"simulate the embedded cells beside kernel ones)"
				      : "");
			break;
		}
		/* a model-backed device: embedded cells take the same model and parameters */
		if (m->model_kind && c->mode == MODE_EMBEDDED) {
			const char *dm = kv_get(&c->engine_opts, "device_model");
			if (dm && strcmp(dm, m->model_kind)) {
				rc = merr(m, line_or(c, "device_model"),
					  "engine.device_model=%s, and the matrix's device is "
					  "model:%s (both sides must see one device)",
					  dm, m->model_kind);
				break;
			}
			for (int i = 0; i < m->device_params.n && !rc; i++) {
				const char *k = m->device_params.v[i].key;
				const char *v = kv_get(&c->engine_opts, k);
				if (v && strcmp(v, m->device_params.v[i].val))
					rc =
					    merr(m, line_or(c, k),
						 "engine.%s=%s, and [device] says %s = %s (set the "
						 "model's parameters in [device] only)",
						 k, v, k, m->device_params.v[i].val);
				else
					kv_set(&c->engine_opts, k, m->device_params.v[i].val);
			}
			if (rc)
				break;
			kv_set(&c->engine_opts, "device_model", m->model_kind);
		}
		if (!c->job_path) {
			rc = merr(m, 1,
				  "no job file: give 'jobs =' in [matrix], an [axis.jobs] or a "
				  "job:PATH token");
			break;
		}
		int found = -1;
		char *absp = resolve_job(c->job_path, m->path);
		if (!absp) {
			rc = merr(m, b.job_line ? b.job_line : 1, "job file '%s' not found",
				  c->job_path);
			break;
		}
		for (int j = 0; j < njc; j++)
			if (!strcmp(jc[j].abs, absp))
				found = j;
		if (found < 0) {
			size_t len;
			char *t = read_file(absp, &len);
			if (!t) {
				rc = merr(m, b.job_line, "cannot read job file '%s': %s", absp,
					  strerror(errno));
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
				rc = merr(m, 1, "section.%s: job file '%s' has no section [%s]", k,
					  c->job_path, sec);
			free(sec);
			if (rc)
				break;
		}
		if (rc)
			break;
		cell_finish(c, m, engine, target_given);
	}
	/* Embedded cells of a matrix with kernel cells run on the kernel cells' device (run.c):
	 * that is part of what they measure, so of their identity. */
	int any_kernel = 0;
	for (long ci = 0; !rc && ci < total; ci++)
		any_kernel |= cells[ci].mode == MODE_KERNEL;
	for (long ci = 0; !rc && any_kernel && !m->model_kind && ci < total; ci++) {
		struct cell *c = &cells[ci];
		size_t n = strlen(c->overlays_json);
		if (c->mode != MODE_EMBEDDED || !n)
			continue;
		char *o =
		    xasprintf("%.*s,\"device\":\"kernel-cells\"}", (int)(n - 1), c->overlays_json);
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
		kv_free(&c->bdi);
		kv_free(&c->labels);
		kv_free(&c->lines);
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
