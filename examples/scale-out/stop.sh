#!/bin/sh
# Stops what start.sh started (when it runs in another shell).
cd "$(dirname "$0")"
[ -f state/pids ] || { echo "nothing to stop (no state/pids)"; exit 0; }
for pid in $(cat state/pids); do kill "$pid" 2>/dev/null || true; done
rm -f state/pids
