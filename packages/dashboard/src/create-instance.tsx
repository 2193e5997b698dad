import type { OperationResponse } from '@parley/client';
import { useState } from 'preact/hooks';
import { useSession } from './context.js';
import { useAction } from './use-load.js';

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

/** Creates an instance: channel (driver), name and driver options, as `POST /admin/instances` takes them. */
export function CreateInstanceForm(props: { onCreated(created: Created): void }) {
  const { client } = useSession();
  const [channel, setChannel] = useState('whatsapp');
  const [name, setName] = useState('');
  const [options, setOptions] = useState('');
  const [optionsError, setOptionsError] = useState('');
  const action = useAction();

  async function submit(e: Event) {
    e.preventDefault();
    const parsed = parseOptions(options);
    setOptionsError(typeof parsed === 'string' ? parsed : '');
    if (typeof parsed === 'string') return;
    const created = await action.run(() => client.call('adminCreateInstance', {
      body: { channel: channel.trim() || undefined, name: name.trim() || undefined, options: parsed },
    }));
    if (created) props.onCreated(created.data);
  }

  return (
    <section aria-labelledby="create-title" class="panel">
      <h2 id="create-title">Create an instance</h2>
      <form onSubmit={submit} class="grid-form">
        <label for="create-channel">Channel</label>
        <input id="create-channel" list="channel-names" value={channel} onInput={(e) => setChannel(e.currentTarget.value)} aria-describedby="create-channel-help" />
        <datalist id="channel-names"><option value="whatsapp" /><option value="sandbox" /></datalist>
        <p id="create-channel-help" class="help">Main-channel driver: <code>whatsapp</code> (a real number) or <code>sandbox</code> (the simulated network). Instagram and Messenger are linked to an instance from its Connect page.</p>
        <label for="create-name">Name</label>
        <input id="create-name" value={name} onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={action.fields.name ? 'true' : undefined} aria-describedby={action.fields.name ? 'create-name-error' : undefined} />
        {action.fields.name && <p id="create-name-error" class="error">{action.fields.name}</p>}
        <label for="create-options">Options (JSON)</label>
        <textarea id="create-options" rows={2} value={options} placeholder='{"number": "5511900000001"}'
          onInput={(e) => setOptions(e.currentTarget.value)} aria-invalid={optionsError ? 'true' : undefined}
          aria-describedby={optionsError ? 'create-options-error' : undefined} />
        {optionsError && <p id="create-options-error" class="error" role="alert">{optionsError}</p>}
        <button type="submit" disabled={action.busy}>{action.busy ? 'Creating…' : 'Create instance'}</button>
        {action.error && <p class="error" role="alert">{action.error}</p>}
      </form>
    </section>
  );
}
