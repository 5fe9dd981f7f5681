#!/usr/bin/env bash
# `make test-cluster`: a sweep run as a Slurm job array on a one-node cluster started here, on
# localhost, in a temporary folder (munged, slurmctld and slurmd on non-default ports, no cgroups:
# proctrack/pgid, task/none). The merged results.csv must equal a local run's. The daemons started
# here are stopped by their pid files whatever happens (trap on EXIT).
# Usage: tests/cluster/slurm_sweep_test.sh BUILD/tools/treesim
# Needs Debian's slurm-wlm and munge: installed when missing (as root, as CI runs).
set -euo pipefail
treesim=$(readlink -f "${1:?usage: $0 BUILD/tools/treesim}")
root=$(cd "$(dirname "$0")/../.." && pwd)
timeout_s=${TREESIM_CLUSTER_TIMEOUT:-300}

need=()
for tool in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "${tool%%:*}" >/dev/null 2>&1 || need+=("${tool##*:}")
done
if ((${#need[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "test-cluster: missing ${need[*]}; install slurm-wlm and munge (apt-get install slurm-wlm munge) or run as root" >&2
    exit 1
  fi
  echo "test-cluster: installing slurm-wlm and munge"
  # munge's postinst makes its key with `su munge` unless one exists, and su fails where other users
  # cannot reach / (a chroot made in a 0700 folder). The test runs its own munged with its own key,
  # so the system one only has to exist.
  if [ ! -e /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chmod 400 /etc/munge/munge.key
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
export PATH=$PATH:/usr/sbin

tmp=$(mktemp -d /tmp/treesim-slurm.XXXXXX)
chmod 755 "$tmp"
stop() {
  local status=$?
  for name in slurmd slurmctld munged; do
    local pf="$tmp/$name.pid"
    [ -s "$pf" ] || continue
    local pid
    pid=$(cat "$pf")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$status" != 0 ]; then
    echo "test-cluster: FAILED; the daemons' logs:" >&2
    for log in "$tmp"/*.log; do [ -f "$log" ] && { echo "== $log" >&2; tail -20 "$log" >&2; }; done
  fi
  [ -n "${TREESIM_CLUSTER_KEEP:-}" ] || rm -rf "$tmp"
  exit "$status"
}
trap stop EXIT
trap 'exit 130' INT TERM

# munge with its own key, socket and pid file in the folder (no system service is touched).
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge/seed"
for _ in $(seq 50); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done

host=$(hostname -s)
node=$(slurmd -C | head -1 | sed 's/ RealMemory=[0-9]*//')  # this host as slurmd sees it
ctld_port=${TREESIM_SLURMCTLD_PORT:-26817}
slurmd_port=${TREESIM_SLURMD_PORT:-26818}
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=treesimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
PlugStackConfig=$tmp/plugstack.conf
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=treesim Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
: > "$tmp/plugstack.conf"
# slurmd loads a cgroup plugin even with proctrack/pgid and task/none; the default, autodetect,
# fails where /sys/fs/cgroup is not mounted (a chroot, some containers). cgroup/v1's init needs no
# mount, and nothing here uses cgroups.
echo "CgroupPlugin=cgroup/v1" > "$tmp/cgroup.conf"
export SLURM_CONF=$tmp/slurm.conf
slurmctld -i -f "$tmp/slurm.conf"
slurmd -f "$tmp/slurm.conf"

deadline=$(( $(date +%s) + timeout_s ))
until [ "$(sinfo -h -N -o %T 2>/dev/null | head -1)" = idle ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "test-cluster: the node never became idle: $(sinfo -N 2>&1)" >&2; exit 1; }
  sleep 0.5
done
echo "test-cluster: one-node cluster up ($host, slurmctld port $ctld_port, slurmd port $slurmd_port)"

# A small sweep: 6 points in chunks of 2, an array of 3 tasks; then the same sweep locally.
spec=$tmp/spec.yaml
cat > "$spec" <<SPEC
machine: $root/configs/mini.yaml
kernel: qgemm
options: { m: 32, n: 32, k: 64, timing-only: true }
grid:
  dram.bytes_per_cycle: [32, 64, 128]
  levels[PE].memory_bytes: [32KiB, 64KiB]
SPEC
submitted=$("$treesim" sweep "$spec" --out "$tmp/cluster" --slurm --chunk-size 2 --array-max 2 --time 5)
echo "$submitted"
job=$(sed -n 's/^sweep: submitted job \([0-9]*\).*/\1/p' <<<"$submitted")
[ -n "$job" ] || { echo "test-cluster: no job id in: $submitted" >&2; exit 1; }
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "test-cluster: job $job did not finish: $(squeue -j "$job")" >&2; exit 1; }
  sleep 0.5
done
"$treesim" sweep --collect "$tmp/cluster"
"$treesim" sweep "$spec" --out "$tmp/local" --jobs 2 2>/dev/null
if ! cmp "$tmp/cluster/results.csv" "$tmp/local/results.csv"; then
  diff "$tmp/cluster/results.csv" "$tmp/local/results.csv" >&2 || true
  echo "test-cluster: the cluster's results.csv differs from the local run's" >&2
  exit 1
fi
echo "test-cluster: passed: the job array's merged results.csv equals the local run's ($(($(wc -l < "$tmp/local/results.csv") - 1)) points)"
