/* fio job files: validation and the overlay copy (engine, engine options, job-option overrides). */
#include "sb.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fio_bin_path(void)
{
	const char *f = getenv("SCHEDBENCH_FIO");
	return f && *f ? f : "fio";
}

static char *fio_bin(void)
{
	return xstrdup(fio_bin_path());
}

int fio_available(void)
{
	char *f = fio_bin();
	const char *argv[] = {f, "--version", NULL};
	int rc = 0;
	char *out = run_capture(argv, &rc);
	free(f);
	int ok = out && rc == 0 && !strncmp(out, "fio-", 4);
	free(out);
	return ok;
}

char *fio_version(void)
{
	char *f = fio_bin();
	const char *argv[] = {f, "--version", NULL};
	int rc = 0;
	char *out = run_capture(argv, &rc);
	free(f);
	if (!out)
		return xstrdup("unknown");
	char *t = xstrdup(trim(out));
	free(out);
	return t;
}

/* Option names of `fio --cmdhelp=all` (or --enghelp=ENGINE), one name per line "name : help". */
static int parse_optlist(const char *out, struct kvlist *l)
{
	int n = 0;
	const char *p = out;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = xstrndup(p, len);
		char *t = trim(line);
		/* "name      : help", or "name: help" when the name fills fio's 24 columns */
		char *colon = strstr(t, " :");
		char *help = colon ? colon + 2 : NULL;
		char *c2 = strchr(t, ':');
		if (c2 && (!colon || c2 < colon) && c2 - t >= 24 &&
		    (size_t)(c2 - t) <= strcspn(t, " "))
			colon = c2, help = c2 + 1;
		if (colon) {
			*colon = 0;
			char *name = trim(t);
			if (*name && !strchr(name, ' ')) {
				kv_set(l, name, trim(help));
				n++;
			}
		}
		free(line);
		p = e ? e + 1 : NULL;
	}
	return n;
}

static struct kvlist core_opts;
static int core_loaded;

int fio_is_core_option(const char *key)
{
	if (!core_loaded) {
		core_loaded = 1;
		char *f = fio_bin();
		const char *argv[] = {f, "--cmdhelp=all", NULL};
		int rc;
		char *out = run_capture(argv, &rc);
		free(f);
		if (out)
			parse_optlist(out, &core_opts);
		free(out);
		/* aliases (fio options.c .alias) are not listed by --cmdhelp */
		static const char *aliases[] = {"readwrite",
						"iodepth_batch_submit",
						"iodepth_batch_complete",
						"io_limit",
						"fill_fs",
						"fileoffset",
						"blocksize",
						"blockalign",
						"blocksize_range",
						"blocksize_unaligned",
						"nr_files",
						"timeout",
						"iomem",
						"mem_align",
						"ratemin",
						"ratecycle",
						"wait_for_previous",
						"disable_bw",
						"ss",
						"ss_dur",
						"ss_ramp",
						NULL};
		for (int i = 0; aliases[i]; i++)
			kv_set(&core_opts, aliases[i], "1");
		if (core_opts.n <
		    30) /* fio missing: fall back to a small list of the usual overrides */ {
			static const char *common[] = {
			    "filename", "size",	     "runtime", "numjobs",	   "time_based",
			    "bs",	"rw",	     "iodepth", "direct",	   "ioengine",
			    "name",	"ramp_time", "nrfiles", "offset",	   "io_size",
			    "rate",	"rate_iops", "fsync",	"group_reporting", "directory",
			    "prio",	"prioclass", NULL};
			for (int i = 0; common[i]; i++)
				kv_set(&core_opts, common[i], "1");
		}
	}
	return kv_get(&core_opts, key) != NULL;
}

/* Options that belong to a built-in engine (fio --enghelp=NAME); cached per engine. */
struct engopts {
	char *engine;
	struct kvlist opts;
	char *why; /* fio could not load it: fio's message */
};
static struct engopts *engcache;
static int nengcache;

/* The engine's entry in the cache, `fio --enghelp=ENGINE` run the first time. */
static int engine_load(const char *engine)
{
	int i;
	for (i = 0; i < nengcache; i++)
		if (!strcmp(engcache[i].engine, engine))
			break;
	if (i == nengcache) {
		engcache = xrealloc(engcache, sizeof(*engcache) * (size_t)(nengcache + 1));
		memset(&engcache[i], 0, sizeof(engcache[i]));
		engcache[i].engine = xstrdup(engine);
		nengcache++;
		char *f = fio_bin();
		char *arg = xasprintf("--enghelp=%s", engine);
		const char *argv[] = {f, arg, NULL};
		int rc;
		char *out = run_capture_all(argv, &rc);
		if (out)
			parse_optlist(out, &engcache[i].opts);
		if (rc != 0 || !engcache[i].opts.n) {
			/* "fio: engine /bin/true not loadable": fio's own line, else its first */
			const char *l = out ? strstr(out, "fio: ") : NULL;
			if (l)
				l += 5;
			else
				l = out && *out ? out : "no options listed";
			engcache[i].why = xstrndup(l, strcspn(l, "\n"));
		}
		free(out);
		free(arg);
		free(f);
	}
	return i;
}

static int is_engine_option(const char *engine, const char *key)
{
	int i = engine_load(engine); /* before engcache is read: it may move */
	return kv_get(&engcache[i].opts, key) != NULL;
}

const char *fio_engine_unloadable(const char *engine)
{
	int i = engine_load(engine);
	return engcache[i].why;
}

int fio_engine_has_option(const char *engine, const char *key)
{
	return is_engine_option(engine, key);
}

const char *fio_engine_option_help(const char *engine, const char *key)
{
	if (!is_engine_option(engine, key))
		return NULL;
	for (int i = 0; i < nengcache; i++)
		if (!strcmp(engcache[i].engine, engine))
			return kv_get(&engcache[i].opts, key);
	return NULL;
}

/* The option name closest to key among fio's and the engine's (edit distance <= 2). */
const char *fio_closest_option(const char *engine, const char *key)
{
	const char *best = NULL;
	int bd = 3;
	fio_is_core_option(key); /* loads the list */
	for (int i = 0; i < core_opts.n; i++) {
		int d = levenshtein(key, core_opts.v[i].key);
		if (d < bd)
			bd = d, best = core_opts.v[i].key;
	}
	if (engine) {
		is_engine_option(engine, key);
		for (int e = 0; e < nengcache; e++)
			if (!strcmp(engcache[e].engine, engine))
				for (int i = 0; i < engcache[e].opts.n; i++) {
					int d = levenshtein(key, engcache[e].opts.v[i].key);
					if (d < bd)
						bd = d, best = engcache[e].opts.v[i].key;
				}
	}
	return best;
}

/* Splits a job-file line into key and value (both trimmed, malloc'd). Returns 0 if not an option.
 */
static int split_option(const char *line, char **key, char **val)
{
	char *l = xstrdup(line);
	char *t = trim(l);
	if (!*t || *t == '#' || *t == ';' || *t == '[') {
		free(l);
		return 0;
	}
	char *eq = strchr(t, '=');
	if (eq) {
		*eq = 0;
		*key = xstrdup(trim(t));
		*val = xstrdup(trim(eq + 1));
	} else {
		*key = xstrdup(t);
		*val = NULL;
	}
	free(l);
	return 1;
}

int jobfile_has_section(const char *text, const char *name)
{
	const char *p = text;
	size_t nl = strlen(name);
	while (p && *p) {
		const char *e = strchr(p, '\n');
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[' && !strncmp(p + 1, name, nl) && p[1 + nl] == ']')
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int jobfile_check(const char *path, const char *text, char *err, size_t errlen)
{
	int lineno = 0, in_section = 0, njobs = 0;
	const char *p = text;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = xstrndup(p, len);
		char *t = trim(line);
		lineno++;
		p = e ? e + 1 : NULL;
		if (!*t || *t == '#' || *t == ';') {
			free(line);
			continue;
		}
		if (*t == '[') {
			char *end = strchr(t, ']');
			if (!end) {
				snprintf(err, errlen,
					 "%s:%d: malformed section header '%s' (missing ']')", path,
					 lineno, t);
				free(line);
				return -1;
			}
			*end = 0;
			char *name = trim(t + 1);
			if (!*name) {
				snprintf(err, errlen, "%s:%d: empty section name", path, lineno);
				free(line);
				return -1;
			}
			if (strcmp(name, "global"))
				njobs++;
			in_section = 1;
			free(line);
			continue;
		}
		if (!strncmp(t, "include ", 8)) {
			free(line);
			continue;
		}
		if (!in_section) {
			snprintf(err, errlen, "%s:%d: option '%s' outside of a [section]", path,
				 lineno, t);
			free(line);
			return -1;
		}
		if (*t == '=') {
			snprintf(err, errlen, "%s:%d: missing option name before '='", path,
				 lineno);
			free(line);
			return -1;
		}
		for (char *q = t; *q && *q != '='; q++) {
			if (*q == ' ' || *q == '\t') {
				char *r = q;
				while (*r == ' ' || *r == '\t')
					r++;
				if (*r && *r != '=') {
					snprintf(err, errlen, "%s:%d: malformed option line '%s'",
						 path, lineno, t);
					free(line);
					return -1;
				}
				break;
			}
		}
		free(line);
	}
	if (njobs == 0) {
		snprintf(err, errlen, "%s:%d: no job section (only [global] or nothing)", path,
			 lineno ? lineno : 1);
		return -1;
	}
	return 0;
}

/* fio's aliases of the options one is likely to override (fio options.c .alias). */
static const char *canonical_option(const char *k)
{
	static const char *alias[][2] = {{"blocksize", "bs"},
					 {"readwrite", "rw"},
					 {"blockalign", "ba"},
					 {"blocksize_range", "bsrange"},
					 {"nr_files", "nrfiles"},
					 {"timeout", "runtime"},
					 {"io_limit", "io_size"},
					 {"fileoffset", "offset"},
					 {"iodepth_batch_submit", "iodepth_batch"}};
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(k, alias[i][0]))
			return alias[i][1];
	return k;
}

/* The value of section.SECTION.KEY in the cell, if any (KEY compared through aliases). */
static const char *section_override(const struct cell *c, const char *section, const char *key)
{
	size_t sl = strlen(section);
	for (int i = 0; i < c->job_opts.n; i++) {
		const char *k = c->job_opts.v[i].key;
		const char *dot = strrchr(k, '.');
		if (dot && (size_t)(dot - k) == sl && !strncmp(k, section, sl) &&
		    !strcmp(canonical_option(dot + 1), canonical_option(key)))
			return c->job_opts.v[i].val;
	}
	return NULL;
}

/* True if the overlay of SECTION sets KEY: the file's own line is then commented out, because
 * which of two values of one option in a section fio applies depends on qsort's stability. */
static int overridden_in(const struct cell *c, const char *section, const char *key)
{
	if (section_override(c, section, key))
		return 1;
	for (int i = 0; i < c->job_opts.n; i++) {
		const char *k = c->job_opts.v[i].key;
		if (!strchr(k, '.') && !strcmp(canonical_option(k), canonical_option(key)) &&
		    (c->job_opts.v[i].val[0] || !strcmp(k, "time_based")))
			return 1;
	}
	return 0;
}

/* The engine's backend for the engine a job file named (fio's default is psync); NULL if none fits.
 */
static const char *backend_for(const char *engine)
{
	static const char *map[][2] = {
	    {"libaio", "libaio"},     {"linuxaio", "libaio"}, {"aio", "libaio"},
	    {"io_uring", "io_uring"}, {"psync", "psync"},     {"sync", "psync"},
	    {"pvsync", "psync"},      {"pvsync2", "psync"},   {"vsync", "psync"}};
	if (!engine)
		engine = "psync";
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(engine, map[i][0]))
			return map[i][1];
	return NULL;
}

static void emit_overlay(struct strbuf *o, const struct cell *c, const char *engine_so,
			 const char *stats, const char *section, const char *backend,
			 const char *cgdir)
{
	if (c->mode != MODE_EMBEDDED && c->job_opts.n == 0 && !cgdir)
		return;
	sb_addf(o, "; --- schedbench overlay (%s) ---\n", section);
	/* a kernel cell's job joins the cgroup the runner made: sh's $PPID is the job process */
	if (cgdir)
		sb_addf(o, "exec_prerun=printf %%s $PPID | tee %s/cgroup.procs\n", cgdir);
	if (c->mode == MODE_EMBEDDED) {
		/* The engine must be set in (or inherited by) every section naming an engine
		 * option. */
		sb_addf(o, "ioengine=external:%s\n", engine_so);
		/* The job's own engine becomes the engine's backend (how granted requests are
		 * issued). */
		if (backend && !kv_get(&c->engine_opts, "backend"))
			sb_addf(o, "backend=%s\n", backend);
		for (int i = 0; i < c->engine_opts.n; i++)
			sb_addf(o, "%s=%s\n", c->engine_opts.v[i].key, c->engine_opts.v[i].val);
		if (stats && !kv_get(&c->engine_opts, "sched_stats"))
			sb_addf(o, "sched_stats=%s\n", stats);
	}
	for (int i = 0; i < c->job_opts.n; i++) {
		const char *k = c->job_opts.v[i].key, *v = c->job_opts.v[i].val;
		const char *dot = strrchr(k, '.');
		if (dot) { /* section.NAME.KEY: only in section NAME */
			if ((size_t)(dot - k) != strlen(section) ||
			    strncmp(k, section, (size_t)(dot - k)))
				continue;
			k = dot + 1;
		} else if (section_override(c, section, k)) {
			continue; /* this section has its own value */
		}
		if (v[0] || !strcmp(k, "time_based"))
			sb_addf(o, "%s=%s\n", k, v);
	}
	sb_add(o, "; --- end of overlay ---\n");
}

/* The ioengine a section sets itself (NULL if none), by section ordinal. */
static char **section_engines(const char *text, int *nsec)
{
	char **eng = NULL;
	int n = 0;
	const char *p = text;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		char *line = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
		char *t = trim(line);
		char *key, *val;
		if (*t == '[') {
			eng = xrealloc(eng, sizeof(*eng) * (size_t)(n + 1));
			eng[n++] = NULL;
		} else if (n > 0 && split_option(t, &key, &val)) {
			if (!strcmp(key, "ioengine") && val) {
				free(eng[n - 1]);
				eng[n - 1] = xstrdup(val);
			}
			free(key);
			free(val);
		}
		free(line);
		p = e ? e + 1 : NULL;
	}
	*nsec = n;
	return eng;
}

char *jobfile_overlay(const char *text, const struct cell *c, const char *engine_so,
		      const char *stats)
{
	return jobfile_overlay_cg(text, c, engine_so, stats, NULL);
}

char *jobfile_overlay_cg(const char *text, const struct cell *c, const char *engine_so,
			 const char *stats, const struct kvlist *cgpaths)
{
	char *sec_cg = NULL; /* the runner's cgroup directory of the current section */
	struct strbuf o;
	sb_init(&o);
	sb_addf(&o, "; generated by schedbench from %s\n; cell: %s\n", c->job_abs, c->name);
	int nsec = 0;
	char **engines = c->mode == MODE_EMBEDDED ? section_engines(text, &nsec) : NULL;
	/* Only engines that have the options: an older engine gets the overlay as before. */
	int has_backend = engines && fio_engine_has_option(engine_so, "backend");
	int has_group = engines && fio_engine_has_option(engine_so, "sched_group");
	char *global_engine = NULL;
	char *section = NULL;
	int sec = -1;
	const char *p = text;
	for (;;) {
		const char *e = p ? strchr(p, '\n') : NULL;
		int eof = !p || !*p;
		const char *engine = NULL; /* the engine the current section had in the job file */
		if (engines && sec >= 0 && sec < nsec)
			engine = engines[sec] ? engines[sec]
					      : (strcmp(section, "global") ? global_engine : NULL);
		if (eof) {
			if (section)
				emit_overlay(&o, c, engine_so, stats, section,
					     has_backend ? backend_for(engine) : NULL, sec_cg);
			break;
		}
		char *line = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
		char *tcopy = xstrdup(line);
		char *t = trim(tcopy);
		if (*t == '[') {
			if (section)
				emit_overlay(&o, c, engine_so, stats, section,
					     has_backend ? backend_for(engine) : NULL, sec_cg);
			free(sec_cg);
			sec_cg = NULL;
			char *end = strchr(t, ']');
			free(section);
			section = xstrndup(t + 1, end ? (size_t)(end - t - 1) : strlen(t + 1));
			sec++;
			engine = NULL;
			if (engines && sec < nsec)
				engine = engines[sec]
					     ? engines[sec]
					     : (strcmp(section, "global") ? global_engine : NULL);
		}
		char *key = NULL, *val = NULL;
		int drop = 0;
		const char *translate = NULL;
		if (section && *t != '[' && split_option(line, &key, &val) &&
		    overridden_in(c, section, key)) {
			drop = 1;
		} else if (cgpaths && c->mode == MODE_KERNEL && section && key &&
			   (!strcmp(key, "cgroup") || !strcmp(key, "cgroup_weight"))) {
			/* fio's cgroup= is cgroup-v1 blkio.weight: the runner's cgroups instead */
			drop = 2;
			const char *dir = val ? kv_get(cgpaths, val) : NULL;
			if (!strcmp(key, "cgroup") && dir) {
				free(sec_cg);
				sec_cg = xstrdup(dir);
			}
		} else if (engines && section && *t != '[' && key) {
			if (!strcmp(key, "ioengine")) {
				drop = 1;
				if (!strcmp(section, "global")) {
					free(global_engine);
					global_engine = val ? xstrdup(val) : NULL;
				}
			} else if (engine && strncmp(engine, "external", 8) &&
				   is_engine_option(engine, key)) {
				drop = 1;
			} else if (has_group &&
				   (!strcmp(key, "cgroup") || !strcmp(key, "cgroup_weight"))) {
				/* fio's blkio cgroups do not reach the embedded scheduler (and need
				 * cgroup v1 blkio.weight): the job's group and weight become the
				 * engine's */
				drop = 1;
				translate = !strcmp(key, "cgroup") ? "sched_group" : "sched_weight";
				if (kv_get(&c->engine_opts, translate) || !val)
					translate = NULL;
			}
		}
		if (drop == 2) {
			sb_addf(&o, "; schedbench: in the runner's cgroup: %s\n", t);
		} else if (drop) {
			sb_addf(&o, "; schedbench: %s: %s\n",
				translate				     ? "translated"
				: key && !strcmp(key, "ioengine")	     ? "replaced"
				: engines && !overridden_in(c, section, key) ? "replaced"
									     : "overridden",
				t);
			if (translate)
				sb_addf(&o, "%s=%s\n", translate, val);
		} else {
			sb_add(&o, line);
			sb_add(&o, "\n");
		}
		free(key);
		free(val);
		free(tcopy);
		free(line);
		p = e ? e + 1 : NULL;
	}
	for (int i = 0; i < nsec; i++)
		free(engines[i]);
	free(engines);
	free(section);
	free(global_engine);
	free(sec_cg);
	return sb_steal(&o);
}
