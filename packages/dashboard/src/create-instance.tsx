import type { OperationResponse } from '@parley/client';
import { useState } from 'preact/hooks';
import { allShown } from './api.js';
import { useSession } from './context.js';
import { useAction, useLoad } from './use-load.js';

type Created = OperationResponse<'adminCreateInstance'>['data'];

/** Parses the options field: empty, or a JSON object. */
function parseOptions(text: string): Record<string, unknown> | string {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  return 'Options must be a JSON object, for example {"number": "5511900000001"}.';
}

/** The channels of the server and its default, as `GET /admin/channels` answers them. */
type Channels = OperationResponse<'adminListChannels'>['data'];

/** A field's validation message (the form's own or the API's `details.fields`), right below the field and tied to it. */
function FieldError(props: { id: string; message: string | undefined }) {
  return props.message ? <p id={props.id} class="error">{props.message}</p> : null;
}

/**
 * Creates an instance: channel (driver), name and driver options, as `POST /admin/instances` takes
 * them. The channel starts as the server's default (`GET /admin/channels`), and the API's messages
 * are shown beside the field they name.
 */
export function CreateInstanceForm(props: { onCreated(created: Created): void }) {
  const { client } = useSession();
  const channels = useLoad(async () => (await client.call('adminListChannels')).data, [client]);
  const [channel, setChannel] = useState<string>();
  const [name, setName] = useState('');
  const [options, setOptions] = useState('');
  const [optionsError, setOptionsError] = useState('');
  const action = useAction();
  const shownChannel = channel ?? channels.data?.default ?? '';
  const errors: Record<string, string> = { ...action.fields, ...(optionsError ? { options: optionsError } : {}) };
  const mains = (channels.data?.channels ?? []).filter((c: Channels['channels'][number]) => c.role === 'main');

  async function submit(e: Event) {
    e.preventDefault();
    const parsed = parseOptions(options);
    setOptionsError(typeof parsed === 'string' ? parsed : '');
    if (typeof parsed === 'string') return;
    const created = await action.run(() => client.call('adminCreateInstance', {
      body: { channel: shownChannel.trim() || undefined, name: name.trim() || undefined, options: parsed },
    }));
    if (created) props.onCreated(created.data);
  }

  const described = (field: string, help?: string) => ({
    'aria-invalid': errors[field] ? 'true' as const : undefined,
    'aria-describedby': [errors[field] ? `create-${field}-error` : '', help ?? ''].filter(Boolean).join(' ') || undefined,
  });

  return (
    <section aria-labelledby="create-title" class="panel">
      <h2 id="create-title">Create an instance</h2>
      <form onSubmit={submit} class="grid-form">
        <label for="create-channel">Channel</label>
        <input id="create-channel" list="channel-names" value={shownChannel} onInput={(e) => setChannel(e.currentTarget.value)} {...described('channel', 'create-channel-help')} />
        <datalist id="channel-names">{mains.map((c) => <option key={c.name} value={c.name} />)}</datalist>
        <FieldError id="create-channel-error" message={errors.channel} />
        <p id="create-channel-help" class="help">
          Main-channel driver{mains.length ? <>: {mains.map((c, i) => <>{i ? ', ' : ''}<code>{c.name}</code></>)}</> : ''}
          {channels.data ? ` (the server's default: ${channels.data.default})` : ''}. Instagram and Messenger are linked to an instance from its Connect page.
        </p>
        <label for="create-name">Name</label>
        <input id="create-name" value={name} onInput={(e) => setName(e.currentTarget.value)} {...described('name')} />
        <FieldError id="create-name-error" message={errors.name} />
        <label for="create-options">Options (JSON)</label>
        <textarea id="create-options" rows={2} value={options} placeholder='{"number": "5511900000001"}'
          onInput={(e) => setOptions(e.currentTarget.value)} {...described('options')} />
        <FieldError id="create-options-error" message={errors.options} />
        <button type="submit" disabled={action.busy}>{action.busy ? 'Creating…' : 'Create instance'}</button>
        {(action.error || channels.error) && (
          <p class="error" role="alert">{allShown(action.fields, ['channel', 'name', 'options']) ? 'Not created: the API refused the fields marked above.' : action.error || channels.error}</p>
        )}
      </form>
    </section>
  );
}
