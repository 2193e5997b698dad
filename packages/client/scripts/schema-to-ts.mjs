// JSON Schema → TypeScript type printer for the client generator. It covers the subset of JSON
// Schema the server's route schemas use (http/schema.ts): type (also as a list), const, enum,
// anyOf/oneOf/allOf, object (properties, required, additionalProperties), array (items), $ref to
// components, plus `format: binary` strings (bytes) and descriptions (printed as TSDoc).

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TSDoc comment of a description, or nothing. */
function doc(description, indent) {
  if (typeof description !== 'string' || !description.trim()) return '';
  const text = description.trim().replace(/\*\//g, '*\u200b/');
  const lines = text.split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function literal(value) {
  return value === null ? 'null' : JSON.stringify(value);
}

/** Wraps a union or intersection so it can take `[]` or join another operator. */
function group(type) {
  return /^[\w$.<>[\]'" -]+$/.test(type) && !/[|&]/.test(type) ? type : `(${type})`;
}

function union(types) {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? unique[0] : unique.map((t) => (t.includes('&') && !t.startsWith('{') ? `(${t})` : t)).join(' | ');
}

/**
 * Prints the TypeScript type of a JSON Schema.
 * @param {unknown} schema - the schema.
 * @param {{ indent?: string, refs?: Record<string, string> }} [options] - current indentation; `$ref` targets → type names.
 * @returns {string}
 */
export function schemaToType(schema, options = {}) {
  const indent = options.indent ?? '';
  const refs = options.refs ?? {};
  if (schema === true || schema === undefined || schema === null) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object') return 'unknown';
  const s = /** @type {Record<string, any>} */ (schema);
  if (typeof s.$ref === 'string') return refs[s.$ref] ?? 'unknown';
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map(literal));
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return union(branches.map((b) => schemaToType(b, options)));
  if (Array.isArray(s.allOf)) return s.allOf.map((b) => group(schemaToType(b, options))).join(' & ');
  if (Array.isArray(s.type)) return union(s.type.map((type) => schemaToType({ ...s, type }, options)));
  switch (s.type) {
    case 'string':
      return s.format === 'binary' ? 'Uint8Array' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return s.items === undefined ? 'unknown[]' : `${group(schemaToType(s.items, options))}[]`;
    case 'object':
      return objectType(s, indent, refs);
    default:
      return s.properties ? objectType(s, indent, refs) : 'unknown';
  }
}

function objectType(s, indent, refs) {
  const properties = Object.entries(s.properties ?? {});
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const extra = s.additionalProperties;
  if (properties.length === 0) {
    if (extra === false) return 'Record<string, never>';
    if (extra && typeof extra === 'object') return `Record<string, ${schemaToType(extra, { indent, refs })}>`;
    return 'Record<string, unknown>';
  }
  const inner = `${indent}  `;
  const lines = properties.map(([name, prop]) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const optional = required.has(name) ? '' : '?';
    return `${doc(prop?.description, inner)}${inner}${key}${optional}: ${schemaToType(prop, { indent: inner, refs })};`;
  });
  // Declared extra members are typed loosely: the named ones above stay precise.
  if (extra && typeof extra === 'object') lines.push(`${inner}[member: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

export { doc as tsDoc };
