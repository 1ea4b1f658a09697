# Shell functions that start a farm on this machine: a real etcd cluster on loopback ports and
# npu_emulators registered in it. Sourced by scripts/farm_demo.sh and the farm tests.
# Needs NPU_EMULATOR and NNREMOTE (paths of the two binaries) and `etcd` on PATH.
# Every wait is bounded; farm_stop kills everything started here.

FARM_ETCD_PIDS=()
FARM_EMULATOR_PIDS=()
FARM_EMULATOR_ADDRESSES=()

# A loopback port nothing listens on now, below the kernel's ephemeral range: a port in that
# range may be handed to some process's outgoing connection (a busy machine's gRPC and etcd
# traffic) between this check and etcd's bind, and etcd then fails to start.
farm_free_port() {
  local port low
  low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
  [[ $low =~ ^[0-9]+$ ]] && [ "$low" -gt 12000 ] || low=32768
  for _ in $(seq 1 200); do
    port=$((10000 + RANDOM % (low - 10000)))
    if ! (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}

# farm_start_etcd DIR [MEMBERS]: an etcd cluster of MEMBERS (default 3) on loopback, its data
# and logs under DIR. Sets FARM_ETCD to its client endpoints (HOST:PORT,...). Two farms started
# at once (test shards) may still pick a port the other takes first: a member that exits (its
# bind failed) has the cluster started again on other ports, and an answer only counts while
# every member of ours runs (else it could be the other farm's etcd answering on that port).
farm_start_etcd() {
  local dir=$1 members=${2:-3} attempt
  for attempt in 1 2 3; do
    farm_try_etcd "$dir" "$members" "$attempt" && return 0
  done
  echo "farm: etcd did not come up at $FARM_ETCD (logs in $dir)" >&2
  return 1
}

# farm_all_running PID...: whether every one of them still runs.
farm_all_running() {
  local pid
  for pid in "$@"; do kill -0 "$pid" 2>/dev/null || return 1; done
}

farm_try_etcd() {
  local dir=$1 members=$2 attempt=$3 cluster="" endpoints=() peers=() started=() i pid
  for i in $(seq 1 "$members"); do
    endpoints+=("127.0.0.1:$(farm_free_port)")
    peers+=("127.0.0.1:$(farm_free_port)")
    cluster+="${cluster:+,}m$i=http://${peers[$((i - 1))]}"
  done
  for i in $(seq 1 "$members"); do
    etcd --name "m$i" --data-dir "$dir/etcd-m$i-$attempt" \
      --listen-peer-urls "http://${peers[$((i - 1))]}" --initial-advertise-peer-urls "http://${peers[$((i - 1))]}" \
      --listen-client-urls "http://${endpoints[$((i - 1))]}" --advertise-client-urls "http://${endpoints[$((i - 1))]}" \
      --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token "nnremote-$$-$attempt" \
      > "$dir/etcd-m$i-$attempt.log" 2>&1 &
    started+=($!)
  done
  FARM_ETCD=$(IFS=,; echo "${endpoints[*]}")
  for _ in $(seq 1 150); do
    farm_all_running "${started[@]}" || break
    if "$NNREMOTE" farm list --etcd="$FARM_ETCD" > /dev/null 2>&1 && farm_all_running "${started[@]}"; then
      FARM_ETCD_PIDS+=("${started[@]}")
      return 0
    fi
    sleep 0.1
  done
  { for pid in "${started[@]}"; do kill -9 "$pid"; wait "$pid"; done; } 2>/dev/null
  echo "farm: etcd attempt $attempt at $FARM_ETCD failed (a port taken meanwhile?)" >&2
  return 1
}

# farm_start_emulators DIR N POOL [FLAG...]: N npu_emulators on loopback TCP, registered in
# POOL; their logs under DIR. Appends to FARM_EMULATOR_PIDS and FARM_EMULATOR_ADDRESSES.
farm_start_emulators() {
  local dir=$1 count=$2 pool=$3 i log address
  shift 3
  for i in $(seq 1 "$count"); do
    log="$dir/emulator-${#FARM_EMULATOR_PIDS[@]}.log"
    "$NPU_EMULATOR" --listen=127.0.0.1:0 --insecure --etcd="$FARM_ETCD" --pool="$pool" "$@" > "$log" 2>&1 &
    FARM_EMULATOR_PIDS+=($!)
    address=""
    for _ in $(seq 1 600); do  # 60 s: a sanitizer build on a busy machine starts slowly
      address=$(sed -n 's/^npu_emulator listening on \([^ ]*\) with.*/\1/p' "$log" 2> /dev/null)
      [ -n "$address" ] && break
      sleep 0.1
    done
    [ -n "$address" ] || { echo "farm: an emulator did not start (see $log)" >&2; return 1; }
    FARM_EMULATOR_ADDRESSES+=("$address")
  done
}

# farm_device_listed POOL ADDRESS: whether the pool lists a device at ADDRESS.
farm_device_listed() {
  "$NNREMOTE" farm list --etcd="$FARM_ETCD" --pool="$1" 2>/dev/null | grep -q " $2 "
}

# farm_device_held POOL ADDRESS: whether a client holds the device at ADDRESS (farm list's HOLDER
# column is "-" for a free device).
farm_device_held() {
  "$NNREMOTE" farm list --etcd="$FARM_ETCD" --pool="$1" 2>/dev/null |
    awk -v address="$2" '$2 == address && $NF != "-" { held = 1 } END { exit !held }'
}

farm_stop() {
  local pid
  for pid in "${FARM_EMULATOR_PIDS[@]}" "${FARM_ETCD_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  wait 2>/dev/null
  FARM_ETCD_PIDS=() FARM_EMULATOR_PIDS=() FARM_EMULATOR_ADDRESSES=()
}
