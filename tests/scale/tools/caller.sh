#!/usr/bin/env bash
# Fixture of tests/oauth_executable_test.ts and tests/scale.ts (check i): a program that says who
# calls it, from what toolshed sets when it knows the caller (--auth-issuer): the OAuth token's
# subject alone on the first line, then its client id and scopes. With {"env": true}, its whole
# environment after them, so that a test can see that the token itself is in none of it.
set -euo pipefail
args=$(cat) # the validated arguments: {"env":true}, {"env":false} or {} (the schema allows no other)
printf '%s\n' "${TOOLSHED_AUTH_SUBJECT-}"
printf 'client_id: %s\n' "${TOOLSHED_AUTH_CLIENT_ID-}"
printf 'scopes: %s\n' "${TOOLSHED_AUTH_SCOPES-}"
if [[ $args == '{"env":true}' ]]; then
  env
fi
