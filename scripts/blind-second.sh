#!/usr/bin/env bash
# Measures the suite on a blind set written into the second implementation (crates/second) by a
# helper who read neither the suite nor the reference (docs/self-proof.md, "Blind faults").
# The clean second implementation is certified first with each seed (it must pass: a verdict on
# a fault means nothing otherwise); then each fault of the set runs once per seed, a fresh server
# with that fault on, certified as a user certifies a target: `--target URL --profile FILE`, the
# profile the server writes. A fault counts as caught in a run when the run fails (exit 1), or
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
pid=""
stop() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=""; }
trap 'stop; rm -rf "$out"' EXIT
port=18650
# Starts a fresh server with the faults given; sets $pid and $url.
start() {
  port=$((port + 1))
  rm -f "$out/profile.json"
  "$SECOND" --listen "127.0.0.1:$port" --profile-out "$out/profile.json" "$@" >"$out/server.txt" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    [ -s "$out/profile.json" ] && break
    sleep 0.05
  done
  [ -s "$out/profile.json" ] || { echo "error: the second implementation did not start: $(cat "$out/server.txt")" >&2; exit 2; }
  url="http://127.0.0.1:$port"
}
certify() {
  local code=0
  "$BIN" --target "$url" --profile "$out/profile.json" --seed "$1" --format terse --json "$out/run.json" >"$out/run.txt" 2>&1 || code=$?
  echo "$code"
}
for seed in $SEEDS; do
  start
  code=$(certify "$seed")
  stop
  if [ "$code" != 0 ]; then
    echo "error: the clean second implementation is not certified with seed $seed (exit $code):" >&2
    tail -5 "$out/run.txt" >&2
    exit 2
  fi
done
faults=$("$SECOND" --list-faults | awk -v set="b$SET-" 'index($1, set) == 1 { print $1 }')
total=0; always=0; ever=0
for fault in $faults; do
  total=$((total + 1)); hits=0; runs=0; trials=""
  for seed in $SEEDS; do
    runs=$((runs + 1))
    start --fault "$fault"
    code=$(certify "$seed")
    stop
    if [ "$code" = 1 ]; then
      hits=$((hits + 1))
      if [ -z "$trials" ]; then
        trials=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(", ".join(t["name"] for t in r["trials"] if t["verdict"]=="failed")[:300])' "$out/run.json")
      fi
    elif [ "$code" = 2 ] && grep -q "does not serve the API" "$out/run.txt"; then
      hits=$((hits + 1))
      [ -z "$trials" ] && trials="refused by the preflight (exit 2): $(grep -m1 'does not serve the API' "$out/run.txt" | cut -c1-160)"
    elif [ "$code" != 0 ]; then
      echo "error: the run with --fault $fault --seed $seed ended with exit code $code" >&2
      tail -5 "$out/run.txt" >&2
      exit 2
    fi
  done
  [ "$hits" = "$runs" ] && always=$((always + 1))
  [ "$hits" -gt 0 ] && ever=$((ever + 1))
  printf '%-45s caught %s of %s runs  %s\n' "$fault" "$hits" "$runs" "$trials"
done
echo "blind faults: $total; caught in every run: $always; caught in some run: $ever (seeds: $SEEDS)"
