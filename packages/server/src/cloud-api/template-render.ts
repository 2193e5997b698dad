import { ParleyError } from '@parley/core';
import type { ParleySend } from './parley-send.js';

/** A button of a template: a quick reply (its payload is sent back by the recipient's tap) or a link. */
export type TemplateButton = { type: 'quick_reply'; text: string } | { type: 'url'; text: string; url: string };

/**
 * A template (docs/cloud-api.md): what Meta's approved templates are to a Cloud API integration,
 * stored in Parley and rendered to an ordinary message. `{{1}}`, `{{2}}`… (or named `{{first_name}}`)
 * in the header, the body and a url button's url are filled by the send's parameters.
 */
export interface CloudTemplate {
  name: string;
  language: string;
  header?: string;
  body: string;
  footer?: string;
  buttons?: TemplateButton[];
  /** Templates of a business account (an instance): the id the Graph API lists and `hsm_id` deletes. */
  id?: string;
  /** Templates of a business account: the category they were created with (MARKETING, UTILITY, AUTHENTICATION). */
  category?: string;
}

/**
 * A parameter of a template send: text; a currency or a date and time, rendered as its `fallback_value` (the
 * Cloud API localizes neither where it cannot, and says a client must give the fallback); a quick reply's payload.
 */
export interface TemplateSendParameter {
  type: 'text' | 'payload' | 'currency' | 'date_time';
  text?: string;
  payload?: string;
  parameter_name?: string;
  currency?: { fallback_value: string; code: string; amount_1000: number };
  date_time?: { fallback_value: string };
}

/** The template member of a Cloud API send (the parameters Parley renders: text, currencies and dates, and payloads of quick replies). */
export interface TemplateSend {
  name: string;
  language: { code: string };
  components?: { type: 'header' | 'body' | 'button'; sub_type?: string; index?: string | number; parameters?: TemplateSendParameter[] }[];
}

export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The placeholders of a text, in order of first appearance. */
export function placeholders(text: string | undefined): string[] {
  return [...new Set([...(text ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** The Parley send of a Cloud API template message with `t`'s content: 400 template_param_mismatch when the parameters do not fit. */
export function renderTemplate(t: CloudTemplate, to: string, send: TemplateSend): ParleySend {
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

/** A text with its placeholders filled: positional parameters in order, named ones by parameter_name. */
function fill(text: string | undefined, parameters: TemplateSendParameter[] | undefined, where: string): string | undefined {
  const names = placeholders(text);
  const given = (parameters ?? []).filter((p) => p.type !== 'payload');
  if (given.length !== names.length) {
    throw new ParleyError(400, 'template_param_mismatch', `the template's ${where} has ${names.length} parameter(s); ${given.length} given`);
  }
  if (text === undefined || names.length === 0) return text;
  const named = !/^\d+$/.test(names[0]!);
  const values = new Map(names.map((name, i) => {
    const param = named ? given.find((p) => p.parameter_name === name) : given[Number(name) - 1] ?? given[i];
    const value = param && valueOf(param);
    if (value === undefined) throw new ParleyError(400, 'template_param_mismatch', `the template's ${where} has no value for {{${name}}}`);
    return [name, value];
  }));
  return text.replace(PLACEHOLDER, (_m, name: string) => values.get(name)!);
}

/** What a parameter puts in its placeholder: its text, or a currency's or date's fallback value. */
function valueOf(param: TemplateSendParameter): string | undefined {
  if (param.type === 'currency') return param.currency?.fallback_value;
  if (param.type === 'date_time') return param.date_time?.fallback_value;
  return param.text;
}
