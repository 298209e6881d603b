# SPDX-License-Identifier: GPL-2.0-only
# The preamble the shell tests share; each sources it first:
#     . "${0%/*}/../lib.sh"
# It sets -u, makes $tmp, a scratch directory removed on exit, and defines
# fail MESSAGE, which prints "FAIL: MESSAGE" and counts it in $fails (a test
# ends with exit $((fails > 0)) or its own summary).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
