#!/usr/bin/env bash
# The TypeScript web SDK (sdk/web): install its pinned dev tools (npm ci), build, run its
# tests with Node's test runner (protocol known answers from crypto/testdata, must-fails,
# a session against a stand-in server), and check what `npm pack` would publish. Prints
# one summary line, `web sdk: ...`. Needs node >= 20 and npm (scripts/lib.sh ensure_sdk).
set -euo pipefail
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
echo "web sdk: ${pass:-0} passed, ${fail:-?} failed; npm pack: ${packed}"
[ "${fail:-1}" = "0" ] || status=1
exit "$status"
