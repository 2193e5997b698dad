import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText, fieldErrors, isUnauthorized } from './api.js';
import { useSession } from './context.js';

/** What the sign-in form says after a 401 signed the session out. */
const TOKEN_REFUSED = 'The admin token was refused (401): sign in again.';

/** Data loaded through the API, with its last error and a reload that keeps the data shown meanwhile. */
export interface Loaded<T> {
  data: T | undefined;
  error: string;
  reload(): Promise<void>;
}

/**
 * Loads `load()` now and on every `reload()`; a 401 signs the session out. Answers that arrive after
 * a newer reload started, or after the view is gone, are dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const { signOut } = useSession();
  const [data, setData] = useState<T>();
  const [error, setError] = useState('');
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setError('');
    } catch (err) {
      if (mine !== generation.current) return;
      if (isUnauthorized(err)) signOut(TOKEN_REFUSED);
      else setError(errorText(err));
    }
  }, deps);
  useEffect(() => {
    void reload();
    return () => { generation.current++; };
  }, [reload]);
  return { data, error, reload };
}

/** An action's state: busy, its error message, and the API's messages per field of a 400 answer. */
export interface Action {
  busy: boolean;
  error: string;
  /** Messages of a 400 answer by field (`details.fields`, without `body.`). */
  fields: Record<string, string>;
  /** Runs `action`; answers undefined when it failed (the error is then in `error` and `fields`). */
  run<T>(action: () => Promise<T>): Promise<T | undefined>;
}

/** Runs an action (a button, a form), with its busy state and error messages; a 401 signs the session out. */
export function useAction(): Action {
  const { signOut } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const run = useCallback(async <T,>(action: () => Promise<T>) => {
    setBusy(true);
    setError('');
    setFields({});
    try {
      return await action();
    } catch (err) {
      if (isUnauthorized(err)) signOut(TOKEN_REFUSED);
      else {
        setError(errorText(err));
        setFields(fieldErrors(err));
      }
      return undefined;
    } finally {
      setBusy(false);
    }
  }, [signOut]);
  return { busy, error, fields, run };
}
