# SPDX-License-Identifier: GPL-2.0-only
# A throwaway one-node Slurm cluster for tests (sourced): Debian's munge,
# slurmctld and slurmd, all as root, in a private directory with its own
# munge key and socket and its own ports, proctrack/linuxproc and no cgroup
# plugins, so it needs nothing from the host's configuration and two runs
# cannot collide.
#
#   slurm_up DIR   start it; exports SLURM_CONF. Returns 0, or 1 with the
#                  reason in $slurm_why (one line).
#   slurm_down DIR stop the daemons it started and remove DIR.

# Two consecutive free TCP ports from 17000..26998 (slurmctld, slurmd).
slurm_free_ports() {
	local used p tries=0
	used=$(ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' | sort -u)
	while [ $tries -lt 200 ]; do
		p=$((17000 + (RANDOM % 5000) * 2))
		if ! printf '%s\n' "$used" | grep -qx -e "$p" -e "$((p + 1))"; then
			echo "$p"
			return 0
		fi
		tries=$((tries + 1))
	done
	return 1
}

slurm_up() {
	local d=$1 host ncpu mem port
	slurm_why=
	for c in munged slurmctld slurmd sbatch sinfo srun; do
		command -v "$c" >/dev/null || {
			slurm_why="$c is not installed (apt-get install munge slurmctld slurmd slurm-client)"
			return 1
		}
	done
	[ "$(id -u)" = 0 ] || { slurm_why="slurmd must run as root to start jobs (uid $(id -u))"; return 1; }
	port=$(slurm_free_ports) || { slurm_why="no two free TCP ports in 17000..27000"; return 1; }
	mkdir -p "$d"/munge "$d"/state "$d"/spool "$d"/log
	chmod 700 "$d"/munge
	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$d/munge/munge.key"
	munged --key-file="$d/munge/munge.key" --socket="$d/munge/sock" --pid-file="$d/munge/pid" \
		--log-file="$d/log/munged.log" --seed-file="$d/munge/seed" --force 2>"$d/log/munged.err" || {
		slurm_why="munged did not start: $(tail -n 1 "$d/log/munged.err" "$d/log/munged.log" 2>/dev/null | grep . | tail -n 1)"
		return 1
	}
	host=$(hostname -s)
	ncpu=$(nproc --all)
	mem=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024 / 2))
	cat >"$d/slurm.conf" <<CONF
ClusterName=rwlabtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$ncpu RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
CONF
	export SLURM_CONF="$d/slurm.conf"
	slurmctld -c -f "$SLURM_CONF" 2>>"$d/log/slurmctld.err" || {
		slurm_why="slurmctld did not start: $(tail -n 1 "$d/log/slurmctld.log" 2>/dev/null)"
		return 1
	}
	slurmd -f "$SLURM_CONF" 2>>"$d/log/slurmd.err" || {
		slurm_why="slurmd did not start: $(tail -n 1 "$d/log/slurmd.log" 2>/dev/null)"
		return 1
	}
	for _ in $(seq 1 30); do
		sinfo -h -o %T 2>/dev/null | grep -qx idle && return 0
		sleep 1
	done
	slurm_why="the node did not become idle in 30 s: $(tail -n 1 "$d/log/slurmctld.log" 2>/dev/null)"
	return 1
}

slurm_down() {
	local d=$1 pid
	for f in slurmd.pid slurmctld.pid munge/pid; do
		[ -f "$d/$f" ] && pid=$(cat "$d/$f") && kill "$pid" 2>/dev/null
	done
	for _ in $(seq 1 20); do
		alive=0
		for f in slurmd.pid slurmctld.pid munge/pid; do
			[ -f "$d/$f" ] && kill -0 "$(cat "$d/$f")" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && break
		sleep 0.25
	done
	rm -rf "$d"
}
