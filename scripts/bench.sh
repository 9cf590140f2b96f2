#!/usr/bin/env bash
# The benchmark: builds the release binary, times the default run (trials, requests, wall time,
# requests/s, peak memory), then measures on the same machine, in the same run, the request rate
# of wrk (the ceiling) and of the suite's own HTTP client against one GET endpoint of the
# reference, and prints the ratios and the targets. Then the default run against the reference
# behind a delay of DELAY_MS per request (crates/bench/src/bin/delay_proxy.rs: a server in another region),
# with no thread option, and the request count with the time it implies at 10 requests/s (the
# real service's documented limit); RATE_RUN=1 also times a whole run under `--rate 10`.
#
#   scripts/bench.sh            # honours CARGO_TARGET_DIR; RUNS=3 DURATION=3 CONNECTIONS=8 DELAY_MS=50 CONNECT_MS=0 RATE_RUN=0
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-3}"
DURATION="${DURATION:-3}"
CONNECTIONS="${CONNECTIONS:-8}"
ENDPOINT="${ENDPOINT:-/webhooks/{webhook_id\}}"
DELAY_MS="${DELAY_MS:-50}"
# Extra milliseconds before the first bytes of each new connection to the delaying proxy: the
# handshake a new connection costs across a network (0: connections cost what loopback costs).
CONNECT_MS="${CONNECT_MS:-0}"
RATE_RUN="${RATE_RUN:-0}"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
BIN="$TARGET_DIR/release/workspace-conformance"
RATE="$TARGET_DIR/release/client_rate"
PROXY="$TARGET_DIR/release/delay_proxy"
TMP="$(mktemp -d)"
SERVE_PID=""
PIDS=()
cleanup() {
    if [ -n "$SERVE_PID" ]; then kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT

echo "== building the release binary and the benchmark's helpers (crates/bench)"
cargo build --release --quiet --bins -p workspace-conformance -p conformance-bench

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

# A fresh reference started by `serve`: sets D_URL and D_PROFILE, and records the process for the
# cleanup.
start_reference() {
    local dir="$1"
    mkdir -p "$dir"
    "$BIN" serve --listen 127.0.0.1:0 --profile-out "$dir/profile.json" >"$dir/serve.out" &
    PIDS+=($!)
    for _ in $(seq 100); do [ -s "$dir/serve.out" ] && break; sleep 0.05; done
    D_URL=$(head -1 "$dir/serve.out" | awk '{print $NF}')
    D_PROFILE="$dir/profile.json"
}

# A fresh reference behind the delaying proxy: D_URL is the proxy's.
behind_delay() {
    local dir="$1"
    start_reference "$dir"
    "$PROXY" --to "$D_URL" --delay-ms "$DELAY_MS" --connect-ms "$CONNECT_MS" >"$dir/proxy.out" &
    PIDS+=($!)
    for _ in $(seq 100); do [ -s "$dir/proxy.out" ] && break; sleep 0.05; done
    D_URL=$(head -1 "$dir/proxy.out" | awk '{print $5}')
}

# Times one run of the suite against D_URL with the extra arguments; sets R_WALL and R_REQ.
timed_run() {
    set +e
    /usr/bin/time -f "%e %M" -o "$TMP/time" "$BIN" --target "$D_URL" --profile "$D_PROFILE" -q "$@" \
        >"$TMP/run.out" 2>"$TMP/run.err"
    local code=$?
    set -e
    if [ "$code" -ne 0 ]; then
        echo "the run $* exited with $code:"; tail -20 "$TMP/run.out" "$TMP/run.err"; exit 1
    fi
    read -r R_WALL _ <"$TMP/time"
    R_REQ=$(grep '^requests:' "$TMP/run.out" | sed -E 's/requests: ([0-9]+) sent.*/\1/')
}

echo "== default run against the reference behind ${DELAY_MS} ms per request (no thread option), $RUNS times"
d_best=""
for i in $(seq "$RUNS"); do
    behind_delay "$TMP/delay-$i"
    timed_run
    echo "  run $i: $R_REQ requests, wall $R_WALL s"
    if [ -z "$d_best" ] || awk -v a="$R_WALL" -v b="$d_best" 'BEGIN{exit !(a<b)}'; then
        d_best="$R_WALL"; d_req="$R_REQ"
    fi
done

rate_wall=""
if [ "$RATE_RUN" = "1" ]; then
    echo "== default run under --rate 10 (the embedded reference, no delay)"
    start_reference "$TMP/rate"
    timed_run --rate 10
    rate_wall="$R_WALL"
    echo "  $R_REQ requests, wall $R_WALL s"
fi
at_ten=$(awk -v n="$b_req" 'BEGIN{printf "%.0f", n/10}')

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
printf '  behind %s ms:  default run, no thread option: %s requests, wall %s s (best of %s)\n' \
    "$DELAY_MS" "$d_req" "$d_best" "$RUNS"
printf '  request count: %s requests in the default run: %s s at 10 requests/s%s\n' \
    "$b_req" "$at_ten" "${rate_wall:+ (measured under --rate 10: $rate_wall s)}"
echo
echo "== targets"
echo "  full default run under 5 s:          $best s ($(verdict "$best < 5"))"
echo "  local default run under 2 s:         $best s ($(verdict "$best < 2"))"
printf '  %-37s%s s (%s)\n' "behind ${DELAY_MS} ms at most 6 s:" "$d_best" "$(verdict "$d_best <= 6")"
echo "  at 10 requests/s at most 95 s:       $at_ten s ($(verdict "$at_ten <= 95"))"
echo "  suite rate at least 50% of wrk's:    $(ratio "$client_rps" "$wrk_rps") ($(verdict "$client_rps >= 0.5 * $wrk_rps"))"
echo "  peak memory under 100 MB:            $((b_peak / 1024)) MB ($(verdict "$b_peak < 100 * 1024"))"
