#!/usr/bin/env bash
# expect_exit.sh CODE REGEX -- COMMAND [ARGS...]
# Runs COMMAND and passes only if it exits with CODE and its output (stdout + stderr)
# matches the extended regex REGEX. Used for the bad-input tests of the CLIs.
set -u
want_code=$1
pattern=$2
shift 3
output=$("$@" 2>&1 </dev/null)
code=$?
echo "$output"
if [ "$code" -ne "$want_code" ]; then
  echo "expect_exit: exit code $code, expected $want_code" >&2
  exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$output"; then
  echo "expect_exit: output does not match /$pattern/" >&2
  exit 1
fi
