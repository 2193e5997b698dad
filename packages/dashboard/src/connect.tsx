import { useEffect, useState } from 'preact/hooks';
import { phoneOf, type InstanceRecord } from './api.js';
import { useSession } from './context.js';
import { useLive, type LiveEvent } from './live.js';
import { SocialLinkForm } from './social-link.js';
import { useAction } from './use-load.js';

/** A QR code the channel issued, and when the dashboard received it. */
interface ShownQr {
  code: string;
  image: string;
  at: number;
}

/**
 * How long a QR code is expected to live before the channel issues the next one, until two codes have
 * been seen (then their interval is used): the sandbox's default `qrRefreshMs`, and WhatsApp's
 * interval after its first code (which lives longer: the countdown then says a code is due, until it comes).
 */
const DEFAULT_QR_LIFETIME_MS = 20_000;

/** Seconds left on the current QR code, refreshed every second while one is shown. */
function useCountdown(qr: ShownQr | undefined, lifetimeMs: number): number | undefined {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!qr) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [qr]);
  return qr ? Math.max(0, Math.ceil((qr.at + lifetimeMs - now) / 1000)) : undefined;
}

/** Connecting an instance: a live QR code with its countdown, a pairing code, the sandbox's scan, social links. */
export function ConnectPanel(props: { instanceKey: string; instanceId: string; channel: string; record: InstanceRecord | undefined; onChanged(): Promise<void> }) {
  const { client } = useSession();
  const api = client.instance(props.instanceKey);
  const status = props.record?.connection?.status;
  const connected = status === 'open';
  const simulator = props.record?.connection?.simulator;
  const [qr, setQr] = useState<ShownQr>();
  const [lifetimeMs, setLifetimeMs] = useState(DEFAULT_QR_LIFETIME_MS);
  const [pairingNumber, setPairingNumber] = useState('');
  const [pairingCode, setPairingCode] = useState('');
  const [notice, setNotice] = useState('');
  // The channel's last error (WhatsApp unreachable, …): shown as an error, not as a notice.
  const [channelError, setChannelError] = useState('');
  const action = useAction();
  const secondsLeft = useCountdown(qr, lifetimeMs);

  /** Shows a code the channel issued; a new one replaces the old and tells how long codes live. */
  function showQr(code: string, image: string) {
    if (!code || !image) return;
    setQr((old) => {
      if (old?.code === code) return old;
      const at = Date.now();
      if (old) setLifetimeMs(Math.max(1000, at - old.at));
      return { code, image, at };
    });
  }

  async function connect() {
    setNotice('');
    setChannelError('');
    const answer = await action.run(() => api.call('connectInstance'));
    if (!answer) return;
    if (answer.phoneConnected) setQr(undefined);
    else if (answer.qrcode) showQr(answer.qrcode, answer.image);
    else if (answer.connection.lastError) setChannelError(`No QR code yet: ${answer.connection.lastError.message}. The channel keeps trying.`);
    else setNotice('No QR code yet: the channel keeps trying and the code appears here when it comes.');
    await props.onChanged();
  }

  // A page opened while a code waits shows it at once (connect answers the current code, nothing new starts).
  useEffect(() => {
    if (status === 'waiting_for_qr_scan' && !qr) void connect();
    if (connected) {
      setQr(undefined);
      setPairingCode('');
    }
  }, [status]);

  // New codes come as `qrcode` events; when events do not stream, the current code is read again
  // through POST /{key}/instance, which answers the waiting code without starting anything new.
  useLive({
    instance: props.instanceId,
    types: ['qrcode'],
    onEvent: (e: LiveEvent) => showQr(String(e.data.qr ?? ''), String(e.data.image ?? '')),
    refresh: async () => {
      const answer = await api.call('connectInstance');
      if (answer.qrcode) showQr(answer.qrcode, answer.image);
      else if (answer.phoneConnected) await props.onChanged();
    },
    pollMs: 2000,
    enabled: !!qr && !connected,
  });

  async function requestPairing(e: Event) {
    e.preventDefault();
    const answer = await action.run(() => api.call('requestPairingCode', { body: { phoneNumber: pairingNumber.trim() } }));
    if (answer) setPairingCode(answer.code);
    await props.onChanged();
  }

  /** A channel on a simulated network (`connection.simulator`): its first phone scans the code shown. */
  async function simulatedScan() {
    const answer = await action.run(() => api.call('simulatedScan', { body: {} }));
    if (answer) {
      if (answer.phoneConnected) setNotice(`The simulated phone +${answer.phone} scanned the code: the instance is connected.`);
      else setChannelError(`The simulated phone +${answer.phone} scanned the code, but the connection is ${answer.connection.status}${answer.connection.lastError ? `: ${answer.connection.lastError.message}` : ''}.`);
    }
    await props.onChanged();
  }

  async function sandboxScan() {
    const answer = await action.run(() => client.call('sandbox_post_key_scan', {
      params: { key: props.instanceKey }, body: pairingCode && !qr ? { code: pairingCode } : {},
    }));
    if (answer) setNotice(`The sandbox phone linked: +${phoneOf(answer.data.user.id)}.`);
    await props.onChanged();
  }

  return (
    <>
      <section class="panel" aria-labelledby="qr-title">
        <h2 id="qr-title">QR code</h2>
        {connected ? (
          <p class="ok" id="connected-note">Connected as <strong>+{phoneOf(props.record?.user?.id)}</strong>{props.record?.user?.name ? ` (${props.record.user.name})` : ''}.</p>
        ) : (
          <>
            <p>Open WhatsApp on the phone → Linked devices → Link a device, and scan the code. It is replaced live when the channel issues a new one.</p>
            <button type="button" onClick={connect} disabled={action.busy}>{qr ? 'Reload the QR code' : 'Connect: show the QR code'}</button>
          </>
        )}
        {qr && !connected && (
          <figure class="qr">
            <img id="qr-image" src={qr.image} data-code={qr.code} width={264} height={264}
              alt="QR code to scan with the phone's Linked devices screen" />
            <figcaption aria-live="polite" id="qr-countdown">
              {secondsLeft ? `New code in about ${secondsLeft} s` : 'A new code is due: it appears here as soon as the channel issues it.'}
            </figcaption>
            <progress max={Math.round(lifetimeMs / 1000)} value={secondsLeft ?? 0} aria-label="Time left on this QR code" />
          </figure>
        )}
        {props.channel === 'sandbox' && !connected && (
          <p>
            <button type="button" class="secondary" id="sandbox-scan" onClick={sandboxScan} disabled={action.busy || (!qr && !pairingCode)}>
              Scan with the sandbox phone
            </button>{' '}
            <span class="help">The simulated phone scans the code shown (or enters the pairing code).</span>
          </p>
        )}
        {simulator && !connected && (
          <p>
            <button type="button" class="secondary" id="simulated-scan" onClick={simulatedScan} disabled={action.busy || !qr}>
              Scan with simulated phone
            </button>{' '}
            <span class="help">The channel runs on a simulated network: its phone +{simulator.phones[0]} scans the code shown.</span>
          </p>
        )}
        {notice && <p class="ok" role="status">{notice}</p>}
        {channelError && <p class="error" role="alert">{channelError}</p>}
        {action.error && <p class="error" role="alert">{action.error}</p>}
      </section>
      {!connected && (
        <section class="panel" aria-labelledby="pairing-title">
          <h2 id="pairing-title">Pairing code</h2>
          <form onSubmit={requestPairing} class="inline-form">
            <label for="pairing-number">Phone number with country code</label>
            <input id="pairing-number" inputMode="tel" autoComplete="tel" placeholder="5511900000001" pattern="\+?\d{6,15}" required
              value={pairingNumber} onInput={(e) => setPairingNumber(e.currentTarget.value)} aria-describedby="pairing-help" />
            <button type="submit" disabled={action.busy}>Get a pairing code</button>
          </form>
          <p id="pairing-help" class="help">On the phone: Linked devices → Link with phone number instead, then enter the code.</p>
          {pairingCode && <p class="pairing-code">Code: <output id="pairing-code" aria-live="polite">{pairingCode}</output></p>}
        </section>
      )}
      <SocialLinkForm instanceKey={props.instanceKey} />
    </>
  );
}
