#!/usr/bin/env bash
# The HTTP API against its own /openapi.json (issue 10):
#   scripts/api_fuzz.sh [extra `schemathesis run` options]
# Builds idv, starts `idv serve` (embedded backends, a fresh data dir, loopback), checks
# that /openapi.json is a valid OpenAPI 3.1 document (openapi-spec-validator), then runs
# schemathesis against the live server: every operation, positive and negative data, a
# fixed number of examples per operation, every request signed afresh
# (scripts/api_fuzz_hooks.py). Checks: no 5xx but the documented 501 not_performed /
# not_supported and 503 service_unavailable with Retry-After (a 500 always fails), and
# every response matches the schema the document declares for its status.
# Prints one line: "api fuzz: N requests, X 5xx, Y schema violations, ..." and exits
# non-zero on any failure. Tools (pinned) are installed into ~/.cache/idv/tools/venv.
#
# Knobs: IDV_API_FUZZ_EXAMPLES (examples per operation, default 20), IDV_API_FUZZ_SEED
# (default 1: the same cases every run; "random" for a new seed, printed on failure),
# IDV_API_FUZZ_TIMEOUT (hard limit in seconds on the schemathesis run, default 240; it
# takes about 90), IDV_API_FUZZ_BIN (an idv binary to run instead of building one).
#
# Every operation in the document is fuzzed, `/api` twins included. The device
# operations (create_challenge, push_event_batch) cannot be signed by a hook (RSA-PSS
# over an end-to-end encrypted body): they are sent unsigned and must answer 403
# access_denied, errors-only. The eKYC check is sent with a real bearer token. 501 and
# 503 are documented answers, not faults: see scripts/api_fuzz_hooks.py.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. scripts/lib.sh
ensure_api_fuzz_tools

examples="${IDV_API_FUZZ_EXAMPLES:-20}"
seed="${IDV_API_FUZZ_SEED:-1}"
limit="${IDV_API_FUZZ_TIMEOUT:-240}"

# IDV_API_FUZZ_BIN: an idv binary already built (scripts/test.sh passes the one its
# `cargo test` built, so no second build with other features); else build one here.
if [ -n "${IDV_API_FUZZ_BIN:-}" ]; then
  bin="$IDV_API_FUZZ_BIN"
else
  cargo build -q -p idv
  bin="$PWD/target/debug/idv"
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# No other IDV_* setting of the caller's shell leaks into this server.
unset IDV_CONFIG IDV_STORE IDV_BUS IDV_BLOBS IDV_TELCOS_FILE IDV_POLICY_FILE IDV_POLICY_CLIENTS
data="$work/data"
mkdir -p "$data"
json_field() { "$API_FUZZ_PY" -c 'import json, sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1"; }
key="$("$bin" keys create --client fuzz --data-dir "$data")"
key_id="$(json_field access_key_id <<<"$key")"
secret="$(json_field secret_key <<<"$key")"
bearer="$("$bin" tokens issue --client fuzz --data-dir "$data" | json_field access_token)"

port="$("$API_FUZZ_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
# The fuzzer's throughput is not under test: the rate limit is lifted so that requests
# reach the handlers instead of 429 (which is covered by the integration tests).
IDV_RATE_LIMIT_PER_SEC=1000000 IDV_RATE_LIMIT_BURST=1000000 \
  "$bin" serve --data-dir "$data" --listen "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
  if "$API_FUZZ_PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "$base/healthz" 2>/dev/null; then break; fi
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "api fuzz: the server did not start" >&2; exit 1; }
  sleep 0.5
done
"$API_FUZZ_PY" -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1]).read())' \
  "$base/openapi.json" "$work/openapi.json"

# 1. The document itself: every error the validator finds, not just the first.
spec_errors="$("$API_FUZZ_PY" - "$work/openapi.json" <<'EOF'
import json, sys
from openapi_spec_validator import OpenAPIV31SpecValidator
errors = list(OpenAPIV31SpecValidator(json.load(open(sys.argv[1]))).iter_errors())
for e in errors[:20]:
    print("spec error: " + str(e).splitlines()[0], file=sys.stderr)
print(len(errors))
EOF
)"

# 2. schemathesis against the live server.
cat >"$work/schemathesis.toml" <<'EOF'
# 501 not_performed / not_supported and 503 service_unavailable are documented answers;
# the check idv_documented_5xx (scripts/api_fuzz_hooks.py) tells them from faults.
[checks.not_a_server_error]
expected-statuses = ["2xx", "3xx", "4xx", "501", "503"]
EOF
seed_args=()
if [ "$seed" != "random" ]; then seed_args=(--seed "$seed"); fi
status=0
IDV_FUZZ_KEY_ID="$key_id" IDV_FUZZ_SECRET="$secret" IDV_FUZZ_BEARER="$bearer" IDV_FUZZ_STATS="$work/stats.json" \
  PYTHONPATH="$PWD/scripts" PYTHONDONTWRITEBYTECODE=1 SCHEMATHESIS_HOOKS=api_fuzz_hooks \
  timeout "$limit" "$API_FUZZ_VENV/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$work/openapi.json" \
  --url "$base" \
  --checks not_a_server_error,response_schema_conformance,content_type_conformance,response_headers_conformance,idv_documented_5xx,idv_device_operations_refused \
  --phases examples,coverage,fuzzing \
  --max-examples "$examples" "${seed_args[@]}" \
  --generation-database none \
  --request-timeout 60 \
  --workers 1 \
  --no-color \
  "$@" >"$work/schemathesis.out" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  # The failures and summary (the progress lines above them say nothing more).
  sed -n '/^=* FAILURES =*$/,$p;/^=* ERRORS =*$/,$p' "$work/schemathesis.out" | head -300
  [ "$status" -eq 124 ] && echo "api fuzz: schemathesis ran past ${limit}s" >&2
  grep -q '"level":"ERROR"' "$work/server.log" && grep '"level":"ERROR"' "$work/server.log" | tail -20 >&2
else
  tail -n 25 "$work/schemathesis.out" | sed -n '/SUMMARY/,$p'
fi

summary=0
"$API_FUZZ_PY" - "$work/stats.json" "$spec_errors" "$status" <<'EOF' || summary=$?
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    s = {"requests": 0, "status_5xx": 0, "documented_5xx": 0, "schema_violations": 0, "other_failures": 0, "by_status": {}, "failures": []}
for line in s["failures"]:
    print("  " + line)
statuses = ", ".join(f"{k}: {v}" for k, v in sorted(s["by_status"].items()))
print(f"api fuzz: {s['requests']} requests, {s['status_5xx']} 5xx, {s['schema_violations']} schema violations, "
      f"{sys.argv[2]} spec errors, {s['other_failures']} other check failures "
      f"(not counted as 5xx: {s['documented_5xx']} documented 501/503; by status {statuses}; schemathesis exit {sys.argv[3]})")
sys.exit(1 if s["requests"] == 0 or s["status_5xx"] or s["schema_violations"] or s["other_failures"] else 0)
EOF
if [ "$spec_errors" != 0 ] || [ "$status" -ne 0 ] || [ "$summary" -ne 0 ]; then exit 1; fi
