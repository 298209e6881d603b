/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The directory-tree model (workloads/dirtree.c): lookups, create/unlink/
 * rmdir/link/rename semantics and errors, readdir, and concurrent creators
 * and lookups in one directory keeping every entry.
 */
#include <errno.h>
#include <pthread.h>

#include "common.h"
#include "dirtree.h"

static struct lab_rwsem_conf conf;
static int released;

static void release(void *data)
{
	(void)data;
	released++;
}

static void tree(struct lab_dirtree *t, const char *variant)
{
	char err[256];

	cr_assert_eq(lab_rwsem_parse(variant, &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_dirtree_init(t, &conf, release), 0);
}

Test(dirtree, operations)
{
	struct lab_dirtree t;
	struct lab_dentry *d, *f, *e;
	uint64_t files = 0, dirs = 0;

	tree(&t, "pthread");
	cr_assert_eq(lab_dt_mkdir_parents(&t, "a/b/c.txt", 9, &d), 0);
	cr_expect_str_eq(d->name, "b");
	cr_assert_eq(lab_dt_create(&t, d, "c.txt", 5, false, 0100644, &f), 0);
	f->data = &files;
	cr_expect_eq(lab_dt_create(&t, d, "c.txt", 5, false, 0100644, &e), -EEXIST);
	cr_expect_eq(e, f, "EEXIST must hand back the existing entry");
	cr_expect_eq(lab_dt_lookup(&t, NULL, "a/b/c.txt", 9), f);
	cr_expect_null(lab_dt_lookup(&t, NULL, "a/b/c.txt/x", 11), "a file in the middle of a path");
	cr_expect_null(lab_dt_lookup(&t, NULL, "a/x", 3));
	cr_expect_eq(lab_dt_rmdir(&t, lab_dt_lookup(&t, NULL, "a", 1), "b", 1), -ENOTEMPTY);
	cr_expect_eq(lab_dt_unlink(&t, t.root, "a", 1), -EISDIR);
	cr_expect_eq(lab_dt_link(&t, d, "c.txt", "hard"), 0);
	cr_expect_eq(lab_dt_readdir(&t, d, NULL, NULL), 2u);
	cr_expect_eq(lab_dt_rename(&t, d, "hard", "c.txt"), 0, "rename over an existing name");
	cr_expect_eq(released, 1, "the replaced file's data was not released");
	cr_expect_eq(lab_dt_readdir(&t, d, NULL, NULL), 1u);
	cr_expect_eq(lab_dt_unlink(&t, d, "c.txt", 5), 0);
	cr_expect_eq(lab_dt_unlink(&t, d, "c.txt", 5), -ENOENT);
	cr_expect_eq(lab_dt_rmdir(&t, lab_dt_lookup(&t, NULL, "a", 1), "b", 1), 0);
	lab_dt_count(&t, t.root, &files, &dirs);
	cr_expect(files == 0 && dirs == 2, "left: %lu files, %lu dirs", files, dirs);
	lab_dirtree_destroy(&t);
}

struct creator {
	struct lab_dirtree *t;
	int id, bad;
};

static void *creator_main(void *arg)
{
	struct creator *c = arg;
	char path[64];

	for (int i = 0; i < 2000; i++) {
		int n = snprintf(path, sizeof(path), "shared/d%d/f%d.%d", i % 7, c->id, i);
		struct lab_dentry *dir;

		if (lab_dt_mkdir_parents(c->t, path, (size_t)n, &dir) ||
		    lab_dt_create(c->t, dir, strrchr(path, '/') + 1, strlen(strrchr(path, '/') + 1), false, 0100644,
				  NULL))
			c->bad++;
		if (!lab_dt_lookup(c->t, NULL, path, (size_t)n))
			c->bad++;
	}
	return NULL;
}

Test(dirtree, concurrent_creators, .timeout = 60)
{
	struct lab_dirtree t;
	struct creator c[3];
	pthread_t tid[3];
	uint64_t files = 0, dirs = 0;

	tree(&t, "pthread-wp");
	for (int i = 0; i < 3; i++) {
		c[i] = (struct creator){ &t, i, 0 };
		cr_assert_eq(pthread_create(&tid[i], NULL, creator_main, &c[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(tid[i], NULL);
		cr_expect_eq(c[i].bad, 0, "creator %d: %d failures", i, c[i].bad);
	}
	lab_dt_count(&t, t.root, &files, &dirs);
	cr_expect_eq(files, 6000u, "entries lost by concurrent creates: %lu", files);
	cr_expect_eq(dirs, 9u, "root, shared and d0..d6: %lu", dirs);
	lab_dirtree_destroy(&t);
}
