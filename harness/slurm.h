/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab slurm [--matrix NAME] [options] [run options] [-- run options]`: any
 * run (a matrix, or run's own -l/-w/-t/... options, which slurm takes as its
 * own and hands to every shard) as a Slurm job array, one shard (shard.h)
 * per array task.
 *
 * The result root DIR (--dir; default rwlab-results/NAME/GIT-REVISION, NAME
 * the matrix's or run-HASH of the run options, as lkp-tests keeps a result
 * root per test, host and commit) holds DIR/rwlab.sbatch: whole nodes
 * (--exclusive, --nodes=1, optional --constraint for identical hardware),
 * one srun task per array task with every CPU of the node (--cpu-bind=none
 * where the cluster binds tasks), so hwloc sees every CPU and rwlab pins its
 * own threads. Each task writes its host's inventory (inventory.h) to
 * DIR/HOST/inventory, then runs `rwlab run [--matrix NAME] [run options]
 * --shard I/N -o DIR/HOST/shard-I.csv --resume --no-report`, logs to
 * DIR/shard-I.log and leaves its exit status in DIR/shard-I.status. The
 * array holds only the shards whose status is missing or non-zero, so
 * re-running the command resubmits just those (--resume keeps their
 * finished cells; an attempt on another host is set aside, not mixed in).
 *
 * --submit runs `sbatch --wait` on the script, printing the cells done (from
 * the shards' CSVs) of the plan's while it waits, then merges
 * DIR/HOST/shard-*.csv into DIR/merged.csv (merge.h, which compares the
 * hosts' inventories) and prints the report.
 *
 * The nodes must share DIR and the rwlab binary's path with the submitting
 * host (as a cluster's shared home does). Returns the exit status: 0 when
 * every shard finished and the merge is complete, 1 when shards failed or
 * cells are missing, 2 on bad input (nothing submitted).
 */
#pragma once
/* The command is lab_slurm_cmd (cmds.h), at the end of slurm.c. */
