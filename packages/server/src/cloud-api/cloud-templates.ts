import { NotFoundError, ParleyError, ValidationError, type Storage } from '@parley/core';
import { s } from '../http/schema.js';
import type { ParleySend } from './parley-send.js';

/** A button of a template: a quick reply (its payload is sent back by the recipient's tap) or a link. */
export type TemplateButton = { type: 'quick_reply'; text: string } | { type: 'url'; text: string; url: string };

/**
 * An operator-defined template (docs/cloud-api.md): what Meta's approved templates are to a Cloud API
 * integration, stored in Parley and rendered to an ordinary message. `{{1}}`, `{{2}}`… (or named
 * `{{first_name}}`) in the header, the body and a url button's url are filled by the send's parameters.
 */
export interface CloudTemplate {
  name: string;
  language: string;
  header?: string;
  body: string;
  footer?: string;
  buttons?: TemplateButton[];
}

/** The template member of a Cloud API send (the parameters Parley renders: text, and payloads of quick replies). */
export interface TemplateSend {
  name: string;
  language: { code: string };
  components?: { type: 'header' | 'body' | 'button'; sub_type?: string; index?: string | number; parameters?: { type: 'text' | 'payload'; text?: string; payload?: string; parameter_name?: string }[] }[];
}

type TemplateParameter = NonNullable<NonNullable<TemplateSend['components']>[number]['parameters']>[number];

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const NAMESPACE = 'cloud-api:templates';

/** The admin API's template body (PUT /admin/cloud-api/templates/{name}/{language}). */
export const templateSchema = s.object({
  header: s.text(60, { description: 'Text header; may hold placeholders.' }),
  body: s.text(1024, { description: 'The message text, with `{{1}}`… or named `{{name}}` placeholders.' }),
  footer: s.text(60),
  buttons: s.array(s.object({
    type: s.enum(['quick_reply', 'url']), text: s.text(25),
    url: s.text(2000, { pattern: '^https?://', description: 'url buttons: the link, whose end may be one placeholder (`https://example.com/order/{{1}}`).' }),
  }, ['type', 'text']), { minItems: 1, maxItems: 3 }),
}, ['body'], { examples: [{ header: 'Order {{1}}', body: 'Hello {{1}}, your order {{2}} has shipped.', footer: 'Parley store', buttons: [{ type: 'url', text: 'Track', url: 'https://example.com/track/{{1}}' }] }] });

/** A stored template as the admin API answers it. */
export const templateView = s.openObject({ name: s.string(), language: s.string(), header: s.string(), body: s.string(), footer: s.string(), buttons: s.array(s.anyObject()) }, ['name', 'language', 'body']);

/** Template name and language code as Meta names them (`order_update`, `pt_BR`). */
export const TEMPLATE_NAME = '^[a-z0-9_]{1,512}$';
export const LANGUAGE_CODE = '^[a-z]{2,3}(_[A-Z]{2,4})?$';

/** The placeholders of a text, in order of first appearance. */
function placeholders(text: string | undefined): string[] {
  return [...new Set([...(text ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** Positional placeholders are `{{1}}`…`{{n}}` without gaps, or every placeholder is named (Meta's two styles). */
function checkPlaceholders(text: string | undefined, field: string): void {
  const names = placeholders(text);
  const numeric = names.filter((n) => /^\d+$/.test(n));
  if (numeric.length > 0 && numeric.length !== names.length) throw new ValidationError(`body.${field} mixes numbered and named placeholders`, { fields: [{ field: `body.${field}`, message: 'mixes numbered and named placeholders' }] });
  const sorted = numeric.map(Number).sort((a, b) => a - b);
  if (sorted.some((n, i) => n !== i + 1)) throw new ValidationError(`body.${field} must number its placeholders {{1}} to {{${sorted.length}}} without gaps`, { fields: [{ field: `body.${field}`, message: 'numbers its placeholders with gaps' }] });
}

/** The stored templates (server-wide, in the state repository) and their rendering. */
export class TemplateStore {
  constructor(private readonly storage: Pick<Storage, 'state'>) {}

  /** Creates or replaces a template after checking its placeholders and buttons (400 naming the field). */
  async put(name: string, language: string, input: Omit<CloudTemplate, 'name' | 'language'>): Promise<CloudTemplate> {
    checkPlaceholders(input.header, 'header');
    checkPlaceholders(input.body, 'body');
    const buttons = input.buttons ?? [];
    if (new Set(buttons.map((b) => b.type)).size > 1) throw new ValidationError('body.buttons must be all quick_reply or all url: a message carries one kind', { fields: [{ field: 'body.buttons', message: 'mixes quick_reply and url' }] });
    buttons.forEach((b, i) => {
      if (b.type === 'url' && !('url' in b && b.url)) throw new ValidationError(`body.buttons[${i}].url is required for a url button`, { fields: [{ field: `body.buttons[${i}].url`, message: 'is required' }] });
      if (b.type === 'url' && placeholders(b.url).length > 1) throw new ValidationError(`body.buttons[${i}].url may hold one placeholder`, { fields: [{ field: `body.buttons[${i}].url`, message: 'holds more than one placeholder' }] });
      if (b.type === 'quick_reply' && 'url' in b) throw new ValidationError(`body.buttons[${i}].url is for url buttons only`, { fields: [{ field: `body.buttons[${i}].url`, message: 'is for url buttons only' }] });
    });
    const template: CloudTemplate = { name, language, ...input };
    await this.storage.state.put(NAMESPACE, `${name}:${language}`, template);
    return template;
  }

  async get(name: string, language: string): Promise<CloudTemplate | null> {
    return this.storage.state.get<CloudTemplate>(NAMESPACE, `${name}:${language}`);
  }

  async list(): Promise<CloudTemplate[]> {
    return (await this.storage.state.list<CloudTemplate>(NAMESPACE)).map((d) => d.value);
  }

  async delete(name: string, language: string): Promise<boolean> {
    return this.storage.state.delete(NAMESPACE, `${name}:${language}`);
  }

  /** The Parley send of a Cloud API template message: 404 template_not_found, 400 template_param_mismatch. */
  async render(to: string, send: TemplateSend): Promise<ParleySend> {
    const t = await this.get(send.name, send.language.code);
    if (!t) throw new NotFoundError(`template ${send.name} in ${send.language.code}`, 'template_not_found');
    const of = (type: string) => (send.components ?? []).filter((c) => c.type === type);
    const header = fill(t.header, of('header')[0]?.parameters, 'header');
    const body = fill(t.body, of('body')[0]?.parameters, 'body')!;
    const footer = t.footer ? { footer: t.footer } : {};
    const buttons = t.buttons ?? [];
    const buttonParams = (i: number) => of('button').find((c) => Number(c.index) === i)?.parameters;
    if (buttons[0]?.type === 'url') {
      const links = buttons.map((b, i) => ({ type: 'cta_url' as const, text: b.text, url: fill((b as { url: string }).url, buttonParams(i), `button ${i}`)! }));
      return { suffix: 'button_action', body: { to, ...(header ? { header: { title: header } } : {}), ...footer, text: body, buttons: links } };
    }
    if (buttons.length > 0) {
      // The id a tap sends back: the button's payload parameter, else its text (Meta's default payload).
      const replies = buttons.map((b, i) => ({ type: 'quick_reply' as const, id: buttonParams(i)?.find((p) => p.type === 'payload')?.payload ?? b.text, text: b.text }));
      return { suffix: 'button_reply', body: { to, ...(header ? { header: { title: header } } : {}), ...footer, text: body, buttons: replies } };
    }
    if (header) return { suffix: 'title', body: { to, title: header, text: body, ...footer } };
    return { suffix: 'text', body: { to, text: t.footer ? `${body}\n\n${t.footer}` : body } };
  }
}

/** A text with its placeholders filled: positional parameters in order, named ones by parameter_name. */
function fill(text: string | undefined, parameters: TemplateParameter[] | undefined, where: string): string | undefined {
  const names = placeholders(text);
  const given = (parameters ?? []).filter((p) => p.type === 'text');
  if (given.length !== names.length) {
    throw new ParleyError(400, 'template_param_mismatch', `the template's ${where} has ${names.length} parameter(s); ${given.length} given`);
  }
  if (text === undefined || names.length === 0) return text;
  const named = !/^\d+$/.test(names[0]!);
  const values = new Map(names.map((name, i) => {
    const param = named ? given.find((p) => p.parameter_name === name) : given[Number(name) - 1] ?? given[i];
    if (!param || param.text === undefined) throw new ParleyError(400, 'template_param_mismatch', `the template's ${where} has no value for {{${name}}}`);
    return [name, param.text];
  }));
  return text.replace(PLACEHOLDER, (_m, name: string) => values.get(name)!);
}
