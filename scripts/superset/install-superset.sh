#!/usr/bin/env bash
# Installs the Superset of requirements.txt (every package pinned) into a
# virtual environment outside the repository and prints the environment's
# directory. The package never needs it: only run-superset.sh does.
#
#   install-superset.sh [DIR]
#
# DIR defaults to $DP_SUPERSET_VENV, else to a directory of the user's cache
# named by a hash of requirements.txt, the Python version and the
# installer's version, so a changed pin installs anew and an unchanged one
# is reused (a completed install leaves the hash in DIR/installed).
#
# Why uv: pip 23 installs the 169 packages one after another (about 110 s
# from PyPI on the 2-core test machine: 53 s downloading 236 MB, 54 s
# unpacking); uv, itself a wheel from PyPI, downloads in parallel and
# installs them in about 14 s (17 s with its own install, 52 s when other
# builds keep the machine's load near 8; about 12 s of CPU). With --no-deps
# and the full pinned list nothing is resolved. Two packages (odfpy,
# WTForms-JSON) exist only as source distributions; uv builds them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
requirements=$here/requirements.txt
uv_version=0.13.8
python=/usr/bin/python3   # Debian's Python 3.11 (python3-venv), not one a user put first in PATH

key=$({ cat "$requirements"; "$python" --version; echo "uv $uv_version"; } | sha256sum | cut -c1-16)
dir=${1:-${DP_SUPERSET_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/invariant_dp/superset-$key}}
if [ -f "$dir/installed" ] && [ "$(cat "$dir/installed")" = "$key" ]; then
  echo "$dir"
  exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
# uv reads the CA bundle pip was told to use, if any.
[ -n "${PIP_CERT:-}" ] && [ -z "${SSL_CERT_FILE:-}" ] && export SSL_CERT_FILE=$PIP_CERT
export UV_CACHE_DIR=$dir/cache UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1
"$python" -m venv "$dir/installer" >&2
"$dir/installer/bin/pip" install -q "uv==$uv_version" >&2
"$dir/installer/bin/uv" venv -q --python "$python" "$dir/venv" >&2
VIRTUAL_ENV=$dir/venv "$dir/installer/bin/uv" pip install -q --no-deps -r "$requirements" >&2
echo "$key" > "$dir/installed"
echo "$dir"
