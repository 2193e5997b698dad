import { useState } from 'preact/hooks';
import { clientFor, errorText } from './api.js';

/**
 * The admin token form. The token is checked with a real admin call before it is kept (in
 * sessionStorage, by the caller); a refused token says so and keeps nothing.
 */
export function SignIn(props: { notice?: string; onSignedIn(token: string): void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await clientFor(token.trim()).call('adminListInstances', { query: { limit: 1 } });
      props.onSignedIn(token.trim());
    } catch (err) {
      setError(errorText(err).startsWith('The server refused')
        ? 'Wrong admin token: the server answered 401 unauthorized. The token is in <data dir>/admin-token on the server, or PARLEY_ADMIN_TOKEN.'
        : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Parley dashboard</h1>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      <form onSubmit={submit} aria-describedby="token-help">
        <label for="admin-token">Admin token</label>
        <input id="admin-token" name="admin-token" type="password" autoComplete="current-password" required minLength={1}
          value={token} onInput={(e) => setToken(e.currentTarget.value)} aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'sign-in-error' : undefined} />
        <p id="token-help" class="help">Kept in this browser tab only (session storage) until you sign out or close the tab.</p>
        <button type="submit" disabled={busy || !token.trim()}>{busy ? 'Signing in…' : 'Sign in'}</button>
        {error && <p id="sign-in-error" class="error" role="alert">{error}</p>}
      </form>
    </main>
  );
}
