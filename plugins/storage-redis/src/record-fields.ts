/** `patch` without its undefined members: an absent field means "not given", never "erase". */
export function definedFields<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [name, value] of Object.entries(patch)) {
    if (value !== undefined) (out as Record<string, unknown>)[name] = value;
  }
  return out;
}

/** Plain code-unit order of ids, the same on every back end. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
