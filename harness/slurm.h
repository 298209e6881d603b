/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `rwlab slurm --matrix NAME [options] [-- run options]`: a matrix as a Slurm
 * job array, one shard (shard.h) per array task.
 *
 * Writes DIR/rwlab.sbatch (DIR: --dir, default ./rwlab-slurm-NAME): whole
 * nodes (--exclusive, --nodes=1, optional --constraint for identical
 * hardware), one srun task per array task with every CPU of the node and
 * --cpu-bind=none, so hwloc sees every CPU and rwlab pins its own threads;
 * each task runs `rwlab run --matrix NAME [run options] --shard I/N -o
 * DIR/shard-I.csv --resume --no-report`, logs to DIR/shard-I.log and leaves
 * its exit status in DIR/shard-I.status. The array holds only the shards
 * whose status is missing or non-zero, so re-running the command resubmits
 * just those (and --resume keeps their finished cells).
 *
 * --submit runs `sbatch --wait` on the script, then merges DIR/shard-*.csv
 * into DIR/merged.csv (merge.h) and prints the matrix's report.
 *
 * The nodes must share DIR and the rwlab binary's path with the submitting
 * host (as a cluster's shared home does). Returns the exit status: 0 when
 * every shard finished and the merge is complete, 1 when shards failed or
 * cells are missing, 2 on bad input (nothing submitted).
 */
#pragma once
/* The command is lab_slurm_cmd (cmds.h), at the end of slurm.c. */
