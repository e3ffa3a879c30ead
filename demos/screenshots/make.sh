#!/usr/bin/env bash
# Regenerates the pictures the README and docs/ show, from a build: a still of every scene at
# frame 200 (the viewer's test mode: fixed 1/60 s steps, the same picture on every run of one
# machine; 4x multisampled, as a live window draws), one of your own mesh, and, when ffmpeg
# is installed (apt-get install ffmpeg), an animated GIF of the headline scenes from the
# viewer's --record frames.
# usage: demos/screenshots/make.sh [BUILD_DIR]   (default build; without a display it uses
# xvfb-run, and Mesa's software renderer draws the same pictures)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
viewer="$build/demos/pbd-viewer"
out=demos/screenshots
run() {
  if [ -n "${DISPLAY:-}" ]; then
    "$viewer" "$@" >/dev/null
  else
    xvfb-run -a -s '-screen 0 1280x720x24' "$viewer" "$@" >/dev/null
  fi
}
for scene in $("$build/demos/pbd-sim" --list); do
  run --scene "$scene" --size 960x540 --samples 4 --frames 200 --screenshot "$out/$scene.png"
  echo "$out/$scene.png"
done
run --cloth demos/meshes/tablecloth.obj --sphere --size 960x540 --samples 4 --frames 200 --screenshot "$out/your-mesh.png"
echo "$out/your-mesh.png"
# The material presets in hang, each with its look (small, without the panel).
for material in silk cotton denim leather rubber; do
  run --scene hang --material "$material" --size 480x270 --samples 4 --frames 200 --keys 0:tab \
    --screenshot "$out/material-$material.png"
  echo "$out/material-$material.png"
done
if ! command -v ffmpeg >/dev/null; then
  echo "no ffmpeg: the animations are left as they are (apt-get install ffmpeg)"
  exit 0
fi
for scene in drape twist cape tear; do
  frames=$(mktemp -d)
  # 20 pictures a second of the 60 Hz run, on one palette made for the clip. The cape's
  # camera runs with the character, so every picture differs everywhere: smaller, 12 a
  # second, and only the changed rectangle of each, to keep the file near a megabyte.
  size=480x270 count=240
  filter="fps=20,split[a][b];[a]palettegen=max_colors=96[p];[b][p]paletteuse=dither=bayer:bayer_scale=3"
  if [ "$scene" = cape ]; then
    size=360x202 count=180
    filter="fps=12,split[a][b];[a]palettegen=max_colors=48:stats_mode=diff[p];[b][p]paletteuse=dither=none:diff_mode=rectangle"
  fi
  run --scene "$scene" --size "$size" --samples 4 --frames "$count" --keys 0:tab --record "$frames"
  ffmpeg -loglevel error -y -framerate 60 -i "$frames/frame_%05d.png" -vf "$filter" "$out/$scene.gif"
  rm -rf "$frames"
  echo "$out/$scene.gif"
done
