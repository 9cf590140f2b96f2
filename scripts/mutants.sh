#!/usr/bin/env bash
# Machine-made mutants of the reference (issue 16). cargo-mutants changes one thing at a time in
# crates/reference/src/ (a condition negated, a value replaced, a call removed), and the certification run
# against the mutated reference is the test: tests/suite/self_test.rs `clean_reference_passes_every_case`
# runs every case of the default run against it and fails on any failed or ignored trial, so a
# mutant the suite notices is "caught". Not part of CI.
#
#   scripts/mutants.sh                  # one shard of 20 (every 20th mutant), about 30 min on 2 cores
#   SHARD=3 scripts/mutants.sh          # another sample; SHARDS=1 runs them all (many hours)
#   MUTANTS_LIST=1 scripts/mutants.sh   # only count and list the mutants of the shard
#
# Results: mutants.out/ (caught.txt, missed.txt, timeout.txt, unviable.txt, outcomes.json), and a
# summary at the end. A missed mutant either changes something the contract states (then it
# deserves a case or a fault) or only what the contract leaves open or a fault switch of the
# catalog (invisible to the contract); README "Machine-made mutants" lists how they were sorted.
set -euo pipefail

cd "$(dirname "$0")/.."
SHARDS="${SHARDS:-20}"
SHARD="${SHARD:-0}"
TIMEOUT="${TIMEOUT:-180}"

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "== installing cargo-mutants (cargo install --locked)"
    cargo install cargo-mutants --locked
fi

# The fault and variant catalogs (with the variants' reshaping middleware, reshape.rs), and the
# demanding variants' middleware (demands.rs, off in the default run), are the self-test's subject,
# not the contract's: a mutant there changes only what a fault or a variant does when switched on.
args=(
    --file 'crates/reference/src/**/*.rs'
    --exclude 'crates/reference/src/faults.rs'
    --exclude 'crates/reference/src/variants.rs'
    --exclude 'crates/reference/src/reshape.rs'
    --exclude 'crates/reference/src/demands.rs'
    --shard "$SHARD/$SHARDS"
    --sharding round-robin
    --timeout "$TIMEOUT"
    --no-shuffle
)
# IN_PLACE=1 mutates this tree and builds in its own target/ (no copy, no full baseline build):
# only in a clone nobody edits while it runs.
if [ -n "${IN_PLACE:-}" ]; then
    args+=(--in-place)
fi

if [ -n "${MUTANTS_LIST:-}" ]; then
    cargo mutants "${args[@]}" --list
    exit 0
fi

start=$(date +%s)
# `--` passes the rest to `cargo test`; after the second `--`, to the test binary.
cargo mutants "${args[@]}" -- --test suite -- self_test::clean_reference_passes_every_case || true
end=$(date +%s)

count() { if [ -f "mutants.out/$1" ]; then grep -c . "mutants.out/$1" || true; else echo 0; fi; }
caught=$(count caught.txt)
missed=$(count missed.txt)
timeout=$(count timeout.txt)
unviable=$(count unviable.txt)
tested=$((caught + missed + timeout))
echo
echo "shard $SHARD/$SHARDS in $(((end - start) / 60)) min: $caught caught, $missed missed, $timeout timed out, $unviable unviable (did not build)"
if [ "$tested" -gt 0 ]; then
    echo "caught (timeouts count as caught): $(((caught + timeout) * 100 / tested))% of $tested"
fi
if [ "$missed" -gt 0 ]; then
    echo "missed:"
    sed 's/^/  /' mutants.out/missed.txt
fi
