/* schedbench: runs fio experiment matrices (embedded and kernel schedulers) into sqlite. */
#ifndef SCHEDBENCH_SB_H
#define SCHEDBENCH_SB_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

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
/* "64G", "500g", "1T", "4096" (binary units, as modeldev and fio) in bytes; 0 if not one */
unsigned long long parse_size_bytes(const char *s);

/* ---- paths.c: no build-tree path is compiled in ---- */
/* The directory holding results/schema.sql, scripts/report.py and jobs/: $SCHEDBENCH_DATADIR,
 * <bindir>/../share/schedengine when installed, else the checkout the binary was built in (found
 * upwards from the binary). NULL if none. */
const char *sb_datadir(void);
/* The engine when neither --engine nor the matrix names one: next to the binary (build tree) or
 * <prefix>/lib/fio/libschedengine.so (installed). */
const char *sb_default_engine(void);
/* --db, else $SCHEDBENCH_DB, else results/schedengine.db under the current directory. */
#define SB_DEFAULT_DB "results/schedengine.db"
char *sb_db_path(const char *given);
/* A database to be made: its directory must exist (typos are not made into directories), except
 * the default's results/. given: the --db argument (NULL: the path is $SCHEDBENCH_DB or the
 * default). 0, or -1 with the one-line reason in err. */
int sb_db_dir_check(const char *given, const char *path, char *err, size_t errlen);

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
	/* device = model:KIND: kernel cells on a model-backed block device (build/modeldev),
	 * embedded cells with device_model=KIND on a sparse file of its size; [device] holds size
	 * and the model's parameters (the engine's names) */
	char *device, *model_kind, *device_size;
	int device_line, device_sec_line;
	struct kvlist device_params;
	struct kvlist lines_device; /* param -> its line */
	double tolerance;	    /* crosscheck verdicts, %; -1 not given (15) */
	int tolerance_line;
	struct kvlist notes; /* [notes]: regex -> explanation, in file order */
	char *clock;	     /* real (default), virtual, both */
	int clock_line;
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
	struct kvlist bdi; /* bdi.KEY=V: /sys/block/DEV/bdi/KEY (kernel cells) */
	int virt;	   /* embedded cell run in virtual time (build/schedsim) */
	int clock_line;
};

int matrix_parse(struct matrix *m, const char *path);
/* real, virtual or both (an axis 'clock' with real and virtual twins of every embedded cell). */
int matrix_set_clock(struct matrix *m, const char *clock, int line);
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
/* The same; kernel cells' cgroup= / cgroup_weight= lines give way to the runner's cgroups
 * (cgpaths: group -> directory), joined from exec_prerun. */
char *jobfile_overlay_cg(const char *text, const struct cell *c, const char *engine_so,
			 const char *sched_stats_path, const struct kvlist *cgpaths);
int jobfile_has_section(const char *text, const char *name);
int fio_is_core_option(const char *key);
/* NULL when fio loads the engine (fio --enghelp=ENGINE lists its options), else fio's message. */
const char *fio_engine_unloadable(const char *engine);
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
	int bdi_saved;
	struct kvlist old_bdi;
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

/* ---- modeldev.c: the model-backed block device (device = model:KIND) ---- */
struct mdev {
	char name[32];
	char dev[128];
	char *info; /* `modeldev info` JSON */
	unsigned long long size;
	unsigned tags;
	int up;
	char refused[512]; /* why modeldev refused (exit 3): kernel cells are skipped */
};
const char *sb_modeldev_bin(void); /* $SCHEDBENCH_MODELDEV, next to schedbench, or PATH */
/* 0 started; 3 refused (d->refused says why); -1 error (err) */
int mdev_start(struct mdev *d, const struct matrix *m, char *err, size_t errlen);
int mdev_reset(struct mdev *d, char *err, size_t errlen);
char *mdev_stats(struct mdev *d); /* blockdev --flushbufs, then `modeldev stats` JSON */
void mdev_stop(struct mdev *d);
void mdev_free(struct mdev *d);
/* The device's size without the daemon: [device] size, else the model's capacity. */
unsigned long long mdev_matrix_size(const struct matrix *m);
int kdev_bdi_apply(struct kdev *d, const struct cell *c, char *err, size_t errlen);
void kdev_bdi_restore(struct kdev *d);

/* ---- cgroups.c: cgroups of kernel cells whose jobs say cgroup= / cgroup_weight= ---- */
struct cgset {
	char base[256];	      /* the hierarchy: /sys/fs/cgroup/blkio (v1) or /sys/fs/cgroup (v2) */
	char weight_file[32]; /* blkio.bfq.weight or io.bfq.weight */
	int v2;
	struct kvlist groups; /* name -> weight ("" none) */
	struct kvlist paths;  /* name -> cgroup directory */
};
/* The job file's groups: section cgroup= -> cgroup_weight= (or ""). */
void job_cgroups(const char *job_text, struct kvlist *out);
int cg_setup(struct cgset *s, const struct kvlist *groups, char *err, size_t errlen);
/* Writes each group's weight (bfq must be the scheduler: its files exist only then). */
int cg_set_weights(struct cgset *s, const char *sched, char *err, size_t errlen);
void cg_teardown(struct cgset *s);
void cg_reclaim_stale(void); /* empty schedengine-xc-* cgroups that killed runners left */

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
/* CLAIM_REDO: --force over an ok run; the row is left as it is (still ok) until a new ok run
 * replaces it, so a re-run that fails or is interrupted loses nothing. */
enum claim_result { CLAIM_OK, CLAIM_DONE, CLAIM_BUSY, CLAIM_ERR, CLAIM_REDO };
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
	const char *clock, *device_stats, *fio_host, *batch;
	const char *host, *kernel, *fio_version, *engine_rev; /* override prov's (remote runs) */
};
/* Stores one run (one transaction); 0 ok, -1 on error (message on stderr). */
long long db_store(struct sqlite3 *db, const struct run_record *r, char *err, size_t errlen);
void db_release(struct sqlite3 *db, const char *hash, int rep, const char *owner);
char *json_strip(const char *text); /* text between the first '{' and the last '}' */
/* Running rows of runners on this host that are gone become 'interrupted'; returns how many. */
int db_reclaim_stale(struct sqlite3 *db, int verbose);
/* Marks the running rows of one owner interrupted (after that runner was killed). */
void db_mark_interrupted(struct sqlite3 *db, const char *owner);
/* Prints a note when ok runs stored under the experiment's name are of cells its matrix no longer
 * expands to (another --runtime, an edited matrix), so `report` leaves them out; returns their
 * number. */
int db_note_other_cells(struct sqlite3 *db, const char *experiment);
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

/* ---- hosts.c: fio servers (fio --server) that run cells through fio --client ---- */
struct host {
	char *spec;   /* as given: HOST[:PORT] */
	char *server; /* fio's form: HOST,PORT (ip6:ADDR,PORT) */
	char *addr;   /* for the liveness check */
	int port;
	char *engine; /* the engine's path on that host (default: the local path) */
	char *dir;    /* its scratch directory's parent (default /tmp) */
	char *target; /* the device of kernel cells there (default: --target) */
	char *kernel; /* declared in the hosts file (fio does not report it) */
	int line;     /* in the hosts file */
	/* probed */
	int ok, lost;
	char *hostname, *fio_version, *os, *arch;
	char *scratch;	 /* DIR/schedbench-<host>-<pid> on that host */
	char *prov_json; /* provenance of runs there */
	char *why;	 /* why it was left out */
	int local;	 /* the slot for cells run on this machine */
	int busy;
};
/* "h1,h2:8766" and/or a hosts file (one HOST[:PORT] [engine=P] [dir=D] [target=T] [kernel=K]
 * per line). 0, or -1 with a one-line message. */
int hosts_parse(const char *list, const char *file, struct host **out, int *n, char *err,
		size_t errlen);
void hosts_free(struct host *h, int n);
/* The probe job on each host: fio answers, the engine at its path loads and is the expected
 * one (its revision note, else the SHA-256 of the local engine), its scratch directory is made
 * (with a sparse file of sparse_bytes). A host that fails is reported and left out. Returns the
 * number of hosts left. */
int hosts_probe(struct host *h, int n, const char *engine_so, const char *tmpdir,
		unsigned long long sparse_bytes, int need_engine);
/* Whether the fio server still answers (a TCP connection within 2 s). */
int host_alive(const struct host *h);
/* host_alive, and the connection still stands settle_ms later (a dying server's listening socket
 * can complete a connection and reset it when the server's last process is gone). */
int host_check(const struct host *h, int settle_ms);
/* A small job through fio --client: 0 ok. mkdir -p / rm -rf on the host. */
int host_exec(const struct host *h, const char *tmpdir, const char *tag, const char *cmd);
void hosts_cleanup(struct host *h, int n, const char *tmpdir);

/* ---- child.c: the process of one run (fio, fio --client or the simulator) ---- */
struct child {
	pid_t pid;
	int pfd, sofd, pipe_open, sent, printed, every, done, rc;
	double start, last_print;
	double budget_s, expect_s; /* stop it past budget_s (0: never); progress for long runs */
	int show;		   /* print its status line every SCHEDBENCH_PROGRESS seconds */
	char prefix[80];	   /* before each status line (the host) */
	char what[32];
	char status[256];
	char *tail;
	size_t tail_len;
	char workdir[PATH_MAX];
};
int child_start(struct child *ch, const char *workdir, const char *const argv[],
		const struct kvlist *env, const char *target, const char *errp,
		const char *stdoutp);
int child_poll(struct child *ch, int timeout_ms); /* 1 when exited (ch->rc) */
int child_wait(struct child *ch);

/* ---- run.c ---- */
struct run_opts {
	const char *matrix, *db, *target, *engine;
	int repeat, force, dry_run;
	const char *runtime;
	const char *hosts, *hosts_file; /* fio servers */
	const char *clock;		/* overrides the matrix's clock */
	const char *batch;		/* a named batch of repetitions (nightly) */
	const char *experiment;		/* overrides the matrix's name */
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
void journal_modeldev(const char *name, const char *bin); /* a daemon this runner starts */
void journal_modeldev_done(const char *name);
void journal_cgroup(const char *path, int add);
/* A file the runner changes (cgroup.subtree_control) with what to write back. */
void journal_restore(const char *path, const char *value);
/* A fio server's scratch directory, removed by a cleanup job (fio --client) at replay. */
void journal_remote(const char *server, const char *cleanup_job);
void journal_remote_done(const char *server);
void journal_close(void); /* normal end: tell the supervisor and remove the journal */
int supervisor_start(void);
int journal_replay(const char *path, int verbose);
int kill_in_dir(const char *dir, int sig); /* processes whose cwd is dir or below; how many */
/* Replays the journals of dead runners under tmpdir; returns how many. */
int journals_reclaim(const char *tmpdir);

#endif
