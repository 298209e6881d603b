/* SPDX-License-Identifier: MIT */
/* The directory-tree model: see dirtree.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "dirtree.h"

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

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
		d->dir->bucket = calloc(8, sizeof(*d->dir->bucket));
		if (!d->dir->bucket) {
			lab_lock_destroy(&d->dir->i_rwsem);
			free(d->dir);
			free(d);
			return NULL;
		}
		atomic_fetch_add_relaxed(&t->ndirs, 1);
	}
	return d;
}

static void dentry_free(struct lab_dirtree *t, struct lab_dentry *d)
{
	if (d->dir) {
		for (uint32_t b = 0; b < d->dir->nbucket; b++) {
			struct lab_dentry *c = d->dir->bucket[b], *n;

			for (; c; c = n) {
				n = c->next;
				dentry_free(t, c);
			}
		}
		lab_lock_destroy(&d->dir->i_rwsem);
		free(d->dir->bucket);
		free(d->dir);
		atomic_fetch_sub_relaxed(&t->ndirs, 1);
	} else if (t->release && d->data) {
		t->release(d->data);
	}
	free(d);
}

int lab_dirtree_init(struct lab_dirtree *t, const struct lab_rwsem_conf *conf, void (*release)(void *data))
{
	memset(t, 0, sizeof(*t));
	t->conf = conf;
	t->release = release;
	t->root = dentry_new(t, NULL, "", 0, true, 040000);
	return t->root ? 0 : -ENOMEM;
}

void lab_dirtree_destroy(struct lab_dirtree *t)
{
	if (t->root)
		dentry_free(t, t->root);
	t->root = NULL;
}

/* Find @name in @dir. Caller holds its i_rwsem (read or write). */
static struct lab_dentry **dir_slot(struct lab_dir *dir, const char *name, size_t len, uint32_t h)
{
	struct lab_dentry **p = &dir->bucket[h & (dir->nbucket - 1)];

	for (; *p; p = &(*p)->next)
		if ((*p)->hash == h && (*p)->namelen == len && !memcmp((*p)->name, name, len))
			return p;
	return p;
}

/* Insert @d into @dir, growing the table. Caller holds i_rwsem for write. */
static void dir_insert(struct lab_dir *dir, struct lab_dentry *d)
{
	if (dir->n >= 2 * dir->nbucket) {
		uint32_t nb = dir->nbucket * 4;
		struct lab_dentry **b = calloc(nb, sizeof(*b));

		if (b) {
			for (uint32_t i = 0; i < dir->nbucket; i++) {
				struct lab_dentry *c = dir->bucket[i], *n;

				for (; c; c = n) {
					n = c->next;
					c->next = b[c->hash & (nb - 1)];
					b[c->hash & (nb - 1)] = c;
				}
			}
			free(dir->bucket);
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
		dentry_free(t, d);
		if (out)
			*out = have;
		return -EEXIST;
	}
	dir_insert(parent->dir, d);
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

/* Unhook @name from @parent (write-locked); returns it or NULL. */
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
	dentry_free(t, d);
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
		dentry_free(t, d);
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
	struct lab_dentry *d, *old = NULL, *nd;

	if (!parent->dir)
		return -ENOTDIR;
	/* The new dentry is built first (names live in the dentry here). */
	lab_down_write(&parent->dir->i_rwsem);
	d = *dir_slot(parent->dir, oname, ol, name_hash(oname, ol));
	if (!d || d->dir) {
		lab_up_write(&parent->dir->i_rwsem);
		return d ? -EISDIR : -ENOENT;	/* files only: children keep a pointer to their parent */
	}
	dir_remove(parent->dir, oname, ol);
	nd = realloc(d, sizeof(*d) + nl + 1);
	if (!nd) {
		dir_insert(parent->dir, d);
		lab_up_write(&parent->dir->i_rwsem);
		return -ENOMEM;
	}
	memcpy(nd->name, nname, nl + 1);
	nd->namelen = (uint32_t)nl;
	nd->hash = name_hash(nname, nl);
	old = dir_remove(parent->dir, nname, nl);
	dir_insert(parent->dir, nd);
	lab_up_write(&parent->dir->i_rwsem);
	if (old)
		dentry_free(t, old);
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
	for (uint32_t b = 0; b < d->dir->nbucket; b++)
		for (struct lab_dentry *c = d->dir->bucket[b]; c; c = c->next) {
			if (cb)
				cb(arg, c);
			n++;
		}
	lab_up_read(&d->dir->i_rwsem);
	return n;
}

void lab_dt_count(const struct lab_dentry *d, uint64_t *files, uint64_t *dirs)
{
	if (!d->dir) {
		(*files)++;
		return;
	}
	(*dirs)++;
	for (uint32_t b = 0; b < d->dir->nbucket; b++)
		for (const struct lab_dentry *c = d->dir->bucket[b]; c; c = c->next)
			lab_dt_count(c, files, dirs);
}
