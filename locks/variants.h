/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The list of rwsem variants: one LAB_VARIANT(symbol) per locks/<file>.c ops
 * table, in `rwlab list` order. Adding a variant = one file + one line here +
 * one line in locks/meson.build. No include guard (X-macro list).
 */
LAB_VARIANT(lab_rwsem_pthread_ops)
LAB_VARIANT(lab_rwsem_pthread_wp_ops)
LAB_VARIANT(lab_rwsem_ck_rwlock_ops)
LAB_VARIANT(lab_rwsem_ck_pflock_ops)
LAB_VARIANT(lab_rwsem_ck_tflock_ops)
LAB_VARIANT(lab_rwsem_ck_brlock_ops)
LAB_VARIANT(lab_rwsem_rwsem_xadd_ops)
LAB_VARIANT(lab_rwsem_rspin_ops)
LAB_VARIANT(lab_rwsem_mainline_ops)
LAB_VARIANT(lab_rwsem_dhandoff_ops)
LAB_VARIANT(lab_rwsem_percpu_rwsem_ops)
LAB_VARIANT(lab_rwsem_bravo_ops)
LAB_VARIANT(lab_rwsem_null_ops)
LAB_VARIANT(lab_rwsem_busted_ops)
