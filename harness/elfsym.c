/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading program headers and symbol tables of an ELF64 file (elfsym.h). */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif

/* [off, off + n * sz) inside the file, without overflow. */
static bool inside(const struct lab_elf *e, uint64_t off, uint64_t n, uint64_t sz)
{
	return off <= e->size && (sz == 0 || n <= (e->size - off) / sz);
}

static const Elf64_Ehdr *ehdr(const struct lab_elf *e)
{
	return (const Elf64_Ehdr *)e->map;
}

int lab_elf_open(struct lab_elf *e, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	e->map = NULL;
	e->size = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	e->map = p;
	e->size = (size_t)st.st_size;
	if (memcmp(e->map, ELFMAG, SELFMAG) || e->map[EI_CLASS] != ELFCLASS64 || e->map[EI_DATA] != HOST_DATA ||
	    (ehdr(e)->e_phnum && (ehdr(e)->e_phentsize != sizeof(Elf64_Phdr) ||
				  !inside(e, ehdr(e)->e_phoff, ehdr(e)->e_phnum, sizeof(Elf64_Phdr)))) ||
	    (ehdr(e)->e_shnum && (ehdr(e)->e_shentsize != sizeof(Elf64_Shdr) ||
				  !inside(e, ehdr(e)->e_shoff, ehdr(e)->e_shnum, sizeof(Elf64_Shdr))))) {
		lab_elf_close(e);
		return -1;
	}
	return 0;
}

void lab_elf_close(struct lab_elf *e)
{
	if (e->map)
		munmap((void *)e->map, e->size);
	e->map = NULL;
	e->size = 0;
}

const char *lab_elf_interp(const struct lab_elf *e)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->map + ehdr(e)->e_phoff);

	for (int i = 0; i < ehdr(e)->e_phnum; i++) {
		const char *s = (const char *)e->map + ph[i].p_offset;

		if (ph[i].p_type != PT_INTERP)
			continue;
		/* A NUL-terminated path inside the file. */
		if (ph[i].p_filesz < 2 || !inside(e, ph[i].p_offset, ph[i].p_filesz, 1) ||
		    s[ph[i].p_filesz - 1] != 0)
			return NULL;
		return s;
	}
	return NULL;
}

/* The symbol table of section type @type and its string table; false when absent or out of bounds. */
static bool symtab(const struct lab_elf *e, uint32_t type, const Elf64_Sym **sym, size_t *n, const char **str,
		   size_t *strsz)
{
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(e->map + ehdr(e)->e_shoff);

	for (int i = 0; i < ehdr(e)->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i], *t;

		if (s->sh_type != type || s->sh_entsize != sizeof(Elf64_Sym) || s->sh_link >= ehdr(e)->e_shnum)
			continue;
		t = &sh[s->sh_link];
		if (!inside(e, s->sh_offset, s->sh_size, 1) || !inside(e, t->sh_offset, t->sh_size, 1) || !t->sh_size)
			continue;
		*sym = (const Elf64_Sym *)(e->map + s->sh_offset);
		*n = s->sh_size / sizeof(Elf64_Sym);
		*str = (const char *)e->map + t->sh_offset;
		*strsz = t->sh_size;
		return true;
	}
	return false;
}

/* The name of @s, or NULL when it does not end inside the string table. */
static const char *sym_name(const Elf64_Sym *s, const char *str, size_t strsz)
{
	if (s->st_name >= strsz || !memchr(str + s->st_name, 0, strsz - s->st_name))
		return NULL;
	return str + s->st_name;
}

int lab_elf_imports(const struct lab_elf *e, const char *prefix)
{
	const Elf64_Sym *sym;
	const char *str;
	size_t n, strsz, pl = strlen(prefix);
	int count = 0;

	if (!symtab(e, SHT_DYNSYM, &sym, &n, &str, &strsz))
		return 0;
	for (size_t i = 1; i < n; i++) {
		const char *name = sym_name(&sym[i], str, strsz);

		if (sym[i].st_shndx == SHN_UNDEF && name && !strncmp(name, prefix, pl))
			count++;
	}
	return count;
}

static bool func_in(const struct lab_elf *e, uint32_t type, uint64_t vaddr, char *name, size_t len, uint64_t *off)
{
	const Elf64_Sym *sym;
	const char *str;
	size_t n, strsz;

	if (!symtab(e, type, &sym, &n, &str, &strsz))
		return false;
	for (size_t i = 1; i < n; i++) {
		const Elf64_Sym *s = &sym[i];
		const char *nm;

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF || vaddr < s->st_value ||
		    vaddr - s->st_value >= (s->st_size ? s->st_size : 1))
			continue;
		nm = sym_name(s, str, strsz);
		if (!nm || !*nm)
			continue;
		snprintf(name, len, "%s", nm);
		*off = vaddr - s->st_value;
		return true;
	}
	return false;
}

bool lab_elf_func_at(const struct lab_elf *e, uint64_t vaddr, char *name, size_t len, uint64_t *off)
{
	return func_in(e, SHT_SYMTAB, vaddr, name, len, off) || func_in(e, SHT_DYNSYM, vaddr, name, len, off);
}
