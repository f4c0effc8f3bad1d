/* fio servers: `schedbench run MATRIX --hosts h1,h2` (or --hosts-file) runs each cell on one host
 * through fio's own client/server (`fio --server` there, `fio --client=HOST job.fio` here, fio's
 * JSON coming back). Before the first cell a probe job on each host checks that fio answers,
 * that the engine at its path there loads and is the expected one, and makes the host's scratch
 * directory; a host that fails is reported and left out. Everything on a host is done by fio
 * jobs: exec_prerun runs the probe's checks, mkdir and the final rm -rf there. */
#include "sb.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DEFAULT_PORT 8765

static int host_set_spec(struct host *h, const char *spec, char *err, size_t errlen)
{
	char *s = xstrdup(spec), *addr = NULL;
	int port = DEFAULT_PORT, v6 = 0;
	char *p = s;
	if (*p == '[') { /* [::1]:8765 */
		char *e = strchr(p, ']');
		if (!e)
			goto bad;
		addr = xstrndup(p + 1, (size_t)(e - p - 1));
		p = e + 1;
		v6 = 1;
	} else {
		size_t n = strcspn(p, ":");
		addr = xstrndup(p, n);
		p += n;
	}
	if (*p == ':') {
		char *end;
		long v = strtol(p + 1, &end, 10);
		if (!p[1] || *end || v < 1 || v > 65535)
			goto bad;
		port = (int)v;
	} else if (*p) {
		goto bad;
	}
	if (!*addr)
		goto bad;
	for (const char *q = addr; *q; q++)
		if (!isalnum((unsigned char)*q) && !strchr(".-_:", *q))
			goto bad;
	h->spec = xasprintf(v6 ? "[%s]:%d" : "%s:%d", addr, port);
	struct in_addr a4;
	if (v6)
		h->server = xasprintf("ip6:%s,%d", addr, port);
	else if (inet_pton(AF_INET, addr, &a4) == 1)
		h->server = xasprintf("ip:%s,%d", addr, port);
	else
		h->server = xasprintf("%s,%d", addr, port);
	h->addr = addr;
	h->port = port;
	free(s);
	return 0;
bad:
	snprintf(err, errlen, "host '%s': expected HOST, HOST:PORT or [IPv6]:PORT", spec);
	free(addr);
	free(s);
	return -1;
}

static struct host *host_add(struct host **v, int *n)
{
	*v = xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
	struct host *h = &(*v)[(*n)++];
	memset(h, 0, sizeof(*h));
	return h;
}

static int path_ok(const char *p)
{
	return p[0] == '/' && !strpbrk(p, "'\"\\$`\n\t ");
}

int hosts_parse(const char *list, const char *file, struct host **out, int *n, char *err,
		size_t errlen)
{
	struct host *v = NULL;
	int nv = 0, rc = 0;
	if (list) {
		char *copy = xstrdup(list), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t && !rc;
		     t = strtok_r(NULL, ",", &save)) {
			char *tt = trim(t);
			if (!*tt)
				continue;
			rc = host_set_spec(host_add(&v, &nv), tt, err, errlen);
		}
		free(copy);
		if (!rc && !nv) {
			snprintf(err, errlen, "--hosts '%s': no host in it", list);
			rc = -1;
		}
	}
	if (!rc && file) {
		size_t len;
		char *text = read_file(file, &len);
		if (!text) {
			snprintf(err, errlen, "--hosts-file %s: %s", file, strerror(errno));
			rc = -1;
		}
		int lineno = 0;
		for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l && !rc;
		     l = strtok_r(NULL, "\n", &save)) {
			lineno++;
			char *hash = strchr(l, '#');
			if (hash)
				*hash = 0;
			char *t = trim(l);
			if (!*t)
				continue;
			char *s2 = NULL, *first = strtok_r(t, " \t", &s2);
			struct host *h = host_add(&v, &nv);
			h->line = lineno;
			char e2[512];
			if (host_set_spec(h, first, e2, sizeof(e2))) {
				snprintf(err, errlen, "%s:%d: %s", file, lineno, e2);
				rc = -1;
				break;
			}
			for (char *kv = strtok_r(NULL, " \t", &s2); kv && !rc;
			     kv = strtok_r(NULL, " \t", &s2)) {
				char *eq = strchr(kv, '=');
				char **dst = NULL;
				if (eq) {
					*eq = 0;
					if (!strcmp(kv, "engine"))
						dst = &h->engine;
					else if (!strcmp(kv, "dir"))
						dst = &h->dir;
					else if (!strcmp(kv, "target"))
						dst = &h->target;
					else if (!strcmp(kv, "kernel"))
						dst = &h->kernel;
				}
				if (!dst || !eq[1]) {
					snprintf(err, errlen,
						 "%s:%d: '%s%s%s': expected engine=PATH, dir=PATH, "
						 "target=PATH or kernel=RELEASE",
						 file, lineno, kv, eq ? "=" : "", eq ? eq + 1 : "");
					rc = -1;
					break;
				}
				if (dst != &h->kernel && !path_ok(eq + 1)) {
					snprintf(err, errlen,
						 "%s:%d: %s=%s: an absolute path without quotes, "
						 "blanks or $",
						 file, lineno, kv, eq + 1);
					rc = -1;
					break;
				}
				free(*dst);
				*dst = xstrdup(eq + 1);
			}
		}
		free(text);
		if (!rc && !nv) {
			snprintf(err, errlen, "--hosts-file %s: no host in it", file);
			rc = -1;
		}
	}
	for (int i = 0; !rc && i < nv; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(v[i].spec, v[j].spec)) {
				snprintf(err, errlen, "host %s is given twice", v[i].spec);
				rc = -1;
				break;
			}
	if (rc) {
		hosts_free(v, nv);
		return -1;
	}
	*out = v;
	*n = nv;
	return 0;
}

void hosts_free(struct host *v, int n)
{
	for (int i = 0; i < n; i++) {
		struct host *h = &v[i];
		free(h->spec);
		free(h->server);
		free(h->addr);
		free(h->engine);
		free(h->dir);
		free(h->target);
		free(h->kernel);
		free(h->hostname);
		free(h->fio_version);
		free(h->os);
		free(h->arch);
		free(h->scratch);
		free(h->prov_json);
		free(h->why);
	}
	free(v);
}

/* A connection the kernel completed for a listening socket is no proof that a server stands
 * behind it: a server killed a moment ago may still hold its listening socket while it exits
 * (each of its processes holds it). So the connection is held settle_ms: if the listener goes,
 * the kernel resets it (a server that is up sends nothing until the client speaks). */
int host_check(const struct host *h, int settle_ms)
{
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	char port[16];
	snprintf(port, sizeof(port), "%d", h->port);
	if (getaddrinfo(h->addr, port, &hints, &res) || !res)
		return 0;
	int ok = 0;
	for (struct addrinfo *a = res; a && !ok; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		int r = connect(fd, a->ai_addr, a->ai_addrlen);
		if (r && errno == EINPROGRESS) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};
			if (poll(&pf, 1, 2000) == 1) {
				int e = 0;
				socklen_t l = sizeof(e);
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
				ok = e == 0;
			}
		} else {
			ok = r == 0;
		}
		if (ok && settle_ms > 0) {
			struct pollfd pf = {.fd = fd, .events = POLLIN | POLLRDHUP};
			if (poll(&pf, 1, settle_ms) == 1) {
				char b;
				/* data is an answer; a reset or an end is a listener that went */
				ok = !(pf.revents & (POLLERR | POLLHUP | POLLRDHUP)) &&
				     recv(fd, &b, 1, MSG_PEEK) > 0;
			}
		}
		close(fd);
	}
	freeaddrinfo(res);
	return ok;
}

int host_alive(const struct host *h)
{
	return host_check(h, 0);
}

/* fio --client=SERVER JOB with a time limit; its stdout and stderr. */
static char *client_run(const struct host *h, const char *job, const char *fmt, int secs, int *rc)
{
	char *client = xasprintf("--client=%s", h->server);
	char *t = xasprintf("%d", secs);
	char *f = xasprintf("--output-format=%s", fmt);
	const char *argv[] = {"timeout", "-k", "5", t, fio_bin_path(), client, f, job, NULL};
	char *out = run_capture_all(argv, rc);
	free(client);
	free(t);
	free(f);
	return out;
}

/* The JSON object of one job (jobname) in fio's client output, as text; NULL when absent. */
static char *job_json(const char *out, const char *jobname)
{
	char *pat = xasprintf("\"jobname\" : \"%s\"", jobname);
	const char *p = out ? strstr(out, pat) : NULL;
	free(pat);
	if (!p)
		return NULL;
	const char *e = strstr(p, "\"hostname\"");
	return xstrndup(p, e ? (size_t)(e - p) : strlen(p));
}

/* io_kbytes of the write direction of a job's JSON text (0 when none); error code in *err. */
static long long job_write_kb(const char *js, int *error)
{
	*error = 0;
	if (!js)
		return -1;
	const char *e = strstr(js, "\"error\" : ");
	if (e)
		*error = atoi(e + 10);
	const char *w = strstr(js, "\"write\" : {");
	const char *k = w ? strstr(w, "\"io_kbytes\" : ") : NULL;
	return k ? atoll(k + 14) : 0;
}

int host_exec(const struct host *h, const char *tmpdir, const char *tag, const char *cmd)
{
	char *job = xasprintf("%s/host-%ld-%s.fio", tmpdir, (long)getpid(), tag);
	char *name = xasprintf("%s.%s", h->scratch, tag);
	char *text = xasprintf("; schedbench: %s on %s\n[%s]\nioengine=null\nrw=write\nbs=4k\n"
			       "size=4k\nexec_prerun=sh -c '%s'\n",
			       tag, h->spec, name, cmd);
	int rc = -1;
	if (!write_file(job, text, strlen(text))) {
		int r;
		char *out = client_run(h, job, "json", 60, &r);
		char *js = job_json(out, name);
		int jerr;
		rc = r == 0 && job_write_kb(js, &jerr) > 0 && !jerr ? 0 : -1;
		if (rc && getenv("SCHEDBENCH_DEBUG"))
			fprintf(stderr, "host_exec %s on %s: rc %d, output:\n%s\n", tag, h->spec, r,
				out ? out : "");
		free(js);
		free(out);
		unlink(job);
	}
	free(job);
	free(name);
	free(text);
	return rc;
}

/* "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1": fio's probe reply */
static char *probe_field(const char *out, const char *key)
{
	const char *l = out ? strstr(out, "hostname=") : NULL;
	if (!l)
		return NULL;
	const char *e = strchr(l, '\n');
	char *line = xstrndup(l, e ? (size_t)(e - l) : strlen(l));
	char *pat = xasprintf("%s=", key), *v = NULL;
	for (char *save = NULL, *t = strtok_r(line, ",", &save); t && !v;
	     t = strtok_r(NULL, ",", &save)) {
		t = trim(t);
		if (!strncmp(t, pat, strlen(pat)))
			v = xstrdup(t + strlen(pat));
	}
	free(pat);
	free(line);
	return v;
}

/* The first line of fio's output that says what went wrong. */
static char *first_complaint(const char *out)
{
	static const char *pats[] = {"connect",	       "refused",      "not loadable",
				     "failed to load", "No such file", "err=",
				     "fio:",	       "error",	       NULL};
	for (int k = 0; pats[k]; k++) {
		const char *p = out ? strstr(out, pats[k]) : NULL;
		if (!p)
			continue;
		const char *a = p;
		while (a > out && a[-1] != '\n')
			a--;
		const char *e = strchr(p, '\n');
		char *l = xstrndup(a, e ? (size_t)(e - a) : strlen(a));
		char *t = xstrdup(trim(l));
		free(l);
		return t;
	}
	return xstrdup(out && *out ? "see fio's output" : "no output");
}

static void left_out(struct host *h, char *why)
{
	h->ok = 0;
	free(h->why);
	h->why = why;
	printf("host %s: left out: %s\n", h->spec, why);
}

int hosts_probe(struct host *hv, int n, const char *engine_so, const char *tmpdir,
		unsigned long long sparse_bytes, int need_engine)
{
	char *bid = NULL, *rev = NULL, sha[65] = "";
	if (need_engine) {
		elf_engine_ids(engine_so, &bid, &rev);
		size_t len;
		char *data = read_file(engine_so, &len);
		if (data)
			sha256_hex(data, len, sha);
		free(data);
	}
	char local[256] = "";
	gethostname(local, sizeof(local) - 1);
	int nok = 0;
	for (int i = 0; i < n; i++) {
		struct host *h = &hv[i];
		h->ok = 0;
		if (!h->engine)
			h->engine = xstrdup(engine_so);
		if (!h->dir)
			h->dir = xstrdup("/tmp");
		if (need_engine && !path_ok(h->engine)) {
			left_out(h, xasprintf("engine=%s: an absolute path without quotes, blanks "
					      "or $",
					      h->engine));
			continue;
		}
		if (!host_alive(h)) {
			if (h->port == DEFAULT_PORT)
				left_out(h, xasprintf("no fio server answers on %s port %d (start "
						      "`fio --server` there)",
						      h->addr, h->port));
			else
				left_out(h, xasprintf("no fio server answers on %s port %d (start "
						      "`fio --server=ip:0.0.0.0,%d` there)",
						      h->addr, h->port, h->port));
			continue;
		}
		free(h->scratch);
		h->scratch = xasprintf("%s/schedbench-%s-%ld", h->dir, local, (long)getpid());
		/* the cleanup job, journaled before anything exists there */
		char *cj = xasprintf("%s/host-%ld-%d-cleanup.fio", tmpdir, (long)getpid(), i);
		char *ct =
		    xasprintf("; schedbench: removes its scratch directory on %s\n[%s.cleanup]\n"
			      "ioengine=null\nrw=write\nbs=4k\nsize=4k\n"
			      "exec_prerun=sh -c 'rm -rf %s %s.*'\n",
			      h->spec, h->scratch, h->scratch, h->scratch);
		write_file(cj, ct, strlen(ct));
		free(ct);
		journal_remote(h->server, cj);
		free(cj);
		char *check;
		if (!need_engine)
			check = xstrdup("true");
		else if (rev)
			check = xasprintf("tr \"\\000\" \"\\n\" <%s | grep -A1 -x -F schedengine | "
					  "grep -q -x -F %s",
					  h->engine, rev);
		else
			check = xasprintf("test \"$(sha256sum <%s | cut -c1-64)\" = %s", h->engine,
					  sha);
		char *job = xasprintf("%s/host-%ld-%d-probe.fio", tmpdir, (long)getpid(), i);
		struct strbuf t;
		sb_init(&t);
		sb_addf(&t, "; schedbench: probe of %s\n[global]\n", h->spec);
		if (need_engine)
			sb_addf(&t, "ioengine=external:%s\nsched=none\ndevice_model=null\n",
				h->engine);
		else
			sb_add(&t, "ioengine=null\n");
		sb_addf(&t, "rw=write\nbs=4k\nsize=16k\nunlink=1\nfilename=%s.probe\n", h->scratch);
		sb_addf(&t, "[%s.check]\nexec_prerun=sh -c '%s'\n", h->scratch, check);
		sb_addf(
		    &t,
		    "[%s.mkdir]\nstonewall\nexec_prerun=sh -c 'mkdir -p %s/cells && truncate -s "
		    "%llu %s/sparse && truncate -s 1T %s/sparse-1t'\n",
		    h->scratch, h->scratch, sparse_bytes, h->scratch, h->scratch);
		write_file(job, t.s, t.len);
		sb_free(&t);
		int rc;
		char *out = client_run(h, job, "normal,json", 60, &rc);
		unlink(job);
		free(job);
		char *cname = xasprintf("%s.check", h->scratch);
		char *mname = xasprintf("%s.mkdir", h->scratch);
		char *cj2 = job_json(out, cname), *mj = job_json(out, mname);
		int cerr = 0, merr_ = 0;
		long long ckb = job_write_kb(cj2, &cerr), mkb = job_write_kb(mj, &merr_);
		h->hostname = probe_field(out, "hostname");
		h->fio_version = probe_field(out, "fio");
		h->os = probe_field(out, "os");
		h->arch = probe_field(out, "arch");
		if (rc == 124 || rc == 137) {
			left_out(h, xstrdup("the probe job did not finish within 60 s"));
		} else if (!cj2 || cerr) {
			char *why = first_complaint(out);
			if (need_engine)
				left_out(h, xasprintf("the probe job failed (is the engine at %s "
						      "there?): %s",
						      h->engine, why));
			else
				left_out(h, xasprintf("the probe job failed: %s", why));
			free(why);
		} else if (ckb <= 0) {
			left_out(h, need_engine
					? (rev ? xasprintf("the engine %s there is not revision %s "
							   "(its schedengine note differs)",
							   h->engine, rev)
					       : xasprintf("the engine %s there is not this one "
							   "(SHA-256 %.16s...; no revision note to "
							   "compare)",
							   h->engine, sha))
					: xstrdup("the check job did no I/O"));
		} else if (!mj || merr_ || mkb <= 0) {
			left_out(h, xasprintf("cannot make its scratch directory %s (mkdir, "
					      "truncate) under dir=%s",
					      h->scratch, h->dir));
		} else {
			h->ok = 1;
			nok++;
			int same = h->hostname && !strcmp(h->hostname, local);
			struct strbuf p;
			sb_init(&p);
			sb_add(&p, "{\"server\":");
			sb_json_str(&p, h->spec);
			sb_add(&p, ",\"hostname\":");
			sb_json_str(&p, h->hostname ? h->hostname : "");
			sb_add(&p, ",\"os\":");
			sb_json_str(&p, h->os ? h->os : "");
			sb_add(&p, ",\"arch\":");
			sb_json_str(&p, h->arch ? h->arch : "");
			sb_add(&p, ",\"fio_version\":");
			sb_json_str(&p, h->fio_version ? h->fio_version : "");
			sb_add(&p, ",\"kernel_source\":");
			sb_json_str(&p, h->kernel ? "declared in the hosts file"
					: same	  ? "this machine's (the server reports this "
						    "machine's host name)"
						  : "not known: fio's client/server protocol does "
						    "not carry it");
			if (need_engine) {
				sb_add(&p, ",\"engine\":{\"path\":");
				sb_json_str(&p, h->engine);
				sb_add(&p, ",\"verified\":");
				sb_json_str(&p, rev ? "revision note" : "sha256");
				sb_add(&p, ",\"revision\":");
				if (rev)
					sb_json_str(&p, rev);
				else
					sb_add(&p, "null");
				sb_add(&p, ",\"sha256\":");
				if (rev)
					sb_add(&p, "null");
				else
					sb_json_str(&p, sha);
				sb_add(&p, "}");
			}
			sb_add(&p, ",\"scratch\":");
			sb_json_str(&p, h->scratch);
			sb_add(&p, ",\"target\":");
			if (h->target)
				sb_json_str(&p, h->target);
			else
				sb_add(&p, "null");
			sb_add(&p, "}");
			h->prov_json = sb_steal(&p);
			if (!h->kernel && same) {
				/* the same machine: its kernel is ours */
				struct provenance lp;
				provenance_collect(&lp, NULL);
				h->kernel = xstrdup(lp.kernel);
				provenance_free(&lp);
			}
			printf("host %s: %s, %s, engine %s%s%s%s\n", h->spec,
			       h->hostname ? h->hostname : "?",
			       h->fio_version ? h->fio_version : "fio ?",
			       need_engine ? h->engine : "(none needed)",
			       need_engine ? (rev ? " (revision " : " (sha256 ") : "",
			       need_engine ? (rev ? rev : "matches") : "", need_engine ? ")" : "");
			if (need_engine && rev)
				printf("host %s: engine revision %s verified\n", h->spec, rev);
		}
		free(cname);
		free(mname);
		free(cj2);
		free(mj);
		free(out);
		free(check);
	}
	free(bid);
	free(rev);
	return nok;
}

void hosts_cleanup(struct host *hv, int n, const char *tmpdir)
{
	for (int i = 0; i < n; i++) {
		struct host *h = &hv[i];
		if (!h->scratch || h->local)
			continue;
		char *cj = xasprintf("%s/host-%ld-%d-cleanup.fio", tmpdir, (long)getpid(), i);
		int rc = -1;
		if (host_alive(h)) {
			char *cmd = xasprintf("rm -rf %s %s.*", h->scratch, h->scratch);
			rc = host_exec(h, tmpdir, "cleanup", cmd);
			free(cmd);
		}
		if (rc)
			printf("host %s: its scratch directory %s could not be removed (%s)\n",
			       h->spec, h->scratch,
			       host_alive(h) ? "the cleanup job failed" : "the server is gone");
		else {
			journal_remote_done(h->server);
			unlink(cj);
		}
		free(cj);
	}
}
