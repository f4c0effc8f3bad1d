// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's revision, as an ELF note (owner "schedengine", type 1, a NUL-terminated string)
 * that schedbench reads from the .so a run actually loaded, and that `readelf -n` shows.
 * SE_REVISION comes from `git describe --always --dirty` at build time (build/revision.h).
 */
#include <stdint.h>

#include "revision.h"

#define SE_NOTE_DESC 64

struct se_note {
	uint32_t namesz, descsz, type;
	char name[12];
	char desc[SE_NOTE_DESC];
};

__attribute__((section(".note.schedengine"), aligned(4), used)) static const struct se_note
	se_revision_note = { 12, SE_NOTE_DESC, 1, "schedengine", SE_REVISION };

const char *se_revision(void)
{
	return se_revision_note.desc;
}
