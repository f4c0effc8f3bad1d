// SPDX-License-Identifier: GPL-2.0
/*
 * The device's data, so that verify= works: sparse memory (a MAP_NORESERVE mapping of the whole
 * device and a bitmap of the 64 KiB chunks ever written; unwritten chunks are answered from a
 * read-only run of zero pages, so reading a terabyte costs no memory), a sparse backing file, or
 * nothing (reads return zeros, writes are dropped).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mdev.h"

#define CHUNK_SHIFT 16
#define CHUNK (1ull << CHUNK_SHIFT)
#define ZEROS_LEN (2u << 20) /* more than one FUSE request (max_pages 256 = 1 MiB) */

static bool chunk_test(const struct mdev_store *s, uint64_t c)
{
	return s->bitmap[c >> 6] & (1ull << (c & 63));
}

int store_open(struct mdev_store *s, enum mdev_store_kind kind, const char *path, uint64_t size,
	       uint64_t mem_limit, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->kind = kind;
	s->size = size;
	s->fd = -1;
	s->mem_limit = mem_limit;
	s->zeros_len = ZEROS_LEN;
	s->zeros = mmap(NULL, ZEROS_LEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->zeros == MAP_FAILED) {
		snprintf(err, errlen, "mmap of the zero buffer: %s", strerror(errno));
		return -1;
	}
	switch (kind) {
	case STORE_MEM: {
		uint64_t nchunks = (size + CHUNK - 1) >> CHUNK_SHIFT;

		s->mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (s->mem == MAP_FAILED) {
			s->mem = NULL;
			snprintf(err, errlen, "cannot map %llu bytes of sparse memory: %s",
				 (unsigned long long)size, strerror(errno));
			return -1;
		}
		s->bitmap = calloc((nchunks + 63) / 64, sizeof(uint64_t));
		if (!s->bitmap) {
			snprintf(err, errlen, "out of memory for the chunk bitmap");
			return -1;
		}
		return 0;
	}
	case STORE_FILE:
		s->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (s->fd < 0 || ftruncate(s->fd, (off_t)size)) {
			snprintf(err, errlen, "backing file %s: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	case STORE_NONE:
		return 0;
	}
	return -1;
}

void store_close(struct mdev_store *s)
{
	if (s->mem)
		munmap(s->mem, s->size);
	free(s->bitmap);
	if (s->fd >= 0)
		close(s->fd);
	if (s->zeros && s->zeros != MAP_FAILED)
		munmap(s->zeros, s->zeros_len);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int store_write(struct mdev_store *s, const void *buf, uint64_t off, uint64_t len)
{
	if (off > s->size || len > s->size - off)
		return EINVAL;
	switch (s->kind) {
	case STORE_MEM: {
		uint64_t c0 = off >> CHUNK_SHIFT, c1 = (off + len - 1) >> CHUNK_SHIFT, fresh = 0;

		if (!len)
			return 0;
		pthread_mutex_lock(&s->lock);
		for (uint64_t c = c0; c <= c1; c++)
			fresh += !chunk_test(s, c);
		if (s->mem_limit && (s->chunks_used + fresh) * CHUNK > s->mem_limit) {
			if (!s->limit_warned)
				fprintf(stderr,
					"modeldev: memory store full (mem_limit %llu MiB): writes fail "
					"with ENOSPC (raise --mem-limit or use --store file:PATH)\n",
					(unsigned long long)(s->mem_limit >> 20));
			s->limit_warned = true;
			pthread_mutex_unlock(&s->lock);
			return ENOSPC;
		}
		/* the data first: a reader that sees the chunk as written sees its bytes */
		memcpy(s->mem + off, buf, len);
		for (uint64_t c = c0; c <= c1; c++)
			s->bitmap[c >> 6] |= 1ull << (c & 63);
		s->chunks_used += fresh;
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	case STORE_FILE:
		while (len) {
			ssize_t n = pwrite(s->fd, buf, len, (off_t)off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? errno : EIO;
			buf = (const char *)buf + n;
			off += (uint64_t)n;
			len -= (uint64_t)n;
		}
		return 0;
	case STORE_NONE:
		return 0;
	}
	return EIO;
}

int store_discard(struct mdev_store *s, uint64_t off, uint64_t len)
{
	if (off >= s->size)
		return 0;
	if (len > s->size - off)
		len = s->size - off;
	switch (s->kind) {
	case STORE_MEM: {
		/* Whole chunks are forgotten (their pages given back); partial ones zeroed. */
		uint64_t end = off + len;

		pthread_mutex_lock(&s->lock);
		while (off < end) {
			uint64_t c = off >> CHUNK_SHIFT, cend = (c + 1) << CHUNK_SHIFT;
			uint64_t n = (cend < end ? cend : end) - off;

			if (chunk_test(s, c)) {
				if (n == CHUNK) {
					madvise(s->mem + off, CHUNK, MADV_DONTNEED);
					s->bitmap[c >> 6] &= ~(1ull << (c & 63));
					s->chunks_used--;
				} else {
					memset(s->mem + off, 0, n);
				}
			}
			off += n;
		}
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	case STORE_FILE:
		if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)len))
			return errno;
		return 0;
	case STORE_NONE:
		return 0;
	}
	return EIO;
}

int store_read_iov(struct mdev_store *s, uint64_t off, uint64_t len, struct iovec *iov, int *cnt,
		   char *buf)
{
	int max = *cnt, n = 0;

	if (off > s->size || len > s->size - off || len > s->zeros_len)
		return EINVAL;
	switch (s->kind) {
	case STORE_MEM: {
		uint64_t end = off + len;

		pthread_mutex_lock(&s->lock);
		while (off < end) {
			uint64_t c = off >> CHUNK_SHIFT, cend = (c + 1) << CHUNK_SHIFT;
			uint64_t k = (cend < end ? cend : end) - off;
			bool w = chunk_test(s, c);
			char *base = w ? s->mem + off : NULL;

			if (n && ((w && iov[n - 1].iov_base == (void *)base - iov[n - 1].iov_len) ||
				  (!w && iov[n - 1].iov_base >= (void *)s->zeros &&
				   iov[n - 1].iov_base < (void *)(s->zeros + s->zeros_len)))) {
				iov[n - 1].iov_len += k; /* zero runs: len <= zeros_len */
			} else {
				if (n == max) {
					pthread_mutex_unlock(&s->lock);
					return EIO;
				}
				iov[n].iov_base = w ? base : s->zeros;
				iov[n].iov_len = k;
				n++;
			}
			off += k;
		}
		pthread_mutex_unlock(&s->lock);
		break;
	}
	case STORE_FILE: {
		uint64_t done = 0;

		while (done < len) {
			ssize_t r = pread(s->fd, buf + done, len - done, (off_t)(off + done));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return errno;
			if (r == 0) {
				memset(buf + done, 0, len - done);
				break;
			}
			done += (uint64_t)r;
		}
		iov[0].iov_base = buf;
		iov[0].iov_len = len;
		n = 1;
		break;
	}
	case STORE_NONE:
		iov[0].iov_base = s->zeros;
		iov[0].iov_len = len;
		n = 1;
		break;
	}
	*cnt = n;
	return 0;
}
