/* schedbench utilities: buffers, files, processes, time, SHA-256 (nettle). */
#include "sb.h"

#include <nettle/sha2.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	struct strbuf b;
	sb_init(&b);
	if (!fmt)
		return xstrdup("");
	va_start(ap, fmt);
	char tmp[512];
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(tmp)) {
		sb_add(&b, tmp);
	} else {
		char *big = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb_add(&b, big);
		free(big);
	}
	return sb_steal(&b);
}

void die(const char *fmt, ...)
{
	va_list ap;
	fputs("schedbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	fputs("schedbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void sb_init(struct strbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void sb_addn(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_add(struct strbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

void sb_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (!fmt)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	char *tmp = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(tmp, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_addn(b, tmp, (size_t)n);
	free(tmp);
}

void sb_json_str(struct strbuf *b, const char *s)
{
	sb_add(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			sb_add(b, "\\\"");
			break;
		case '\\':
			sb_add(b, "\\\\");
			break;
		case '\n':
			sb_add(b, "\\n");
			break;
		case '\t':
			sb_add(b, "\\t");
			break;
		case '\r':
			sb_add(b, "\\r");
			break;
		default:
			if (*p < 0x20)
				sb_addf(b, "\\u%04x", *p);
			else
				sb_addn(b, (const char *)p, 1);
		}
	}
	sb_add(b, "\"");
}

char *sb_steal(struct strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	sb_init(b);
	return s;
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	sb_init(b);
}

char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct strbuf b;
	sb_init(&b);
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			sb_free(&b);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		sb_addn(&b, buf, (size_t)n);
	}
	close(fd);
	if (len)
		*len = b.len;
	return sb_steal(&b);
}

int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		off += (size_t)n;
	}
	return close(fd);
}

char *trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *q = p + 1; *q; q++) {
		if (*q == '/') {
			*q = 0;
			if (mkdir(p, 0755) && errno != EEXIST) {
				free(p);
				return -1;
			}
			*q = '/';
		}
	}
	int r = mkdir(p, 0755);
	free(p);
	return r && errno != EEXIST ? -1 : 0;
}

int rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *sub = path_join(path, e->d_name);
		rm_rf(sub);
		free(sub);
	}
	closedir(d);
	return rmdir(path);
}

char *path_join(const char *a, const char *b)
{
	if (b[0] == '/' || !a[0])
		return xstrdup(b);
	size_t n = strlen(a);
	return xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

char *abs_path(const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return xstrdup(p);
	const char *q = p;
	while (q[0] == '.' && q[1] == '/')
		q += 2;
	return path_join(cwd, q);
}

const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

char *dir_name(const char *p)
{
	const char *s = strrchr(p, '/');
	if (!s)
		return xstrdup(".");
	if (s == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(s - p));
}

static char *run_capture_x(const char *const argv[], int *rc, int merge)
{
	int pfd[2];
	if (pipe(pfd))
		return NULL;
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(merge ? pfd[1] : dn, 2);
			dup2(dn, 0);
		}
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	struct strbuf b;
	sb_init(&b);
	char buf[4096];
	for (;;) {
		ssize_t n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sb_addn(&b, buf, (size_t)n);
	}
	close(pfd[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int r = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (rc)
		*rc = r;
	if (r == 127) {
		sb_free(&b);
		return NULL;
	}
	return sb_steal(&b);
}

char *run_capture(const char *const argv[], int *rc)
{
	return run_capture_x(argv, rc, 0);
}

char *run_capture_all(const char *const argv[], int *rc)
{
	return run_capture_x(argv, rc, 1);
}

char *tail_text(const char *s, size_t maxbytes)
{
	if (!s)
		return xstrdup("");
	size_t n = strlen(s);
	if (n <= maxbytes)
		return xstrdup(s);
	const char *p = s + n - maxbytes;
	const char *nl = strchr(p, '\n');
	if (nl && nl[1])
		p = nl + 1;
	return xstrdup(p);
}

char *now_iso(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char buf[64];
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return xasprintf("%s.%03ldZ", buf, ts.tv_nsec / 1000000);
}

double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void fmt_hms(char *out, size_t n, double secs)
{
	if (secs < 0)
		secs = 0;
	long s = (long)(secs + 0.5);
	if (s >= 3600)
		snprintf(out, n, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
	else
		snprintf(out, n, "%02ld:%02ld", s / 60, s % 60);
}

/* ---- kv lists ---- */
void kv_set(struct kvlist *l, const char *key, const char *val)
{
	for (int i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key)) {
			free(l->v[i].val);
			l->v[i].val = xstrdup(val);
			return;
		}
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, sizeof(*l->v) * (size_t)l->cap);
	}
	l->v[l->n].key = xstrdup(key);
	l->v[l->n].val = xstrdup(val);
	l->n++;
}

const char *kv_get(const struct kvlist *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].val;
	return NULL;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

void kv_sort(struct kvlist *l)
{
	if (l->n > 1)
		qsort(l->v, (size_t)l->n, sizeof(*l->v), kv_cmp);
}

void kv_free(struct kvlist *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].val);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void kv_copy(struct kvlist *dst, const struct kvlist *src)
{
	for (int i = 0; i < src->n; i++)
		kv_set(dst, src->v[i].key, src->v[i].val);
}

void kv_json(struct strbuf *b, const struct kvlist *l)
{
	sb_add(b, "{");
	for (int i = 0; i < l->n; i++) {
		if (i)
			sb_add(b, ",");
		sb_json_str(b, l->v[i].key);
		sb_add(b, ":");
		sb_json_str(b, l->v[i].val);
	}
	sb_add(b, "}");
}

/* ---- SHA-256: nettle ---- */
void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(digest), digest);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

int levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *prev = xcalloc(lb + 1, sizeof(int)), *cur = xcalloc(lb + 1, sizeof(int));

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			int del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		int *t = prev;
		prev = cur;
		cur = t;
	}
	int d = prev[lb];
	free(prev);
	free(cur);
	return d;
}

double parse_seconds(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		return v;
	if (!strcmp(end, "ms"))
		return v / 1e3;
	if (!strcmp(end, "us"))
		return v / 1e6;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	return -1;
}

unsigned long long parse_size_bytes(const char *s)
{
	char *end;
	double v;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return 0;
	switch (*end) {
	case 0:
		break;
	case 'k':
	case 'K':
		v *= 1024.0, end++;
		break;
	case 'm':
	case 'M':
		v *= 1024.0 * 1024, end++;
		break;
	case 'g':
	case 'G':
		v *= 1024.0 * 1024 * 1024, end++;
		break;
	case 't':
	case 'T':
		v *= 1024.0 * 1024 * 1024 * 1024, end++;
		break;
	default:
		return 0;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	return *end ? 0 : (unsigned long long)v;
}
