#!/bin/sh
# json_query: applies a jq filter to a JSON value. An executable tool (README, "Tools in
# any language"): its definition is in json_query.json, the arguments arrive as one JSON
# object on stdin, {"filter": "...", "json": ...}, and what it prints is the result: text,
# since the sidecar sets no "output", so JSON it passes through is data, never taken for a
# CallToolResult (adr/0009).
# jq's language cannot run commands or write files, and the program sees only the few
# environment variables toolshed passes on.
set -eu

if ! command -v jq >/dev/null 2>&1; then
  echo "json_query needs jq, which is not installed where the toolshed server runs" \
    "(https://jqlang.github.io/jq/download/)" >&2
  exit 1
fi

args=$(cat)
filter=$(printf '%s' "$args" | jq -r '.filter')
# One compact JSON value per result line. The leading space keeps a filter that starts
# with "-" from being taken for an option (jq 1.6 has no "--").
printf '%s' "$args" | jq '.json' | jq -c " $filter"
