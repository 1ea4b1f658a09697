#!/usr/bin/env bash
# A farm on one machine (docs/farm.md): a 3-member etcd cluster on loopback ports, npu_emulators
# registered in it, and the conformance set split into shards, each shard on a device of the
# pool it holds exclusively. Optionally kills an emulator (SIGKILL) and an etcd member mid-run:
# the run must still end with 0 failed and 0 lost. The emulator is killed once a shard holds its
# device (within 120 s past the time given), so that a shard has to carry on elsewhere: on a
# loaded machine the shards may not have claimed every device by then.
#
# usage: scripts/farm_demo.sh [--shards=8] [--emulators=4] [--cases=DIR] [--ttl=S]
#                             [--kill-emulator-after=S] [--kill-etcd-after=S]
# Prints each shard's result, the expiry time of a killed emulator's devices, and a last line
# "farm demo: N models: N passed, N failed, N unsupported, N lost in W s". Exits 1 unless
# nothing failed and nothing was lost.
# NPU_EMULATOR and NNREMOTE may name the binaries; otherwise they are built with Bazel.
set -uo pipefail
cd "$(dirname "$0")/.."

shards=8 emulators=4 ttl=5 kill_emulator_after="" kill_etcd_after=""
cases=${NNREMOTE_SHARED_DIR:-$(pwd)/../shared}/conformance
for argument in "$@"; do
  case $argument in
    --shards=*) shards=${argument#*=} ;;
    --emulators=*) emulators=${argument#*=} ;;
    --cases=*) cases=${argument#*=} ;;
    --ttl=*) ttl=${argument#*=} ;;
    --kill-emulator-after=*) kill_emulator_after=${argument#*=} ;;
    --kill-etcd-after=*) kill_etcd_after=${argument#*=} ;;
    *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
# Numbers are checked first: a shard count of 0 or "abc" ran nothing and reported every model lost.
whole_number_in() {  # NAME VALUE LOW HIGH
  [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] && return 0
  echo "farm demo: --$1=$2: must be a whole number from $3 to $4"
  exit 2
}
whole_number_in shards "$shards" 1 1000
whole_number_in emulators "$emulators" 1 64
whole_number_in ttl "$ttl" 2 60  # npu_emulator --etcd-ttl's range
[ -z "$kill_emulator_after" ] || whole_number_in kill-emulator-after "$kill_emulator_after" 0 600
[ -z "$kill_etcd_after" ] || whole_number_in kill-etcd-after "$kill_etcd_after" 0 600
[ -d "$cases" ] || { echo "farm demo: no conformance models at $cases (../shared/conformance)"; exit 2; }
command -v etcd > /dev/null || { echo "farm demo: etcd is not installed (scripts/setup.sh installs etcd-server)"; exit 2; }
if [ -z "${NPU_EMULATOR:-}" ] || [ -z "${NNREMOTE:-}" ]; then
  scripts/setup.sh > /dev/null || exit 1
  bazel build //emulator:npu_emulator //tools:nnremote || exit 1
  NPU_EMULATOR=$(bazel cquery --output=files //emulator:npu_emulator 2>/dev/null)
  NNREMOTE=$(bazel cquery --output=files //tools:nnremote 2>/dev/null)
fi
export NPU_EMULATOR NNREMOTE
source scripts/farm_lib.sh

# The models under `cases`, from the conformance set's own index (an independent count, so a
# model no shard ran shows as lost).
expected_models() {
  local index version=""
  index=$(readlink -f "$cases/index.json" 2>/dev/null || true)
  [ -f "$index" ] || index=$(readlink -f "$cases/../index.json")
  [ "$(readlink -f "$cases")" = "$(dirname "$index")" ] || version=$(basename "$cases")
  awk -v want="$version" '
    /"files": *\[/ { inFiles = 1 } /"totals"/ { inFiles = 0 }
    inFiles && /"version"/ { gsub(/[",]/, "", $2); current = $2 }
    inFiles && /"models"/ { gsub(/,/, "", $2); if (want == "" || current == want) total += $2 }
    END { print total + 0 }' "$index"
}

# Seconds since a `date +%s.%N` reading, to a tenth (awk: bc is not on every machine).
seconds_since() { awk -v since="$1" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - since }'; }

work=$(mktemp -d /tmp/nnremote-farm.XXXXXX)
trap 'farm_stop; rm -rf "$work"' EXIT
pool=demo
start=$(date +%s.%N)
farm_start_etcd "$work" 3 || exit 1
farm_start_emulators "$work" "$emulators" "$pool" --config=edge16 --etcd-ttl="$ttl" || exit 1
"$NNREMOTE" farm wait --etcd="$FARM_ETCD" --pool="$pool" --devices="$emulators" --wait=30s || exit 1
echo "farm demo: etcd at $FARM_ETCD; $emulators emulators; $shards shards of $cases"

shard_pids=()
for shard in $(seq 0 $((shards - 1))); do
  "$NNREMOTE" conform --target="etcd://$FARM_ETCD/$pool?exclusive=1" --wait=300s --cases="$cases" \
    --shard="$shard/$shards" --junit="$work/shard-$shard.xml" > "$work/shard-$shard.log" 2>&1 &
  shard_pids+=($!)
done

faults() {
  local elapsed=0 killed_emulator=0 killed_etcd=0 address=${FARM_EMULATOR_ADDRESSES[0]} killed_at
  while [ -n "$kill_emulator_after$kill_etcd_after" ] && [ "$elapsed" -lt 600 ]; do
    sleep 1; elapsed=$((elapsed + 1))
    if [ -n "$kill_emulator_after" ] && [ $killed_emulator = 0 ] && [ "$elapsed" -ge "$kill_emulator_after" ] &&
      { farm_device_held "$pool" "$address" || [ "$elapsed" -ge $((kill_emulator_after + 120)) ]; }; then
      killed_emulator=1
      "$NNREMOTE" farm list --etcd="$FARM_ETCD" --pool="$pool"
      farm_device_held "$pool" "$address" || echo "farm demo: no shard held the emulator at $address"
      kill -9 "${FARM_EMULATOR_PIDS[0]}"
      killed_at=$(date +%s.%N)
      echo "farm demo: killed the emulator at $address (SIGKILL) after ${elapsed} s"
      for _ in $(seq 1 $((ttl * 20 + 100))); do farm_device_listed "$pool" "$address" || break; sleep 0.05; done
      echo "farm demo: its devices left the pool $(seconds_since "$killed_at") s after it died (TTL $ttl s)"
    fi
    if [ -n "$kill_etcd_after" ] && [ $killed_etcd = 0 ] && [ "$elapsed" -ge "$kill_etcd_after" ]; then
      killed_etcd=1
      kill -9 "${FARM_ETCD_PIDS[0]}"
      echo "farm demo: killed etcd member 1 of 3 (SIGKILL) after ${elapsed} s"
    fi
    [ $killed_emulator = 1 ] || [ -z "$kill_emulator_after" ] || continue
    [ $killed_etcd = 1 ] || [ -z "$kill_etcd_after" ] || continue
    break
  done
}
faults &
faults_pid=$!

status=0 shard_status=()
for pid in "${shard_pids[@]}"; do
  wait "$pid" 2> /dev/null
  shard_status+=($?)
  [ "${shard_status[-1]}" -eq 0 ] || status=1
done
kill "$faults_pid" 2> /dev/null; wait "$faults_pid" 2> /dev/null
wall=$(seconds_since "$start")

passed=0 failed=0 unsupported=0
for shard in $(seq 0 $((shards - 1))); do
  log="$work/shard-$shard.log"
  grep -E '^(FAIL|LOST|Continuing) ' "$log" | head -20
  last=$(tail -n 1 "$log")
  echo "shard $shard/$shards: $last"
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ unsupported$ ]]; then
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
    unsupported=$((unsupported + BASH_REMATCH[3]))
  else
    # No summary: say how the shard ended (a signal's name for one that was killed).
    code=${shard_status[$shard]}
    if [ "$code" -gt 128 ]; then
      echo "shard $shard/$shards ended with no result: killed by SIG$(kill -l $((code - 128)))"
    else
      echo "shard $shard/$shards ended with no result: exit status $code"
    fi
    status=1
    tail -n 5 "$log"
  fi
done
expected=$(expected_models)
lost=$((expected - passed - failed - unsupported))
[ "$failed" -eq 0 ] && [ "$lost" -eq 0 ] || status=1
echo "farm demo: $expected models: $passed passed, $failed failed, $unsupported unsupported, $lost lost in $wall s"
exit $status
