/* SPDX-License-Identifier: GPL-2.0-only */
/* The directory-tree model: see dirtree.h (locking and lifetimes). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "dirtree.h"

/* No real hash chain comes near this (load factor <= 2); a longer walk is a cycle left by a broken lock. */
#define CHAIN_MAX (1u << 16)

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* A hash table of @n buckets, on the tree's list of tables (freed by destroy only). */
struct table {
	struct table *next;
	struct lab_dentry *bucket[];
};

static struct lab_dentry **table_new(struct lab_dirtree *t, uint32_t n)
{
	struct table *tb = calloc(1, sizeof(*tb) + n * sizeof(tb->bucket[0]));
	struct table *head;

	if (!tb)
		return NULL;
	head = READ_ONCE(t->tables);
	do
		tb->next = head;
	while (!atomic_try_cmpxchg_release((struct table **)&t->tables, &head, tb));
	return tb->bucket;
}

/* A new entry; not yet in any directory (dentry_put frees it, dentry_publish lists it). */
static struct lab_dentry *dentry_new(struct lab_dirtree *t, struct lab_dentry *parent, const char *name,
				     size_t len, bool dir, unsigned mode)
{
	struct lab_dentry *d = calloc(1, sizeof(*d) + len + 1);

	if (!d)
		return NULL;
	memcpy(d->name, name, len);
	d->namelen = (uint32_t)len;
	d->hash = name_hash(name, len);
	d->parent = parent;
	d->mode = mode;
	if (dir) {
		d->dir = calloc(1, sizeof(*d->dir));
		if (!d->dir || lab_lock_init(&d->dir->i_rwsem, t->conf)) {
			free(d->dir);
			free(d);
			return NULL;
		}
		d->dir->nbucket = 8;
		d->dir->bucket = table_new(t, 8);
		if (!d->dir->bucket) {
			lab_lock_destroy(&d->dir->i_rwsem);
			free(d->dir);
			free(d);
			return NULL;
		}
	}
	return d;
}

/* Free an entry nobody else ever saw (its table stays on the tree's list). */
static void dentry_put(struct lab_dentry *d)
{
	if (d->dir) {
		lab_lock_destroy(&d->dir->i_rwsem);
		free(d->dir);
	}
	free(d);
}

/* The entry is about to become visible: list it for destroy. */
static void dentry_publish(struct lab_dirtree *t, struct lab_dentry *d)
{
	struct lab_dentry *head = READ_ONCE(t->all);

	do
		d->all_next = head;
	while (!atomic_try_cmpxchg_release(&t->all, &head, d));
	atomic_fetch_add_relaxed(&t->nalloc, 1);
	if (d->dir)
		atomic_fetch_add_relaxed(&t->ndirs, 1);
}

/*
 * Removed from its directory: dead from now on, its data released; the memory
 * stays until destroy. The data is taken with an exchange (as rename takes it
 * over), so a file's data has one owner and is released once, even when a
 * lock without exclusion lets two threads remove or rename the same entry.
 */
static void dentry_retire(struct lab_dirtree *t, struct lab_dentry *d)
{
	void *data;

	if (atomic_cmpxchg(&d->dead, 0u, 1u))
		return;			/* already retired (only a lock without exclusion gets here) */
	if (d->dir) {
		atomic_fetch_sub_relaxed(&t->ndirs, 1);
		return;
	}
	data = atomic_xchg(&d->data, NULL);
	if (data && t->release)
		t->release(data);
}

int lab_dirtree_init(struct lab_dirtree *t, const struct lab_rwsem_conf *conf, void (*release)(void *data))
{
	memset(t, 0, sizeof(*t));
	t->conf = conf;
	t->release = release;
	t->root = dentry_new(t, NULL, "", 0, true, 040000);
	if (!t->root) {
		lab_dirtree_destroy(t);
		return -ENOMEM;
	}
	dentry_publish(t, t->root);
	return 0;
}

void lab_dirtree_destroy(struct lab_dirtree *t)
{
	struct lab_dentry *d, *dn;
	struct table *tb, *tn;

	for (d = t->all; d; d = dn) {
		dn = d->all_next;
		if (!d->dir && t->release && d->data)	/* dead entries gave theirs away */
			t->release(d->data);
		dentry_put(d);
	}
	for (tb = t->tables; tb; tb = tn) {
		tn = tb->next;
		free(tb);
	}
	t->all = NULL;
	t->tables = NULL;
	t->root = NULL;
}

/*
 * Find @name in @dir. Caller holds its i_rwsem (read or write). Returns the
 * link that points to it, or the NULL link at the end of its chain. A chain
 * longer than CHAIN_MAX is a cycle made by a lock without exclusion: it is cut
 * there (the entries behind the cut are lost, as are other updates such a lock
 * loses) and the name is not found.
 */
static struct lab_dentry **dir_slot(struct lab_dir *dir, const char *name, size_t len, uint32_t h)
{
	struct lab_dentry **p = &dir->bucket[h & (dir->nbucket - 1)];

	for (uint32_t k = 0; *p; p = &(*p)->next) {
		if ((*p)->hash == h && (*p)->namelen == len && !memcmp((*p)->name, name, len))
			return p;
		if (++k == CHAIN_MAX) {
			WRITE_ONCE(*p, NULL);
			break;
		}
	}
	return p;
}

/* Insert @d into @dir, growing the table (the old one is retired). Caller holds i_rwsem for write. */
static void dir_insert(struct lab_dirtree *t, struct lab_dir *dir, struct lab_dentry *d)
{
	if (dir->n >= 2 * dir->nbucket) {
		uint32_t nb = dir->nbucket * 4;
		struct lab_dentry **b = table_new(t, nb);

		if (b) {
			for (uint32_t i = 0; i < dir->nbucket; i++) {
				struct lab_dentry *c = dir->bucket[i], *n;

				for (uint32_t k = 0; c && k < CHAIN_MAX; c = n, k++) {
					n = c->next;
					c->next = b[c->hash & (nb - 1)];
					b[c->hash & (nb - 1)] = c;
				}
			}
			dir->bucket = b;
			dir->nbucket = nb;
		}
	}
	d->next = dir->bucket[d->hash & (dir->nbucket - 1)];
	dir->bucket[d->hash & (dir->nbucket - 1)] = d;
	dir->n++;
}

/* One component under down_read of the directory. */
static struct lab_dentry *lookup_one(struct lab_dentry *parent, const char *name, size_t len)
{
	struct lab_dentry *d;

	lab_down_read(&parent->dir->i_rwsem);
	d = *dir_slot(parent->dir, name, len, name_hash(name, len));
	lab_up_read(&parent->dir->i_rwsem);
	return d;
}

struct lab_dentry *lab_dt_lookup(struct lab_dirtree *t, struct lab_dentry *start, const char *path, size_t len)
{
	struct lab_dentry *d = start ? start : t->root;
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && path[j] != '/')
			j++;
		if (j > i) {
			if (!d->dir)
				return NULL;		/* ENOTDIR */
			d = lookup_one(d, path + i, j - i);
			if (!d)
				return NULL;
		}
		i = j + 1;
	}
	return d;
}

int lab_dt_create(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, size_t len, bool dir,
		  unsigned mode, struct lab_dentry **out)
{
	struct lab_dentry *d, **slot;

	if (!parent->dir)
		return -ENOTDIR;
	/* Allocate outside the lock, as the kernel prepares the inode before locking the parent. */
	d = dentry_new(t, parent, name, len, dir, mode);
	if (!d)
		return -ENOMEM;
	lab_down_write(&parent->dir->i_rwsem);
	slot = dir_slot(parent->dir, name, len, d->hash);
	if (*slot) {
		struct lab_dentry *have = *slot;

		lab_up_write(&parent->dir->i_rwsem);
		dentry_put(d);
		if (out)
			*out = have;
		return -EEXIST;
	}
	dentry_publish(t, d);
	dir_insert(t, parent->dir, d);
	lab_up_write(&parent->dir->i_rwsem);
	if (out)
		*out = d;
	return 0;
}

int lab_dt_mkdir_parents(struct lab_dirtree *t, const char *path, size_t len, struct lab_dentry **out)
{
	struct lab_dentry *d = t->root;
	size_t i = 0, end = len;

	while (end > 0 && path[end - 1] != '/')
		end--;
	while (i < end) {
		size_t j = i;
		struct lab_dentry *c;

		while (j < end && path[j] != '/')
			j++;
		if (j > i) {
			c = lookup_one(d, path + i, j - i);
			if (!c) {
				int r = lab_dt_create(t, d, path + i, j - i, true, 040000, &c);

				if (r && r != -EEXIST)
					return r;
			}
			if (!c->dir)
				return -ENOTDIR;
			d = c;
		}
		i = j + 1;
	}
	*out = d;
	return 0;
}

/* Unhook @name from @dir (write-locked); returns it or NULL. */
static struct lab_dentry *dir_remove(struct lab_dir *dir, const char *name, size_t len)
{
	struct lab_dentry **slot = dir_slot(dir, name, len, name_hash(name, len)), *d = *slot;

	if (d) {
		*slot = d->next;
		dir->n--;
	}
	return d;
}

int lab_dt_unlink(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, size_t len)
{
	struct lab_dentry *d;

	if (!parent->dir)
		return -ENOTDIR;
	lab_down_write(&parent->dir->i_rwsem);
	d = *dir_slot(parent->dir, name, len, name_hash(name, len));
	if (d && d->dir) {
		lab_up_write(&parent->dir->i_rwsem);
		return -EISDIR;
	}
	if (d)
		dir_remove(parent->dir, name, len);
	lab_up_write(&parent->dir->i_rwsem);
	if (!d)
		return -ENOENT;
	dentry_retire(t, d);
	return 0;
}

int lab_dt_rmdir(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, size_t len)
{
	struct lab_dentry *d;
	int r = 0;

	if (!parent->dir)
		return -ENOTDIR;
	lab_down_write(&parent->dir->i_rwsem);
	d = *dir_slot(parent->dir, name, len, name_hash(name, len));
	if (!d) {
		r = -ENOENT;
	} else if (!d->dir) {
		r = -ENOTDIR;
	} else {
		/* parent before child, as vfs_rmdir locks the victim inside the parent's lock */
		lab_down_write(&d->dir->i_rwsem);
		if (d->dir->n)
			r = -ENOTEMPTY;
		lab_up_write(&d->dir->i_rwsem);
		if (!r)
			dir_remove(parent->dir, name, len);
	}
	lab_up_write(&parent->dir->i_rwsem);
	if (!r)
		dentry_retire(t, d);
	return r;
}

int lab_dt_link(struct lab_dirtree *t, struct lab_dentry *parent, const char *name, const char *nname)
{
	struct lab_dentry *src = lab_dt_lookup(t, parent, name, strlen(name)), *d;
	int r;

	if (!src || src->dir)
		return src ? -EPERM : -ENOENT;
	r = lab_dt_create(t, parent, nname, strlen(nname), false, src->mode, &d);
	if (!r)
		d->size = src->size;	/* data stays with the original name */
	return r;
}

int lab_dt_rename(struct lab_dirtree *t, struct lab_dentry *parent, const char *oname, const char *nname)
{
	size_t ol = strlen(oname), nl = strlen(nname);
	struct lab_dentry *d, *old, *nd;

	if (!parent->dir)
		return -ENOTDIR;
	/* The new dentry is built first (names live in the dentry here); it takes over the file. */
	nd = dentry_new(t, parent, nname, nl, false, 0);
	if (!nd)
		return -ENOMEM;
	lab_down_write(&parent->dir->i_rwsem);
	d = *dir_slot(parent->dir, oname, ol, name_hash(oname, ol));
	if (!d || d->dir) {
		lab_up_write(&parent->dir->i_rwsem);
		dentry_put(nd);
		return d ? -EISDIR : -ENOENT;	/* files only: children keep a pointer to their parent */
	}
	dir_remove(parent->dir, oname, ol);
	nd->mode = d->mode;
	nd->size = d->size;
	nd->data = atomic_xchg(&d->data, NULL);	/* the file moves to the new name */
	old = dir_remove(parent->dir, nname, nl);
	dentry_publish(t, nd);
	dir_insert(t, parent->dir, nd);
	lab_up_write(&parent->dir->i_rwsem);
	dentry_retire(t, d);		/* its data lives on under the new name */
	if (old)
		dentry_retire(t, old);
	return 0;
}

size_t lab_dt_readdir(struct lab_dirtree *t, struct lab_dentry *d, void (*cb)(void *arg, const struct lab_dentry *e),
		      void *arg)
{
	size_t n = 0;

	(void)t;
	if (!d->dir)
		return 0;
	lab_down_read(&d->dir->i_rwsem);
	for (uint32_t b = 0; b < d->dir->nbucket; b++) {
		uint32_t k = 0;

		for (struct lab_dentry *c = d->dir->bucket[b]; c && k < CHAIN_MAX; c = c->next, k++) {
			if (cb)
				cb(arg, c);
			n++;
		}
	}
	lab_up_read(&d->dir->i_rwsem);
	return n;
}

static void count(const struct lab_dentry *d, uint64_t *files, uint64_t *dirs, uint64_t *budget)
{
	if (!*budget)
		return;
	(*budget)--;
	if (!d->dir) {
		(*files)++;
		return;
	}
	(*dirs)++;
	for (uint32_t b = 0; b < d->dir->nbucket; b++)
		for (const struct lab_dentry *c = d->dir->bucket[b]; c && *budget; c = c->next)
			count(c, files, dirs, budget);
}

void lab_dt_count(const struct lab_dirtree *t, const struct lab_dentry *d, uint64_t *files, uint64_t *dirs)
{
	uint64_t budget = READ_ONCE(t->nalloc);

	count(d, files, dirs, &budget);
}
