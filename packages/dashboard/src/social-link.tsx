import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { useSession } from './context.js';
import { useAction, useLoad } from './use-load.js';

type SocialChannel = 'instagram' | 'messenger';
const CHANNEL_LABELS: Record<SocialChannel, string> = { instagram: 'Instagram', messenger: 'Messenger' };
const FIELDS = [
  { name: 'accountId', label: 'Account id', help: 'Instagram account id, or the Facebook Page id for Messenger.', secret: false },
  { name: 'accessToken', label: 'Access token', help: 'A Page access token with the messaging permissions.', secret: true },
  { name: 'appSecret', label: 'App secret', help: 'Checks the X-Hub-Signature-256 of Meta\'s webhook calls.', secret: true },
  { name: 'verifyToken', label: 'Verify token', help: 'The token you enter in the Meta app\'s webhook settings.', secret: true },
] as const;
type FieldName = (typeof FIELDS)[number]['name'];

/** Links an Instagram account or a Facebook Page to the instance (`POST /{key}/instance/links/{channel}`), and lists the links. */
export function SocialLinkForm(props: { instanceKey: string }) {
  const { client } = useSession();
  const api = client.instance(props.instanceKey);
  const links = useLoad(() => api.call('listLinks').then((r) => r.data), [props.instanceKey]);
  const [channel, setChannel] = useState<SocialChannel>('instagram');
  const [values, setValues] = useState<Record<FieldName, string>>({ accountId: '', accessToken: '', appSecret: '', verifyToken: '' });
  const [message, setMessage] = useState('');
  const action = useAction();

  async function submit(e: Event) {
    e.preventDefault();
    setMessage('');
    const answer = await action.run(() => api.call('linkChannel', { params: { channel }, body: values }));
    if (answer) {
      setMessage(`${CHANNEL_LABELS[channel]} account ${answer.data.username ?? answer.data.accountId} linked.`);
      setValues({ accountId: '', accessToken: '', appSecret: '', verifyToken: '' });
      await links.reload();
    }
  }

  const inputProps = (name: FieldName) => ({
    id: `social-${name}`, autoComplete: 'off', required: true, value: values[name],
    onInput: (e: Event) => setValues({ ...values, [name]: (e.currentTarget as HTMLInputElement).value }),
    'aria-invalid': errors[name] ? 'true' as const : undefined, 'aria-describedby': `social-${name}-help`,
  });
  const errors = action.fields;
  const linked = Object.entries(links.data ?? {}) as [SocialChannel, { accountId: string; username?: string }][];
  return (
    <section class="panel" aria-labelledby="social-title">
      <h2 id="social-title">Instagram and Messenger</h2>
      {linked.length > 0 && (
        <ul class="links">
          {linked.map(([name, link]) => (
            <li key={name}>
              {CHANNEL_LABELS[name]}: {link.username ?? link.accountId}{' '}
              <button type="button" class="secondary" disabled={action.busy}
                onClick={async () => { await action.run(() => api.call('unlinkChannel', { params: { channel: name } })); await links.reload(); }}>Unlink</button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} class="grid-form">
        <label for="social-channel">Channel</label>
        <select id="social-channel" value={channel} onChange={(e) => setChannel(e.currentTarget.value as SocialChannel)}>
          <option value="instagram">Instagram</option>
          <option value="messenger">Messenger</option>
        </select>
        {FIELDS.map((f) => (
          <Fragment key={f.name}>
            <label for={`social-${f.name}`}>{f.label}</label>
            {f.secret ? <input type="password" {...inputProps(f.name)} /> : <input type="text" {...inputProps(f.name)} />}
            <p id={`social-${f.name}-help`} class={errors[f.name] ? 'error' : 'help'}>{errors[f.name] ?? f.help}</p>
          </Fragment>
        ))}
        <button type="submit" disabled={action.busy}>Link {CHANNEL_LABELS[channel]}</button>
        {action.error && <p class="error" role="alert">{action.error}</p>}
        {message && <p class="ok" role="status">{message}</p>}
      </form>
    </section>
  );
}
