#!/bin/sh
# The web SDK's browser tests (packages/web-sdk/test/browser) drive Debian's Chromium through
# playwright-core; `playwright install` cannot download a browser here, so the distribution package
# is used. Installs it only when missing; needs root (CI images run as root) or sudo.
set -eu

if [ -x /usr/bin/chromium ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "ensure-chromium: /usr/bin/chromium is missing and this user cannot install packages" >&2
  exit 1
fi

echo "ensure-chromium: installing the chromium package"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium
/usr/bin/chromium --version
