/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workloads/dirtree.h - an in-memory directory tree with one rwsem per
 * directory (the directory inode's i_rwsem), for gitcheckout and reaim's
 * file tasks.
 *
 * Locking, as the VFS slow paths take i_rwsem (fs/namei.c, fs/readdir.c):
 * - path lookup: down_read on each directory while its entries are searched
 *   (the ref-walk lookup_slow; the RCU walk is not modelled);
 * - create, mkdir, unlink, rmdir, link, rename: down_write on the parent
 *   (rmdir also on the victim, parent first); rename is within one
 *   directory and of files only;
 * - readdir: down_read on the directory (iterate_shared).
 * Every i_rwsem is a lock of the variant under test.
 *
 * Entries are found by name in a per-directory hash table (FNV-1a).
 *
 * Lifetime: nothing the tree allocates goes back to the process heap before
 * lab_dirtree_destroy(). A removed entry (unlink, rmdir, the target of a
 * rename) and an outgrown hash table are retired: marked dead, the file's data
 * released once (an atomic flag: a second removal of the same entry is a
 * no-op), the memory kept. destroy() frees every allocation from the tree's own
 * list of them, not by walking the directories, and hash-chain walks are
 * bounded. So a variant that does not exclude (null, busted) can lose entries
 * or leave the directories wrong -- which the workloads count as errors and
 * tree_mismatch -- but cannot free memory another thread still reads, free it
 * twice or hang: the damage stays in this tree and ends with it, and the next
 * cell's heap is clean. (It was not: a null cell of gitcheckout freed dentries
 * that a concurrent lookup was walking, and the freed-twice memory came back
 * to the following cells as aliased dentries.) Memory grows with the entries
 * removed during the tree's life: bytes, not megabytes, per removal.
 * Callers must still not unlink what another thread may be using (the
 * workloads give every path to one thread at a time).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rwsem.h"

struct lab_dir;

struct lab_dentry {
	struct lab_dentry *next;	/* hash chain of the parent directory */
	struct lab_dentry *all_next;	/* the tree's list of every entry it made (for destroy) */
	struct lab_dentry *parent;
	struct lab_dir *dir;		/* NULL for a file */
	unsigned mode;			/* git mode (100644, 100755, 120000, 40000) */
	uint64_t size;			/* bytes (files) */
	void *data;			/* the owner's per-file state */
	uint32_t hash;
	uint32_t namelen;
	uint32_t dead;			/* 1 once removed (atomic) */
	char name[];
};

struct lab_dir {
	struct lab_lock i_rwsem;
	struct lab_dentry **bucket;
	uint32_t nbucket, n;
};

struct lab_dirtree {
	const struct lab_rwsem_conf *conf;
	struct lab_dentry *root;
	void (*release)(void *data);	/* called on a file's data when it goes; may be NULL */
	uint64_t ndirs;			/* directories alive (atomic) */
	struct lab_dentry *all;		/* every entry ever published (atomic push) */
	void *tables;			/* every hash table ever allocated (atomic push) */
	uint64_t nalloc;		/* entries ever published (atomic) */
};

int lab_dirtree_init(struct lab_dirtree *t, const struct lab_rwsem_conf *conf, void (*release)(void *data));
/* Free everything, whatever state the directories are in. Nobody may use the tree. */
void lab_dirtree_destroy(struct lab_dirtree *t);

/*
 * lab_dt_lookup() - walk @path ('/'-separated, relative to @start or the root
 * when NULL; @len bytes). Returns the entry or NULL (not found, or a file in
 * the middle of the path).
 */
struct lab_dentry *lab_dt_lookup(struct lab_dirtree *t, struct lab_dentry *start, const char *path, size_t len);

/*
 * lab_dt_create() - create @name in directory @parent: a directory if @dir.
 * Returns 0 and the new entry in *@out, -EEXIST with the existing one in
 * *@out, -ENOTDIR or -ENOMEM.
 */
int lab_dt_create(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, size_t len, bool dir,
		  unsigned mode, struct lab_dentry **out);
/* mkdir -p of the directory part of @path (everything before the last '/'); *@out = that directory. */
int lab_dt_mkdir_parents(struct lab_dirtree *t, const char *path, size_t len, struct lab_dentry **out);
/* Remove file @name from @parent. Returns 0, -ENOENT or -EISDIR. */
int lab_dt_unlink(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, size_t len);
/* Remove empty directory @name from @parent. Returns 0, -ENOENT, -ENOTDIR or -ENOTEMPTY. */
int lab_dt_rmdir(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, size_t len);
/* A new name @nname for file @name in the same @parent (the data is shared: a hard link's count is not kept). */
int lab_dt_link(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, const char *nname);
/* rename(2) of a file within @parent; an existing target is replaced. Returns 0, -ENOENT or -EISDIR. */
int lab_dt_rename(struct lab_dirtree *t, struct lab_dentry *parent, const char *oname, const char *nname);
/* Call @cb on every entry of directory @d under down_read. Returns the number of entries. */
size_t lab_dt_readdir(struct lab_dirtree *t, struct lab_dentry *d, void (*cb)(void *arg, const struct lab_dentry *e),
		      void *arg);
/*
 * Files and directories below @d (no locks: quiescent trees only, for checks).
 * Visits at most as many entries as the tree ever made, so a tree damaged by
 * a variant without exclusion (a cycle in a hash chain) still returns.
 */
void lab_dt_count(const struct lab_dirtree *t, const struct lab_dentry *d, uint64_t *files, uint64_t *dirs);
