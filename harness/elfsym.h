/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness/elfsym.h - what rwlab reads from an ELF file (64-bit, the host's byte
 * order; the System V gABI and <elf.h>): whether a program is dynamically
 * linked (PT_INTERP), which functions it imports (undefined .dynsym
 * entries), and the function containing an address (.symtab, else .dynsym).
 *
 *   rwlab exec: refuses a program the preload cannot interpose (static, or
 *               importing no pthread_rwlock_*), before running it;
 *   the preload: names a lock's creation site with the object's own symbols,
 *               static functions included, where dladdr() sees only exports.
 *
 * The file is mapped read-only and every offset is checked against its size,
 * so a truncated or hostile file gives "not ELF" or no answer, never a read
 * out of bounds. No allocation (the preload calls this inside lock calls).
 *
 * Threading: a struct lab_elf belongs to one thread; the calls keep no state.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lab_elf {
	const unsigned char *map;
	size_t size;
};

/* Map @path. Returns 0, or -1 when it cannot be read or is not a 64-bit ELF file of this host. */
int lab_elf_open(struct lab_elf *e, const char *path);
void lab_elf_close(struct lab_elf *e);

/* The program interpreter (PT_INTERP: "/lib64/ld-linux-x86-64.so.2"), or NULL: statically linked. */
const char *lab_elf_interp(const struct lab_elf *e);

/* How many undefined dynamic symbols (imports) start with @prefix. */
int lab_elf_imports(const struct lab_elf *e, const char *prefix);

/*
 * lab_elf_func_at() - the function symbol whose [value, value + size)
 * holds the link-time address @vaddr (the run-time address less the
 * object's load bias): its name in @name and @vaddr's offset into it in
 * @off. Looks in .symtab (present unless stripped), then .dynsym.
 * Returns false when neither has one.
 */
bool lab_elf_func_at(const struct lab_elf *e, uint64_t vaddr, char *name, size_t len, uint64_t *off);
