/**
 * The first page: sign-in (with its second factor), the language chooser, and the page shown when
 * Ward cannot be reached. It loads with the bootstrap; the signed-in shell loads after it.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from './ui/html.js';
import { language, LANGUAGES } from './ui/i18n.js';
import { setLanguage } from './ui/languages.js';
import { missingFields, personMessage } from './ui/messages.js';
import { ApiRequestError, Banner, Button, ErrorBanner, Field } from './ui/forms.js';
import { t } from './ui/strings.js';
import { afterSignIn, api, bootError, expired, loadMe, loadShell, shellFailed } from './state.js';

/** Asks /me again; a page whose shell could not be fetched is loaded again instead. */
const tryAgain = () => (shellFailed ? globalThis.location.reload() : void loadMe());

export function Unreachable() {
  return html`<main id="main" class="centered narrow">
    <h1>${t('unreachable.title')}</h1>
    <${ErrorBanner} error=${bootError.value} />
    <p>${t('unreachable.help', { command: 'ward serve', npm: 'npm start' })}</p>
    <${Button} onClick=${tryAgain}>${t('action.tryAgain')}<//>
  </main>`;
}

/**
 * Sign-in is admitted a few at a time: the server bounds password hashing and lets sign-ins wait
 * their turn, answering 503 `sign_in_busy` with Retry-After only when no turn came for 10 s. Should
 * that happen, the page tries again a few times rather than show an error at once.
 */
async function signInPatiently(username, password, attempts = 5) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.post('/auth/login', { username, password }, { signIn: true });
    } catch (caught) {
      if (!(caught instanceof ApiRequestError && caught.code === 'sign_in_busy') || attempt >= attempts)
        throw caught;
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
    }
  }
}

/**
 * A person typing here is about to sign in: the signed-in shell starts loading then, so it is
 * there when the password is checked. A failure is left for loadMe to show.
 */
const startShell = () => void loadShell().catch(() => undefined);

export function SignIn() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  /** Set when the password was right and a second factor must follow. */
  const [challenge, setChallenge] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    const missing = missingFields({ username, password }, ['username', 'password']);
    setErrors(missing);
    if (focusFirstField(missing)) return;
    setBusy(true);
    try {
      const answer = await signInPatiently(username, password);
      if (answer.secondFactorRequired) {
        setPassword('');
        setBusy(false);
        setChallenge(answer.challenge);
        return;
      }
      await afterSignIn();
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  if (challenge !== null)
    return html`<${SecondFactor} challenge=${challenge} onRestart=${() => setChallenge(null)} />`;
  return html`<main id="main" class="centered narrow">
    <div class="language-row"><${LanguageChooser} /></div>
    <h1>${t('signIn.title')}</h1>
    ${expired.value && !error && html`<${Banner} kind="info"><p>${t('signIn.expired')}</p><//>`}
    ${error && html`<${ErrorBanner} title=${t('signIn.failed')} error=${error} />`}
    <form class="form" onSubmit=${submit} onInput=${startShell} novalidate>
      <${Field}
        label=${t('signIn.username')}
        name="username"
        autocomplete="username"
        autocapitalize="none"
        required
        error=${errors['/username']}
        value=${username}
        onInput=${setUsername}
      />
      <${Field}
        label=${t('signIn.password')}
        name="password"
        type="password"
        autocomplete="current-password"
        required
        error=${errors['/password']}
        value=${password}
        onInput=${setPassword}
      />
      <${Button} type="submit" busy=${busy}>${t('signIn.submit')}<//>
    </form>
  </main>`;
}

/** The field a refused code is about, by the server's error code. */
const CODE_FIELDS = { wrong_code: '/code', invalid_body: '/code' };

/** The second sign-in step: a code from the authenticator app, or a recovery code. */
function SecondFactor({ challenge, onRestart }) {
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  useEffect(() => document.getElementById('field-code')?.focus(), [recovery]);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    const missing = missingFields({ code }, ['code']);
    setErrors(missing);
    if (focusFirstField(missing)) return;
    setBusy(true);
    try {
      await api.post(
        '/auth/login/second-factor',
        recovery ? { challenge, recoveryCode: code } : { challenge, code: code.replace(/\s/g, '') },
        { signIn: true },
      );
      await afterSignIn();
    } catch (caught) {
      if (
        caught instanceof ApiRequestError &&
        ['challenge_expired', 'too_many_codes'].includes(caught.code)
      ) {
        setBusy(false);
        setError(caught);
        return;
      }
      const at = caught instanceof ApiRequestError ? CODE_FIELDS[caught.code] : undefined;
      const fields = at === undefined ? {} : { [at]: personMessage(caught).message };
      setErrors(fields);
      setError(caught);
      setBusy(false);
      focusFirstField(fields);
    }
  };
  return html`<main id="main" class="centered narrow">
    <h1>${t('twoFactor.signInTitle')}</h1>
    <p>${recovery ? t('twoFactor.recoveryIntro') : t('twoFactor.codeIntro')}</p>
    ${error && html`<${ErrorBanner} title=${t('signIn.failed')} error=${error} />`}
    <form class="form" onSubmit=${submit} novalidate>
      <${Field}
        label=${recovery ? t('twoFactor.recoveryCode') : t('twoFactor.code')}
        name="code"
        autocomplete="one-time-code"
        inputmode=${recovery ? undefined : 'numeric'}
        autocapitalize="none"
        required
        error=${errors['/code']}
        value=${code}
        onInput=${setCode}
      />
      <div class="form-actions">
        <${Button} type="submit" busy=${busy}>${t('signIn.submit')}<//>
        <${Button}
          variant="secondary"
          onClick=${() => {
            setRecovery(!recovery);
            setCode('');
            setErrors({});
          }}
          >${recovery ? t('twoFactor.useApp') : t('twoFactor.useRecovery')}<//
        >
        <${Button} variant="secondary" onClick=${onRestart}>${t('twoFactor.startOver')}<//>
      </div>
    </form>
  </main>`;
}

/**
 * The language chooser: the person's choice overrides the browser's languages, in this browser
 * (remembered in localStorage), at once and on every page.
 */
export function LanguageChooser() {
  // A language other than English loads when chosen: if it cannot, the page keeps its language.
  const [failed, setFailed] = useState(false);
  const choose = (event) => {
    const select = event.currentTarget;
    setFailed(false);
    setLanguage(select.value).catch(() => {
      select.value = language.value;
      setFailed(true);
    });
  };
  return html`<span class="language-chooser">
    <label for="language">${t('shell.language')}</label>
    <select
      id="language"
      value=${language.value}
      aria-describedby=${failed ? 'language-error' : undefined}
      onChange=${choose}
    >
      ${LANGUAGES.map(({ code, name }) => html`<option key=${code} value=${code} lang=${code}>${name}</option>`)}
    </select>
    ${failed && html`<span id="language-error" role="alert">${t('shell.languageFailed')}</span>`}
  </span>`;
}

/** Focuses the field of the first of `errors` (`{pointer: message}`); false when there is none. */
export function focusFirstField(errors) {
  const first = Object.keys(errors)[0];
  if (first === undefined) return false;
  document.getElementById(`field-${first.slice(1)}`)?.focus();
  return true;
}
