import semver from 'semver';

/**
 * Why this Node.js cannot run Parley, or undefined when it can. Below the `engines` range's minimum
 * the SQLite binding (Node-API 10) crashes in native code, so the CLI refuses such a Node with a
 * message instead. A newer major than the range names is let through: it is untested, not known broken.
 */
export function unsupportedNode(version: string, engines: string): string | undefined {
  const minimum = semver.minVersion(engines);
  if (!minimum || semver.gte(version, minimum)) return undefined;
  return `Node.js ${engines} is required; this is ${version}`;
}
