#!/usr/bin/env bash
# CI for tools/staff/grade_class.py on a machine without a GPU (run by .ci/run; runs alone too):
#
#  1. makes a class from this repository (tools/staff/class_fixtures.py): the reference, the skeleton,
#     mixes of mutants and correct variants, and bad submissions (does not compile, crashes, empty,
#     no lab source, an archive with a path escaping it, a link, a 3 MiB file and a device file, two
#     submissions with one student id), over a few host-graded labs;
#  2. grades it on this machine (two worker trees, ccache) and checks what each student got;
#  3. starts Slurm on this one machine (munged, slurmctld, slurmd; a slurm.conf in a temporary
#     directory), grades the class again as a job array with grade_class.py --slurm and its gather
#     job, and checks that the roster equals the one of step 2;
#  4. opens the class report in headless Chromium: the page's script runs, its plots are drawn (SVG),
#     its numbers equal the roster.
# GPU tests are skipped here (no GPU); host tests grade.
#
# Needs root and apt-get for the packages it lacks (slurm-wlm, munge, chromium, ccache), the CUDA
# Toolkit, CMake >= 3.25 and Ninja. Settings (environment):
#   CLASS_CI_LABS   the labs (default: ch03_05_occupancy ch03_09_exposing_parallelism ch04_01_throughput_and_intensity)
#   CLASS_CI_DIR    where everything goes (default: a new directory under /tmp, removed when all passed)
#   CLASS_CI_GRES   a gres for the tasks, e.g. gpu:1 on a machine with a GPU (default: none; then a
#                   gres.conf is written with CLASS_CI_GRES_CONF's line, e.g. "Name=gpu File=/dev/nvidia0")
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
started=$(date +%s)
LABS=${CLASS_CI_LABS:-"ch03_05_occupancy ch03_09_exposing_parallelism ch04_01_throughput_and_intensity"}
GRES=${CLASS_CI_GRES:-none}
export PATH=$PATH:/usr/local/cuda/bin:/usr/sbin

need() { command -v "$1" >/dev/null 2>&1; }
missing=()
need ccache || missing+=(ccache)
need slurmctld || missing+=(slurm-wlm)
need munged || missing+=(munge)
need chromium || missing+=(chromium)
if ((${#missing[@]})); then
  need apt-get || { echo "ci_class_check: needs ${missing[*]} (apt-get is not available)" >&2; exit 1; }
  echo "::: installing ${missing[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null
fi
for tool in ccache slurmctld slurmd munged sbatch chromium cmake ninja nvcc; do
  need $tool || { echo "ci_class_check: $tool is missing" >&2; exit 1; }
done

if [[ -n ${CLASS_CI_DIR:-} ]]; then
  work=$CLASS_CI_DIR
  mkdir -p "$work"
  [[ -z $(ls -A "$work") ]] || { echo "ci_class_check: CLASS_CI_DIR=$work is not empty" >&2; exit 1; }
else
  work=$(mktemp -d /tmp/cudalab-class-ci.XXXXXX)
fi
slurm_dir=$work/slurm-daemons
started_pids=()
cleanup() {
  local rc=$? pids=() pid _
  set +e
  for pidfile in "$slurm_dir/slurmd.pid" "$slurm_dir/slurmctld.pid"; do
    [[ -f $pidfile ]] && pids+=("$(cat "$pidfile")")
  done
  pids+=("${started_pids[@]}")
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  # The daemons write their state as they stop: wait for them (up to 10 s) before removing it.
  for _ in $(seq 50); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.2
  done
  if ((rc == 0)) && [[ -z ${CLASS_CI_DIR:-} ]]; then
    rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work" 2>/dev/null; } ||
      echo "ci_class_check: could not remove all of $work (left in place)"
  else
    echo "ci_class_check: everything is kept in $work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "::: a class made from the repository: $LABS"
# shellcheck disable=SC2086
python3 tools/staff/class_fixtures.py "$work/class" --labs $LABS --mixed 2 --seed 3

echo "::: grade_class.py on this machine (2 worker trees)"
# Exit status 1 is expected: two submissions share an id (checked below).
# shellcheck disable=SC2086
python3 tools/staff/grade_class.py "$work/class" --labs $LABS --out "$work/local" -j 2 \
  --ccache-dir "$work/ccache" || [[ $? -eq 1 ]]

echo "::: what each student got"
python3 - "$work" $LABS <<'PY'
import csv, json, sys
from pathlib import Path
work, labs = Path(sys.argv[1]), sys.argv[2:]
expected = json.loads((work / "class" / ".expected.json").read_text())
roster = {(r["student"], r["lab"]): float(r["points"]) for r in csv.DictReader((work / "local" / "roster.csv").open())}
problems = {r["student"]: r["problem"] for r in csv.DictReader((work / "local" / "problems.csv").open())}
bad = []
def want(ok, what):
    if not ok:
        bad.append(what)
ref = {lab: roster[("reference", lab)] for lab in labs}
first = labs[0]
for lab in labs:
    want(ref[lab] > 0, f"the reference scores 0 in {lab} (host tests should pass)")
    want(roster[("skeleton", lab)] < ref[lab], f"the skeleton scores as much as the reference in {lab}")
    for student, what in expected.items():
        if (student, lab) in roster:
            want(roster[(student, lab)] <= ref[lab], f"{student} scores more than the reference in {lab}")
        kind = what.get(lab, "")
        if kind.startswith(("reference", "correct variant")) and not (student == "strange" and lab != first):
            want(roster.get((student, lab)) == ref[lab], f"{student} ({kind}) got {roster.get((student, lab))} in {lab}, "
                                                          f"the reference {ref[lab]}")
for student in ("broken", "crash"):
    want(roster[(student, first)] == 0, f"{student} scores {roster[(student, first)]} in {first}")
summary = json.loads((work / "local" / "students" / "broken" / "summary.json").read_text())
want(any(t["status"] == "not built" and "did not build" in t["reason"] for t in summary["tests"]),
     "broken: no test says 'not built' with the compiler's error")
report = (work / "local" / "students" / "strange" / "report.txt").read_text()
for refused in ("path escapes the submission", "not a regular file", "not a file you edit"):
    want(refused in report, f"strange: report.txt does not list a file refused as {refused!r}")
want(roster[("strange", first)] == ref[first], "strange: its one good source was not graded")
want("the submission is empty" in problems.get("empty", ""), "empty: not reported")
want("no file of the submission is a lab's source file" in problems.get("junk", ""), "junk: not reported")
want("share the student id" in problems.get("twin", ""), "twin: the duplicate id is not reported")
want(not any(s == "twin" for s, _ in roster), "twin: in the roster")
want(not any(p.startswith(("could not", "not graded yet")) for p in problems.values()),
     "submissions without a grade: " + "; ".join(p for p in problems.values() if p.startswith(("could not", "not graded yet"))))
for b in bad:
    print("ci_class_check:", b, file=sys.stderr)
print(f"  {len({s for s, _ in roster})} students in the roster, {len(problems)} problems, as expected" if not bad else "")
sys.exit(1 if bad else 0)
PY

echo "::: Slurm on this machine: munged, slurmctld, slurmd"
mkdir -p "$slurm_dir/state" "$slurm_dir/spool"
host=$(hostname -s)
if ! munge -n >/dev/null 2>&1; then
  [[ -s /etc/munge/munge.key ]] || (umask 077; dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null;
                                    chown munge:munge /etc/munge/munge.key 2>/dev/null || true)
  mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
  if id munge >/dev/null 2>&1; then
    su -s /bin/sh munge -c /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
  else
    /usr/sbin/munged --force
  fi
  sleep 1
  [[ -f /run/munge/munged.pid ]] && started_pids+=("$(cat /run/munge/munged.pid)")
fi
munge -n | unmunge >/dev/null || { echo "ci_class_check: munged does not answer" >&2; exit 1; }
gres_line=""
gres_types=""
if [[ $GRES != none ]]; then
  gres_line="Gres=$GRES"
  gres_types="GresTypes=${GRES%%:*}"
  echo "${CLASS_CI_GRES_CONF:-Name=gpu File=/dev/nvidia0}" > "$slurm_dir/gres.conf"
fi
port=$((16000 + RANDOM % 2000))
cat > "$slurm_dir/slurm.conf" <<EOF
ClusterName=cudalabsci
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/slurmctld.log
SlurmdLogFile=$slurm_dir/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
$gres_types
NodeName=$host CPUs=$(nproc) State=UNKNOWN $gres_line
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$slurm_dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 30); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o "%P %a %D %T" | grep -q idle || { echo "ci_class_check: the Slurm node did not come up" >&2;
                                                tail -20 "$slurm_dir"/*.log >&2; exit 1; }
sinfo

echo "::: grade_class.py --slurm: a job array (4 submissions per task) and the gather job"
# shellcheck disable=SC2086
python3 tools/staff/grade_class.py "$work/class" --labs $LABS --out "$work/slurm" --slurm --partition ci \
  --gres "$GRES" --chunk 4 --cpus-per-task "$(nproc)" --mem "" --time 1:00:00 --ccache-dir "$work/ccache" \
  --setup "export PATH=\$PATH:/usr/local/cuda/bin" --wait || [[ $? -eq 1 ]]
tasks=$(ls "$work/slurm/slurm/logs" | grep -c '^task-' || true)
echo "  $tasks array tasks ran; their logs: $work/slurm/slurm/logs"

echo "::: the Slurm roster equals the one graded on this machine"
for f in roster.csv grades.csv; do
  [[ -s $work/slurm/$f ]] || { echo "ci_class_check: the gather job wrote no $f" >&2; cat "$work"/slurm/slurm/logs/* >&2; exit 1; }
  if ! diff -u "$work/local/$f" "$work/slurm/$f"; then
    echo "ci_class_check: $f of the Slurm run differs from the one of this machine" >&2
    exit 1
  fi
done
echo "  $(($(wc -l < "$work/slurm/roster.csv") - 1)) roster rows, equal"

echo "::: the class report in headless Chromium"
page=$work/slurm/class-report.html
chrome=(chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/chromium")
timeout 120 "${chrome[@]}" --dump-dom "file://$page" > "$work/report-dom.html" 2>"$work/chromium.log" || {
  echo "ci_class_check: chromium could not open $page" >&2; tail -5 "$work/chromium.log" >&2; exit 1; }
timeout 120 "${chrome[@]}" --window-size=1280,2000 --screenshot="$work/report.png" "file://$page" \
  >/dev/null 2>>"$work/chromium.log" || true
python3 - "$work/report-dom.html" "$work/slurm/roster.csv" <<'PY'
import sys
sys.path.insert(0, "tools/staff")
import grade_class
from pathlib import Path
dom = Path(sys.argv[1]).read_text()
problems = grade_class.check_report_dom(dom, Path(sys.argv[2]))
for p in problems:
    print("ci_class_check: class report:", p, file=sys.stderr)
if not problems:
    print(f"  drawn: {dom.count('<svg')} SVG plots, {dom.count('<rect')} bars, every student's points as in the roster")
sys.exit(1 if problems else 0)
PY
[[ -s $work/report.png ]] && echo "  screenshot: $work/report.png"
echo "::: class check passed in $(( $(date +%s) - started )) s"
