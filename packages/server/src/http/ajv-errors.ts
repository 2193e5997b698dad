import type { ErrorObject } from 'ajv';

/**
 * Sentences for the patterns and formats whose rule a handler also states: a schema that enforces
 * the rule (so the OpenAPI document shows it) answers the same words the handler would.
 */
const PATTERN_RULES = new Map<string, string>();
const FORMAT_RULES: Record<string, string> = { uri: 'must be an absolute URL' };

/** Registers the sentence a failed `pattern` answers (schemas whose pattern mirrors a handler's rule). */
export function describePattern(pattern: string, rule: string): string {
  PATTERN_RULES.set(pattern, rule);
  return pattern;
}

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
    case 'pattern': {
      const rule = PATTERN_RULES.get(String(p.pattern));
      return { field: base, message: rule ? `${base} ${rule}` : `${base} ${error.message ?? 'is invalid'}` };
    }
    case 'format': {
      const rule = FORMAT_RULES[String(p.format)];
      return { field: base, message: rule ? `${base} ${rule}` : `${base} ${error.message ?? 'is invalid'}` };
    }
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
