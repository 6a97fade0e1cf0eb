#!/usr/bin/env bash
# The one install step for the Debian packages the tests need, used by
# `make test` (make deps), `make slurm-test` and .ci/run:
#   deploy/install-packages.sh SET…      SET: java | prometheus | slurm
#     java        openjdk-17-jdk-headless maven  (the live job jar, Flink and Kafka)
#     prometheus  prometheus prometheus-node-exporter  (live up --prometheus)
#     slurm       slurm-wlm munge  (make slurm-test)
# A set whose commands are all on the PATH is left alone, so on a machine
# that has everything this does nothing and needs no root. Otherwise it
# installs with apt-get as root (or through sudo); without either it exits 1
# naming the packages to install. The packages' system services are kept
# from starting while installing (a policy-rc.d, the Debian way): the tests
# run these programs as their own processes, on their own ports and
# configuration, and a service would hold those ports or outlive the test.
set -euo pipefail

declare -A packages=(
	[java]="openjdk-17-jdk-headless maven"
	[prometheus]="prometheus prometheus-node-exporter"
	[slurm]="slurm-wlm munge"
)
declare -A services=(
	[java]=""
	[prometheus]="prometheus prometheus-node-exporter"
	[slurm]="munge slurmctld slurmd"
)
declare -A commands=(
	[java]="java mvn"
	[prometheus]="prometheus prometheus-node-exporter"
	[slurm]="slurmctld slurmd sbatch munged mungekey"
)

(($# > 0)) || { echo "usage: $0 java|prometheus|slurm …" >&2; exit 2; }
missing=()
sets=()
for set in "$@"; do
	[[ -n ${packages[$set]:-} ]] || { echo "$0: unknown set '$set' (java, prometheus, slurm)" >&2; exit 2; }
	for c in ${commands[$set]}; do
		if ! command -v "$c" >/dev/null; then
			missing+=(${packages[$set]})
			sets+=("$set")
			break
		fi
	done
done
((${#missing[@]} > 0)) || exit 0

if [[ $EUID -eq 0 ]]; then
	as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
	as_root=(sudo)
else
	echo "The tests need Debian packages that are not installed: ${missing[*]}" >&2
	echo "Install them as root:  apt-get install --no-install-recommends ${missing[*]}" >&2
	exit 1
fi

echo "installing ${missing[*]} (apt-get)"
policy=
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
	printf '#!/bin/sh\n# added by streamtwin deploy/install-packages.sh while installing\nexit 101\n' |
		"${as_root[@]}" tee /usr/sbin/policy-rc.d >/dev/null
	"${as_root[@]}" chmod 755 /usr/sbin/policy-rc.d
	policy=/usr/sbin/policy-rc.d
fi
rc=0
log=$(mktemp)
{ "${as_root[@]}" apt-get update -q &&
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=300 "${missing[@]}"; } >"$log" 2>&1 || rc=$?
[[ -z $policy ]] || "${as_root[@]}" rm -f "$policy"
if ((rc != 0)); then
	tail -n 20 "$log" >&2
	rm -f "$log"
	echo "$0: apt-get install ${missing[*]} failed" >&2
	exit 1
fi
rm -f "$log"
# On a machine with systemd, a service that started anyway (policy-rc.d is
# not consulted by every init) is stopped and disabled: it is ours.
for set in "${sets[@]}"; do
	for svc in ${services[$set]}; do
		if command -v systemctl >/dev/null && systemctl is-active --quiet "$svc" 2>/dev/null; then
			"${as_root[@]}" systemctl disable --now "$svc" || true
		fi
	done
done
echo "installed ${missing[*]}"
