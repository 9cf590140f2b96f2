#!/usr/bin/env bash
# The benchmark: builds the release binary, times the default run (trials, requests, wall time,
# requests/s, peak memory), then measures on the same machine, in the same run, the request rate
# of wrk (the ceiling) and of the suite's own HTTP client against one GET endpoint of the
# reference, and prints the ratios and the targets.
#
#   scripts/bench.sh            # honours CARGO_TARGET_DIR; RUNS=3 DURATION=3 CONNECTIONS=8
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-3}"
DURATION="${DURATION:-3}"
CONNECTIONS="${CONNECTIONS:-8}"
ENDPOINT="${ENDPOINT:-/webhooks/{webhook_id\}}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
BIN="$TARGET_DIR/release/workspace-conformance"
RATE="$TARGET_DIR/release/examples/client_rate"
TMP="$(mktemp -d)"
SERVE_PID=""
cleanup() {
    if [ -n "$SERVE_PID" ]; then kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT

echo "== building the release binary"
cargo build --release --quiet --bin workspace-conformance --example client_rate

if ! command -v wrk >/dev/null; then
    echo "== installing wrk (Debian package)"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y wrk >/dev/null || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y wrk >/dev/null; }
fi

echo "== default run (embedded reference, every trial), $RUNS times"
best=""
for i in $(seq "$RUNS"); do
    set +e
    /usr/bin/time -f "%e %M" -o "$TMP/time" "$BIN" -q >"$TMP/run.out" 2>"$TMP/run.err"
    code=$?
    set -e
    if [ "$code" -ne 0 ]; then
        echo "the default run exited with $code:"; tail -20 "$TMP/run.out" "$TMP/run.err"; exit 1
    fi
    read -r wall peak_kb <"$TMP/time"
    summary=$(grep '^test result:' "$TMP/run.out")
    trials=$(echo "$summary" | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/' | awk '{print $1+$2+$3}')
    requests=$(grep '^requests:' "$TMP/run.out" | sed -E 's/requests: ([0-9]+) sent in ([0-9.]+) s \(([0-9]+) requests\/s\)/\1 \2 \3/')
    read -r nreq insecs rps <<<"$requests"
    printf '  run %d: %s trials, %s requests, wall %s s (trials %s s), %s requests/s, peak %s MB\n' \
        "$i" "$trials" "$nreq" "$wall" "$insecs" "$rps" "$((peak_kb / 1024))"
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then
        best="$wall"; b_trials="$trials"; b_req="$nreq"; b_in="$insecs"; b_rps="$rps"; b_peak="$peak_kb"
    fi
done

echo "== the reference standalone, one GET endpoint"
"$BIN" serve --listen 127.0.0.1:0 --profile-out "$TMP/profile.json" >"$TMP/serve.out" &
SERVE_PID=$!
for _ in $(seq 100); do [ -s "$TMP/serve.out" ] && break; sleep 0.05; done
URL=$(head -1 "$TMP/serve.out" | awk '{print $NF}')
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apiKey"])' "$TMP/profile.json")
WEBHOOK=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fixtures"]["webhook_id"])' "$TMP/profile.json")
PATH_ONLY="${ENDPOINT//\{webhook_id\}/$WEBHOOK}"
HEADERS=(-H "Authorization: $KEY")
case "$PATH_ONLY" in /v1/*) ;; *) HEADERS+=(-H "Service-Api-Version: 2026-03-30") ;; esac
echo "  GET $URL$PATH_ONLY, $CONNECTIONS connections, $DURATION s each"

# The machine is shared: alternate wrk and the client, and keep the best of each.
wrk_rps=0; client_rps=0
for i in $(seq "$RUNS"); do
    wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" "${HEADERS[@]}" "$URL$PATH_ONLY" >"$TMP/wrk.out"
    if grep -q 'Non-2xx' "$TMP/wrk.out"; then echo "wrk got errors:"; cat "$TMP/wrk.out"; exit 1; fi
    w=$(awk '/^Requests\/sec:/{printf "%.0f", $2}' "$TMP/wrk.out")
    "$RATE" "$URL" "$TMP/profile.json" "$PATH_ONLY" "$CONNECTIONS" "$DURATION" >"$TMP/rate.out"
    c=$(sed -E 's/.*\(([0-9]+) requests\/s\).*/\1/' "$TMP/rate.out")
    failed=$(sed -E 's/.*, ([0-9]+) failed/\1/' "$TMP/rate.out")
    if [ "$failed" != "0" ]; then echo "the client got errors: $(cat "$TMP/rate.out")"; exit 1; fi
    echo "  round $i: wrk $w requests/s, suite client $c requests/s"
    [ "$w" -gt "$wrk_rps" ] && wrk_rps=$w
    [ "$c" -gt "$client_rps" ] && client_rps=$c
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.0f%%", 100*a/b}'; }
verdict() { if awk "BEGIN{exit !($1)}"; then echo met; else echo MISSED; fi; }
echo
echo "== figures (best of $RUNS default runs by wall time; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  default run:   %s trials, %s requests, wall %s s, %s requests/s (over the %s s of the trials), peak memory %s MB\n' \
    "$b_trials" "$b_req" "$best" "$b_rps" "$b_in" "$((b_peak / 1024))"
printf '  wrk:           %s requests/s on GET %s (the ceiling; best of %s rounds)\n' "$wrk_rps" "$PATH_ONLY" "$RUNS"
printf '  suite client:  %s requests/s on GET %s, same connections (best of %s rounds)\n' "$client_rps" "$PATH_ONLY" "$RUNS"
printf '  ratio:         suite client / wrk = %s; default run / wrk = %s\n' \
    "$(ratio "$client_rps" "$wrk_rps")" "$(ratio "$b_rps" "$wrk_rps")"
echo
echo "== targets"
echo "  full default run under 5 s:          $best s ($(verdict "$best < 5"))"
echo "  suite rate at least 50% of wrk's:    $(ratio "$client_rps" "$wrk_rps") ($(verdict "$client_rps >= 0.5 * $wrk_rps"))"
echo "  peak memory under 200 MB:            $((b_peak / 1024)) MB ($(verdict "$b_peak < 200 * 1024"))"
