#!/bin/sh
# Starts three Parley nodes on loopback (ports 8081-8083, whatever PORT says) on one Redis (REDIS_URL, default
# redis://127.0.0.1:6379). Every node needs the same admin token. Ctrl-C stops all three gracefully.
# Run from the repository root after `npm run build`: sh examples/cluster/start.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
: "${PARLEY_ADMIN_TOKEN:=example-cluster-admin-token-0123}"
export PARLEY_ADMIN_TOKEN
pids=""
# Each node's own settings come from its file: variables of the calling shell that would override them
# (PORT above all: one PORT for three nodes made the second die with EADDRINUSE) are cleared for the
# nodes, and PORT is set to the node's port.
for n in 1 2 3; do
  env -u HOST -u PARLEY_DATA_DIR -u PARLEY_PUBLIC_URL -u PARLEY_NODE_ID -u PARLEY_ADVERTISE_URL \
    PORT="808$n" PARLEY_CONFIG="$here/node$n.json" node "$here/../../packages/distribution/bin/parley-server.js" &
  pids="$pids $!"
done
trap 'kill -TERM $pids 2>/dev/null; wait' INT TERM
wait
