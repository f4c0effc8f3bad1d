/* Where schedbench finds its data, its engine and its database. Nothing of the build tree is
 * compiled in: the data directory is found from the binary's own location (or the environment). */
#include "sb.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return dir_name(buf);
}

/* A data directory has the schema, the report script and the seed jobs. */
static int is_datadir(const char *d)
{
	char *a = path_join(d, "results/schema.sql");
	char *b = path_join(d, "scripts/report.py");
	int ok = !access(a, R_OK) && !access(b, R_OK);

	free(a);
	free(b);
	return ok;
}

static char *canonical(const char *p)
{
	char buf[PATH_MAX];

	return realpath(p, buf) ? xstrdup(buf) : xstrdup(p);
}

static char *g_datadir;
static char *g_engine;
static int g_resolved;

static void resolve(void)
{
	if (g_resolved)
		return;
	g_resolved = 1;
	char *ed = exe_dir();
	const char *env = getenv("SCHEDBENCH_DATADIR");

	if (env && *env) {
		g_datadir = canonical(env);
	} else if (ed) {
		char *inst = path_join(ed, "../share/schedengine");
		if (is_datadir(inst)) {
			g_datadir = canonical(inst);
		} else {
			/* the build tree: build/schedbench, build/asan/schedbench, ... */
			char *d = xstrdup(ed);
			for (int i = 0; i < 4 && !g_datadir; i++) {
				if (is_datadir(d))
					g_datadir = canonical(d);
				char *up = path_join(d, "..");
				free(d);
				d = up;
			}
			free(d);
		}
		free(inst);
	}
	if (ed) {
		char *next = path_join(ed, "libschedengine.so");
		char *inst = path_join(ed, "../lib/fio/libschedengine.so");
		if (!access(next, R_OK))
			g_engine = canonical(next);
		else if (!access(inst, R_OK))
			g_engine = canonical(inst);
		else
			g_engine = xstrdup(next); /* reported as missing by name */
		free(next);
		free(inst);
	}
	free(ed);
	if (!g_engine)
		g_engine = xstrdup("libschedengine.so");
}

const char *sb_datadir(void)
{
	resolve();
	return g_datadir;
}

const char *sb_default_engine(void)
{
	resolve();
	return g_engine;
}

char *sb_db_path(const char *given)
{
	if (given && *given)
		return xstrdup(given);
	const char *e = getenv("SCHEDBENCH_DB");
	if (e && *e)
		return xstrdup(e);
	return xstrdup(SB_DEFAULT_DB);
}

int sb_db_dir_check(const char *given, const char *path, char *err, size_t errlen)
{
	if (!strcmp(path, SB_DEFAULT_DB))
		return 0; /* the default's results/ is made under the current directory */
	const char *what = given && *given ? "--db " : "SCHEDBENCH_DB=";
	char *d = dir_name(path);
	struct stat sb;
	int rc = 0;
	if (stat(d, &sb)) {
		snprintf(err, errlen,
			 "%s%s: directory %s: %s (the database file is made, not its directory)",
			 what, path, d, strerror(errno));
		rc = -1;
	} else if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s%s: %s is not a directory", what, path, d);
		rc = -1;
	}
	free(d);
	return rc;
}
