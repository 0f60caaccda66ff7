/**
 * The signed-in shell, a chunk loaded after the first page: the password change Ward may require
 * first, the header, the sidebar from GET /api/v1/modules/-/active, and the router whose pages come
 * from the module layers. Everything outside a layer's own pages keeps working when a layer or
 * `/active` fails: each failure shows where it happened, with what to do.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LocationProvider, Router, useLocation } from 'preact-iso';
import {
  ApiRequestError,
  Banner,
  Button,
  EmptyState,
  ErrorBanner,
  Field,
  fieldErrors,
  html,
  language,
  locale,
  Loading,
  missingFields,
  PageHeader,
  personMessage,
  Slot,
} from '@ward/ui';
import { fetchModulesJson, listedLayers, loadLayers, moduleOfPath, under } from './layers.js';
import { isShellPath } from './paths.js';
// The shell's part of the English catalogues loads with it.
import './ui/shell-catalogue.js';
import { focusFirstField, LanguageChooser } from './sign-in.js';
import {
  active,
  api,
  expired,
  idleEnd,
  LAST_REQUEST_KEY,
  lastRequestAt,
  layers,
  loadActive,
  loadMe,
  me,
  modulesChanged,
  modulesText,
  phase,
  refreshAccess,
  sessionEnded,
  signOutError,
} from './state.js';
import { t } from './ui/strings.js';

const POLL_MS = 30_000;

/** The sidebar and the layers: what a signed-in user sees, loaded again at each sign-in. */
export async function loadModules() {
  const text = await fetchModulesJson().catch(() => null);
  modulesText.value = text;
  modulesChanged.value = false;
  const [loaded] = await Promise.all([loadLayers(safeList(text)), loadActive()]);
  layers.value = loaded;
  phase.value = 'ready';
}

function safeList(text) {
  try {
    return listedLayers(text);
  } catch {
    return [];
  }
}

/**
 * Someone is signed in: the password change or the two-factor enrolment Ward may require first,
 * else the shell. The router lives here, with the pages it routes to: the sign-in page needs none.
 */
export function SignedIn() {
  return html`<${LocationProvider}><${SignedInPage} /><//>`;
}

function SignedInPage() {
  if (me.value.mustChangePassword) return html`<${ChangePassword} />`;
  if (me.value.mustEnrolTwoFactor) return html`<${RequiredTwoFactor} />`;
  return html`<${Shell} />`;
}

/** The field a refused password change is about, by the server's error code. */
const PASSWORD_FIELDS = {
  weak_password: '/newPassword',
  guessable_password: '/newPassword',
  same_password: '/newPassword',
  wrong_password: '/currentPassword',
};

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const { route } = useLocation();
  const mismatch = repeat !== '' && next !== repeat ? t('password.mismatch') : null;
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    const missing = missingFields({ currentPassword: current, newPassword: next, repeatPassword: repeat }, [
      'currentPassword',
      'newPassword',
      'repeatPassword',
    ]);
    setErrors(missing);
    if (focusFirstField(missing) || next !== repeat) return;
    setBusy(true);
    try {
      await api.post('/auth/password', { currentPassword: current, newPassword: next });
      await loadMe();
    } catch (caught) {
      // The refusal shows at the field it is about, which gets the focus.
      const fields = passwordRefusal(caught);
      setErrors(fields);
      setError(caught);
      setBusy(false);
      focusFirstField(fields);
    }
  };
  return html`<main id="main" class="centered narrow">
    <h1>${t('password.title')}</h1>
    <p>${t('password.intro')}</p>
    ${error && html`<${ErrorBanner} title=${t('password.failed')} error=${error} />`}
    <form class="form" onSubmit=${submit} novalidate>
      <${PasswordPair}
        current=${current}
        next=${next}
        errors=${errors}
        onCurrent=${setCurrent}
        onNext=${setNext}
        hint=${t('password.newHint')}
      />
      <${Field}
        label=${t('password.repeat')}
        name="repeatPassword"
        type="password"
        autocomplete="new-password"
        required
        error=${errors['/repeatPassword'] ?? mismatch}
        value=${repeat}
        onInput=${setRepeat}
      />
      <div class="form-actions">
        <${Button} type="submit" busy=${busy}>${t('password.submit')}<//>
        <${Button} variant="secondary" onClick=${() => signOut(route)}>${t('shell.signOut')}<//>
      </div>
    </form>
  </main>`;
}

/**
 * Ends the session and starts over at the start page: the next user begins there. Only a server
 * that confirms it (or answers that the session is already gone) signs the page out: on a shared
 * clinic computer, a sign-out that silently failed would hand the session to the next person.
 */
async function signOut(route) {
  signOutError.value = null;
  try {
    await api.post('/auth/logout', undefined, { usesSession: false });
  } catch (caught) {
    if (!(caught instanceof ApiRequestError && caught.status === 401)) {
      signOutError.value = caught;
      return;
    }
  }
  expired.value = false;
  me.value = null;
  phase.value = 'signed-out';
  route('/', true);
}

/** Polls /modules.json (every 30 s and at each navigation) and says when it changed. */
function useModulesWatch(path) {
  useEffect(() => {
    const check = () =>
      fetchModulesJson().then(
        (text) => {
          if (text !== modulesText.value) modulesChanged.value = true;
        },
        () => undefined,
      );
    check();
    const timer = setInterval(check, POLL_MS);
    return () => clearInterval(timer);
  }, [path]);
}

/**
 * Runs `action` at each navigation but not at the first render: the page just loaded has
 * nothing to refresh, no banner to clear, and its focus where the browser put it.
 */
function useOnNavigation(path, action) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    action();
  }, [path]);
}

/** Reads the user's permissions again (not at the first page: they were just read). */
const refreshOnNavigation = () => void refreshAccess();

/**
 * A failed sign-out is said until the next navigation: by then the person has acted on it (the
 * page shows whether they are still signed in), and a banner about a past action misleads.
 */
const clearSignOutError = () => {
  signOutError.value = null;
};

/** Moves focus to the page, so keyboard users start there. */
const focusPage = () => {
  window.scrollTo(0, 0);
  document.getElementById('main')?.focus({ preventScroll: true });
};

function Shell() {
  const { path, route } = useLocation();
  useModulesWatch(path);
  useOnNavigation(path, refreshOnNavigation);
  useOnNavigation(path, focusPage);
  useOnNavigation(path, clearSignOutError);
  const user = me.value;
  return html`<a class="skip-link" href="#main">${t('shell.skip')}</a>
    <header class="topbar">
      <a class="brand" href="/">Ward</a>
      <div class="topbar-user">
        <span>${t('shell.signedInAs', { user: user.user.username })}</span>
        <span class="roles">
          ${user.roles.length === 0 ? t('shell.noRoles') : t('shell.roles', { roles: user.roles.join(', ') })}
        </span>
        <a class="topbar-link" href="/account" aria-current=${path === '/account' ? 'page' : undefined}
          >${t('account.link')}</a
        >
        <${LanguageChooser} />
        <${Button} variant="secondary" onClick=${() => signOut(route)}>${t('shell.signOut')}<//>
      </div>
    </header>
    <div class="layout">
      <${Sidebar} path=${path} />
      <main id="main" tabindex="-1">
        <${IdleWarning} />
        <${ShellBanners} />
        <${Routes} />
      </main>
    </div>`;
}

/**
 * The sidebar entries `/active` lists, in its order (clinical pages first, administration last),
 * each with its module; an entry whose path is not a path of this site is left out, so no link can
 * lead elsewhere whatever a backend sent.
 */
const navigationLinks = () => active.value.navigation.filter((entry) => isShellPath(entry.path));

/**
 * The server ends a session after `idleSeconds` without a request. A minute before (half the idle
 * time when that is shorter) the shell says so, with a button that uses the session and so keeps
 * it; at the end it signs out, so an unattended screen shows no patient, and sign-in brings the
 * person back to this page. Any tab's request counts, as it does for the server.
 */
function IdleWarning() {
  const idleSeconds = me.value?.credential?.idleSeconds ?? null;
  const last = lastRequestAt.value;
  useEffect(() => {
    if (idleSeconds === null) return undefined;
    const idleMs = idleSeconds * 1000;
    const end = last + idleMs;
    const warnAt = end - Math.min(60_000, idleMs / 2);
    const warn = () => {
      idleEnd.value = end;
    };
    if (Date.now() >= warnAt) warn();
    else idleEnd.value = null;
    const timers = [
      setTimeout(warn, Math.max(0, warnAt - Date.now())),
      setTimeout(() => void idleSignOut(), Math.max(0, end - Date.now())),
    ];
    return () => timers.forEach(clearTimeout);
  }, [idleSeconds, last]);
  const [error, setError] = useState(null);
  if (idleEnd.value === null) return null;
  const stay = async () => {
    setError(null);
    try {
      await api.get('/me');
    } catch (caught) {
      setError(caught);
    }
  };
  const at = new Date(idleEnd.value).toLocaleTimeString(locale(), {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return html`<div class="idle-warning">
    <${Banner}
      kind="warning"
      title=${t('idle.title')}
      action=${html`<${Button} onClick=${stay}>${t('idle.stay')}<//>`}
    >
      <p>${t('idle.body', { at })}</p>
    <//>
    ${error && html`<${ErrorBanner} title=${t('idle.failed')} error=${error} />`}
  </div>`;
}

/** The idle end came: the session is ended on the server too, in case its clock runs behind. */
async function idleSignOut() {
  if (phase.value !== 'ready' || me.value === null) return;
  // Another tab may have used the session a moment ago, and told this one too late for the timer.
  try {
    const stored = Number(globalThis.localStorage.getItem(LAST_REQUEST_KEY));
    if (stored > lastRequestAt.value) {
      lastRequestAt.value = stored;
      return;
    }
  } catch {
    // No storage: this tab's clock is the only one.
  }
  await api.post('/auth/logout', undefined, { signIn: true, usesSession: false }).catch(() => undefined);
  sessionEnded();
}

/**
 * A navigation entry's label in the language in use: its layer's message `navigation.<path>`
 * when the layer has one in that language, else the manifest's label.
 */
function navigationLabel(link) {
  const layer = layers.value.find((candidate) => candidate.name === link.module);
  return layer?.messages?.[language.value]?.[`navigation.${link.path}`] ?? link.label;
}

function Sidebar({ path }) {
  const links = navigationLinks();
  // One entry is the current page: of entries nested in one another (/appointments and
  // /appointments/practitioners), the longest that holds the path.
  const current = links
    .filter((link) => under(path, link.path))
    .reduce((best, link) => (best === null || link.path.length > best.path.length ? link : best), null);
  return html`<nav class="sidebar" aria-label=${t('shell.sidebar')}>
    <ul>
      ${links.map(
        (link) =>
          html`<li key=${`${link.module}:${link.path}`}>
            <a href=${link.path} aria-current=${link === current ? 'page' : undefined}
              >${navigationLabel(link)}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function ShellBanners() {
  const { error } = active.value;
  return html`${
    signOutError.value &&
    html`<${Banner} kind="error" title=${t('shell.signOutFailed')}>
      <p>${personMessage(signOutError.value).message}</p>
      <p class="banner-hint">${t('shell.signOutFailedHint')}</p>
    <//>`
  }${
    error &&
    html`<${Banner}
      kind="error"
      title=${t('shell.activeFailed')}
      action=${html`<${Button} variant="secondary" onClick=${loadActive}>${t('action.tryAgain')}<//>`}
    >
      <p>${personMessage(error).message}</p>
      <p class="banner-hint">
        ${
          error.status === 403 || error.status === 401
            ? t('shell.activeFailedAccess')
            : t('shell.activeFailedBackend')
        }
      </p>
    <//>`
  }
  ${
    modulesChanged.value &&
    html`<${Banner}
      kind="info"
      title=${t('shell.modulesChanged')}
      action=${html`<${Button} onClick=${() => location.reload()}>${t('action.reload')}<//>`}
    >
      <p>${t('shell.modulesChangedHint')}</p>
    <//>`
  }`;
}

function Routes() {
  const pages = layers.value.flatMap((layer) =>
    layer.routes.map(
      (route) =>
        html`<${LayerPage}
          key=${`${layer.name}:${route.path}`}
          path=${route.path}
          layer=${layer}
          route=${route}
        />`,
    ),
  );
  return html`<${Router}>
    <${Home} path="/" />
    <${Account} path="/account" />
    ${pages}
    <${Missing} default />
  <//>`;
}

function Home() {
  const location = useLocation();
  const links = navigationLinks();
  // The shell's own page hosts a slot too: what layers have to say about today.
  const access = me.value.permissions.join(' ');
  const context = useMemo(() => contextFor(null, location, {}), [location.url, access]);
  return html`<${PageHeader}
      title="Ward"
      description=${t('home.welcome', { user: me.value.user.username })}
    />
    ${
      links.length === 0
        ? html`<${EmptyState} title=${t('home.empty')}>
            <p>${t('home.emptyHint')}</p>
          <//>`
        : html`<ul class="home-links">
            ${links.map((link) => html`<li key=${link.path}><a href=${link.path}>${navigationLabel(link)}</a></li>`)}
          </ul>`
    } <${Slot} name="home.today" context=${context} />`;
}

/**
 * The context a layer's render gets (`name` null: the shell's own page). Its `extensions(slot)`
 * lists what the loaded layers contribute to `slot` and the user may see, each with its own
 * layer's context at this page; read once per slot, so a slot draws the same entries each time.
 */
function contextFor(name, location, params) {
  const permissions = new Set(me.value.permissions);
  const bySlot = new Map();
  const extensions = (slot) => {
    if (!bySlot.has(slot)) bySlot.set(slot, slotEntries(slot, permissions, location, params));
    return bySlot.get(slot);
  };
  return Object.freeze({
    module: name,
    api,
    user: Object.freeze({ username: me.value.user.username, roles: [...me.value.roles] }),
    permissions,
    can: (permission) => permissions.has(permission),
    navigate: (to, replace = false) => {
      if (!isShellPath(to))
        throw new Error(
          `navigate(${JSON.stringify(to)}) refused: give a path of this site, starting with a single / and without spaces or control characters`,
        );
      location.route(to, replace);
    },
    path: location.path,
    query: { ...location.query },
    params: { ...params },
    extensions,
    t: layers.value.find((layer) => layer.name === name)?.t ?? t,
  });
}

/** What the layers contribute to `slot` that `permissions` allow: by `order` (default 100), then module. */
function slotEntries(slot, permissions, location, params) {
  return layers.value
    .flatMap((layer) =>
      layer.extensions
        .map((extension, index) => ({ layer, extension, index }))
        .filter(({ extension }) => extension.slot === slot)
        .filter(
          ({ extension }) => extension.permission === undefined || permissions.has(extension.permission),
        ),
    )
    .sort(
      (a, b) =>
        (a.extension.order ?? 100) - (b.extension.order ?? 100) ||
        a.layer.name.localeCompare(b.layer.name) ||
        a.index - b.index,
    )
    .map(({ layer, extension, index }) => ({
      key: `${layer.name}:${index}`,
      module: layer.name,
      component: extension.component,
      context: contextFor(layer.name, location, params),
    }));
}

/** One route of a layer: renders into its own element; a throw shows a panel in its place. */
function LayerPage({ layer, route, params }) {
  const location = useLocation();
  // New permissions render the page again, so its write buttons follow them.
  const access = me.value.permissions.join(' ');
  const holder = useRef(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setError(null);
    // A fresh element per page: nothing a previous render left behind can leak into this one.
    const element = document.createElement('div');
    element.className = 'layer-root';
    holder.current.replaceChildren(element);
    let cleanup = null;
    let gone = false;
    const done = (result) => {
      if (typeof result !== 'function') return;
      if (gone) result();
      else cleanup = result;
    };
    try {
      const result = route.render(element, contextFor(layer.name, location, params));
      if (result instanceof Promise) result.then(done, (caught) => gone || setError(caught));
      else done(result);
    } catch (caught) {
      setError(caught);
    }
    return () => {
      gone = true;
      try {
        cleanup?.();
      } finally {
        element.remove();
      }
    };
    // A new language draws the page again, in it, like new permissions.
  }, [location.url, access, language.value]);
  return html`${error && html`<${LayerError} name=${layer.name} error=${error} />`}
    <div ref=${holder}></div>`;
}

function LayerError({ name, error }) {
  return html`<${PageHeader} title=${t('layer.failedTitle', { module: name })} />
    <${Banner}
      kind="error"
      title=${t('layer.failed', { module: name, message: error?.message ?? String(error) })}
    >
      <p>${t('layer.failedHint', { command: 'ward modules list' })}</p>
    <//>`;
}

/** No route matched: a missing or broken layer names its module; anything else is a plain 404. */
function Missing() {
  const { path } = useLocation();
  const module = moduleOfPath(path, active.value.modules);
  const layer = module && layers.value.find((candidate) => candidate.name === module.name);
  if (layer?.error) return html`<${LayerError} name=${layer.name} error=${layer.error} />`;
  if (module && !layer)
    return html`<${PageHeader} title=${t('missing.title')} />
      <${Banner} kind="warning" title=${t('missing.layerTitle', { module: module.name })}>
        <p>
          ${
            module.frontend === null
              ? t('missing.noFrontend', { module: module.name })
              : t('missing.notListed', { module: module.name, layer: module.frontend, file: '/modules.json' })
          }
        </p>
        <p class="banner-hint">${t('missing.sync', { command: 'ward modules sync-frontend' })}</p>
      <//>`;
  return html`<${PageHeader} title=${t('missing.title')} />
    <${EmptyState}
      title=${module ? t('missing.modulePage', { module: module.name, path }) : t('missing.page', { path })}
      action=${html`<a href="/">${t('missing.home')}</a>`}
    />`;
}

/**
 * The clinic requires two-factor sign-in of this user, who has none: setting it up comes before
 * anything else, as a Ward-chosen password's change does.
 */
function RequiredTwoFactor() {
  const { route } = useLocation();
  return html`<main id="main" class="centered narrow">
    <h1>${t('twoFactor.setUpTitle')}</h1>
    <p>${t('twoFactor.required')}</p>
    <${TwoFactorSetup} onDone=${() => loadMe()} />
    <p><${Button} variant="secondary" onClick=${() => signOut(route)}>${t('shell.signOut')}<//></p>
  </main>`;
}

/**
 * Setting up two-factor sign-in: the QR code and the secret (shown this once), a code from the app
 * to confirm, then the recovery codes (shown this once) until the person says they saved them.
 */
function TwoFactorSetup({ onDone }) {
  const [setup, setSetup] = useState(null);
  const [codes, setCodes] = useState(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setError(null);
    setBusy(true);
    try {
      setSetup(await api.post('/auth/two-factor/setup'));
    } catch (caught) {
      setError(caught);
    }
    setBusy(false);
  };
  const confirm = async (event) => {
    event.preventDefault();
    setError(null);
    const missing = missingFields({ code }, ['code']);
    setErrors(missing);
    if (focusFirstField(missing)) return;
    setBusy(true);
    try {
      const answer = await api.post('/auth/two-factor/confirm', { code: code.replace(/\s/g, '') });
      setCodes(answer.recoveryCodes);
    } catch (caught) {
      const fields =
        caught instanceof ApiRequestError && caught.code === 'wrong_code'
          ? { '/code': personMessage(caught).message }
          : {};
      setErrors(fields);
      setError(caught);
      focusFirstField(fields);
    }
    setBusy(false);
  };
  if (codes !== null)
    return html`<section aria-labelledby="recovery-title">
      <h2 id="recovery-title">${t('twoFactor.recoveryTitle')}</h2>
      <p>${t('twoFactor.recoveryHelp')}</p>
      <ul class="recovery-codes">
        ${codes.map((one) => html`<li key=${one}><code>${one}</code></li>`)}
      </ul>
      <${Button} onClick=${onDone}>${t('twoFactor.saved')}<//>
    </section>`;
  if (setup === null)
    return html`${error && html`<${ErrorBanner} title=${t('twoFactor.setupFailed')} error=${error} />`}
      <${Button} busy=${busy} onClick=${start}>${t('twoFactor.setUpTitle')}<//>`;
  return html`<section aria-labelledby="setup-title">
    <h2 id="setup-title">${t('twoFactor.scan')}</h2>
    <img
      class="totp-qr"
      src=${`data:image/svg+xml;base64,${globalThis.btoa(setup.qrSvg)}`}
      alt=${t('twoFactor.qrAlt')}
      width="200"
      height="200"
    />
    <p>${t('twoFactor.typeKey')} <code class="totp-secret">${setup.secret}</code></p>
    ${error && html`<${ErrorBanner} title=${t('twoFactor.notOnYet')} error=${error} />`}
    <form class="form" onSubmit=${confirm} novalidate>
      <${Field}
        label=${t('twoFactor.appCode')}
        name="code"
        autocomplete="one-time-code"
        inputmode="numeric"
        hint=${t('twoFactor.appCodeHint')}
        required
        error=${errors['/code']}
        value=${code}
        onInput=${setCode}
      />
      <${Button} type="submit" busy=${busy}>${t('twoFactor.turnOn')}<//>
    </form>
  </section>`;
}

/** Every user's own account: two-factor sign-in, and the password. */
function Account() {
  const [status, setStatus] = useState(null);
  const [error, setError] = useState(null);
  const load = async () => {
    try {
      setStatus(await api.get('/auth/two-factor'));
    } catch (caught) {
      setError(caught);
    }
  };
  useEffect(() => void load(), []);
  return html`<${PageHeader}
      title=${t('account.title')}
      description=${t('account.signedInAs', { user: me.value.user.username })}
    />
    <section class="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">${t('twoFactor.title')}</h2>
      ${error && html`<${ErrorBanner} title=${t('twoFactor.unreadable')} error=${error} />`}
      ${status === null && !error && html`<${Loading} />`}
      ${status !== null && status.enabled && html`<${TwoFactorOn} status=${status} onChange=${load} />`}
      ${
        status !== null &&
        !status.enabled &&
        html`<p>${t('twoFactor.off')}</p>
          <${TwoFactorSetup} onDone=${load} />`
      }
    </section>
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">${t('signIn.password')}</h2>
      <${OwnPassword} />
    </section>`;
}

function TwoFactorOn({ status, onChange }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const disable = async (event) => {
    event.preventDefault();
    setError(null);
    const missing = missingFields({ disablePassword: password }, ['disablePassword']);
    setErrors(missing);
    if (focusFirstField(missing)) return;
    setBusy(true);
    try {
      await api.post('/auth/two-factor/disable', { password });
      await onChange();
    } catch (caught) {
      const fields =
        caught instanceof ApiRequestError && caught.code === 'wrong_password'
          ? { '/disablePassword': personMessage(caught).message }
          : {};
      setErrors(fields);
      setError(caught);
      setBusy(false);
      focusFirstField(fields);
    }
  };
  return html`<p>
      ${t('twoFactor.on', { left: status.recoveryCodesLeft })}
      ${status.required ? t('twoFactor.onRequired') : ''}
    </p>
    ${error && html`<${ErrorBanner} title=${t('twoFactor.stillOn')} error=${error} />`}
    <form class="form" onSubmit=${disable} novalidate>
      <input type="text" name="username" autocomplete="username" value=${me.value.user.username} hidden />
      <${Field}
        label=${t('twoFactor.disablePassword')}
        name="disablePassword"
        type="password"
        autocomplete="current-password"
        required
        error=${errors['/disablePassword']}
        value=${password}
        onInput=${setPassword}
      />
      <${Button} type="submit" variant="secondary" busy=${busy}>${t('twoFactor.turnOff')}<//>
    </form>`;
}

/** A refused password change's errors, at the field the refusal is about (PASSWORD_FIELDS) when it names one. */
function passwordRefusal(caught) {
  const at = caught instanceof ApiRequestError ? PASSWORD_FIELDS[caught.code] : undefined;
  return at === undefined ? fieldErrors(caught) : { [at]: personMessage(caught).message };
}

/** The current and the new password, as both password forms ask them (with the username for password managers). */
function PasswordPair({ current, next, errors, onCurrent, onNext, hint }) {
  return html`<input
      type="text"
      name="username"
      autocomplete="username"
      value=${me.value.user.username}
      hidden
    />
    <${Field}
      label=${t('password.current')}
      name="currentPassword"
      type="password"
      autocomplete="current-password"
      required
      error=${errors['/currentPassword']}
      value=${current}
      onInput=${onCurrent}
    />
    <${Field}
      label=${t('password.new')}
      name="newPassword"
      type="password"
      autocomplete="new-password"
      hint=${hint}
      required
      error=${errors['/newPassword']}
      value=${next}
      onInput=${onNext}
    />`;
}

/** Changing one's own password: the other sessions end, as the hint says. */
function OwnPassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    setDone(false);
    const missing = missingFields({ currentPassword: current, newPassword: next }, [
      'currentPassword',
      'newPassword',
    ]);
    setErrors(missing);
    if (focusFirstField(missing)) return;
    setBusy(true);
    try {
      await api.post('/auth/password', { currentPassword: current, newPassword: next });
      setCurrent('');
      setNext('');
      setDone(true);
    } catch (caught) {
      const fields = passwordRefusal(caught);
      setErrors(fields);
      setError(caught);
      focusFirstField(fields);
    }
    setBusy(false);
  };
  return html`${done && html`<${Banner} kind="success"><p>${t('password.changed')}</p><//>`}
    ${error && html`<${ErrorBanner} title=${t('password.failed')} error=${error} />`}
    <form class="form" onSubmit=${submit} novalidate>
      <${PasswordPair}
        current=${current}
        next=${next}
        errors=${errors}
        onCurrent=${setCurrent}
        onNext=${setNext}
        hint=${t('password.ownHint')}
      />
      <${Button} type="submit" busy=${busy}>${t('password.submit')}<//>
    </form>`;
}
