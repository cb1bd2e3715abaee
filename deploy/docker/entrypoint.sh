#!/bin/sh
# Runs the container's command with ENCRYPTION_KEY and API_KEY_PEPPER taken, when they are not set,
# from files in $WEBPUSH_SECRETS_DIR. With WEBPUSH_GENERATE_SECRETS=1 (the first-run step of
# docker-compose.yml) a missing file is first created with 32 random bytes, base64: generated once,
# reused afterwards. Variables that are set always win.
set -eu

secrets_dir="${WEBPUSH_SECRETS_DIR:-}"
if [ -n "$secrets_dir" ]; then
  for name in ENCRYPTION_KEY API_KEY_PEPPER; do
    file="$secrets_dir/$(echo "$name" | tr 'A-Z_' 'a-z-')"
    eval "current=\${$name:-}"
    if [ -n "$current" ]; then continue; fi
    if [ ! -s "$file" ] && [ "${WEBPUSH_GENERATE_SECRETS:-0}" = "1" ]; then
      (umask 077 && head -c 32 /dev/urandom | base64 > "$file.tmp" && mv "$file.tmp" "$file")
      echo "generated $name into $file" >&2
    fi
    if [ -s "$file" ]; then
      export "$name=$(cat "$file")"
    fi
  done
fi

exec "$@"
