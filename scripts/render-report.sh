#!/usr/bin/env bash
# Renders the HTML certification report of a run with failures and takes a screenshot of it,
# 1400 px wide, in headless Chromium (Debian's `chromium` package, installed with apt-get when it
# is missing).
#
#   scripts/render-report.sh [OUT_DIR]     (default: target/report-demo)
#
# It certifies the embedded reference with three faults on (an access defect, a data defect and
# a shape defect: the run of issue 27), writes report.html, junit.xml, result.json and the
# terminal's stdout to OUT_DIR, checks the page loads nothing from outside, and writes
# OUT_DIR/report.png. Exit 0 when the screenshot is there. `cp OUT_DIR/report.png docs/` updates
# the README's picture.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/report-demo}"
mkdir -p "$out"
if ! command -v chromium >/dev/null; then
  echo "chromium is missing: installing Debian's package" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
    || { echo "cannot install chromium (apt-get install chromium)" >&2; exit 2; }
fi

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/workspace-conformance"
status=0
"$bin" -q \
  --fault missing-auth-accepted --fault duplicate-across-pages --fault wrong-content-type \
  --seed 1 --run-id rdemo001 \
  --report "$out/report.html" --junit "$out/junit.xml" --json "$out/result.json" \
  > "$out/stdout.txt" || status=$?
if [ "$status" -ne 1 ]; then
  echo "expected a run with failures (exit 1), got exit $status" >&2
  exit 1
fi
if grep -Eq '(src|href)="https?:|<link|<script' "$out/report.html"; then
  echo "the report loads an external asset" >&2
  exit 1
fi

profile_dir="$(mktemp -d)"
trap 'rm -rf "$profile_dir"' EXIT
rm -f "$out/report.png"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile_dir" \
  --hide-scrollbars --window-size=1400,1700 \
  --screenshot="$(realpath "$out")/report.png" "file://$(realpath "$out/report.html")" \
  > "$out/chromium.log" 2>&1 || true
if [ ! -s "$out/report.png" ]; then
  echo "chromium wrote no screenshot; see $out/chromium.log" >&2
  exit 1
fi
echo "report: $out/report.html"
echo "screenshot: $out/report.png"
