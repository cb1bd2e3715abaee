#!/bin/sh
# The web SDK's browser tests (packages/web-sdk/test/browser) drive Debian's Chromium through
# playwright-core; `playwright install` cannot download a browser here, so the distribution package
# is used, with Debian's CJK font (fonts-noto-cjk) so Japanese pages render and can be looked at in
# screenshots. Installs what is missing only; needs root (CI images run as root) or sudo.
set -eu

has_cjk_font() {
  dpkg -s fonts-noto-cjk >/dev/null 2>&1
}

if [ -x /usr/bin/chromium ] && has_cjk_font; then
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

echo "ensure-chromium: installing chromium and fonts-noto-cjk"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium fonts-noto-cjk
/usr/bin/chromium --version
