#!/usr/bin/env bash
# Renders the HTML certification report of a run with failures and takes a screenshot of it in
# headless Chromium (Debian's `chromium` package: `apt-get install chromium`).
#
#   scripts/render-report.sh [OUT_DIR]     (default: target/report-demo)
#
# It certifies the embedded reference with three faults on (so the report shows failures),
# writes report.html, junit.xml and result.json to OUT_DIR, checks the page loads nothing from
# outside, and writes OUT_DIR/report.png. Exit 0 when the screenshot is there.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/report-demo}"
mkdir -p "$out"
command -v chromium >/dev/null || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 2; }

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/workspace-conformance"
status=0
"$bin" -q \
  --fault patch-merges-entries --fault task-complete-no-effect --fault unauthorized-wrong-title \
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
  --hide-scrollbars --window-size=1280,1600 \
  --screenshot="$(realpath "$out")/report.png" "file://$(realpath "$out/report.html")" \
  > "$out/chromium.log" 2>&1 || true
if [ ! -s "$out/report.png" ]; then
  echo "chromium wrote no screenshot; see $out/chromium.log" >&2
  exit 1
fi
echo "report: $out/report.html"
echo "screenshot: $out/report.png"
