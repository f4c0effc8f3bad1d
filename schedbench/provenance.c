/* Provenance of a run: the host (kernel command line, CPU model and governor, memory), the
 * engine actually loaded (its GNU build id and revision note, read from the .so itself, and its
 * SHA-256), fio, and the block device under the target with its queue settings. */
#include "sb.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SCHEDBENCH_VERSION
#define SCHEDBENCH_VERSION "unknown"
#endif

static char *first_line_value(const char *text, const char *key)
{
	const char *p = text;
	size_t kl = strlen(key);
	while (p && *p) {
		if (!strncmp(p, key, kl)) {
			const char *c = strchr(p, ':');
			const char *e = strchr(p, '\n');
			if (c && (!e || c < e)) {
				char *v = xstrndup(c + 1, e ? (size_t)(e - c - 1) : strlen(c + 1));
				char *t = xstrdup(trim(v));
				free(v);
				return t;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Walks the notes of one note area. */
static void scan_notes(const unsigned char *p, size_t len, char **build_id, char **revision)
{
	size_t off = 0;
	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr hdr; /* a note added by objcopy need not be aligned */
		const Elf64_Nhdr *n = &hdr;
		memcpy(&hdr, p + off, sizeof(hdr));
		size_t name_off = off + sizeof(*n);
		size_t nsz = (n->n_namesz + 3u) & ~3u, dsz = (n->n_descsz + 3u) & ~3u;
		size_t desc_off = name_off + nsz;
		if (desc_off + n->n_descsz > len || n->n_namesz > 64)
			return;
		const char *name = (const char *)(p + name_off);
		const unsigned char *desc = p + desc_off;
		if (n->n_namesz == 4 && !memcmp(name, "GNU", 4) && n->n_type == NT_GNU_BUILD_ID &&
		    !*build_id && n->n_descsz <= 64) {
			struct strbuf b;
			sb_init(&b);
			for (size_t i = 0; i < n->n_descsz; i++)
				sb_addf(&b, "%02x", desc[i]);
			*build_id = sb_steal(&b);
		} else if (n->n_namesz == 12 && !memcmp(name, "schedengine", 12) &&
			   n->n_type == 1 && !*revision) {
			size_t l = strnlen((const char *)desc, n->n_descsz);
			*revision = xstrndup((const char *)desc, l);
		}
		off = desc_off + dsz;
	}
}

void elf_engine_ids(const char *so, char **build_id, char **revision)
{
	*build_id = *revision = NULL;
	size_t len;
	unsigned char *f = (unsigned char *)read_file(so, &len);
	if (!f)
		return;
	const Elf64_Ehdr *eh = (const void *)f;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64) {
		free(f);
		return;
	}
	/* section headers first (a note added with objcopy is only there), then PT_NOTE segments */
	if (eh->e_shoff && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= len) {
		for (int i = 0; i < eh->e_shnum; i++) {
			Elf64_Shdr sh;
			memcpy(&sh, f + eh->e_shoff + (size_t)i * sizeof(sh), sizeof(sh));
			if (sh.sh_type == SHT_NOTE && sh.sh_offset + sh.sh_size <= len)
				scan_notes(f + sh.sh_offset, sh.sh_size, build_id, revision);
		}
	}
	if ((!*build_id || !*revision) && eh->e_phoff && eh->e_phentsize == sizeof(Elf64_Phdr) &&
	    eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len) {
		for (int i = 0; i < eh->e_phnum; i++) {
			Elf64_Phdr ph;
			memcpy(&ph, f + eh->e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
			if (ph.p_type == PT_NOTE && ph.p_offset + ph.p_filesz <= len)
				scan_notes(f + ph.p_offset, ph.p_filesz, build_id, revision);
		}
	}
	free(f);
}

static void json_kv_str(struct strbuf *b, const char *key, const char *val, int comma)
{
	if (comma)
		sb_add(b, ",");
	sb_json_str(b, key);
	sb_add(b, ":");
	if (val)
		sb_json_str(b, val);
	else
		sb_add(b, "null");
}

static char *read_trim(const char *path)
{
	return sysfs_read(path);
}

char *target_device_json(const char *path)
{
	struct strbuf b;
	sb_init(&b);
	struct stat st;
	if (stat(path, &st)) {
		char *d = dir_name(path);
		int r = stat(d, &st);
		free(d);
		if (r) {
			sb_add(&b, "{\"device\":null,\"error\":");
			sb_json_str(&b, strerror(errno));
			sb_add(&b, "}");
			return sb_steal(&b);
		}
	}
	dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	char link[128], real[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real)) {
		struct statfs sf;
		sb_add(&b, "{\"device\":null");
		if (!statfs(S_ISBLK(st.st_mode) ? "/" : path, &sf))
			sb_addf(&b, ",\"fs_magic\":\"0x%lx\"", (unsigned long)sf.f_type);
		sb_addf(&b,
			",\"st_dev\":\"%u:%u\",\"note\":\"no block device (tmpfs, overlay or "
			"network file "
			"system)\"}",
			major(dev), minor(dev));
		return sb_steal(&b);
	}
	char part[PATH_MAX + 16];
	snprintf(part, sizeof(part), "%s/partition", real);
	char *partname = NULL;
	if (!access(part, F_OK)) {
		partname = xstrdup(base_name(real));
		char *slash = strrchr(real, '/');
		if (slash)
			*slash = 0;
	}
	char *p_model = path_join(real, "device/model"),
	     *p_vendor = path_join(real, "device/vendor");
	char *p_q = path_join(real, "queue");
	char *model = read_trim(p_model), *vendor = read_trim(p_vendor);
	sb_add(&b, "{");
	json_kv_str(&b, "device", base_name(real), 0);
	json_kv_str(&b, "partition", partname, 1);
	json_kv_str(&b, "model", model, 1);
	json_kv_str(&b, "vendor", vendor, 1);
	sb_add(&b, ",\"queue\":");
	sysfs_dir_json(&b, p_q);
	sb_add(&b, "}");
	free(p_model);
	free(p_vendor);
	free(p_q);
	free(model);
	free(vendor);
	free(partname);
	return sb_steal(&b);
}

void provenance_collect(struct provenance *p, const char *engine_so)
{
	memset(p, 0, sizeof(*p));
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	p->host = xstrdup(host);
	struct utsname u;
	if (!uname(&u))
		p->kernel = xasprintf("%s %s %s %s", u.sysname, u.release, u.version, u.machine);
	else
		p->kernel = xstrdup("unknown");
	p->fio_version = fio_version();
	size_t len;
	char *cpu = read_file("/proc/cpuinfo", &len);
	char *model = cpu ? first_line_value(cpu, "model name") : NULL;
	p->cpu_model = model ? model : xstrdup("unknown");
	free(cpu);
	char *mem = read_file("/proc/meminfo", &len);
	char *memtotal = mem ? first_line_value(mem, "MemTotal") : NULL;
	free(mem);
	char *cmdline = read_trim("/proc/cmdline");
	char *gov = read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	char *drv = read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	char *rev = NULL, *bid = NULL, *so_abs = NULL;
	char so_sha[65] = "";
	if (engine_so) {
		char buf[PATH_MAX];
		so_abs = xstrdup(realpath(engine_so, buf) ? buf : engine_so);
		elf_engine_ids(so_abs, &bid, &rev);
		char *data = read_file(so_abs, &len);
		if (data)
			sha256_hex(data, len, so_sha);
		free(data);
	}
	/* The revision is the engine's own (its note), never this checkout's: unknown without one.
	 */
	p->engine_rev =
	    rev ? xstrdup(rev) : xstrdup(engine_so ? "unknown (no schedengine revision note)" : "");
	p->engine_build_id = bid ? xstrdup(bid) : NULL;

	struct strbuf b;
	sb_init(&b);
	sb_add(&b, "{");
	json_kv_str(&b, "cmdline", cmdline, 0);
	sb_add(&b, ",\"cpu\":{");
	json_kv_str(&b, "model", p->cpu_model, 0);
	sb_addf(&b, ",\"online\":%ld", ncpu);
	json_kv_str(&b, "governor", gov, 1);
	json_kv_str(&b, "driver", drv, 1);
	sb_add(&b, "}");
	json_kv_str(&b, "memory", memtotal, 1);
	json_kv_str(&b, "kernel", p->kernel, 1);
	sb_add(&b, ",\"fio\":{");
	json_kv_str(&b, "path", fio_bin_path(), 0);
	json_kv_str(&b, "version", p->fio_version, 1);
	sb_add(&b, "}");
	if (engine_so) {
		sb_add(&b, ",\"engine\":{");
		json_kv_str(&b, "path", so_abs, 0);
		json_kv_str(&b, "sha256", so_sha[0] ? so_sha : NULL, 1);
		json_kv_str(&b, "build_id", bid, 1);
		json_kv_str(&b, "revision", rev, 1);
		sb_add(&b, "}");
	}
	json_kv_str(&b, "schedbench", SCHEDBENCH_VERSION, 1);
	sb_add(&b, "}");
	p->json = sb_steal(&b);
	free(rev);
	free(bid);
	free(so_abs);
	free(cmdline);
	free(gov);
	free(drv);
	free(memtotal);
}

void provenance_free(struct provenance *p)
{
	free(p->host);
	free(p->kernel);
	free(p->fio_version);
	free(p->engine_rev);
	free(p->cpu_model);
	free(p->engine_build_id);
	free(p->json);
	memset(p, 0, sizeof(*p));
}
