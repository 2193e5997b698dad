#!/bin/sh
# Starts three Parley nodes on loopback (ports 8081-8083) on one Redis (REDIS_URL, default
# redis://127.0.0.1:6379). Every node needs the same admin token. Ctrl-C stops all three gracefully.
# Run from the repository root after `npm run build`: sh examples/cluster/start.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
: "${PARLEY_ADMIN_TOKEN:=example-cluster-admin-token-0123}"
export PARLEY_ADMIN_TOKEN
pids=""
for n in 1 2 3; do
  PARLEY_CONFIG="$here/node$n.json" node "$here/../../packages/server/dist/src/cli.js" &
  pids="$pids $!"
done
trap 'kill -TERM $pids 2>/dev/null; wait' INT TERM
wait
