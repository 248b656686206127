import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
} from 'react';
import { CheckoutApiError } from '../checkout/api';
import type { PortalApi } from './api';

/** What every portal section needs: the session's calls and what to do when it has expired. */
export interface PortalContextValue {
  api: PortalApi;
  /** The session is no longer valid (401): back to signing in. */
  onExpired: () => void;
  stripePublishableKey: string | null;
}

export const PortalContext = createContext<PortalContextValue | null>(null);

export function usePortal(): PortalContextValue {
  const value = useContext(PortalContext);
  if (!value) throw new Error('usePortal outside the signed-in portal');
  return value;
}

/** The message to show for a failed call (the API's own when it gave one). */
export function problemOf(error: unknown, fallback = 'Something went wrong. Try again.'): string {
  if (!(error instanceof CheckoutApiError)) {
    return 'The connection failed. Check your network and try again.';
  }
  if (error.status >= 500) return fallback;
  return error.message || fallback;
}

/** Tells the portal when a call failed because the session expired; answers the message otherwise. */
export function useProblem() {
  const { onExpired } = usePortal();
  return useCallback(
    (error: unknown, fallback?: string) => {
      if (error instanceof CheckoutApiError && error.status === 401) onExpired();
      return problemOf(error, fallback);
    },
    [onExpired],
  );
}

export interface Resource<T> {
  data: T | null;
  problem: string | null;
  reload: () => Promise<void>;
}

/** Data a section reads on mount, its problem when it could not, and a way to read it again. */
export function useResource<T>(load: (api: PortalApi) => Promise<T>): Resource<T> {
  const { api } = usePortal();
  const describe = useProblem();
  const loader = useRef(load);
  loader.current = load;
  const [data, setData] = useState<T | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await loader.current(api));
      setProblem(null);
    } catch (error) {
      setProblem(describe(error, 'This could not be loaded. Try again later.'));
    }
  }, [api, describe]);
  useEffect(() => {
    reload();
  }, [reload]);
  return { data, problem, reload };
}

interface LoadedProps<T> {
  resource: Resource<T>;
  what: string;
  children: (data: T) => ReactNode;
}

/** A resource's content once loaded; while loading, or when it failed, says so. */
export function Loaded<T>({ resource, what, children }: LoadedProps<T>) {
  if (resource.problem && resource.data === null) {
    return (
      <div className="banner-error" role="alert">
        <p>{resource.problem}</p>
        <button type="button" className="secondary" onClick={() => resource.reload()}>
          Try again
        </button>
      </div>
    );
  }
  if (resource.data === null) {
    return (
      <p className="muted" aria-busy="true">
        Loading {what}…
      </p>
    );
  }
  return children(resource.data);
}

/**
 * An action's state: `run` calls it once at a time, keeps its problem to show next to the
 * button, and answers whether it worked.
 */
export function useAction() {
  const describe = useProblem();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const run = useCallback(
    async (action: () => Promise<unknown>, messages?: Record<string, string>) => {
      setBusy(true);
      setProblem(null);
      try {
        await action();
        return true;
      } catch (error) {
        const named = error instanceof CheckoutApiError ? messages?.[error.error] : undefined;
        setProblem(named ?? describe(error));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [describe],
  );
  return { busy, problem, run };
}

export const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
