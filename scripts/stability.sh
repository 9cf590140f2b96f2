#!/usr/bin/env bash
# Are defects stable? For each set of three faults, one reference with the faults on is certified
# five times (each run with its own seed and run id) and once in three merged parts; every
# result must list the same defects: fingerprints, titles and clause order.
#
#   scripts/stability.sh                 # the five sets below, with target/release's binary
#   BIN=target/debug/workspace-conformance scripts/stability.sh
#   SETS="fault-a,fault-b,fault-c" scripts/stability.sh   # sets of your own, space-separated
#
# Prints one line per set and exits 1 when a set's results differ. Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${BIN:-target/release/workspace-conformance}"
[ -x "$BIN" ] || { echo "error: $BIN is missing (cargo build --release, or give BIN=)" >&2; exit 2; }
SETS="${SETS:-missing-auth-accepted,duplicate-across-pages,wrong-content-type webhook-unsigned,call-id-prefix-ca,create-contact-no-envelope task-complete-no-effect,task-unassign-keeps-user,task-list-drops-newest to-e164-first-only,renamed-text-dropped,created-after-ignored external-id-76-accepted,webhook-create-drops-label,in-filter-ignored}"
work="$(mktemp -d)"
# KEEP=1 keeps the results (the directory is printed).
trap 'kill $(jobs -p) 2>/dev/null || true; if [ -n "${KEEP:-}" ]; then echo "results in $work" >&2; else rm -rf "$work"; fi' EXIT
status=0
n=0
for set in $SETS; do
  n=$((n + 1))
  dir="$work/set$n"
  mkdir -p "$dir"
  faults=()
  for f in ${set//,/ }; do faults+=(--fault "$f"); done
  # A free port; the reference says which.
  "$BIN" serve --listen "127.0.0.1:0" "${faults[@]}" --profile-out "$dir/profile.json" >"$dir/serve.log" 2>&1 &
  pid=$!
  url=""
  for _ in $(seq 1 100); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$dir/serve.log" | head -1 || true)"
    [ -n "$url" ] && [ -s "$dir/profile.json" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "error: serve did not start for $set" >&2; cat "$dir/serve.log" >&2; exit 2; }
  certify() { env -u WORKSPACE_API_KEY "$BIN" --target "$url" --profile "$dir/profile.json" -q "$@" >/dev/null 2>&1 || true; }
  for i in 1 2 3 4 5; do
    certify --json "$dir/run-$i.json" --seed $((1000 + i * 7919)) --run-id "st${i}ab${i}cd"
  done
  for k in 1 2 3; do certify --json "$dir/part-$k.json" --partition "$k/3"; done
  "$BIN" merge --json "$dir/merged.json" "$dir"/part-{1,2,3}.json >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if ! python3 - "$set" "$dir" <<'EOF'
import json, sys
name, d = sys.argv[1], sys.argv[2]
files = [f"{d}/run-{i}.json" for i in range(1, 6)] + [f"{d}/merged.json"]
ids = []
for f in files:
    r = json.load(open(f))
    ids.append([(x["fingerprint"], x["title"], x["clauses"]) for x in r["defects"]])
same = all(i == ids[0] for i in ids)
counts = [len(i) for i in ids]
if not same:
    for f, i in zip(files, ids):
        print(f"  {f.rsplit('/', 1)[1]}: " + "; ".join(f"{x[0]} {x[1][:90]}" for x in i))
print(f"{'same' if same else 'DIFFER'}: {name}: {counts[0]} defects in 5 runs and the merge "
      f"({', '.join(x[0] for x in ids[0])})" + ("" if same else f"; counts {counts}"))
sys.exit(0 if same else 1)
EOF
  then status=1; fi
done
exit $status
