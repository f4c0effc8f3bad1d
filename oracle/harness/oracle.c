// SPDX-License-Identifier: GPL-2.0
/*
 * oracle: the kernel's own scheduler files against the embedded policies, stream by stream.
 *
 *   oracle [--variant ID]... [--streams N] [--seed S] [--known FILE] [--minimize N]
 *   oracle --variant ID --stream I [--seed S] [--window N] [--dump PREFIX]
 *                                                              one stream in detail
 *   oracle --variant ID --job FILE [--window N] [--dump PREFIX]   a hand-made stream (jobfile.c)
 *   oracle --list
 *   --against VERSION   the embedded side runs its VERSION profile (deadline_version...) while
 *                       the kernel file stays the variant's: divergences must show up (a check
 *                       of the comparison itself)
 *   --nomerges N        queue/nomerges of every stream, both sides (default: drawn per stream,
 *                       0 in half, 1 and 2 in a quarter each; 0 compares the block core's
 *                       merge path, adapt/merge_core.c)
 *   --max-sectors-kb N  queue/max_sectors_kb of every stream (the largest merged request)
 *   --set NAME=VALUE    a tunable of the embedded side on every stream and job (repeatable):
 *                       one profile switch on (bfq_sw_*=1) against a kernel file without its
 *                       change shows the streams that change alters; --with is the same
 *
 * A campaign draws N streams per variant (stream.c), runs each through both implementations
 * (compare.c) and prints a table: variant, streams, divergent streams, and the divergences by
 * class. A divergent stream is minimised (its knobs put back to neutral one by one while it still
 * diverges): what must stay is its signature ("fsync", "prioclass+tunable:fifo_batch"), which
 * known.txt matches to the kernel mechanism the port does not model. Exit status: 0 when every
 * divergence is known, 1 when one is not, 2 on a bad argument.
 */
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle.h"

#define MAX_CLASSES 256

struct known {
	char variant[32];
	regex_t sig;
	char explanation[256];
	char pattern[128];
};

struct cls {
	char sig[256];
	char detail[512];
	uint64_t count;
	uint64_t example_index;
	char first_what[320];
	const struct known *known;
};

static struct known known[128];
static unsigned int nr_known;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: oracle [--variant ID]... [--streams N] [--seed S] [--known FILE]\n"
		"              [--minimize N] [--runtime-ms MS] [--against VERSION] [--quiet]\n"
		"              [--set NAME=VALUE]... [--nomerges 0|1|2] [--max-sectors-kb N]\n"
		"       oracle --variant ID --stream I [--seed S] [--window N] [--runtime-ms MS]\n"
		"                     [--dump PREFIX]\n"
		"       oracle --variant ID --job FILE [--window N] [--dump PREFIX]\n"
		"       oracle --list\n");
}

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "oracle: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	usage(stderr);
	exit(2);
}

static uint64_t num(const char *opt, const char *v)
{
	char *end;
	unsigned long long x = strtoull(v, &end, 10);

	if (!*v || *end) {
		fprintf(stderr, "oracle: %s=%s: not a number\n", opt, v);
		exit(2);
	}
	return x;
}

static int load_known(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned int ln = 0;

	if (!f) {
		fprintf(stderr, "oracle: --known %s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fields[4], *p = line;
		int n = 0;

		ln++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		while (n < 4 && (fields[n] = strsep(&p, "|")))
			n++;
		if (n != 3 || nr_known == sizeof(known) / sizeof(known[0])) {
			fprintf(stderr, "oracle: %s:%u: want 'variant | signature regex | why'\n", path,
				ln);
			fclose(f);
			return -1;
		}
		for (int i = 0; i < 3; i++) {
			while (*fields[i] == ' ')
				fields[i]++;
			for (char *e = fields[i] + strlen(fields[i]); e > fields[i] && e[-1] == ' ';)
				*--e = 0;
		}
		struct known *k = &known[nr_known];

		snprintf(k->variant, sizeof(k->variant), "%s", fields[0]);
		snprintf(k->pattern, sizeof(k->pattern), "%s", fields[1]);
		snprintf(k->explanation, sizeof(k->explanation), "%s", fields[2]);
		if (regcomp(&k->sig, fields[1], REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "oracle: %s:%u: bad regex %s\n", path, ln, fields[1]);
			fclose(f);
			return -1;
		}
		nr_known++;
	}
	fclose(f);
	return 0;
}

static const struct known *match_known(const struct oracle_variant *v, const char *sig)
{
	for (unsigned int i = 0; i < nr_known; i++) {
		size_t n = strlen(known[i].variant);
		bool vm = !strcmp(known[i].variant, "*") || !strcmp(known[i].variant, v->id) ||
			  (n && known[i].variant[n - 1] == '*' &&
			   !strncmp(known[i].variant, v->id, n - 1));

		if (vm && !regexec(&known[i].sig, sig, 0, NULL, 0))
			return &known[i];
	}
	return NULL;
}

static enum oracle_verdict check(const struct oracle_stream *s, struct oracle_divergence *d)
{
	struct oracle_trace emb, ker;
	enum oracle_verdict r = oracle_check(s, d, &emb, &ker);

	oracle_trace_free(&emb);
	oracle_trace_free(&ker);
	return r;
}

/* Puts knobs back while the stream still diverges the same way (the same verdict). */
static void minimize(struct oracle_stream *s, const struct oracle_divergence *first)
{
	struct oracle_divergence d;

	/* Whole jobs first, then the rest, one pass each. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < s->nr_knobs; k++) {
			struct oracle_knob *kn = &s->knob[k];
			uint32_t jobs_on = 0;

			if (!kn->on || (pass == 0) != (kn->kind == KNOB_JOB))
				continue;
			if (kn->kind == KNOB_JOB) {
				for (uint32_t i = 0; i < s->nr_knobs; i++)
					jobs_on += s->knob[i].kind == KNOB_JOB && s->knob[i].on;
				if (jobs_on <= 1)
					continue;
			}
			kn->on = false;
			oracle_stream_apply(s);
			if (check(s, &d) != first->verdict) {
				kn->on = true;
				oracle_stream_apply(s);
			}
		}
	}
	oracle_stream_apply(s);
}

static bool job_on(const struct oracle_stream *s, uint8_t job)
{
	for (uint32_t k = 0; k < s->nr_knobs; k++)
		if (s->knob[k].kind == KNOB_JOB && s->knob[k].job == job)
			return s->knob[k].on;
	return false;
}

/* The signature: the kinds of knobs still on (tunables by name), sorted, without values; the
 * detail: every knob still on with its value. */
static void signature(const struct oracle_stream *s, char *sig, size_t slen, char *det,
		      size_t dlen)
{
	static const char *const kind[KNOB_NR] = {
	    [KNOB_JOB] = "job",	      [KNOB_NUMJOBS] = "numjobs",	[KNOB_RW] = "rw",
	    [KNOB_BS] = "bs",	      [KNOB_IODEPTH] = "iodepth",	[KNOB_THINK] = "think",
	    [KNOB_BUFFERED] = "buffered", [KNOB_FSYNC] = "fsync",	[KNOB_PRIO] = "prio",
	    [KNOB_GROUP] = "group",   [KNOB_STARTDELAY] = "startdelay", [KNOB_SEQREGION] = "region",
	    [KNOB_TUNABLE] = "tunable", [KNOB_DEPTH] = "hw_queue_depth",
	    [KNOB_NR_REQUESTS] = "nr_requests", [KNOB_WEIGHT] = "weight", [KNOB_SYNC] = "sync",
	    [KNOB_EXIT] = "exit"};
	char items[ORACLE_MAX_KNOBS][48];
	unsigned int n = 0, jobs = 0;
	size_t ds = 0;

	det[0] = 0;
	for (uint32_t k = 0; k < s->nr_knobs; k++) {
		const struct oracle_knob *kn = &s->knob[k];
		char name[64];

		if (!kn->on)
			continue;
		if (kn->kind != KNOB_JOB && kn->kind <= KNOB_SEQREGION && !job_on(s, kn->job))
			continue;
		if (kn->kind == KNOB_JOB) {
			jobs++;
			continue;
		}
		if (kn->kind == KNOB_TUNABLE)
			snprintf(items[n], sizeof(items[n]), "%s",
				 sched_policy_ops(s->v->policy)->tunables[kn->index].name);
		else
			snprintf(items[n], sizeof(items[n]), "%s", kind[kn->kind]);
		n++;
		oracle_knob_name(s, kn, name, sizeof(name));
		ds += (size_t)snprintf(det + ds, ds < dlen ? dlen - ds : 0, "%s%s%s",
				       ds ? " " : "", kn->kind <= KNOB_SEQREGION ? "" : "",
				       name);
		if (kn->kind <= KNOB_SEQREGION && ds < dlen)
			ds += (size_t)snprintf(det + ds, dlen - ds, "@job%u", kn->job);
	}
	/* sort and unique */
	for (unsigned int a = 0; a < n; a++)
		for (unsigned int b = a + 1; b < n; b++)
			if (strcmp(items[a], items[b]) > 0) {
				char t[48];

				memcpy(t, items[a], sizeof(t));
				memcpy(items[a], items[b], sizeof(t));
				memcpy(items[b], t, sizeof(t));
			}
	size_t ss = 0;

	sig[0] = 0;
	for (unsigned int a = 0; a < n; a++) {
		if (a && !strcmp(items[a], items[a - 1]))
			continue;
		ss += (size_t)snprintf(sig + ss, ss < slen ? slen - ss : 0, "%s%s", ss ? "+" : "",
				       items[a]);
	}
	if (!n)
		snprintf(sig, slen, "plain");
	if (jobs > 1 && ss < slen)
		snprintf(sig + strlen(sig), slen - strlen(sig), " (%u jobs)", jobs);
}

/* Both traces whole, one event a line (time in s, then the line), into PREFIX.ours and
 * PREFIX.kernel: for reading a divergence's history beyond the window. */
static void dump(const char *prefix, const char *tag, const struct oracle_trace *emb,
		 const struct oracle_trace *ker)
{
	const struct oracle_trace *t[2] = {emb, ker};
	static const char *const side[2] = {"ours", "kernel"};

	for (int i = 0; i < 2; i++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s%s.%s", prefix, tag, side[i]);
		if (!(f = fopen(path, "w"))) {
			perror(path);
			continue;
		}
		for (size_t e = 0; e < t[i]->n; e++)
			fprintf(f, "%.6f %s\n", t[i]->ev[e].t / 1e9, t[i]->ev[e].line);
		fclose(f);
		printf("(%s: %zu events)\n", path, t[i]->n);
	}
}

static int one_stream(const struct oracle_variant *v, uint64_t seed, uint64_t index,
		      uint64_t runtime_ns, unsigned int window, const char *dump_prefix)
{
	struct oracle_stream s;
	struct oracle_divergence d;
	struct oracle_trace emb, ker;
	static char buf[1 << 16];
	char sig[256], det[512];

	oracle_stream_draw(&s, v, seed, index, runtime_ns);
	oracle_stream_jobfile(&s, buf, sizeof(buf));
	printf("%s\n", buf);
	oracle_check(&s, &d, &emb, &ker);
	printf("ours: %zu events, %" PRIu64 " dispatches; kernel file: %zu events, %" PRIu64
	       " dispatches, %" PRIu64 " WARN_ONs\n",
	       emb.n, emb.dispatched, ker.n, ker.dispatched, ker.warns);
	if (dump_prefix)
		dump(dump_prefix, "", &emb, &ker);
	if (d.verdict == ORACLE_SAME) {
		printf("same: every block event agrees\n");
		oracle_trace_free(&emb);
		oracle_trace_free(&ker);
		return 0;
	}
	printf("divergence (%s) at %.6f s: %s\n", d.cls, d.t / 1e9, d.what);
	if (d.verdict == ORACLE_DIVERGED)
		oracle_print_window(stdout, &emb, &ker, &d, window, window);
	oracle_trace_free(&emb);
	oracle_trace_free(&ker);
	minimize(&s, &d);
	signature(&s, sig, sizeof(sig), det, sizeof(det));
	printf("\nminimised: %s  [%s]\n", sig, det);
	oracle_check(&s, &d, &emb, &ker);
	printf("minimised divergence (%s) at %.6f s: %s\n", d.cls, d.t / 1e9, d.what);
	if (dump_prefix)
		dump(dump_prefix, ".min", &emb, &ker);
	if (d.verdict == ORACLE_DIVERGED)
		oracle_print_window(stdout, &emb, &ker, &d, window, window);
	oracle_stream_jobfile(&s, buf, sizeof(buf));
	printf("\nminimised reproducer (schedsim job file):\n%s", buf);
	oracle_trace_free(&emb);
	oracle_trace_free(&ker);
	return 1;
}

/* Throughput of both runs, per job and in all. */
static void throughput(const struct oracle_stream *s, const struct oracle_trace *emb,
		       const struct oracle_trace *ker)
{
	printf("%-12s %12s %12s %12s %12s\n", "job", "ours MB/s", "kernel MB/s", "ours IOPS",
	       "kernel IOPS");
	for (uint32_t j = 0; j < emb->nr_jobs && j < ker->nr_jobs; j++)
		printf("%-12s %12.2f %12.2f %12.1f %12.1f\n", s->cfg.jobs[j].name, emb->job_mbps[j],
		       ker->job_mbps[j], emb->job_iops[j], ker->job_iops[j]);
	printf("%-12s %12.2f %12.2f %12.1f %12.1f\n", "all", emb->mbps, ker->mbps, emb->iops,
	       ker->iops);
}

static int one_job(const struct oracle_variant *v, const char *path, unsigned int window,
		   const char *dump_prefix)
{
	struct oracle_stream s;
	struct oracle_divergence d;
	struct oracle_trace emb, ker;
	char err[512];
	int r = 0;

	if (oracle_stream_parse(&s, v, path, err, sizeof(err))) {
		fprintf(stderr, "oracle: --job %s\n", err);
		return 2;
	}
	if (oracle_apply_set(&s.cfg.sched, err, sizeof(err))) {
		fprintf(stderr, "oracle: %s\n", err);
		return 2;
	}
	oracle_check(&s, &d, &emb, &ker);
	printf("ours: %zu events, %" PRIu64 " dispatches; kernel file: %zu events, %" PRIu64
	       " dispatches, %" PRIu64 " WARN_ONs\n",
	       emb.n, emb.dispatched, ker.n, ker.dispatched, ker.warns);
	if (dump_prefix)
		dump(dump_prefix, "", &emb, &ker);
	if (d.verdict == ORACLE_SAME) {
		printf("same: every block event agrees\n");
	} else {
		printf("divergence (%s) at %.6f s: %s\n", d.cls, d.t / 1e9, d.what);
		if (d.verdict == ORACLE_DIVERGED)
			oracle_print_window(stdout, &emb, &ker, &d, window, window);
		r = 1;
	}
	if (d.verdict == ORACLE_SAME || d.verdict == ORACLE_DIVERGED)
		throughput(&s, &emb, &ker);
	oracle_trace_free(&emb);
	oracle_trace_free(&ker);
	return r;
}

static int campaign(const struct oracle_variant *const *vs, unsigned int nv, uint64_t streams,
		    uint64_t seed, uint64_t runtime_ns, uint64_t max_minimize, bool quiet)
{
	int unknown = 0;

	printf("%-14s %-9s %-7s %8s %9s %8s  %s\n", "variant", "policy", "kernel", "streams",
	       "divergent", "BUG_ON", "first divergence: class (count) [known]");
	for (unsigned int vi = 0; vi < nv; vi++) {
		const struct oracle_variant *v = vs[vi];
		static struct cls cls[MAX_CLASSES];
		unsigned int ncls = 0;
		uint64_t div = 0, bugs = 0, errors = 0, minimized = 0, unminimized = 0;
		time_t t0 = time(NULL);

		memset(cls, 0, sizeof(cls));
		for (uint64_t i = 0; i < streams; i++) {
			struct oracle_stream s;
			struct oracle_divergence d;
			char sig[256], det[512];

			oracle_stream_draw(&s, v, seed, i, runtime_ns);
			if (check(&s, &d) == ORACLE_SAME)
				continue;
			div++;
			bugs += d.verdict == ORACLE_KERNEL_BUG;
			errors += d.verdict == ORACLE_ERROR;
			if (minimized < max_minimize) {
				minimize(&s, &d);
				minimized++;
				signature(&s, sig, sizeof(sig), det, sizeof(det));
			} else {
				unminimized++;
				snprintf(sig, sizeof(sig), "(not minimised: over --minimize)");
				det[0] = 0;
			}
			if (d.verdict == ORACLE_KERNEL_BUG || d.verdict == ORACLE_ERROR)
				snprintf(sig + strlen(sig), sizeof(sig) - strlen(sig), " %s: %.100s",
					 d.cls, d.what);
			unsigned int c;

			for (c = 0; c < ncls && strcmp(cls[c].sig, sig); c++)
				;
			if (c == ncls && ncls < MAX_CLASSES) {
				ncls++;
				snprintf(cls[c].sig, sizeof(cls[c].sig), "%s", sig);
				snprintf(cls[c].detail, sizeof(cls[c].detail), "%s", det);
				snprintf(cls[c].first_what, sizeof(cls[c].first_what), "%s", d.what);
				cls[c].example_index = i;
				cls[c].known = match_known(v, sig);
			}
			if (c < ncls)
				cls[c].count++;
			if (!quiet)
				fprintf(stderr, "%s stream %" PRIu64 ": %s: %s\n", v->id, i, sig, d.what);
		}
		printf("%-14s %-9s %-7s %8" PRIu64 " %9" PRIu64 " %8" PRIu64 "  %s\n", v->id,
		       sched_policy_ops(v->policy)->name, v->version, streams, div, bugs,
		       div ? "" : "-");
		for (unsigned int c = 0; c < ncls; c++) {
			printf("    %6" PRIu64 " x %s  %s\n", cls[c].count, cls[c].sig,
			       cls[c].known ? "[known]" : "[NOT KNOWN]");
			if (cls[c].known)
				printf("             why: %s\n", cls[c].known->explanation);
			printf("             e.g. oracle --variant %s --seed %" PRIu64 " --stream %" PRIu64
			       "   (%s)\n",
			       v->id, seed, cls[c].example_index, cls[c].first_what);
			if (!cls[c].known)
				unknown = 1;
		}
		if (unminimized && !ncls)
			unknown = 1;
		if (errors)
			unknown = 1;
		printf("    (%" PRIu64 " s)\n", (uint64_t)(time(NULL) - t0));
	}
	return unknown;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"variant", required_argument, NULL, 'v'},
					     {"streams", required_argument, NULL, 'n'},
					     {"seed", required_argument, NULL, 's'},
					     {"stream", required_argument, NULL, 'i'},
					     {"known", required_argument, NULL, 'k'},
					     {"minimize", required_argument, NULL, 'm'},
					     {"runtime-ms", required_argument, NULL, 'r'},
					     {"window", required_argument, NULL, 'w'},
					     {"list", no_argument, NULL, 'l'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"against", required_argument, NULL, 'a'},
					     {"set", required_argument, NULL, 'S'},
					     {"nomerges", required_argument, NULL, 'M'},
					     {"max-sectors-kb", required_argument, NULL, 'X'},
					     {"with", required_argument, NULL, 'S'},
					     {"dump", required_argument, NULL, 'd'},
					     {"job", required_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const struct oracle_variant *vs[64];
	unsigned int nv = 0, window = 12;
	uint64_t streams = 100, seed = 1, stream = UINT64_MAX, minimize_max = UINT64_MAX, runtime_ns = 0;
	bool quiet = false;
	const char *dump_prefix = NULL, *job = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "v:n:s:i:k:m:r:w:a:S:M:X:d:j:lqh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			oracle_against = optarg;
			break;
		case 'M':
			if (num("--nomerges", optarg) > 2)
				bad("--nomerges %s: want 0, 1 or 2", optarg);
			oracle_nomerges = (int)num("--nomerges", optarg);
			break;
		case 'X':
			if (num("--max-sectors-kb", optarg) < 4 ||
			    num("--max-sectors-kb", optarg) > 1048576)
				bad("--max-sectors-kb %s: want 4..1048576", optarg);
			oracle_max_sectors_kb = (uint32_t)num("--max-sectors-kb", optarg);
			break;
		case 'S':
			if (oracle_nr_set == ORACLE_MAX_SET)
				bad("--set %s: too many", optarg);
			oracle_set[oracle_nr_set++] = optarg;
			break;
		case 'v':
			if (!(vs[nv] = oracle_variant_by_name(optarg)))
				bad("--variant %s: not built (oracle --list)", optarg);
			if (nv < 63)
				nv++;
			break;
		case 'n':
			streams = num("--streams", optarg);
			break;
		case 's':
			seed = num("--seed", optarg);
			break;
		case 'i':
			stream = num("--stream", optarg);
			break;
		case 'k':
			if (load_known(optarg))
				return 2;
			break;
		case 'm':
			minimize_max = num("--minimize", optarg);
			break;
		case 'r':
			runtime_ns = num("--runtime-ms", optarg) * 1000000ull;
			break;
		case 'w':
			window = (unsigned int)num("--window", optarg);
			break;
		case 'd':
			dump_prefix = optarg;
			break;
		case 'j':
			job = optarg;
			break;
		case 'l':
			for (unsigned int i = 0; i < oracle_nr_variants; i++)
				printf("%-14s %-9s %s (%s adapter)\n", oracle_variants[i].id,
				       sched_policy_ops(oracle_variants[i].policy)->name,
				       oracle_variants[i].version, oracle_variants[i].adapter);
			return 0;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		bad("%s: unexpected argument", argv[optind]);
	/* A --set the variants' policies cannot take is refused before any stream runs. */
	for (unsigned int i = 0; i < (nv ? nv : oracle_nr_variants); i++) {
		const struct oracle_variant *v = nv ? vs[i] : &oracle_variants[i];
		struct sched_config sc;
		char err[256];

		sched_config_defaults(&sc, v->policy);
		if (oracle_apply_set(&sc, err, sizeof(err))) {
			fprintf(stderr, "oracle: %s (variant %s)\n", err, v->id);
			return 2;
		}
	}
	if (job) {
		if (nv != 1)
			bad("--job%s: needs exactly one --variant", "");
		return one_job(vs[0], job, window, dump_prefix);
	}
	if (stream != UINT64_MAX) {
		if (nv != 1)
			bad("--stream%s: needs exactly one --variant", "");
		return one_stream(vs[0], seed, stream, runtime_ns, window, dump_prefix);
	}
	if (!nv)
		for (unsigned int i = 0; i < oracle_nr_variants && nv < 64; i++)
			vs[nv++] = &oracle_variants[i];
	return campaign(vs, nv, streams, seed, runtime_ns, minimize_max, quiet);
}
