#!/usr/bin/env bash
# Measures the suite on a blind set written into the second implementation (crates/second) by a
# helper who read neither the suite nor the reference (docs/self-proof.md, "Blind faults").
# The clean second implementation is certified first with each seed (it must pass: a verdict on
# a fault means nothing otherwise); then each fault of the set runs once per seed (the seeds side
# by side), a fresh server with that fault on, certified as a user certifies a target:
# `--target URL --profile FILE`, the profile the server writes. A fault counts as caught in a run when the run fails (exit 1), or
# when the preflight refuses the target as one that does not serve the API (exit 2, said so).
#
#   SET=16 SEEDS="1 2 3" scripts/blind-second.sh
#   BIN=... SECOND=... scripts/blind-second.sh      # binaries already built
#
# Prints one line per fault and the totals; honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-"1 2 3"}
SET=${SET:-16}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${BIN:-}" ] || [ -z "${SECOND:-}" ]; then
  cargo build --release --quiet --bin workspace-conformance --bin second-implementation
  BIN=${BIN:-"$TARGET_DIR/release/workspace-conformance"}
  SECOND=${SECOND:-"$TARGET_DIR/release/second-implementation"}
fi
out=$(mktemp -d)
pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; pids=(); }
trap 'stop_all; rm -rf "$out"' EXIT
port=19100
# Certifies a fresh server (faults as further arguments) with seed $2 in the folder $1: its exit
# code in $1/code. The seeds of one fault run side by side, each against a server of its own
# (a run waits on deliveries much of its time).
one() {
  local dir=$1 seed=$2; shift 2
  mkdir -p "$dir"; rm -f "$dir/profile.json" "$dir/code"
  "$SECOND" --listen "127.0.0.1:$PORT" --profile-out "$dir/profile.json" "$@" >"$dir/server.txt" 2>&1 &
  local server=$!
  for _ in $(seq 1 200); do [ -s "$dir/profile.json" ] && break; sleep 0.05; done
  local code=0
  if [ -s "$dir/profile.json" ]; then
    "$BIN" --target "http://127.0.0.1:$PORT" --profile "$dir/profile.json" --seed "$seed" --format terse --json "$dir/run.json" >"$dir/run.txt" 2>&1 || code=$?
  else
    echo "the second implementation did not start: $(cat "$dir/server.txt")" >"$dir/run.txt"; code=3
  fi
  kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true
  echo "$code" >"$dir/code"
}
# Runs every seed at once for the faults given; the folders are $out/s<seed>.
each_seed() {
  pids=()
  for seed in $SEEDS; do
    port=$((port + 1))
    PORT=$port one "$out/s$seed" "$seed" "$@" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  pids=()
}
each_seed
for seed in $SEEDS; do
  code=$(cat "$out/s$seed/code")
  if [ "$code" != 0 ]; then
    echo "error: the clean second implementation is not certified with seed $seed (exit $code):" >&2
    tail -5 "$out/s$seed/run.txt" >&2
    exit 2
  fi
done
faults=$("$SECOND" --list-faults | awk -v set="b$SET-" 'index($1, set) == 1 { print $1 }')
total=0; always=0; ever=0
for fault in $faults; do
  total=$((total + 1)); hits=0; runs=0; trials=""
  each_seed --fault "$fault"
  for seed in $SEEDS; do
    runs=$((runs + 1))
    dir="$out/s$seed"
    code=$(cat "$dir/code")
    if [ "$code" = 1 ]; then
      hits=$((hits + 1))
      if [ -z "$trials" ]; then
        trials=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(", ".join(t["name"] for t in r["trials"] if t["verdict"]=="failed")[:300])' "$dir/run.json")
      fi
    elif [ "$code" = 2 ] && grep -q "does not serve the API" "$dir/run.txt"; then
      hits=$((hits + 1))
      [ -z "$trials" ] && trials="refused by the preflight (exit 2): $(grep -m1 'does not serve the API' "$dir/run.txt" | cut -c1-160)"
    elif [ "$code" != 0 ]; then
      echo "error: the run with --fault $fault --seed $seed ended with exit code $code" >&2
      tail -5 "$dir/run.txt" >&2
      exit 2
    fi
  done
  [ "$hits" = "$runs" ] && always=$((always + 1))
  [ "$hits" -gt 0 ] && ever=$((ever + 1))
  printf '%-45s caught %s of %s runs  %s\n' "$fault" "$hits" "$runs" "$trials"
done
echo "blind faults: $total; caught in every run: $always; caught in some run: $ever (seeds: $SEEDS)"
