"""schemathesis hooks for scripts/api_fuzz.sh (loaded through SCHEMATHESIS_HOOKS).

- Signing: every Access Key request is signed afresh just before it is sent
  (docs/API.md "Access Key"): `Authorization: TV <id>:<base64 HMAC-SHA256(secret,
  METHOD\\nPATH\\nX-TV-Timestamp\\n)>` (the four-line form, empty Content-MD5 line) and
  `X-TV-Timestamp` in RFC 3339 with microseconds, so no two requests share a signature
  and the replay guard never refuses a generated one. The path signed is the path sent.
  The eKYC full check gets the bearer token `idv tokens issue` printed. The two device
  operations (create_challenge, push_event_batch) need an RSA-signed, end-to-end
  encrypted body that a generator cannot produce: they are sent unsigned and must be
  refused with 403 `access_denied` in the behavioral errors-only shape (check
  `idv_device_operations_refused`).
- Server errors: the built-in `not_a_server_error` runs with 501 and 503 among its
  expected statuses (schemathesis.toml beside the run); `idv_documented_5xx` then allows
  exactly 501 `not_performed` / `not_supported` and 503 `service_unavailable` with
  `Retry-After`, and fails on any other 5xx, 500 included.
- Figures: every response is counted (requests, 5xx, schema violations, other check
  failures, statuses per operation) into the JSON file named by IDV_FUZZ_STATS, which the
  script turns into its summary line. IDV_FUZZ_DEBUG=1 also records why 400s were
  refused, per operation (`refused_400`).
"""

import atexit
import base64
import datetime
import hashlib
import hmac
import json
import os
import threading

import requests
import schemathesis

KEY_ID = os.environ["IDV_FUZZ_KEY_ID"]
SECRET = os.environ["IDV_FUZZ_SECRET"].encode()
BEARER = os.environ.get("IDV_FUZZ_BEARER", "")
STATS_FILE = os.environ.get("IDV_FUZZ_STATS")
DEVICE_PATHS = ("/v1/behavior/create_challenge", "/v1/behavior/push_event_batch")
BEARER_PATHS = ("/portal/ekyc/full_checks",)

_lock = threading.Lock()
_stats = {"requests": 0, "status_5xx": 0, "documented_5xx": 0, "schema_violations": 0, "other_failures": 0, "by_status": {}, "by_operation": {}, "failures": []}


def _now_rfc3339() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _set_header(headers, name, value):
    for k in [k for k in headers if k.lower() == name.lower()]:
        del headers[k]
    if value is not None:
        headers[name] = value


class _Sign(requests.auth.AuthBase):
    """Signs the request exactly as it goes out: its method and `path_url` (path and
    query, percent-encoded as sent), with a timestamp taken at that moment."""

    def __call__(self, r):
        ts = _now_rfc3339()
        signed = f"{r.method.upper()}\n{r.path_url}\n{ts}\n".encode()
        sig = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
        for name in ("X-TV-Content-MD5",):
            r.headers.pop(name, None)
        r.headers["Authorization"] = f"TV {KEY_ID}:{sig}"
        r.headers["X-TV-Timestamp"] = ts
        return r


def _template(case) -> str:
    path = case.operation.path
    return path[len("/api"):] if path.startswith("/api/") else path


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.headers is None:
        case.headers = {}
    # Content-MD5 would have to match the body; the four-line form signs an empty line.
    _set_header(case.headers, "X-TV-Content-MD5", None)
    template = _template(case)
    if template in BEARER_PATHS:
        _set_header(case.headers, "Authorization", f"Bearer {BEARER}")
        _set_header(case.headers, "X-TV-Timestamp", None)
        return
    if template in DEVICE_PATHS:
        # Device-authenticated: a generator cannot sign these (see the module's docstring).
        _set_header(case.headers, "Authorization", None)
        _set_header(case.headers, "X-TV-Timestamp", _now_rfc3339())
        return
    _set_header(case.headers, "Authorization", None)
    _set_header(case.headers, "X-TV-Timestamp", None)
    kwargs["auth"] = _Sign()


def _header(response, name):
    for k, v in response.headers.items():
        if k.lower() == name.lower():
            return v[0] if isinstance(v, list) and v else v
    return None


def _first_error(response):
    try:
        body = response.json()
    except Exception:
        return None, None
    errors = body.get("errors") if isinstance(body, dict) else None
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return body, errors[0]
    return body, None


def _undocumented_5xx(response):
    """Why a 5xx response is not one of the documented ones, or None when it is (or is no
    5xx at all): 501 not_performed / not_supported, 503 service_unavailable with
    Retry-After. 500 and every other 5xx are faults."""
    status = response.status_code
    if status < 500:
        return None
    _, err = _first_error(response)
    code = err.get("code") if err else None
    if status == 501 and code in ("not_performed", "not_supported"):
        return None
    if status == 503 and code == "service_unavailable" and _header(response, "Retry-After"):
        return None
    return f"server error {status} {code!r}: {response.text[:500]}"


@schemathesis.check
def idv_documented_5xx(ctx, response, case):
    """A 5xx is allowed only as 501 not_performed / not_supported or 503
    service_unavailable with Retry-After; 500 and every other 5xx fail."""
    why = _undocumented_5xx(response)
    if why:
        raise AssertionError(why)
    return None


@schemathesis.check
def idv_device_operations_refused(ctx, response, case):
    """The unsigned device operations must be refused 403 access_denied, errors-only."""
    if _template(case) not in DEVICE_PATHS or case.method.upper() != "POST":
        return None
    body, err = _first_error(response)
    if response.status_code != 403 or not err or err.get("code") != "access_denied" or "data" in body:
        raise AssertionError(f"unsigned device request not refused as documented: {response.status_code} {response.text[:300]}")
    return None


def _first_line(text):
    return next((line for line in str(text).splitlines() if line.strip()), "")[:300]


def _note(line):
    # Called with _lock held.
    if len(_stats["failures"]) < 20:
        _stats["failures"].append(line)


@schemathesis.hook
def after_call(context, case, response):
    with _lock:
        _stats["requests"] += 1
        s = str(response.status_code)
        _stats["by_status"][s] = _stats["by_status"].get(s, 0) + 1
        per_op = _stats["by_operation"].setdefault(f"{case.method} {case.operation.path}", {})
        per_op[s] = per_op.get(s, 0) + 1
        if response.status_code == 400 and os.environ.get("IDV_FUZZ_DEBUG"):
            # Why requests were refused, per operation: with `--mode positive`, where the
            # request schemas still admit what the server refuses.
            _, err = _first_error(response)
            if err:
                why = f"{(err.get('detail') or {}).get('field')}: {str(err.get('message'))[:100]}"
                r = _stats.setdefault("refused_400", {}).setdefault(f"{case.method} {case.operation.path}", {})
                r[why] = r.get(why, 0) + 1
        if response.status_code >= 500:
            why = _undocumented_5xx(response)
            if why:
                _stats["status_5xx"] += 1
                _note(f"{case.method} {case.formatted_path}: {why}")
            else:
                _stats["documented_5xx"] += 1


# What the response_schema_conformance check raises (schemathesis.openapi.checks,
# schemathesis.core.failures).
SCHEMA_FAILURES = {
    "JsonSchemaError", "MalformedJson", "MissingContentType", "UndefinedContentType",
    "ContentDeserializationError", "DiscriminatorMismatch", "MalformedMediaType",
}


@schemathesis.hook
def filter_failure(context, failure, case, response):
    # Called for every failure any check reports (the engine runs no after_validate
    # hooks); counted here, never filtered.
    with _lock:
        if type(failure).__name__ in SCHEMA_FAILURES:
            _stats["schema_violations"] += 1
            _note(f"{case.method} {case.formatted_path} {response.status_code}: {failure.title}: {_first_line(failure.message)}")
        elif type(failure).__name__ == "ServerError" or str(failure.message).startswith("server error"):
            pass  # counted by after_call, from the response itself
        else:
            _stats["other_failures"] += 1
            _note(f"{case.method} {case.formatted_path} {response.status_code}: {failure.title}: {_first_line(failure.message)}")
    return True


@atexit.register
def _write_stats():
    if STATS_FILE:
        with _lock, open(STATS_FILE, "w") as f:
            json.dump(_stats, f)
