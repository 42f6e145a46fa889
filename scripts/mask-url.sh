#!/usr/bin/env bash
# Prints a backend URL with its credentials masked, as the console's maskUrl
# (packages/backend/src/errors.ts) does: everything between `//` and the LAST `@` is
# credentials (a password may hold `@`, `:` or `/`); only a user name before the first
# `:` stays. Used by start.sh; packages/backend/src/errors.test.ts checks both agree.
#   mask_url 'redis://app:p@ss@redis-host:6379/0'   ->  redis://app:***@redis-host:6379/0
mask_url() {
  local url="$1" scheme rest userinfo host
  case "$url" in
    *://*) ;;
    *) printf '%s\n' "$url"; return ;;
  esac
  scheme="${url%%://*}"
  if ! [[ "$scheme" =~ ^[A-Za-z][A-Za-z0-9+.-]*$ ]]; then printf '%s\n' "$url"; return; fi
  rest="${url#*://}"
  case "$rest" in
    *@*) ;;
    *) printf '%s\n' "$url"; return ;;
  esac
  userinfo="${rest%@*}" # up to the last @
  host="${rest##*@}"
  case "$userinfo" in
    *:*) printf '%s://%s:***@%s\n' "$scheme" "${userinfo%%:*}" "$host" ;;
    *) printf '%s://***@%s\n' "$scheme" "$host" ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  mask_url "${1-}"
fi
