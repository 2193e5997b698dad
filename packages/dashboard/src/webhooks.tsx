import { useState } from 'preact/hooks';
import { useSession } from './context.js';
import { useLive } from './live.js';
import { when } from './time.js';
import { useAction, useLoad } from './use-load.js';
import { WebhookSettingsForm } from './webhook-settings.js';

/** Dead letters shown per page. */
const DEAD_LETTER_PAGE = 50;

/** Webhooks of an instance: settings (spec 2.2), live statistics (spec 2.3), dead letters and their redelivery. */
export function WebhooksPanel(props: { instanceKey: string }) {
  const { client } = useSession();
  const api = client.instance(props.instanceKey);
  const settings = useLoad(() => api.call('getInstance').then((r) => r.instance.webhook), [props.instanceKey]);
  const stats = useLoad(() => api.call('webhookStatistics').then((r) => r.data), [props.instanceKey]);
  const dead = useLoad(() => api.call('webhookDeadLetters', { query: { limit: DEAD_LETTER_PAGE } }), [props.instanceKey]);
  // Deliveries are no channel events: statistics and dead letters are read again every 2 s.
  useLive({ types: [], refresh: () => Promise.all([stats.reload(), dead.reload()]), pollMs: 2000 });
  const action = useAction();
  const [done, setDone] = useState('');

  /** Redelivers dead letters as they were (`original`), or their events to the settings as they are now (`current`). */
  async function redeliver(ids?: string[], target: 'original' | 'current' = 'original') {
    setDone('');
    const answer = await action.run(() => api.call('webhookRedeliver', { body: { ...(ids ? { ids } : {}), ...(target === 'current' ? { target } : {}) } }));
    if (answer) {
      const kept = answer.data.kept ?? [];
      const expired = kept.filter((k) => k.reason === 'event_expired').length;
      setDone(`Queued ${answer.data.redelivered} again${target === 'current' ? ' to the current settings' : ''}.`
        + (kept.length ? ` ${kept.length} kept: ${expired ? `${expired} whose event the log no longer keeps (redeliver them as they were)` : ''}`
          + `${expired && kept.length > expired ? ', ' : ''}${kept.length > expired ? `${kept.length - expired} that the current settings send nowhere` : ''}.` : ''));
    }
    await Promise.all([stats.reload(), dead.reload()]);
  }

  const s = stats.data;
  return (
    <>
      <section class="panel">
        {settings.data
          ? <WebhookSettingsForm instanceKey={props.instanceKey} settings={settings.data} />
          : !settings.error && <p aria-busy="true">Loading the settings…</p>}
        {settings.error && <p class="error" role="alert">{settings.error}</p>}
      </section>
      <section class="panel" aria-labelledby="wh-stats-title">
        <h2 id="wh-stats-title">Statistics</h2>
        {stats.error && <p class="error" role="alert">{stats.error}</p>}
        <dl class="stats" id="webhook-stats">
          <div><dt>Sent</dt><dd data-stat="sent">{s?.totalSent ?? '…'}</dd></div>
          <div><dt>Failed</dt><dd data-stat="failed">{s?.totalFailed ?? '…'}</dd></div>
          <div><dt>Pending</dt><dd data-stat="pending">{s?.totalPending ?? '…'}</dd></div>
          <div><dt>Average response</dt><dd data-stat="avg">{s ? `${s.avgResponseTime} ms` : '…'}</dd></div>
        </dl>
      </section>
      <section class="panel" aria-labelledby="wh-dead-title">
        <h2 id="wh-dead-title">Dead letters{dead.data ? ` (${dead.data.total})` : ''}</h2>
        <p class="help">Deliveries whose retries ran out. Redelivering queues them again, due at once.</p>
        {dead.error && <p class="error" role="alert">{dead.error}</p>}
        {action.error && <p class="error" role="alert">{action.error}</p>}
        {done && <p class="ok" role="status" id="wh-redeliver-done">{done}</p>}
        {dead.data && dead.data.data.length > 0 ? (
          <>
            <div class="actions">
              <button type="button" onClick={() => redeliver(undefined, 'current')} disabled={action.busy} aria-describedby="wh-redeliver-help">Redeliver all to the current settings</button>
              <button type="button" class="secondary" onClick={() => redeliver()} disabled={action.busy}>Redeliver all as they were</button>
            </div>
            <p id="wh-redeliver-help" class="help">To the current settings: each event goes to the URL and in the format saved now (after fixing a wrong URL). As they were: to the URL shown in each row.</p>
            <div class="table-wrap" tabIndex={0} role="region" aria-label="Dead letters table">
              <table class="dead-letters">
                <thead><tr><th scope="col">Event</th><th scope="col">URL</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Dead since</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
                <tbody>
                  {dead.data.data.map((d) => (
                    <tr key={d.id} data-dead-letter={d.id}>
                      <td>{d.eventType}</td>
                      <td class="url">{d.url}</td>
                      <td>{d.attempts}</td>
                      <td>{d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : '—')}</td>
                      <td>{when(d.deadAt)}</td>
                      <td><button type="button" class="secondary" disabled={action.busy} onClick={() => redeliver([d.id])}
                        aria-label={`Redeliver ${d.eventType} event to ${d.url}`}>Redeliver</button></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : dead.data && <p id="no-dead-letters">No dead letters.</p>}
      </section>
    </>
  );
}
