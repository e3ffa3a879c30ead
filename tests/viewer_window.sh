# Shared by the tests that drive a live viewer window through the X server with xdotool
# (source it from bash).

# Prints the id of the visible window titled exactly TITLE, waiting up to 30 s; on failure
# says so, stops the viewer PID and returns 1.
viewer_window() {
  local title="$1" pid="$2" wid
  wid=$(timeout 30 xdotool search --sync --onlyvisible --name "^$title\$" 2>/dev/null | head -n 1)
  if [ -z "$wid" ]; then
    echo "the viewer window did not appear" >&2
    kill "$pid" 2>/dev/null
    return 1
  fi
  echo "$wid"
}

# Starts VIEWER on SCENE in a 640 x 360 window (ARGS after it), waits for the window, lets
# the scene run SETTLE seconds and gives the window the focus. Sets pid and wid; returns 1
# when no window came (the viewer is stopped).
open_viewer() {
  local viewer="$1" scene="$2" settle="$3"
  shift 3
  "$viewer" --scene "$scene" --size 640x360 "$@" >/dev/null &
  pid=$!
  wid=$(viewer_window "pbd - $scene" "$pid") || return 1
  sleep "$settle"
  xdotool windowfocus --sync "$wid" 2>/dev/null || true
}

# Sends a real Escape key press and waits up to LIMIT seconds (default 10) for the viewer PID
# to end; returns its exit status, or 1 (after stopping it) when it is still running.
quit_with_escape() {
  local pid="$1" limit="${2:-10}"
  xdotool key Escape
  for _ in $(seq 1 $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "the viewer still runs $limit s after Escape"
    kill -9 "$pid"
    return 1
  fi
  wait "$pid"
}

# Presses the left button at (X, Y) in window WID, pulls it straight down through the rows
# ROWS (fast moves, 50 ms apart), holds 1.5 s and lets go.
drag_down() {
  local wid="$1" x="$2" y="$3" rows="$4"
  xdotool mousemove --window "$wid" "$x" "$y" mousedown 1
  sleep 0.3
  for row in $rows; do
    xdotool mousemove --window "$wid" "$x" "$row"
    sleep 0.05
  done
  sleep 1.5
  xdotool mouseup 1
}
