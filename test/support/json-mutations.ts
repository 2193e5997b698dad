/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values a member is replaced with: every JSON type, empty and oversized forms, odd text. */
const REPLACEMENTS: Json[] = [null, true, 0, -1, 1e308, '', 'x'.repeat(70_000), '👍\u0000\u202e', [], [{}], {}, { nested: { deep: [1] } }];

/**
 * Every body made by changing one member of `body`: removed, replaced by each of {@link REPLACEMENTS},
 * or (at the top) joined by an unknown one; `what` names the change.
 */
export function mutations(body: Json, path: string[] = []): { what: string; body: Json }[] {
  const out: { what: string; body: Json }[] = [];
  const at = (value: Json, what: string) => out.push({ what: `${path.join('.') || '(body)'} ${what}`, body: value });
  if (path.length === 0) at({ ...(body as object), unknown_member: 1 }, 'with an unknown member');
  if (body === null || typeof body !== 'object') return out;
  const entries = Array.isArray(body) ? body.map((v, i) => [String(i), v] as const) : Object.entries(body);
  for (const [key, value] of entries) {
    const without = Array.isArray(body) ? body.filter((_, i) => String(i) !== key) : Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
    out.push({ what: `${[...path, key].join('.')} removed`, body: without as Json });
    for (const replacement of REPLACEMENTS) {
      const changed = Array.isArray(body) ? body.map((v, i) => (String(i) === key ? replacement : v)) : { ...body, [key]: replacement };
      out.push({ what: `${[...path, key].join('.')} = ${JSON.stringify(replacement).slice(0, 20)}`, body: changed as Json });
    }
    for (const nested of mutations(value, [...path, key])) {
      const replaced = Array.isArray(body) ? body.map((v, i) => (String(i) === key ? nested.body : v)) : { ...body, [key]: nested.body };
      out.push({ what: nested.what, body: replaced as Json });
    }
  }
  return out;
}

/** Whether an answer is the Cloud API's error envelope with a 4xx status (never a 5xx, never Parley's own envelope). */
export function isCloudRefusal(res: { status: number; body: any }): boolean {
  const error = res.body?.error;
  return res.status >= 400 && res.status < 500 && Object.keys(res.body).length === 1 && Number.isInteger(error?.code)
    && typeof error.message === 'string' && typeof error.fbtrace_id === 'string' && typeof error.error_data?.details === 'string';
}
