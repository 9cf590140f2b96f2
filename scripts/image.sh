#!/usr/bin/env bash
# Builds the container image (Containerfile) with podman and checks it: the statically linked
# release binary (x86_64-unknown-linux-musl) and the host's CA bundle in an image FROM scratch,
# then `--version`, and a certification of the embedded reference with `--network none` whose
# JUnit and HTML reports land in a mounted directory.
#
#   scripts/image.sh                  # IMAGE=localhost/workspace-conformance:dev by default
#
# Installs what is missing from Debian's packages (podman, ca-certificates, file, musl-tools) and the musl
# target with rustup.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE="${IMAGE:-localhost/workspace-conformance:dev}"
TRIPLE=x86_64-unknown-linux-musl
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
BIN="$TARGET_DIR/$TRIPLE/release/workspace-conformance"
CA=/etc/ssl/certs/ca-certificates.crt
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

apt_install() {
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get install -y -qq "$@" >/dev/null 2>&1 ||
        { $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq "$@" >/dev/null; }
}
command -v podman >/dev/null || { echo "== installing podman (Debian package)"; apt_install podman; }
[ -f "$CA" ] || { echo "== installing ca-certificates (Debian package)"; apt_install ca-certificates; }
command -v file >/dev/null || apt_install file
# ring compiles C for the musl target with musl's gcc wrapper.
command -v x86_64-linux-musl-gcc >/dev/null || { echo "== installing musl-tools (Debian package)"; apt_install musl-tools; }

echo "== building the static binary ($TRIPLE)"
rustup target list --installed | grep -qx "$TRIPLE" || rustup target add "$TRIPLE"
cargo build --release --locked --quiet --target "$TRIPLE"
if ! file -L "$BIN" | grep -q 'statically linked\|static-pie linked'; then
    echo "error: $BIN is not statically linked: $(file -L "$BIN")" >&2
    exit 1
fi

echo "== building the image $IMAGE"
cp "$BIN" "$WORK/workspace-conformance"
cp "$CA" "$WORK/ca-certificates.crt"
podman build --quiet -t "$IMAGE" -f Containerfile "$WORK" >/dev/null
podman image inspect "$IMAGE" --format '   {{.Id}}  {{.Size}} bytes, entry point {{.Config.Entrypoint}}'

# Inside a container (as CI machines and this project's development machines are), podman's
# default runtime may be refused its rlimits or its cgroups; runc with cgroupfs and rlimits below
# the current ones runs there. Whichever runs `--version` runs the rest.
RUN=(podman run --rm)
if ! version=$("${RUN[@]}" "$IMAGE" --version 2>"$WORK/err"); then
    echo "   (podman's defaults are refused here: $(tail -1 "$WORK/err"); trying runc with cgroupfs)"
    command -v runc >/dev/null || apt_install runc
    RUN=(podman --runtime runc --cgroup-manager cgroupfs run --rm
        --ulimit "nofile=1024:1024" --ulimit "nproc=1024:1024")
    version=$("${RUN[@]}" "$IMAGE" --version)
fi
echo "== $IMAGE --version: $version"
[ "$version" = "workspace-conformance $(cargo pkgid | sed 's/.*[#@]//')" ] ||
    { echo "error: the image's --version says \`$version\`" >&2; exit 1; }

echo "== certifying the embedded reference inside the image, --network none"
mkdir -p "$WORK/out"
set +e
"${RUN[@]}" --network none -v "$WORK/out:/reports" "$IMAGE" -q \
    --junit /reports/junit.xml --report /reports/report.html >"$WORK/run.out" 2>"$WORK/run.err"
code=$?
set -e
grep -E '^(test result|verdict|requests):' "$WORK/run.out" | sed 's/^/   /' || true
if [ "$code" -ne 0 ]; then
    echo "error: the certification inside the image exited $code" >&2
    tail -n 20 "$WORK/run.err" >&2
    exit 1
fi
grep -q '^verdict: PASSED' "$WORK/run.out" || { echo "error: no PASSED verdict" >&2; exit 1; }
for f in junit.xml report.html; do
    [ -s "$WORK/out/$f" ] || { echo "error: the mounted directory has no $f" >&2; exit 1; }
done
echo "== PASSED inside the image; reports written to the mounted directory: $(ls "$WORK/out" | tr '\n' ' ')"
