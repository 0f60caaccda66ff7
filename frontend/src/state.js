/**
 * What the sign-in page and the signed-in shell share: who is signed in, the API client, the
 * session's idle clock, and the loading of the shell itself. The sign-in page is the first page
 * and loads with this module; the signed-in shell (shell.js) is a chunk of its own, which
 * loadShell() fetches early and /me waits for before anything signed in is shown.
 */
import { signal } from '@preact/signals';
import { createApi } from './api.js';

/** 'loading' | 'signed-out' | 'unreachable' | 'ready'. */
export const phase = signal('loading');
/** GET /api/v1/me's answer while signed in. */
export const me = signal(null);
/** Set when a call answered 401: sign-in then says the session ended. */
export const expired = signal(false);
/** Why the last sign-out failed: the session is still open, and the page says so. */
export const signOutError = signal(null);
export const bootError = signal(null);
/** `{modules, error}`: GET /api/v1/modules/-/active's modules, or why it failed. */
export const active = signal({ modules: [], navigation: [], error: null });
/** The layers of /modules.json, loaded: `{name, version, layer, routes, extensions, error}`. */
export const layers = signal([]);
/** The /modules.json text the layers were loaded from (null: the file is missing). */
export const modulesText = signal(null);
export const modulesChanged = signal(false);

const session = {
  get csrfToken() {
    return me.value?.csrfToken ?? null;
  },
};

/** Where the tabs of this browser share when the session was last used. */
export const LAST_REQUEST_KEY = 'ward.lastRequestAt';
/** When this browser last had an answer from the API, in any tab: the server's idle clock runs from there. */
export const lastRequestAt = signal(Date.now());
/** When the session ends for want of use, while the shell warns of it; null otherwise. */
export const idleEnd = signal(null);

function noteRequest() {
  const at = Date.now();
  lastRequestAt.value = at;
  try {
    globalThis.localStorage.setItem(LAST_REQUEST_KEY, String(at));
  } catch {
    // Storage may be off (a private window): then each tab keeps its own clock.
  }
}

globalThis.addEventListener?.('storage', (event) => {
  const at = Number(event.newValue);
  if (event.key === LAST_REQUEST_KEY && at > lastRequestAt.value) lastRequestAt.value = at;
});

export function sessionEnded() {
  if (phase.value !== 'ready') return;
  expired.value = true;
  expiredUser = me.value?.user.username ?? null;
  me.value = null;
  idleEnd.value = null;
  phase.value = 'signed-out';
}

export const api = createApi(session, sessionEnded, () => void refreshAccess(), noteRequest);

/**
 * Whose session expired: the page they were on is theirs to return to, not the next person's who
 * signs in at the same computer.
 */
let expiredUser = null;

/** The refresh of /me and /active under way, which every caller meanwhile shares. */
let refreshing = null;

/**
 * Reads /me and /active again: after a 403 (a role may have been revoked) and at each navigation,
 * so the sidebar and the layers' `can()` follow what the server allows without a full reload.
 * Only what changed is replaced, so an unchanged answer re-renders nothing. A 403 of this refresh
 * itself joins it rather than starting another.
 */
export function refreshAccess() {
  if (phase.value !== 'ready' || me.value === null || me.value.mustChangePassword) return refreshing;
  refreshing ??= (async () => {
    try {
      const fresh = await api.get('/me');
      if (phase.value !== 'ready' || me.value === null) return;
      if (!sameJson(fresh, me.value)) me.value = fresh;
      if (!fresh.mustChangePassword) await loadActive();
    } catch {
      // A 401 has signed the user out already; anything else keeps what is shown, and the next
      // navigation or 403 tries again.
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export async function loadMe() {
  bootError.value = null;
  let shellModule;
  try {
    const answer = await api.get('/me', { signIn: true });
    shellModule = await loadShell();
    // The page an expired session was on is its user's to return to, not the next person's who
    // signs in at the same computer: anyone else starts at the start page.
    if (expiredUser !== null && answer.user.username !== expiredUser)
      globalThis.history.replaceState(null, '', '/');
    expiredUser = null;
    me.value = answer;
  } catch (error) {
    me.value = null;
    if (error.status === 401) phase.value = 'signed-out';
    else {
      bootError.value = error;
      phase.value = 'unreachable';
    }
    return;
  }
  if (me.value.mustChangePassword) phase.value = 'ready';
  else await shellModule.loadModules();
}

export async function loadActive() {
  try {
    const answer = await api.get('/modules/-/active');
    if (active.value.error === null && sameJson(answer.modules, active.value.modules)) return;
    active.value = { modules: answer.modules, navigation: answer.navigation, error: null };
  } catch (error) {
    active.value = { modules: [], navigation: [], error };
  }
}

/** Signed in: the shell loads, and the page stays unless another person signed in at it. */
export async function afterSignIn() {
  expired.value = false;
  await loadMe();
}

/** The signed-in shell's module (shell.js), once loaded. */
export const shell = signal(null);
let shellLoading = null;
/**
 * Whether fetching the shell failed: the browser remembers a failed import for the life of the
 * page, so only a reload fetches it again.
 */
export let shellFailed = false;

/**
 * Fetches the signed-in shell, once. Started as soon as a sign-in is likely (main.js, the sign-in
 * form's first keystroke), and awaited by loadMe.
 */
export function loadShell() {
  shellLoading ??= import('./shell.js').then(
    (module) => {
      shell.value = module;
      return module;
    },
    (error) => {
      shellFailed = true;
      // The browser's own words ("Failed to fetch dynamically imported module …") are for an
      // administrator: the page says it in a person's words, keeping these under its details.
      throw Object.assign(new Error(error?.message ?? String(error), { cause: error }), {
        code: 'shell_unavailable',
        hint: '',
      });
    },
  );
  return shellLoading;
}

/** Whether this browser has used a session before: then the shell is likely needed at once. */
export function hadSession() {
  try {
    return globalThis.localStorage.getItem(LAST_REQUEST_KEY) !== null;
  } catch {
    return false;
  }
}
