#!/bin/sh
# Starts Redis, three toolwright instances and nginx on this machine; prints the URL.
# Everything runs in the foreground of this script; Ctrl-C (or ./stop.sh from another shell)
# stops it all. State (Redis data, tasks.db, logs) goes to ./state.
# Needs: redis-server, nginx, node, and toolwright built (npm run build) or installed.
# Optional: TOOLWRIGHT_AUDIT_POSTGRES=postgres://… sends the audit trail of all three to PostgreSQL;
# TOOLWRIGHT_API_KEY_HASH=sha256:… the hash of your own API key (else start.sh makes a key).
set -eu
cd "$(dirname "$0")"
here=$(pwd)
mkdir -p state/temp
: "${TOOLWRIGHT:=node $here/../../dist/cli/main.js}"
: "${REDIS_PORT:=6390}"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
# Every instance must sign requestState with the same key (docs/scale-out.md).
: "${TOOLWRIGHT_REQUEST_STATE_SECRET:=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}"
export TOOLWRIGHT_REQUEST_STATE_SECRET
# The API key clients send (the config's server.auth.apiKeys takes its hash from the
# environment): yours as TOOLWRIGHT_API_KEY_HASH, else a new key, kept in state/api-key.
if [ -z "${TOOLWRIGHT_API_KEY_HASH:-}" ]; then
  (umask 077 && $TOOLWRIGHT auth hash-key --generate 2>/dev/null >state/api-key.out && sed -n 's/^key: //p' state/api-key.out >state/api-key)
  TOOLWRIGHT_API_KEY_HASH=$(sed -n 's/^hash: //p' state/api-key.out)
  rm -f state/api-key.out
  key_hint="\"Authorization: Bearer \$(cat $here/state/api-key)\""
else
  key_hint='"Authorization: Bearer <your key>"'
fi
export TOOLWRIGHT_API_KEY_HASH

pids=""
stop() {
  trap - INT TERM EXIT
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f state/pids
}
trap stop INT TERM EXIT

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$here/state" --save '' --appendonly no >state/redis.log 2>&1 &
pids="$pids $!"
until redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; do sleep 0.2; done

config=toolwright.config.json
if [ -n "${TOOLWRIGHT_AUDIT_POSTGRES:-}" ]; then
  sed 's|"server": {|"server": { "audit": { "postgres": "${TOOLWRIGHT_AUDIT_POSTGRES}" },|' toolwright.config.json >state/config.json
  cp tools.mjs state/tools.mjs
  config=state/config.json
fi

for port in 3001 3002 3003; do
  PORT=$port TOOLWRIGHT_AUDIT_DIR="$here/state" $TOOLWRIGHT serve --http --port "$port" --config "$config" >"state/instance-$port.log" 2>&1 &
  pids="$pids $!"
done
for port in 3001 3002 3003; do
  until grep -q "serving" "state/instance-$port.log" 2>/dev/null; do sleep 0.2; done
done

nginx -p "$here/state" -c "$here/nginx.conf" -e "$here/state/error.log" &
pids="$pids $!"
echo "$pids" >state/pids
echo "toolwright behind nginx: http://127.0.0.1:8080/mcp  (instances on 3001-3003, Redis on $REDIS_PORT; logs in $here/state)"
echo "try: $TOOLWRIGHT call http://127.0.0.1:8080/mcp where --header $key_hint"
echo "     (each call is a few requests, spread round-robin over the instances)"
wait
