/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The list of workloads: one LAB_WORKLOAD(symbol) per workloads/<name>.c, in
 * `rwlab list` order. No include guard (X-macro list).
 */
LAB_WORKLOAD(lab_workload_locktest)
LAB_WORKLOAD(lab_workload_pft)
LAB_WORKLOAD(lab_workload_context_switch)
LAB_WORKLOAD(lab_workload_tlb_flush)
LAB_WORKLOAD(lab_workload_reaim)
LAB_WORKLOAD(lab_workload_gitcheckout)
LAB_WORKLOAD(lab_workload_vmscale)
LAB_WORKLOAD(lab_workload_atomics)
LAB_WORKLOAD(lab_workload_futex_pingpong)
