import { lookup } from 'node:dns/promises';

/** Every address of a host name (the system resolver by default; tests point names at addresses). */
export type ResolveHost = (host: string) => Promise<string[]>;

/** The system resolver. */
export const systemResolve: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);
