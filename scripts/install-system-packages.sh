#!/bin/sh
# System packages the test suite needs: a C compiler (Mojo's link step), headless Chromium for
# `chgen preview --png`, a math font, and bubblewrap (the sandbox that spec code and solutions
# run in). Installs
# only what is missing.
set -eu
missing=""
command -v cc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
    || missing="$missing chromium"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$missing fonts-dejavu-core"
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "installing system packages:$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
