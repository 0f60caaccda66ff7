/**
 * Staff administration, for holders of base.user.manage: `/users` lists everyone and creates a
 * user with a temporary password (the person chooses their own at first sign-in); `/users/<name>`
 * manages one person: roles, disable and enable, a password reset, their two-factor sign-in and
 * their API tokens. Each action says what it did, or why it was refused.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  ErrorBanner,
  Field,
  fieldErrors,
  html,
  Loading,
  locale,
  missingFields,
  mount,
  PageHeader,
  Table,
  translator,
} from '@ward/ui';
import messages from './messages.js';

/** This layer's words in the language in use. */
const t = translator(messages);

const SECTION = { marginTop: '2rem' };
const time = (iso) => (iso ? new Date(iso).toLocaleString(locale()) : '—');

function stateOf(user) {
  if (user.disabled) return t('staff.state.disabled');
  if (!user.hasPassword) return t('staff.state.service');
  if (user.mustChangePassword) return t('staff.state.mustChange');
  return t('staff.state.active');
}

/** GETs `path` again whenever `version` changes: `{data, error}`. */
function useRead(context, path, version) {
  const [state, setState] = useState({ data: null, error: null });
  useEffect(() => {
    context.api.get(path).then(
      (data) => setState({ data, error: null }),
      (error) => setState({ data: null, error }),
    );
  }, [path, version]);
  return state;
}

function UsersPage({ context }) {
  const [version, setVersion] = useState(0);
  const read = useRead(context, '/users', version);
  return html`<${PageHeader} title=${t('staff.title')} description=${t('staff.description')} />
    ${read.error && html`<${ErrorBanner} title=${t('staff.unreadable')} error=${read.error} />`}
    ${read.data === null && !read.error && html`<${Loading} label=${t('staff.loading')} />`}
    ${
      read.data &&
      html`<${Table}
        caption=${t('staff.title')}
        rowKey=${(user) => user.username}
        rows=${read.data.users}
        columns=${[
          {
            key: 'username',
            label: t('staff.username'),
            render: (user) => html`<a href=${`/users/${user.username}`}>${user.username}</a>`,
          },
          { key: 'roles', label: t('staff.roles'), render: (user) => user.roles.join(', ') || '—' },
          { key: 'state', label: t('staff.state'), render: stateOf },
          {
            key: 'twoFactor',
            label: t('staff.twoFactor'),
            render: (user) => (user.twoFactor ? t('staff.on') : t('staff.off')),
          },
        ]}
      />`
    }
    ${read.data && html`<${CreateUser} context=${context} roles=${read.data.roles} onCreated=${() => setVersion(version + 1)} />`}`;
}

function CreateUser({ context, roles, onCreated }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [done, setDone] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    setDone(null);
    const missing = missingFields({ username, temporaryPassword: password }, [
      'username',
      'temporaryPassword',
    ]);
    setErrors(missing);
    if (Object.keys(missing).length > 0) {
      document.getElementById(`field-${Object.keys(missing)[0].slice(1)}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      await context.api.post('/users', {
        username,
        roles: role === '' ? [] : [role],
        temporaryPassword: password,
      });
      setDone(username);
      setUsername('');
      setPassword('');
      setRole('');
      onCreated();
    } catch (caught) {
      setError(caught);
      setErrors(fieldErrors(caught));
    }
    setBusy(false);
  };
  return html`<section aria-labelledby="create-title" style=${SECTION}>
    <h2 id="create-title">${t('staff.add.title')}</h2>
    ${done && html`<${Banner} kind="success"><p>${t('staff.add.done', { user: done })}</p><//>`}
    ${error && html`<${ErrorBanner} title=${t('staff.add.failed')} error=${error} />`}
    <form class="form" onSubmit=${submit} novalidate>
      <${Field}
        label=${t('staff.username')}
        name="username"
        autocapitalize="none"
        autocomplete="off"
        hint=${t('staff.add.usernameHint')}
        required
        error=${errors['/username']}
        value=${username}
        onInput=${setUsername}
      />
      <${Field}
        label=${t('staff.role')}
        name="role"
        value=${role}
        onInput=${setRole}
        options=${[{ value: '', label: t('staff.noRole') }, ...roles.map((name) => ({ value: name, label: name }))]}
      />
      <${Field}
        label=${t('staff.temporaryPassword')}
        name="temporaryPassword"
        type="password"
        autocomplete="new-password"
        hint=${t('staff.add.passwordHint')}
        required
        error=${errors['/temporaryPassword']}
        value=${password}
        onInput=${setPassword}
      />
      <${Button} type="submit" busy=${busy}>${t('staff.add.submit')}<//>
    </form>
  </section>`;
}

/** One button that POSTs (or DELETEs) and reports; `then` reloads the page's data. */
function useAction(context, then) {
  const [result, setResult] = useState(null);
  const run = async (label, method, path, body) => {
    setResult(null);
    try {
      await context.api.request(method, path, body);
      setResult({ ok: label });
      then();
    } catch (error) {
      setResult({ error, label });
    }
  };
  const banner =
    result === null
      ? null
      : result.ok
        ? html`<${Banner} kind="success"><p>${result.ok}</p><//>`
        : html`<${ErrorBanner}
            title=${t('staff.notDone', { action: result.label })}
            error=${result.error}
          />`;
  return { run, banner };
}

function UserPage({ context }) {
  const name = context.params.username;
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((value) => value + 1);
  const list = useRead(context, '/users', version);
  const tokens = useRead(context, `/users/${encodeURIComponent(name)}/tokens`, version);
  const { run, banner } = useAction(context, reload);
  const [role, setRole] = useState('');
  const [password, setPassword] = useState('');
  const user = list.data?.users.find((candidate) => candidate.username === name) ?? null;
  const base = `/users/${encodeURIComponent(name)}`;
  if (list.error) return html`<${PageHeader} title=${name} /><${ErrorBanner} error=${list.error} />`;
  if (list.data === null) return html`<${PageHeader} title=${name} /><${Loading} />`;
  if (user === null)
    return html`<${PageHeader} title=${name} />
      <${Banner} kind="warning" title=${t('staff.noUser', { user: name })}
        ><p><a href="/users">${t('staff.back')}</a></p><//
      >`;
  const addable = list.data.roles.filter((candidate) => !user.roles.includes(candidate));
  return html`<${PageHeader} title=${user.username} description=${stateOf(user)} />
    <div aria-live="polite">${banner}</div>
    <section aria-labelledby="roles-title" style=${SECTION}>
      <h2 id="roles-title">${t('staff.roles')}</h2>
      <ul>
        ${user.roles.map(
          (held) =>
            html`<li key=${held}>
              ${held}
              <${Button}
                variant="secondary"
                aria-label=${t('staff.removeRoleLabel', { role: held })}
                onClick=${() => run(t('staff.removedRole', { role: held }), 'DELETE', `${base}/roles/${held}`)}
                >${t('staff.remove')}<//
              >
            </li>`,
        )}
      </ul>
      ${
        addable.length > 0 &&
        html`<form
          class="form"
          onSubmit=${(event) => {
            event.preventDefault();
            if (role !== '') void run(t('staff.grantedRole', { role }), 'POST', `${base}/roles`, { role });
          }}
        >
          <${Field}
            label=${t('staff.roleToAdd')}
            name="addRole"
            value=${role}
            onInput=${setRole}
            options=${[{ value: '', label: t('staff.chooseRole') }, ...addable.map((r) => ({ value: r, label: r }))]}
          />
          <${Button} type="submit">${t('staff.addRole')}<//>
        </form>`
      }
    </section>
    <section aria-labelledby="access-title" style=${SECTION}>
      <h2 id="access-title">${t('staff.access')}</h2>
      <p>${t('staff.disableExplain', { user: user.username })}</p>
      ${
        user.disabled
          ? html`<${Button}
              onClick=${() => run(t('staff.enabled', { user: user.username }), 'POST', `${base}/enable`)}
              >${t('staff.enable')}<//
            >`
          : html`<${Button}
              variant="secondary"
              onClick=${() => run(t('staff.disabled', { user: user.username }), 'POST', `${base}/disable`)}
              >${t('staff.disable')}<//
            >`
      }
      <p>${user.twoFactor ? t('staff.twoFactorOn') : t('staff.twoFactorOff')}</p>
      ${
        user.twoFactor &&
        html`<${Button}
          variant="secondary"
          onClick=${() => run(t('staff.twoFactorTurnedOff'), 'POST', `${base}/two-factor/disable`)}
          >${t('staff.twoFactorTurnOff')}<//
        >`
      }
    </section>
    <section aria-labelledby="reset-title" style=${SECTION}>
      <h2 id="reset-title">${t('staff.reset.title')}</h2>
      <form
        class="form"
        novalidate
        onSubmit=${(event) => {
          event.preventDefault();
          if (password === '') return;
          void run(t('staff.reset.done', { user: user.username }), 'POST', `${base}/password`, {
            temporaryPassword: password,
          }).then(() => setPassword(''));
        }}
      >
        <${Field}
          label=${t('staff.temporaryPassword')}
          name="resetPassword"
          type="password"
          autocomplete="new-password"
          hint=${t('staff.reset.hint')}
          value=${password}
          onInput=${setPassword}
        />
        <${Button} type="submit">${t('staff.reset.submit')}<//>
      </form>
    </section>
    <section aria-labelledby="tokens-title" style=${SECTION}>
      <h2 id="tokens-title">${t('staff.tokens')}</h2>
      ${tokens.error && html`<${ErrorBanner} error=${tokens.error} />`}
      ${
        tokens.data &&
        (tokens.data.tokens.length === 0
          ? html`<p>${t('staff.tokens.none')}</p>`
          : html`<${Table}
              caption=${t('staff.tokens')}
              rows=${tokens.data.tokens}
              columns=${[
                { key: 'id', label: t('staff.tokens.id') },
                { key: 'name', label: t('staff.tokens.name'), render: (token) => token.name ?? '—' },
                {
                  key: 'role',
                  label: t('staff.role'),
                  render: (token) => token.role ?? t('staff.tokens.allRoles'),
                },
                {
                  key: 'status',
                  label: t('staff.tokens.status'),
                  render: (token) => t(`staff.tokens.status.${token.status}`),
                },
                {
                  key: 'lastUsedAt',
                  label: t('staff.tokens.lastUsed'),
                  render: (token) => time(token.lastUsedAt),
                },
                {
                  key: 'revoke',
                  label: t('staff.tokens.revoke'),
                  render: (token) =>
                    token.status === 'active'
                      ? html`<${Button}
                          variant="secondary"
                          aria-label=${t('staff.tokens.revokeLabel', { id: token.id })}
                          onClick=${() => run(t('staff.tokens.revoked', { id: token.id }), 'POST', `${base}/tokens/${token.id}/revoke`)}
                          >${t('staff.tokens.revoke')}<//
                        >`
                      : '—',
                },
              ]}
            />`)
      }
    </section>
    <p style=${SECTION}><a href="/users">${t('staff.back')}</a></p>`;
}

export const userRoutes = [
  { path: '/users', render: mount(UsersPage) },
  { path: '/users/:username', render: mount(UserPage) },
];
