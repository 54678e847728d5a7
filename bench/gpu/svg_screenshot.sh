#!/bin/sh
# A PNG screenshot of a flame graph SVG (`tracer --flame FILE.svg`), drawn by headless
# Chromium (Debian's chromium), for bench/gpu-runs/ and docs/flame.md (issue 47):
#
#     sh bench/gpu/svg_screenshot.sh GRAPH.svg OUT.png [SEARCH]
#
# The page is 1200 pixels wide, as the graph is drawn, and as tall as the graph. With
# SEARCH (a regular expression), the screenshot shows the graph's own search for it made
# (its matches magenta, the share they cover at the bottom right).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 GRAPH.svg OUT.png [SEARCH]" >&2; exit 2; }
svg=$1
out=$2
search=${3:-}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "svg_screenshot.sh: Cannot find chromium (apt-get install chromium)" >&2; exit 1; }
[ -r "$svg" ] || { echo "svg_screenshot.sh: Cannot read $svg" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The SVG's height is in its root element: the screenshot is that tall.
height=$(sed -n 's/.*<svg[^>]* height="\([0-9.]*\)".*/\1/p' "$svg" | head -n 1 | cut -d. -f1)
height=${height:-800}
cp "$svg" "$tmp/graph.svg"
if [ -n "$search" ]; then
  # The graph's search (flame_svg.c) asks for its term with prompt(): answered here.
  escaped=$(printf '%s' "$search" | sed 's/[\\&|]/\\&/g; s/"/\\\\"/g')
  sed -i "s|</svg>|<script>window.addEventListener('load', function () { setTimeout(function () { window.prompt = function () { return \"$escaped\"; }; search(); }, 0); });</script></svg>|" \
    "$tmp/graph.svg"
fi
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=3000 \
  --window-size="1200,$height" --screenshot="$tmp/shot.png" "file://$tmp/graph.svg" \
  >"$tmp/chromium.log" 2>&1 || { cat "$tmp/chromium.log" >&2; exit 1; }
[ -s "$tmp/shot.png" ] || { echo "svg_screenshot.sh: Chromium wrote no screenshot" >&2; cat "$tmp/chromium.log" >&2; exit 1; }
cp "$tmp/shot.png" "$out"
echo "svg_screenshot.sh: $out (1200x$height)"
