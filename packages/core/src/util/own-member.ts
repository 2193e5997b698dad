/**
 * The member `name` of a plain object used as a map, when the object holds it itself; undefined
 * otherwise. For names a caller chose (a path's channel, a call id, a label id): `record[name]`
 * would answer what every object inherits for `constructor`, `toString`, `hasOwnProperty` or
 * `__proto__`, so such a name would pass for a known one.
 */
export function ownMember<T>(record: Readonly<Record<string, T>> | Partial<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}
