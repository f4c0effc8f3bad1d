/* schedbench: runs fio experiment matrices (embedded and kernel schedulers) into sqlite. */
#ifndef SCHEDBENCH_SB_H
#define SCHEDBENCH_SB_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>

#define SB_ATTR_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ---- util.c ---- */
struct strbuf {
	char *s;
	size_t len, cap;
};

void sb_init(struct strbuf *b);
void sb_addn(struct strbuf *b, const char *s, size_t n);
void sb_add(struct strbuf *b, const char *s);
void sb_addf(struct strbuf *b, const char *fmt, ...) SB_ATTR_PRINTF(2, 3);
void sb_json_str(struct strbuf *b, const char *s); /* appends a quoted, escaped JSON string */
char *sb_steal(struct strbuf *b);
void sb_free(struct strbuf *b);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) SB_ATTR_PRINTF(1, 2);
void die(const char *fmt, ...) SB_ATTR_PRINTF(1, 2) __attribute__((noreturn));
void warnx_(const char *fmt, ...) SB_ATTR_PRINTF(1, 2);

char *read_file(const char *path, size_t *len); /* NULL + errno on failure */
int write_file(const char *path, const char *data, size_t len);
char *trim(char *s);
int mkdir_p(const char *path);
int rm_rf(const char *path);
char *path_join(const char *a, const char *b);
char *abs_path(const char *p); /* absolute without resolving symlinks; p need not exist */
const char *base_name(const char *p);
char *dir_name(const char *p);
char *run_capture(const char *const argv[], int *rc); /* stdout of a command, NULL if exec fails */
char *run_capture_all(const char *const argv[], int *rc); /* stdout and stderr */
char *tail_text(const char *s, size_t maxbytes);
char *now_iso(void);
double now_mono(void);
void fmt_hms(char *out, size_t n, double secs);

void sha256_hex(const void *data, size_t len, char out[65]); /* nettle */
int levenshtein(const char *a, const char *b);
double parse_seconds(const char *s); /* fio time value ("5", "300ms", "2m") in s; -1 if not one */

/* ---- paths.c: no build-tree path is compiled in ---- */
/* The directory holding results/schema.sql, scripts/report.py and jobs/: $SCHEDBENCH_DATADIR,
 * <bindir>/../share/schedengine when installed, else the checkout the binary was built in (found
 * upwards from the binary). NULL if none. */
const char *sb_datadir(void);
/* The engine when neither --engine nor the matrix names one: next to the binary (build tree) or
 * <prefix>/lib/fio/libschedengine.so (installed). */
const char *sb_default_engine(void);
/* --db, else $SCHEDBENCH_DB, else results/schedengine.db under the current directory. */
char *sb_db_path(const char *given);

/* ---- kv lists ---- */
struct kv {
	char *key, *val;
};
struct kvlist {
	struct kv *v;
	int n, cap;
};
void kv_set(struct kvlist *l, const char *key, const char *val); /* replaces an existing key */
const char *kv_get(const struct kvlist *l, const char *key);
void kv_sort(struct kvlist *l);
void kv_free(struct kvlist *l);
void kv_copy(struct kvlist *dst, const struct kvlist *src);
void kv_json(struct strbuf *b, const struct kvlist *l); /* {"k":"v",...} */

/* ---- matrix.c ---- */
struct alt {
	char *label;
	char *text;
	int line;
};
struct axis {
	char *name;
	struct alt *alts;
	int nalts, line;
};
struct matrix {
	char *path;
	char *name, *description, *report, *x_axis, *baseline;
	int repeat;
	char *runtime;
	int time_based; /* -1: not given (runtime given: time-based), 0 no, 1 yes */
	char *logs;	/* fio logs the cells write: "iops lat bw" (write_*_log) */
	char *log_avg_msec;
	char *engine, *target, *image_size;
	int x_axis_line, baseline_line, runtime_line, logs_line, jobs_line;
	struct kvlist set; /* tokens applied to every cell */
	int set_line;
	struct axis *axes;
	int naxes;
	char err[1024];
};

enum cell_mode { MODE_JOB = 0, MODE_EMBEDDED = 1, MODE_KERNEL = 2 };

struct cell {
	int index;
	char *job_path; /* as given (relative to repo or cwd) */
	char *job_abs;	/* resolved path */
	char *job_text;
	enum cell_mode mode;
	char *sched; /* embedded: engine sched=; kernel: scheduler name */
	struct kvlist engine_opts, job_opts, iosched, queue;
	struct kvlist env;    /* env.NAME=V: environment of fio (job files' ${NAME}) */
	struct kvlist labels; /* axis name -> label, in axis order */
	struct kvlist lines;  /* option -> matrix line that set it (for errors) */
	int line;	      /* the matrix line of the cell's last alternative */
	char *name;	      /* "axis=label axis=label" */
	char *overlays_json;  /* canonical, part of the cell hash */
	char *labels_json;
};

int matrix_parse(struct matrix *m, const char *path);
void matrix_free(struct matrix *m);
/* Expands the matrix into cells; fills m->err ("FILE:LINE: message") and returns -1 on error. */
int matrix_expand(struct matrix *m, const char *engine, const char *target_given,
		  struct cell **cells, int *ncells);
/* Before the first cell: x_axis and baseline name what the matrix has, every engine option is one
 * of the engine's (and of the cell's scheduler), and fio --parse-only accepts every cell's
 * generated job file with the engine loaded. 0, or -1 with "FILE:LINE: message" in m->err. */
int matrix_validate(struct matrix *m, struct cell *cells, int ncells, const char *engine_so,
		    const char *tmpdir);
/* The configuration of a cell as the reports name it (the labels of every varying axis but
 * x_axis); NULL when the matrix has no configuration axis. */
char *cell_config(const struct matrix *m, const struct cell *c);
void cells_free(struct cell *c, int n);
/* SHA-256 (hex) of the job text and the canonical overlays; a run is (cell hash, repetition). */
char *cell_hash(const struct cell *c);

/* ---- jobfile.c ---- */
/* Validates a fio job file text; returns 0 or -1 with "FILE:LINE: message" in err. */
int jobfile_check(const char *path, const char *text, char *err, size_t errlen);
/* The job file with overlays inserted into [global] and every job section. */
char *jobfile_overlay(const char *text, const struct cell *c, const char *engine_so,
		      const char *sched_stats_path);
int jobfile_has_section(const char *text, const char *name);
int fio_is_core_option(const char *key);
int fio_engine_has_option(const char *engine, const char *key); /* fio --enghelp=ENGINE lists key */
const char *fio_engine_option_help(const char *engine,
				   const char *key);		     /* its help text, or NULL */
const char *fio_closest_option(const char *engine, const char *key); /* a likely intended name */
const char *fio_bin_path(void);
char *fio_version(void);
int fio_available(void);

/* ---- kernel.c ---- */
struct kdev {
	char name[64];	   /* sysfs name of the whole disk, e.g. loop3 */
	char devpath[256]; /* /dev/... */
	char qdir[320];	   /* /sys/block/<name>/queue */
	int is_loop_ours;
	char image[PATH_MAX];
	/* saved state to restore */
	int saved;
	char old_sched[64];
	struct kvlist old_iosched, old_queue;
};
int kdev_open(struct kdev *d, const char *target, char *err, size_t errlen);
int kdev_loop_create(struct kdev *d, const char *image, const char *size, char *err, size_t errlen);
void kdev_loop_destroy(struct kdev *d);
/* Sets scheduler + tunables, reads them back; 0 ok, -1 with err. Saves the old state first. */
int kdev_apply(struct kdev *d, const struct cell *c, char *err, size_t errlen);
char *kdev_state_json(const struct kdev *d); /* all readable files of queue/ and queue/iosched/ */
void kdev_restore(struct kdev *d);
void sysfs_dir_json(struct strbuf *b, const char *dir); /* readable files of dir as a JSON object */
char *sysfs_read(const char *path);			/* trimmed contents, NULL on error */
int sysfs_write(const char *path, const char *val);

/* ---- db.c ---- */
struct sqlite3;
struct provenance {
	char *host, *kernel, *fio_version, *engine_rev, *cpu_model;
	char *engine_build_id;
	char *json; /* host-wide: cmdline, cpu (model, governor), memory, engine identity,
		       schedbench */
};
struct sqlite3 *db_open(const char *path, char *err, size_t errlen);
void db_close(struct sqlite3 *db);
enum claim_result { CLAIM_OK, CLAIM_DONE, CLAIM_BUSY, CLAIM_ERR };
enum claim_result db_claim(struct sqlite3 *db, const char *hash, int rep, int force,
			   const char *owner, const char *experiment, const char *cell_name);
char *runner_owner(void);	    /* host:pid:start-time of this process */
int owner_alive(const char *owner); /* same host: the process still runs (start time checked) */
struct run_record {
	const char *hash;
	int repetition;
	const char *experiment, *matrix_path, *cell_name, *labels_json;
	const char *job_path, *job_text, *job_hash, *generated_job, *overlays_json, *mode,
	    *scheduler, *target;
	const struct provenance *prov;
	const char *status;
	int rc;
	const char *stderr_tail, *started_at, *ended_at;
	double duration_s;
	const char *sysfs_state, *fio_json, *sched_stats, *provenance;
};
/* Stores one run (one transaction); 0 ok, -1 on error (message on stderr). */
long long db_store(struct sqlite3 *db, const struct run_record *r, char *err, size_t errlen);
void db_release(struct sqlite3 *db, const char *hash, int rep, const char *owner);
char *json_strip(const char *text); /* text between the first '{' and the last '}' */
/* Running rows of runners on this host that are gone become 'interrupted'; returns how many. */
int db_reclaim_stale(struct sqlite3 *db, int verbose);
/* Marks the running rows of one owner interrupted (after that runner was killed). */
void db_mark_interrupted(struct sqlite3 *db, const char *owner);
int db_store_log(struct sqlite3 *db, long long run_id, const char *name, const char *kind, int job,
		 const char *text);

/* ---- provenance.c ---- */
/* engine_so: the .so embedded cells load (NULL: no embedded cell). */
void provenance_collect(struct provenance *p, const char *engine_so);
void provenance_free(struct provenance *p);
/* The block device holding PATH (a device node or a file on a file system) as JSON: device, model,
 * vendor, rotational and every readable queue/ file; {"device":null,"fs":...} when there is none.
 */
char *target_device_json(const char *path);
/* ELF notes of a .so: the GNU build id (hex) and the engine's revision note ("schedengine", type
 * 1); each NULL when absent. */
void elf_engine_ids(const char *so, char **build_id, char **revision);

/* ---- run.c ---- */
struct run_opts {
	const char *matrix, *db, *target, *engine;
	int repeat, force, dry_run;
	const char *runtime;
};
int cmd_run(struct run_opts *o);
extern volatile int g_interrupted;

/* ---- ingest.c ---- */
struct ingest_opts {
	const char *file, *db, *experiment;
	struct kvlist labels;
};
int cmd_ingest(struct ingest_opts *o);

/* ---- cleanup.c: what a killed runner leaves is undone ---- */
/* The journal of this runner (<tmpdir>/journal-<pid>): every sysfs value before it is changed,
 * loop images, scratch directories and fio process groups, written before the change. A
 * supervisor process replays it when the runner dies without finishing; the next runner replays
 * journals of dead runners. */
int journal_open(const char *tmpdir, const char *owner, const char *dbpath);
/* kind: "sched" (the scheduler file, old value = the selected name), "iosched" (a tunable of the
 * scheduler that was there before) or "queue" (a queue/ attribute) */
void journal_sysfs(const char *kind, const char *path, const char *old_value);
void journal_loop(const char *image);
void journal_dir(const char *path, int add); /* add 0: removed by the runner itself */
void journal_pgid(int pgid, const char *cwd, int add);
void journal_close(void); /* normal end: tell the supervisor and remove the journal */
int supervisor_start(void);
int journal_replay(const char *path, int verbose);
int kill_in_dir(const char *dir, int sig); /* processes whose cwd is dir or below; how many */
/* Replays the journals of dead runners under tmpdir; returns how many. */
int journals_reclaim(const char *tmpdir);

#endif
