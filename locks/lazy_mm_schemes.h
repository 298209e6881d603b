/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The list of lazy-mm schemes: one LAB_LAZY_SCHEME(symbol) per
 * locks/lazy_mm_<name>.c ops table, in `rwlab list` order. Adding a scheme =
 * one file + one line here + one line in locks/meson.build. No include guard
 * (X-macro list).
 */
LAB_LAZY_SCHEME(lab_lazy_mm_refcount_ops)
LAB_LAZY_SCHEME(lab_lazy_mm_shootdown_ops)
LAB_LAZY_SCHEME(lab_lazy_mm_hazptr_ops)
LAB_LAZY_SCHEME(lab_lazy_mm_hpref_ops)
LAB_LAZY_SCHEME(lab_lazy_mm_percpu_ref_ops)
LAB_LAZY_SCHEME(lab_lazy_mm_none_ops)
