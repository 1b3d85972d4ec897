#!/usr/bin/env bash
# The bus topics' JSON Schemas (schemas/topics/, generated from the Rust types and checked
# against them by `cargo test -p idv-schemas`) validated with an independent validator
# (Python jsonschema, Draft 2020-12, from the API fuzzer's pinned venv): every recorded
# message (schemas/testdata/*-v<N>.jsonl, recorded from a running ingest) is valid under
# its version's schema, and messages broken on purpose are not. Prints one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_api_fuzz_tools
"$API_FUZZ_PY" - <<'PY'
import copy, glob, json, re, sys
from jsonschema import Draft202012Validator

def validator(kind, version):
    schema = json.load(open(f"schemas/topics/{kind}.v{version}.schema.json"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)

valid = invalid = refused = 0
failures = []
for path in sorted(glob.glob("schemas/testdata/*-v*.jsonl")):
    kind, version = re.match(r".*/(job|result)s-v(\d+)\.jsonl$", path).groups()
    v = validator(kind, version)
    for n, line in enumerate(l for l in open(path) if l.strip()):
        message = json.loads(line)
        errors = list(v.iter_errors(message))
        if errors:
            invalid += 1
            failures.append(f"{path}:{n + 1}: {errors[0].message[:200]}")
        else:
            valid += 1
        # Must fail: each message with its request id removed, and with a payload field
        # of the wrong type.
        broken = copy.deepcopy(message)
        broken.pop("request_id")
        mutants = [broken]
        if kind == "job":
            typed = copy.deepcopy(message)
            typed["payload"] = 7
            mutants.append(typed)
            renamed = copy.deepcopy(message)
            renamed["operation"] = "no_such_operation"
            mutants.append(renamed)
        for m in mutants:
            if v.is_valid(m):
                failures.append(f"{path}:{n + 1}: a broken copy validated")
            else:
                refused += 1
for f in failures[:20]:
    print("topic schemas: " + f, file=sys.stderr)
print(f"topic schemas: {valid} recorded messages valid, {invalid} invalid; {refused} broken copies refused, {len(failures) - invalid} accepted")
sys.exit(1 if failures else 0)
PY
