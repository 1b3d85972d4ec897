#!/usr/bin/env python3
"""Collapse `perf script` output into folded stacks (stdin -> stdout), or, with
--summary, read folded stacks and print where the samples went: the share of samples
under each named part of the push path (inclusive: a sample counts for a part when any
frame of its stack matches) and the top leaf functions (exclusive)."""
import re
import sys
from collections import Counter

OFFSET = re.compile(r"\+0x[0-9a-f]+$")

# Parts of the push path, by frame name (first match of the stack counts).
PARTS = [
    ("RSA-PSS sign (response signature)", r"sign_pss|RSA_sign_pss|rsa_sign|RSA_private_transform|bn_mod_exp"),
    ("RSA verify (device signature) / OAEP", r"verify_device_signature|RSA_verify|encrypt_response_key|RSA_encrypt|rsa_verify"),
    ("AES-GCM", r"aes_gcm|aes_hw|gcm_|aead"),
    ("SQLite", r"sqlite3|rusqlite|SqliteStore"),
    ("JSON (serde_json)", r"serde_json"),
    ("SHA-256 / MD5 / base64", r"sha2|sha256|Sha256|md5|Md5|base64"),
    ("HTTP (hyper, axum, reqwest)", r"hyper|axum|reqwest|h2::"),
    ("bus (in-process / Kafka)", r"idv_bus|rdkafka"),
    ("tokio scheduler and timers", r"tokio::runtime|tokio::time"),
    ("allocation and copies", r"malloc|free|realloc|memcpy|memmove|__memset|cfree"),
]


def collapse(lines):
    stacks = Counter()
    comm, frames = None, []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if comm is not None:
                stacks[";".join([comm] + list(reversed(frames)))] += 1
            comm, frames = None, []
            continue
        if not line.startswith((" ", "\t")):
            comm = line.split()[0]
            frames = []
            continue
        parts = line.strip().split(None, 1)
        if len(parts) < 2:
            continue
        sym = parts[1].rsplit(" (", 1)[0]
        sym = OFFSET.sub("", sym).replace(";", ":")
        frames.append(sym)
    if comm is not None:
        stacks[";".join([comm] + list(reversed(frames)))] += 1
    for stack, n in stacks.most_common():
        print(f"{stack} {n}")


def summary(lines):
    total = 0
    parts = Counter()
    leaves = Counter()
    for line in lines:
        stack, _, n = line.rstrip("\n").rpartition(" ")
        if not stack:
            continue
        n = int(n)
        total += n
        frames = stack.split(";")
        leaves[frames[-1][:100]] += n
        for name, pattern in PARTS:
            if any(re.search(pattern, f) for f in frames[1:]):
                parts[name] += n
                break
    if total == 0:
        print("no samples")
        return
    print(f"{total} samples; share of samples by part (first matching part of each stack):")
    for name, _ in PARTS:
        print(f"  {100 * parts[name] / total:5.1f}%  {name}")
    rest = total - sum(parts.values())
    print(f"  {100 * rest / total:5.1f}%  other")
    print("top leaf functions:")
    for sym, n in leaves.most_common(25):
        print(f"  {100 * n / total:5.1f}%  {sym}")


if __name__ == "__main__":
    if "--summary" in sys.argv:
        summary(sys.stdin)
    else:
        collapse(sys.stdin)
