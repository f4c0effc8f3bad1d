/* schedbench: runs fio experiment matrices (embedded and kernel schedulers) into sqlite. */
#ifndef SCHEDBENCH_SB_H
#define SCHEDBENCH_SB_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>

#ifndef SCHEDBENCH_ROOT
#define SCHEDBENCH_ROOT "."
#endif

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

void sha256_hex(const void *data, size_t len, char out[65]);

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
	char *engine, *target, *image_size;
	struct kvlist set; /* tokens applied to every cell */
	int set_line;
	struct axis *axes;
	int naxes;
	char err[1024];
};

enum cell_mode { MODE_JOB = 0, MODE_EMBEDDED = 1, MODE_KERNEL = 2 };

struct cell {
	int index;
	char *job_path;  /* as given (relative to repo or cwd) */
	char *job_abs;   /* resolved path */
	char *job_text;
	enum cell_mode mode;
	char *sched; /* embedded: engine sched=; kernel: scheduler name */
	struct kvlist engine_opts, job_opts, iosched, queue;
	struct kvlist env;    /* env.NAME=V: environment of fio (job files' ${NAME}) */
	struct kvlist labels; /* axis name -> label, in axis order */
	char *name;           /* "axis=label axis=label" */
	char *overlays_json;  /* canonical, part of the cell hash */
	char *labels_json;
};

int matrix_parse(struct matrix *m, const char *path);
void matrix_free(struct matrix *m);
/* Expands the matrix into cells; fills m->err ("FILE:LINE: message") and returns -1 on error. */
int matrix_expand(struct matrix *m, const char *engine, const char *target_given, struct cell **cells,
		  int *ncells);
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
char *fio_version(void);
int fio_available(void);

/* ---- kernel.c ---- */
struct kdev {
	char name[64];       /* sysfs name of the whole disk, e.g. loop3 */
	char devpath[256];   /* /dev/... */
	char qdir[320];      /* /sys/block/<name>/queue */
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

/* ---- db.c ---- */
struct sqlite3;
struct provenance {
	char *host, *kernel, *fio_version, *engine_rev, *cpu_model;
};
/* The database used when --db is not given. */
#define SB_DEFAULT_DB SCHEDBENCH_ROOT "/results/schedengine.db"
struct sqlite3 *db_open(const char *path, char *err, size_t errlen);
void db_close(struct sqlite3 *db);
enum claim_result { CLAIM_OK, CLAIM_DONE, CLAIM_BUSY, CLAIM_ERR };
enum claim_result db_claim(struct sqlite3 *db, const char *hash, int rep, int force, const char *owner);
struct run_record {
	const char *hash;
	int repetition;
	const char *experiment, *matrix_path, *cell_name, *labels_json;
	const char *job_path, *job_text, *job_hash, *generated_job, *overlays_json, *mode, *scheduler,
		*target;
	const struct provenance *prov;
	const char *status;
	int rc;
	const char *stderr_tail, *started_at, *ended_at;
	double duration_s;
	const char *sysfs_state, *fio_json, *sched_stats;
};
/* Stores one run (one transaction); 0 ok, -1 on error (message on stderr). */
long long db_store(struct sqlite3 *db, const struct run_record *r, char *err, size_t errlen);
void db_release(struct sqlite3 *db, const char *hash, int rep, const char *owner);
char *json_strip(const char *text); /* text between the first '{' and the last '}' */
void provenance_collect(struct provenance *p);

/* ---- run.c ---- */
struct run_opts {
	const char *matrix, *db, *target, *engine;
	int repeat, force, dry_run;
	const char *runtime;
};
int cmd_run(struct run_opts *o);
extern volatile int g_interrupted;

#endif
