/* schedbench utilities: buffers, files, processes, time, SHA-256. */
#include "sb.h"

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
		case '"': sb_add(b, "\\\""); break;
		case '\\': sb_add(b, "\\\\"); break;
		case '\n': sb_add(b, "\\n"); break;
		case '\t': sb_add(b, "\\t"); break;
		case '\r': sb_add(b, "\\r"); break;
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

/* ---- SHA-256 (FIPS 180-4) ---- */
static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
		       (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + K256[i] + w[i];
		uint32_t S0 = ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22);
		uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + mj;
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const unsigned char *p = data;
	size_t left = len;
	while (left >= 64) {
		sha256_block(h, p);
		p += 64;
		left -= 64;
	}
	unsigned char last[128];
	memset(last, 0, sizeof(last));
	memcpy(last, p, left);
	last[left] = 0x80;
	size_t blocks = left + 9 > 64 ? 2 : 1;
	uint64_t bits = (uint64_t)len * 8;
	for (int i = 0; i < 8; i++)
		last[blocks * 64 - 1 - (size_t)i] = (unsigned char)(bits >> (8 * i));
	for (size_t i = 0; i < blocks; i++)
		sha256_block(h, last + 64 * i);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}
