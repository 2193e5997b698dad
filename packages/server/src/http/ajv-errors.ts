import type { ErrorObject } from 'ajv';

/** Turns an ajv JSON pointer into a dotted field path under `root` (`/buttons/0/id` → `body.buttons[0].id`). */
export function fieldPath(root: string, instancePath: string): string {
  if (!instancePath) return root;
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), root);
}

/** One readable sentence per ajv error, naming the field. */
export function describeAjvError(error: ErrorObject, root: string): { field: string; message: string } {
  const base = fieldPath(root, error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: `${base}.${String(p.missingProperty)}`, message: `${base}.${String(p.missingProperty)} is required` };
    case 'additionalProperties':
      return { field: `${base}.${String(p.additionalProperty)}`, message: `${base}.${String(p.additionalProperty)} is not allowed` };
    case 'enum':
      return { field: base, message: `${base} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'type':
      return { field: base, message: `${base} must be ${String(p.type)}` };
    default:
      return { field: base, message: `${base} ${error.message ?? 'is invalid'}` };
  }
}

/** All errors joined in one message. */
export function formatAjvErrors(errors: ErrorObject[], root: string): string {
  const seen = new Set<string>();
  return errors
    .filter((e) => e.keyword !== 'if')
    .map((e) => describeAjvError(e, root).message)
    .filter((m) => (seen.has(m) ? false : (seen.add(m), true)))
    .join('; ');
}
