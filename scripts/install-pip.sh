#!/usr/bin/env bash
# Installs the named PyPI packages (NAME==VERSION, then the module it brings)
# into the system Python the tests use, when that module is not importable yet.
# Usage: install-pip.sh axe-selenium-python==2.1.6:axe_selenium_python ...
# --no-deps: their dependencies come from Debian (python3-selenium).
set -euo pipefail
python=/usr/bin/python3
for spec in "$@"; do
    package="${spec%%:*}"
    module="${spec##*:}"
    if ! "$python" -c "import $module" 2>/dev/null; then
        echo "installing from PyPI: $package" >&2
        sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo "$python" -m pip install --quiet --no-deps --break-system-packages "$package"
    fi
done
