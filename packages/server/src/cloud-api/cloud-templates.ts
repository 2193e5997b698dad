import { KeyedSerialQueue, NotFoundError, ParleyError, ValidationError, type Storage } from '@parley/core';
import { s } from '../http/schema.js';
import type { ParleySend } from './parley-send.js';
import { placeholders, renderTemplate, type CloudTemplate, type TemplateSend } from './template-render.js';

/** Server-wide templates (the admin API's); a business account's are under `<instance id>:cloud-api:templates`, cleared with the instance. */
const SERVER_NAMESPACE = 'cloud-api:templates';
const namespaceOf = (owner: TemplateOwner) => (owner === SERVER ? SERVER_NAMESPACE : `${owner}:cloud-api:templates`);

/** Whose templates: the server's (the admin API) or an instance's (its business account on the Graph paths). */
export type TemplateOwner = typeof SERVER | string;
export const SERVER = Symbol('server-wide templates');

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

/** The request fields a template's parts came from, named in a refusal (`body.header` on the admin API, `body.components[0].text` on the Graph path). */
export interface TemplateFields {
  header: string;
  body: string;
  buttons: string;
  button: (index: number) => string;
}

const ADMIN_FIELDS: TemplateFields = { header: 'body.header', body: 'body.body', buttons: 'body.buttons', button: (i) => `body.buttons[${i}]` };

function refuse(field: string, problem: string): never {
  throw new ValidationError(`${field} ${problem}`, { fields: [{ field, message: problem }] });
}

/** Positional placeholders are `{{1}}`…`{{n}}` without gaps, or every placeholder is named (Meta's two styles). */
function checkPlaceholders(text: string | undefined, field: string): void {
  const names = placeholders(text);
  const numeric = names.filter((n) => /^\d+$/.test(n));
  if (numeric.length > 0 && numeric.length !== names.length) refuse(field, 'mixes numbered and named placeholders');
  const sorted = numeric.map(Number).sort((a, b) => a - b);
  if (sorted.some((n, i) => n !== i + 1)) refuse(field, `must number its placeholders {{1}} to {{${sorted.length}}} without gaps`);
}

/** Checks a template's placeholders and buttons (400 naming the field); nothing is stored on a refusal. */
export function checkTemplate(input: Omit<CloudTemplate, 'name' | 'language'>, fields: TemplateFields = ADMIN_FIELDS): void {
  checkPlaceholders(input.header, fields.header);
  checkPlaceholders(input.body, fields.body);
  const buttons = input.buttons ?? [];
  if (new Set(buttons.map((b) => b.type)).size > 1) refuse(fields.buttons, 'must be all quick_reply or all url: a message carries one kind');
  buttons.forEach((b, i) => {
    const field = `${fields.button(i)}.url`;
    if (b.type === 'url' && !('url' in b && b.url)) refuse(field, 'is required for a url button');
    if (b.type === 'url' && placeholders(b.url).length > 1) refuse(field, 'may hold one placeholder');
    if (b.type === 'quick_reply' && 'url' in b) refuse(field, 'is for url buttons only');
  });
}

/**
 * The stored templates: the server's (every instance may send them) and each instance's own (its
 * business account's, managed on the Graph paths), in the state repository, and their rendering.
 * One store per server: its {@link create} is atomic only against creates through the same store.
 */
export class TemplateStore {
  /**
   * Creates by owner, one at a time: the state repository has no put-if-absent, so a create's check
   * and write must not interleave with another's (on Redis or PostgreSQL racing creates all read
   * "absent" first). In a cluster an instance's Graph paths are served by its owner node only.
   */
  private readonly creates = new KeyedSerialQueue();

  constructor(private readonly storage: Pick<Storage, 'state'>) {}

  /** Stores a template (replacing one of the same name and language) after {@link checkTemplate}. */
  async put(owner: TemplateOwner, template: CloudTemplate, fields?: TemplateFields): Promise<CloudTemplate> {
    checkTemplate(template, fields);
    await this.storage.state.put(namespaceOf(owner), `${template.name}:${template.language}`, template);
    return template;
  }

  /** Stores a template of a name and language the owner has none of: 400 `template_exists` otherwise (the Graph API's create). */
  create(owner: TemplateOwner, template: CloudTemplate, fields?: TemplateFields): Promise<CloudTemplate> {
    return this.creates.run(namespaceOf(owner), async () => {
      if (await this.get(owner, template.name, template.language)) {
        throw new ParleyError(400, 'template_exists', `template ${template.name} in ${template.language} exists already: delete it to create it anew`);
      }
      return this.put(owner, template, fields);
    });
  }

  async get(owner: TemplateOwner, name: string, language: string): Promise<CloudTemplate | null> {
    return this.storage.state.get<CloudTemplate>(namespaceOf(owner), `${name}:${language}`);
  }

  /** The owner's templates, by name then language. */
  async list(owner: TemplateOwner): Promise<CloudTemplate[]> {
    return (await this.storage.state.list<CloudTemplate>(namespaceOf(owner))).map((d) => d.value);
  }

  async delete(owner: TemplateOwner, name: string, language: string): Promise<boolean> {
    return this.storage.state.delete(namespaceOf(owner), `${name}:${language}`);
  }

  /** What an instance may send: its own templates, then the server's of a name and language it has none of. */
  async available(instanceId: string): Promise<CloudTemplate[]> {
    const own = await this.list(instanceId);
    const shadowed = new Set(own.map((t) => `${t.name}:${t.language}`));
    return [...own, ...(await this.list(SERVER)).filter((t) => !shadowed.has(`${t.name}:${t.language}`))];
  }

  /** The Parley send of an instance's Cloud API template message (its own template first, then the server's): 404 template_not_found, 400 template_param_mismatch. */
  async render(instanceId: string, to: string, send: TemplateSend): Promise<ParleySend> {
    const t = (await this.get(instanceId, send.name, send.language.code)) ?? (await this.get(SERVER, send.name, send.language.code));
    if (!t) throw new NotFoundError(`template ${send.name} in ${send.language.code}`, 'template_not_found');
    return renderTemplate(t, to, send);
  }
}
