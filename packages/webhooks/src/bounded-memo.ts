/**
 * Values computed once per string key and remembered, up to `limit` keys: past it the memo starts over
 * (keys are webhook URLs, formats and secrets in use, so a few; the bound only stops an unusual
 * stream of them from growing it).
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly limit: number, private readonly compute: (key: string) => V) {}

  /** The value of `key`, computed on its first use since the memo last started over. */
  get(key: string): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = this.compute(key);
      if (this.values.size >= this.limit) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }
}
