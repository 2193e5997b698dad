import { useEffect, useMemo, useState } from 'preact/hooks';
import { clientFor, eventSourceFor, forgetToken, saveToken, storedToken } from './api.js';
import { LiveHub } from './live-hub.js';
import { useLiveMode } from './live.js';
import { ClusterPage, useCluster } from './cluster.js';
import { SessionContext, type Session } from './context.js';
import { InstanceList } from './instances.js';
import { InstancePage, type InstanceTab } from './instance-page.js';
import { SignIn } from './sign-in.js';

/** Where the dashboard is: `#/` the instance list, `#/cluster` the cluster's nodes, `#/instances/<public id>/<tab>` one instance. */
interface Route {
  cluster?: boolean;
  instanceId?: string;
  tab: InstanceTab;
}

const TABS: readonly InstanceTab[] = ['connect', 'webhooks', 'messages'];

function parseHash(hash: string): Route {
  if (/^#\/cluster\/?$/.test(hash)) return { cluster: true, tab: 'connect' };
  const m = /^#\/instances\/([^/]+)(?:\/([a-z]+))?/.exec(hash);
  if (!m) return { tab: 'connect' };
  const tab = TABS.includes(m[2] as InstanceTab) ? (m[2] as InstanceTab) : 'connect';
  return { instanceId: decodeURIComponent(m[1]!), tab };
}

function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Says how the views stay live. */
function LiveIndicator() {
  const mode = useLiveMode();
  return <span class={`live live-${mode}`} role="status" id="live-mode">{mode === 'streaming' ? 'Live: event stream' : 'Live: polling the API'}</span>;
}

/** The main navigation: the Cluster page only on a cluster node. */
function MainNav(props: { route: Route }) {
  const cluster = useCluster();
  const { route } = props;
  return (
    <nav aria-label="Main">
      <a href="#/" aria-current={route.instanceId || route.cluster ? undefined : 'page'}>Instances</a>
      {cluster.data?.enabled && <a href="#/cluster" aria-current={route.cluster ? 'page' : undefined}>Cluster</a>}
      <a href="/docs/guides">Guides</a>
      <a href="/docs">API docs</a>
    </nav>
  );
}

/** The dashboard: the sign-in form until an admin token is accepted, then the instances. */
export function App() {
  const [token, setToken] = useState(storedToken);
  const [notice, setNotice] = useState<string>();
  const route = useHashRoute();
  const session = useMemo<Session | null>(() => token ? {
    client: clientFor(token),
    live: new LiveHub(eventSourceFor(token)),
    signOut(reason?: string) {
      forgetToken();
      setNotice(reason);
      setToken(null);
    },
  } : null, [token]);

  useEffect(() => {
    session?.live.start();
    return () => session?.live.stop();
  }, [session]);

  if (!session) {
    return <SignIn notice={notice} onSignedIn={(t) => { saveToken(t); setNotice(undefined); setToken(t); }} />;
  }
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <a class="brand" href="#/">Parley</a>
        <MainNav route={route} />
        <LiveIndicator />
        <button type="button" class="secondary" onClick={() => session.signOut('Signed out.')}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.instanceId
          ? <InstancePage key={route.instanceId} instanceId={route.instanceId} tab={route.tab} />
          : route.cluster ? <ClusterPage /> : <InstanceList />}
      </main>
    </SessionContext.Provider>
  );
}
