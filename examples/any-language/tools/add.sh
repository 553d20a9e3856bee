#!/usr/bin/env bash
# tools/add.sh (chmod +x tools/add.sh): the arguments arrive as one JSON object on stdin
set -euo pipefail
args=$(cat)
a=$(jq -r '.a' <<<"$args")
b=$(jq -r '.b' <<<"$args")
echo "$((a + b))"
