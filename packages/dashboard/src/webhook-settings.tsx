import type { OperationResponse } from '@parley/client';
import { useState } from 'preact/hooks';
import { allShown } from './api.js';
import { useSession } from './context.js';
import { useAction } from './use-load.js';

/** Webhook settings of spec 2.2, as `PUT /{key}/instance` takes and answers them. */
type Settings = OperationResponse<'updateWebhookSettings'>['data'];

const URL_FIELDS = [
  ['webhookMessage', 'Default URL (messages, and every event type whose own URL is empty)'],
  ['webhookGroup', 'Group events URL'],
  ['webhookConnection', 'Connection events URL'],
  ['webhookQrCode', 'QR code events URL'],
  ['webhookMessageFromMe', 'Own messages URL'],
  ['webhookHistory', 'History sync URL'],
] as const;

type Form = Required<Pick<Settings, 'allowWebhook' | 'allowNumber' | 'webhookFormat'>> & Record<(typeof URL_FIELDS)[number][0], string>;

function formOf(settings: Settings): Form {
  return {
    allowWebhook: settings.allowWebhook ?? false,
    allowNumber: settings.allowNumber ?? 'all',
    webhookFormat: settings.webhookFormat ?? 'native',
    ...Object.fromEntries(URL_FIELDS.map(([name]) => [name, settings[name] ?? ''])) as Record<(typeof URL_FIELDS)[number][0], string>,
  };
}

/**
 * The webhook settings form, filled from the settings as loaded (rendered once they are, so nothing
 * typed is overwritten by a late answer). It sends every field; the API validates them, and its
 * messages are shown next to the field they name (`details.fields`), and below the form that nothing was saved.
 */
export function WebhookSettingsForm(props: { instanceKey: string; settings: Settings }) {
  const { client } = useSession();
  const [form, setForm] = useState(() => formOf(props.settings));
  const [message, setMessage] = useState('');
  const action = useAction();
  const errors = action.fields;

  async function submit(e: Event) {
    e.preventDefault();
    setMessage('');
    const answer = await action.run(() => client.instance(props.instanceKey).call('updateWebhookSettings', { body: { ...form, allowNumber: form.allowNumber.trim() } }));
    if (answer) {
      setMessage('Webhook settings saved.');
      setForm(formOf(answer.data));
    }
  }

  const set = (name: keyof Form, value: string | boolean) => setForm({ ...form, [name]: value });
  const described = (name: string, help?: string) => ({
    'aria-invalid': errors[name] ? 'true' as const : undefined,
    'aria-describedby': errors[name] ? `wh-${name}-error` : help,
  });
  const fieldError = (name: string) => errors[name] && <p id={`wh-${name}-error`} class="error">{errors[name]}</p>;

  return (
    <form onSubmit={submit} class="grid-form" aria-labelledby="wh-settings-title">
      <h2 id="wh-settings-title">Settings</h2>
      <div class="check">
        <input id="wh-allowWebhook" type="checkbox" checked={form.allowWebhook} onChange={(e) => set('allowWebhook', e.currentTarget.checked)} />
        <label for="wh-allowWebhook">Send webhooks (master switch)</label>
      </div>
      <label for="wh-webhookFormat">Format</label>
      <input id="wh-webhookFormat" list="wh-formats" value={form.webhookFormat} onInput={(e) => set('webhookFormat', e.currentTarget.value)} {...described('webhookFormat', 'wh-format-help')} />
      <datalist id="wh-formats"><option value="native" /><option value="meta" /><option value="both" /><option value="cloud-api" /></datalist>
      <p id="wh-format-help" class="help"><code>native</code>, <code>meta</code> (Cloud API-style envelope), <code>both</code>, <code>cloud-api</code> (exactly the WhatsApp Cloud API's webhooks), or a format plugin's name.</p>
      {fieldError('webhookFormat')}
      <label for="wh-allowNumber">Numbers whose events are sent</label>
      <input id="wh-allowNumber" value={form.allowNumber} onInput={(e) => set('allowNumber', e.currentTarget.value)} {...described('allowNumber', 'wh-allow-help')} />
      <p id="wh-allow-help" class="help"><code>all</code>, or phone numbers and group ids separated by commas.</p>
      {fieldError('allowNumber')}
      {URL_FIELDS.map(([name, label]) => (
        <div key={name} class="field">
          <label for={`wh-${name}`}>{label}</label>
          <input id={`wh-${name}`} type="text" inputMode="url" placeholder="https://…" value={form[name]} onInput={(e) => set(name, e.currentTarget.value)} {...described(name)} />
          {fieldError(name)}
        </div>
      ))}
      <button type="submit" disabled={action.busy}>{action.busy ? 'Saving…' : 'Save settings'}</button>
      {action.error && <p class="error" role="alert" id="wh-error">{allShown(errors, ['allowWebhook', 'webhookFormat', 'allowNumber', ...URL_FIELDS.map(([name]) => name)]) ? 'Not saved: the API refused the fields marked above.' : action.error}</p>}
      {message && <p class="ok" role="status">{message}</p>}
    </form>
  );
}
