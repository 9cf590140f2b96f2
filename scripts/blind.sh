#!/usr/bin/env bash
# Measures the suite on the blind faults: faults of the reference written from the contract, the
# readings and the reference alone, by someone who never read the suite's cases or checks
# (docs/self-proof.md, "Blind faults"). Each fault of a blind set runs once per seed against the
# embedded reference; a fault counts as caught in a run when the run fails (exit 1), or when the
# preflight refuses the target as one that does not serve the API (exit 2, said so in the line).
#
#   scripts/blind.sh            # every blind fault, seeds 1 and 2
#   SET=1 SEEDS="1 2 3" scripts/blind.sh
#   BIN=target/debug/workspace-conformance scripts/blind.sh   # a binary already built
#
# Prints one line per fault (caught in how many of the runs, the failed trials of the first run
# that caught it) and the totals; honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-"1 2"}
SET=${SET:-}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin workspace-conformance
  BIN="$TARGET_DIR/release/workspace-conformance"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
faults=$("$BIN" serve --list-faults | awk -v set="${SET:-[0-9]+}" '$0 ~ "\\(blind set " set "[,)]" { print $1 }')
total=0; always=0; ever=0
for fault in $faults; do
  total=$((total + 1)); hits=0; runs=0; trials=""
  for seed in $SEEDS; do
    runs=$((runs + 1))
    code=0
    "$BIN" --fault "$fault" --seed "$seed" --format terse --json "$out/run.json" >"$out/run.txt" 2>&1 || code=$?
    if [ "$code" = 1 ]; then
      hits=$((hits + 1))
      if [ -z "$trials" ]; then
        trials=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(", ".join(t["name"] for t in r["trials"] if t["verdict"]=="failed")[:300])' "$out/run.json")
      fi
    elif [ "$code" = 2 ] && grep -q "does not serve the API" "$out/run.txt"; then
      # Refused before any trial: the target fails a read every conforming target answers
      # (the preflight), and the run certifies nothing.
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
