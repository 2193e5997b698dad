import { useState } from 'preact/hooks';

/** How a hidden secret is shown: its length in dots, so nothing of it is in the page. */
const MASK = '••••••••••••••••';

/**
 * One secret of an instance (its key, its webhook signing secret), masked until the operator reveals
 * it, with a copy button (the Clipboard API: copying shows nothing). Only the admin sees this page; the
 * value is never written to the console or the URL.
 */
function Secret(props: { id: string; label: string; value: string }) {
  const [shown, setShown] = useState(false);
  const [note, setNote] = useState('');
  const lower = props.label.toLowerCase();

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.value);
      setNote(`${props.label} copied to the clipboard.`);
    } catch {
      setNote(`The browser refused the clipboard: reveal the ${lower} and copy it by hand.`);
    }
  }

  return (
    <div class="secret">
      <dt>{props.label}</dt>
      <dd>
        <code id={props.id} class={shown ? 'revealed' : 'masked'}>{shown ? props.value : MASK}</code>
        <span class="secret-actions">
          <button type="button" class="secondary small" aria-label={`${shown ? 'Hide' : 'Reveal'} the ${lower}`} aria-controls={props.id} onClick={() => setShown(!shown)}>
            {shown ? 'Hide' : 'Reveal'}
          </button>
          <button type="button" class="secondary small" aria-label={`Copy the ${lower}`} onClick={copy}>Copy</button>
        </span>
        <span role="status" class="help">{note}</span>
      </dd>
    </div>
  );
}

/** The instance key (the secret of its API) and its webhook signing secret. */
export function InstanceSecrets(props: { instanceKey: string; webhookSecret: string }) {
  return (
    <dl class="facts secrets" aria-label="Secrets">
      <Secret id="secret-key" label="Instance key" value={props.instanceKey} />
      <Secret id="secret-webhook" label="Webhook secret" value={props.webhookSecret} />
    </dl>
  );
}
