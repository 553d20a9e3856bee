#!/usr/bin/env bash
# tools/whoami_sh.sh: who is calling, for a program. With --auth-issuer, toolshed sets
# TOOLSHED_AUTH_SUBJECT, TOOLSHED_AUTH_CLIENT_ID and TOOLSHED_AUTH_SCOPES (never the token).
set -euo pipefail
cat >/dev/null # the arguments, unused
echo "You are ${TOOLSHED_AUTH_SUBJECT:-nobody}, with the scopes: ${TOOLSHED_AUTH_SCOPES:-(none)}"
