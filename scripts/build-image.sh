#!/usr/bin/env bash
# Builds what Parley's container image runs into one directory: the Dockerfile's build stage runs this
# script and copies the directory into the image, and CI runs it on the machine and starts the server
# from the directory (test/e2e/container-image.test.ts), so what the image holds is what was tested.
#
# Usage: scripts/build-image.sh [--reuse] <output directory>
#
# 1. Install: `npm ci --ignore-scripts` (every install script of the tree is one package.json
#    "allowScripts" denies: better-sqlite3's node-gyp rebuild, which its bundled Node-API binaries make
#    needless, and telemetry or postinstall hooks; ignoring them does not depend on the npm version
#    knowing allowScripts). With --reuse, a checkout whose node_modules is installed keeps it (CI, after
#    its own install).
# 2. Build: `npm run build` (TypeScript and the dashboard; incremental, so quick after a build).
# 3. Prune into <output directory>: the root manifest limited to the workspaces the server and the
#    `parley` command need (every package and plugin but @parley/testkit; no tests, benchmarks or
#    examples), each with package.json and what its "files" lists, the lockfile, .npmrc, docs/ (the guides the server renders) and a copy of
#    node_modules from which `npm prune --omit=dev` removes the development dependencies and everything
#    only the left-out workspaces need. The checkout itself is not changed.
set -euo pipefail
cd "$(dirname "$0")/.."

reuse=0
if [ "${1:-}" = "--reuse" ]; then
  reuse=1
  shift
fi
out="${1:?usage: scripts/build-image.sh [--reuse] <output directory>}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

if [ "$reuse" = 0 ] || [ ! -d node_modules/@parley/server ]; then
  npm ci --ignore-scripts --no-audit --no-fund
fi
npm run build --silent

workspaces=()
for dir in packages/* plugins/*; do
  [ "$dir" = packages/testkit ] || workspaces+=("$dir")
done

rm -rf "$out"
mkdir -p "$out"
cp package-lock.json .npmrc "$out"/
# The root manifest of the image: its workspaces only, no development dependencies or build scripts.
node -e '
  const { readFileSync, writeFileSync } = require("node:fs");
  const [out, ...workspaces] = process.argv.slice(1);
  const { devDependencies, scripts, ...manifest } = JSON.parse(readFileSync("package.json", "utf8"));
  manifest.workspaces = workspaces;
  writeFileSync(`${out}/package.json`, JSON.stringify(manifest, null, 2) + "\n");
' "$out" "${workspaces[@]}"
for dir in "${workspaces[@]}"; do
  mkdir -p "$out/$dir"
  cp "$dir/package.json" "$out/$dir/"
  # What the package publishes ("files"); a package without the list would publish everything.
  files="$(node -p 'const f = require(process.argv[1]).files; f ? f.join("\n") : ""' "$PWD/$dir/package.json")"
  [ -n "$files" ] || { echo "$dir/package.json lists no \"files\"" >&2; exit 1; }
  while IFS= read -r entry; do
    [ -e "$dir/$entry" ] || { echo "$dir/$entry is missing: was the build complete?" >&2; exit 1; }
    mkdir -p "$out/$dir/$(dirname "$entry")"
    cp -R "$dir/$entry" "$out/$dir/$entry"
  done <<<"$files"
done
# Compiled tests ride along in dist/ next to dist/src when a "files" entry is a whole dist folder.
find "$out" -path '*/dist/test' -prune -exec rm -rf {} +
find "$out" \( -name '*.tsbuildinfo' -o -name '*.map' \) -delete

# The guides and reference pages the server renders under /docs/guides and /docs/reference.
cp -R docs "$out"/
cp -R node_modules "$out"/
(cd "$out" && npm prune --omit=dev --ignore-scripts --no-audit --no-fund)
echo "image content in $out: $(du -sh "$out" | cut -f1)"
