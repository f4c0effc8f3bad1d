// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's only file built against libc (not the shim's headers): memory, formatting and the
 * end of the run when a kernel file trips a BUG_ON (the oracle reports it as a divergence class of
 * its own, with the file and line).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void *oracle_host_zalloc(size_t n);
void oracle_host_free(void *p);
void oracle_host_bug(const char *file, int line, const char *what) __attribute__((noreturn));
void oracle_host_warn(const char *file, int line, const char *what);
int oracle_host_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int oracle_host_snprintf(char *buf, size_t n, const char *fmt, ...);
long oracle_host_strtol(const char *s, char **end, int base);
unsigned long oracle_host_strtoul(const char *s, char **end, int base);
int oracle_host_sscanf(const char *s, const char *fmt, ...);

/* Set by the harness: where a BUG_ON returns to (a longjmp), and the WARN_ON counter. */
void (*oracle_bug_hook)(const char *file, int line, const char *what);
void (*oracle_warn_hook)(const char *file, int line, const char *what);

void *oracle_host_zalloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

void oracle_host_free(void *p)
{
	free(p);
}

void oracle_host_bug(const char *file, int line, const char *what)
{
	if (oracle_bug_hook)
		oracle_bug_hook(file, line, what);
	fprintf(stderr, "oracle: kernel file hit %s at %s:%d\n", what, file, line);
	abort();
}

void oracle_host_warn(const char *file, int line, const char *what)
{
	if (oracle_warn_hook)
		oracle_warn_hook(file, line, what);
}

int oracle_host_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	return vsnprintf(buf, n, fmt, ap);
}

int oracle_host_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

long oracle_host_strtol(const char *s, char **end, int base)
{
	return strtol(s, end, base);
}

unsigned long oracle_host_strtoul(const char *s, char **end, int base)
{
	return strtoul(s, end, base);
}

int oracle_host_sscanf(const char *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsscanf(s, fmt, ap);
	va_end(ap);
	return r;
}
