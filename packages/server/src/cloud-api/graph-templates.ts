import { ValidationError } from '@parley/core';
import { s, type JsonSchema } from '../http/schema.js';
import { LANGUAGE_CODE, TEMPLATE_NAME, type TemplateFields } from './cloud-templates.js';
import type { CloudTemplate, TemplateButton } from './template-render.js';

/** Meta writes the kinds upper-case (`BODY`, `QUICK_REPLY`); clients send either case. */
const eitherCase = (values: readonly string[], extra: Record<string, unknown> = {}): JsonSchema => s.enum([...values, ...values.map((v) => v.toLowerCase())], extra);
const CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;

/** A component of `POST /{version}/{waba-id}/message_templates` as Meta documents it (`example` members are accepted and not kept). */
interface GraphComponent {
  type: string;
  format?: string;
  text?: string;
  example?: unknown;
  buttons?: { type: string; text: string; url?: string; phone_number?: string; example?: unknown }[];
}

/** The body of `POST /{version}/{waba-id}/message_templates` (Meta's create-template request). */
export interface GraphTemplateCreate {
  name: string;
  language: string;
  category: string;
  allow_category_change?: boolean;
  parameter_format?: string;
  components: GraphComponent[];
}

export const graphTemplateCreateSchema = s.object({
  name: s.string({ pattern: TEMPLATE_NAME, examples: ['order_update'], description: 'Lower-case letters, digits and underscores.' }),
  language: s.string({ pattern: LANGUAGE_CODE, examples: ['pt_BR'] }),
  category: eitherCase(CATEGORIES, { description: 'Kept and listed; Parley approves every category alike.' }),
  allow_category_change: s.boolean(),
  parameter_format: eitherCase(['POSITIONAL', 'NAMED']),
  components: s.array(s.object({
    type: eitherCase(['HEADER', 'BODY', 'FOOTER', 'BUTTONS']),
    format: s.string({ maxLength: 32, description: 'Header format: only TEXT is rendered.' }),
    text: s.text(1024),
    example: {},
    buttons: s.array(s.object({
      type: s.string({ minLength: 1, maxLength: 32, description: 'QUICK_REPLY or URL (the kinds Parley renders).' }),
      text: s.text(25), url: s.text(2000, { pattern: '^https?://' }), phone_number: s.string({ maxLength: 32 }), example: {},
    }, ['type', 'text']), { minItems: 1, maxItems: 3 }),
  }, ['type']), { minItems: 1, maxItems: 4 }),
}, ['name', 'language', 'category', 'components'], {
  examples: [{
    name: 'order_update', language: 'en_US', category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Hello {{1}}, your order {{2}} has shipped.', example: { body_text: [['Ana', '4711']] } }, { type: 'FOOTER', text: 'Parley store' }],
  }],
});

function refuse(field: string, problem: string): never {
  throw new ValidationError(`${field} ${problem}`, { fields: [{ field, message: problem }] });
}

/**
 * A Graph API create-template request as a Parley template, and the fields its parts came from (for
 * the refusals of {@link checkTemplate}). What Parley cannot render is refused naming the field: media,
 * location headers, buttons other than quick replies and links, a component twice, no body.
 */
export function fromGraph(body: GraphTemplateCreate): { template: Omit<CloudTemplate, 'id'>; fields: TemplateFields } {
  const at = (kind: string) => body.components.findIndex((c) => c.type.toUpperCase() === kind);
  body.components.forEach((c, i) => {
    if (body.components.findIndex((o) => o.type.toUpperCase() === c.type.toUpperCase()) !== i) refuse(`body.components[${i}].type`, `repeats ${c.type.toUpperCase()}: a template has one of each component`);
  });
  const part = (kind: string) => (at(kind) < 0 ? undefined : body.components[at(kind)]!);
  const textOf = (kind: string, max: number): string | undefined => {
    const c = part(kind);
    if (!c) return undefined;
    if (kind === 'HEADER' && (c.format ?? 'TEXT').toUpperCase() !== 'TEXT') refuse(`body.components[${at(kind)}].format`, `${c.format} is not supported: Parley renders text headers only`);
    if (c.text === undefined) refuse(`body.components[${at(kind)}].text`, 'is required');
    if (c.text.length > max) refuse(`body.components[${at(kind)}].text`, `must NOT have more than ${max} characters`);
    return c.text;
  };
  if (at('BODY') < 0) refuse('body.components', 'needs a BODY component');
  const header = textOf('HEADER', 60);
  const text = textOf('BODY', 1024)!;
  const footer = textOf('FOOTER', 60);
  const buttonsAt = at('BUTTONS');
  const given = part('BUTTONS')?.buttons;
  if (buttonsAt >= 0 && !given) refuse(`body.components[${buttonsAt}].buttons`, 'is required');
  const buttons = given?.map((b, i): TemplateButton => {
    const kind = b.type.toUpperCase();
    if (kind === 'QUICK_REPLY') return { type: 'quick_reply', text: b.text };
    if (kind === 'URL') return { type: 'url', text: b.text, url: b.url ?? '' };
    return refuse(`body.components[${buttonsAt}].buttons[${i}].type`, `${b.type} is not supported: Parley renders QUICK_REPLY and URL buttons`);
  });
  const field = (kind: string) => `body.components[${at(kind)}].text`;
  return {
    template: {
      name: body.name, language: body.language, category: body.category.toUpperCase(), body: text,
      ...(header === undefined ? {} : { header }), ...(footer === undefined ? {} : { footer }), ...(buttons ? { buttons } : {}),
    },
    fields: { header: field('HEADER'), body: field('BODY'), buttons: `body.components[${buttonsAt}].buttons`, button: (i) => `body.components[${buttonsAt}].buttons[${i}]` },
  };
}

/** A template as the Graph API's `message_templates` lists it (what Chatwoot's template sync reads); server-wide ones are UTILITY. */
export function toGraph(t: CloudTemplate): Record<string, unknown> {
  return {
    id: t.id ?? `${t.name}:${t.language}`, name: t.name, language: t.language, status: 'APPROVED', category: t.category ?? 'UTILITY',
    components: [
      ...(t.header ? [{ type: 'HEADER', format: 'TEXT', text: t.header }] : []),
      { type: 'BODY', text: t.body },
      ...(t.footer ? [{ type: 'FOOTER', text: t.footer }] : []),
      ...(t.buttons ? [{ type: 'BUTTONS', buttons: t.buttons.map((b) => (b.type === 'url' ? { type: 'URL', text: b.text, url: b.url } : { type: 'QUICK_REPLY', text: b.text })) }] : []),
    ],
  };
}
