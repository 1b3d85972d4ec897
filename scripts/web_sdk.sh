#!/usr/bin/env bash
# The TypeScript web SDK (sdk/web): install its pinned dev tools (npm ci), build, run its
# tests with Node's test runner (protocol known answers from crypto/testdata, must-fails,
# a session against a stand-in server), and check what `npm pack` would publish. Prints
# one summary line, `web sdk: ...`. Needs node >= 20 and npm (scripts/lib.sh ensure_sdk).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../sdk/web"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
npm ci --no-audit --no-fund --loglevel=error >&2
status=0
npm test 2>&1 | tee "$out" >&2 || status=$?
pass=$(awk '/^# pass /{print $3}' "$out" | tail -1)
fail=$(awk '/^# fail /{print $3}' "$out" | tail -1)
packed=$(npm pack --dry-run --json 2>/dev/null | node -e '
  let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
    const files = JSON.parse(s)[0].files.map(f => f.path);
    const stray = files.filter(p => !(p === "package.json" || p === "README.md" || p.startsWith("dist/src/")));
    const missing = ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/backend.js", "dist/src/backend.d.ts"].filter(p => !files.includes(p));
    console.log(stray.length ? "unexpected files: " + stray.join(" ") : missing.length ? "missing files: " + missing.join(" ") : files.length + " files");
    process.exit(stray.length || missing.length ? 1 : 0);
  });') || status=1
# The demo page (`idv serve --demo`) embeds this build's modules (ingest/demo/sdk/); a
# stale copy fails here. IDV_UPDATE_DEMO_SDK=1 copies them over instead.
demo_sdk="in step with the build"
if [ "${IDV_UPDATE_DEMO_SDK:-}" = 1 ]; then
  rm -f ../../ingest/demo/sdk/*.js && cp dist/src/*.js ../../ingest/demo/sdk/ && demo_sdk="copied from the build"
fi
for f in dist/src/*.js ../../ingest/demo/sdk/*.js; do
  name="$(basename "$f")"
  if ! cmp -s "dist/src/$name" "../../ingest/demo/sdk/$name"; then
    demo_sdk="STALE ($name differs: IDV_UPDATE_DEMO_SDK=1 bash scripts/web_sdk.sh)"
    status=1
  fi
done
# The README's quick start (examples/quickstart.mjs) against a live `idv serve`, when the
# caller names the binary (scripts/test.sh passes the one its tests built).
quickstart="not run (IDV_WEB_SDK_SERVER_BIN not set)"
if [ -n "${IDV_WEB_SDK_SERVER_BIN:-}" ]; then
  work="$(mktemp -d)"
  trap 'rm -f "$out"; if [ -n "${server_pid:-}" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi; rm -rf "$work"' EXIT
  bin="$IDV_WEB_SDK_SERVER_BIN"
  [ -x "$bin" ] || { echo "web sdk: quickstart: $bin is not an executable" ; exit 1; }
  field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }
  key="$(env -u IDV_CONFIG -u IDV_STORE -u IDV_BUS -u IDV_BLOBS "$bin" keys create --client quickstart --data-dir "$work/data")"
  pair="$(env -u IDV_CONFIG -u IDV_STORE -u IDV_BUS -u IDV_BLOBS "$bin" keypairs create --client quickstart --data-dir "$work/data")"
  start_idv_serve "$bin" "$work/data" "$work/server.log" || true
  port="$server_port"
  if IDV_ACCESS_KEY_ID="$(field access_key_id <<<"$key")" IDV_SECRET_KEY="$(field secret_key <<<"$key")" \
     IDV_KEY_PAIR_ID="$(field key_pair_id <<<"$pair")" IDV_SERVER_PUBLIC_KEY="$(field public_key <<<"$pair")" \
     node examples/quickstart.mjs "http://127.0.0.1:$port" >"$work/quickstart.out" 2>&1 &&
     grep -q '^behavior/score: {.*"status":"success"' "$work/quickstart.out"; then
    quickstart="passed (register_device, create_challenge, push_event_batch, behavior/score against idv serve)"
  else
    cat "$work/server.log" >&2
    quickstart="FAILED"
    status=1
  fi
  cat "$work/quickstart.out" >&2
fi
echo "web sdk: ${pass:-0} passed, ${fail:-?} failed; npm pack: ${packed}; demo page modules: ${demo_sdk}; quickstart: ${quickstart}"
[ "${fail:-1}" = "0" ] || status=1
exit "$status"
