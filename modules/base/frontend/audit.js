/**
 * The audit trail, for holders of base.audit.read: `/audit` answers "every access to this patient"
 * (`?patient=42`) and "everything this user did" (`?user=alice`), with the action and a date range
 * as further filters. The filters live in the address, so a search can be bookmarked, shared and
 * gone back to; pages follow by cursor (Previous/Next). The patient page's `patient.chart` slot
 * shows the newest events about that patient, with a link here for all of them.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  EmptyState,
  ErrorBanner,
  Field,
  html,
  Loading,
  locale,
  PageHeader,
  Pager,
  Table,
  translator,
  usePager,
} from '@ward/ui';
import messages from './messages.js';

/** This layer's words in the language in use. */
const t = translator(messages);

export const AUDIT_READ = 'base.audit.read';
const PAGE_SIZE = 50;
const CHART_SIZE = 10;
const FILTERS = ['patient', 'user', 'action', 'since', 'until'];
const WRAP = { overflowWrap: 'anywhere' };

/** The actions a filter offers, their labels read when drawn so that they follow the language. */
const ACTIONS = [
  {
    value: '',
    get label() {
      return t('audit.action.any');
    },
  },
  {
    value: 'record',
    get label() {
      return t('audit.action.record');
    },
  },
  {
    value: 'record.read',
    get label() {
      return t('audit.action.record.read');
    },
  },
  {
    value: 'record.list',
    get label() {
      return t('audit.action.record.list');
    },
  },
  {
    value: 'record.create',
    get label() {
      return t('audit.action.record.create');
    },
  },
  {
    value: 'record.update',
    get label() {
      return t('audit.action.record.update');
    },
  },
  {
    value: 'record.delete',
    get label() {
      return t('audit.action.record.delete');
    },
  },
  {
    value: 'record.download',
    get label() {
      return t('audit.action.record.download');
    },
  },
  {
    value: 'record.batch',
    get label() {
      return t('audit.action.record.batch');
    },
  },
  {
    value: 'auth',
    get label() {
      return t('audit.action.auth');
    },
  },
  {
    value: 'user',
    get label() {
      return t('audit.action.user');
    },
  },
  {
    value: 'token',
    get label() {
      return t('audit.action.token');
    },
  },
  {
    value: 'import',
    get label() {
      return t('audit.action.import');
    },
  },
  {
    value: 'module',
    get label() {
      return t('audit.action.module');
    },
  },
  {
    value: 'audit',
    get label() {
      return t('audit.action.audit');
    },
  },
];

/** The outcomes' message keys. */
const OUTCOMES = { ok: 'audit.outcome.ok', refused: 'audit.outcome.refused', failed: 'audit.outcome.failed' };
const outcomeLabel = (outcome) => (OUTCOMES[outcome] ? t(OUTCOMES[outcome]) : outcome);

const time = (iso) => new Date(iso).toLocaleString(locale());

/**
 * A refused filter in the server's own words (which filter, and how to write it): the shell's
 * generic "the search could not be read" would leave an administrator guessing. Anything else is
 * the shell's ErrorBanner.
 */
function AuditError({ error, title }) {
  if (error.code !== 'invalid_query') return html`<${ErrorBanner} title=${title} error=${error} />`;
  return html`<${Banner} kind="error" title=${title}>
    <p>${error.message.replace(/^the query parameter /, t('audit.filterPrefix'))}</p>
    ${error.hint && html`<p class="banner-hint">${error.hint}</p>`}
  <//>`;
}

/** The address of the audit page showing `filters` (empty ones left out). */
export function auditPath(filters) {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (filters[name]) params.set(name, filters[name]);
  const query = params.toString();
  return query === '' ? '/audit' : `/audit?${query}`;
}

/** Who acted, in words: the user's name when there is one, else the actor as recorded. */
function Who({ event, link }) {
  if (event.username === null) return html`<span style=${WRAP}>${event.actor}</span>`;
  const via = event.actor.includes(':token:') ? t('audit.viaToken') : '';
  return link
    ? html`<a href=${auditPath({ user: event.username })}>${event.username}</a>${via}`
    : html`${event.username}${via}`;
}

const actionLabel = (action) => ACTIONS.find((option) => option.value === action)?.label ?? action;

/** What the event was about: the record, and for a change the fields it changed (never their values here). */
function what(event) {
  const record =
    event.kind === null
      ? (event.module ?? '—')
      : `${event.kind}${event.recordId ? ` ${event.recordId}` : ''}`;
  const detail = event.detail;
  if (detail && typeof detail === 'object' && detail.changes && typeof detail.changes === 'object')
    return `${record}: ${Object.keys(detail.changes).join(', ')}`;
  if (detail && typeof detail === 'object' && Array.isArray(detail.ids))
    return t('audit.shown', { record, count: detail.ids.length });
  if (detail && typeof detail === 'object' && typeof detail.code === 'string')
    return `${record}: ${detail.code}`;
  return record;
}

const COLUMNS = [
  { key: 'at', label: t('audit.time'), render: (event) => time(event.at) },
  { key: 'who', label: t('audit.who'), render: (event) => html`<${Who} event=${event} link=${true} />` },
  { key: 'action', label: t('audit.action'), render: (event) => actionLabel(event.action) },
  { key: 'outcome', label: t('audit.outcome'), render: (event) => outcomeLabel(event.outcome) },
  {
    key: 'what',
    label: t('audit.record'),
    render: (event) => html`<span style=${WRAP}>${what(event)}</span>`,
  },
  {
    key: 'patient',
    label: t('audit.patient'),
    // A list names the patients it showed in patientIds: how many, the detail is in the export.
    render: (event) =>
      event.patientId !== null
        ? html`<a href=${auditPath({ patient: event.patientId })}>${event.patientId}</a>`
        : event.patientIds !== null
          ? t('audit.listed', { count: event.patientIds.length })
          : '—',
  },
  { key: 'client', label: t('audit.client'), render: (event) => event.client ?? '—' },
];

/** The page's title and table caption for the filters in force. */
function describe(filters) {
  const parts = [];
  if (filters.user) parts.push(t('audit.describe.by', { user: filters.user }));
  if (filters.patient) parts.push(t('audit.describe.about', { patient: filters.patient }));
  if (filters.action) parts.push(t('audit.describe.kind', { action: actionLabel(filters.action) }));
  if (filters.since) parts.push(t('audit.describe.since', { date: filters.since }));
  if (filters.until) parts.push(t('audit.describe.until', { date: filters.until }));
  if (filters.patient && parts.length === 1) return t('audit.describe.patient');
  if (filters.user && parts.length === 1) return t('audit.describe.user', { user: filters.user });
  return parts.length === 0 ? t('audit.describe.all') : t('audit.describe.some', { parts: parts.join(', ') });
}

function Filters({ context, filters }) {
  const [form, setForm] = useState(filters);
  const set = (name) => (value) => setForm({ ...form, [name]: value });
  const submit = (event) => {
    event.preventDefault();
    context.navigate(auditPath(Object.fromEntries(FILTERS.map((name) => [name, (form[name] ?? '').trim()]))));
  };
  return html`<form role="search" aria-label=${t('audit.filter')} onSubmit=${submit}>
    <div class="form-grid">
      <${Field}
        label=${t('audit.patientId')}
        name="patient"
        value=${form.patient}
        onInput=${set('patient')}
        hint=${t('audit.patientHint')}
      />
      <${Field}
        label=${t('audit.username')}
        name="user"
        value=${form.user}
        onInput=${set('user')}
        hint=${t('audit.userHint')}
      />
      <${Field}
        label=${t('audit.action')}
        name="action"
        value=${form.action}
        onInput=${set('action')}
        options=${ACTIONS}
      />
      <${Field}
        label=${t('audit.since')}
        name="since"
        type="date"
        value=${form.since}
        onInput=${set('since')}
        hint=${t('audit.sinceHint')}
      />
      <${Field}
        label=${t('audit.until')}
        name="until"
        type="date"
        value=${form.until}
        onInput=${set('until')}
        hint=${t('audit.untilHint')}
      />
    </div>
    <div class="form-actions" style=${{ marginTop: '1rem' }}>
      <${Button} type="submit">${t('audit.show')}<//>
      ${FILTERS.some((name) => filters[name]) && html`<a class="button button-secondary" href="/audit">${t('audit.clear')}</a>`}
    </div>
  </form>`;
}

function useAuditPage(context, query, cursor) {
  const [state, setState] = useState({ page: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ page: null, error: null });
    const params = new URLSearchParams(query);
    if (cursor !== null) params.set('cursor', cursor);
    context.api.get(`/audit?${params}`, { signal: controller.signal }).then(
      (page) => setState({ page, error: null }),
      (error) => {
        if (error.name !== 'AbortError') setState({ page: null, error });
      },
    );
    return () => controller.abort();
  }, [query, cursor]);
  return state;
}

export function AuditPage({ context }) {
  const filters = Object.fromEntries(FILTERS.map((name) => [name, context.query[name] ?? '']));
  const query = new URLSearchParams(
    Object.entries({ ...filters, limit: String(PAGE_SIZE) }).filter(([, value]) => value !== ''),
  ).toString();
  const pager = usePager();
  const { page, error } = useAuditPage(context, query, pager.cursor);
  const title = describe(filters);
  return html`<${PageHeader} title=${t('audit.title')} description=${t('audit.description')} />
    <${Filters} context=${context} filters=${filters} />
    <section aria-labelledby="audit-results" style=${{ marginTop: '2rem' }}>
      <h2 id="audit-results">${title}</h2>
      ${error && html`<${AuditError} title=${t('audit.unreadable')} error=${error} />`}
      ${!error && page === null && html`<${Loading} label=${t('audit.loading')} />`}
      ${
        page !== null &&
        (page.items.length === 0 && pager.page === 1
          ? html`<${EmptyState} title=${t('audit.empty')} />`
          : html`<${Table}
                caption=${t('audit.caption', { title, page: pager.page })}
                columns=${COLUMNS}
                rows=${page.items}
                rowKey=${(event) => event.id}
              />
              <${Pager} label=${t('audit.pages')} pager=${pager} nextCursor=${page.nextCursor} />`)
      }
    </section>`;
}

/** The patient page's `patient.chart` part: who opened and changed this record lately. */
export function ChartAudit({ context, patient }) {
  const query = `patient=${encodeURIComponent(String(patient.id))}&action=record&limit=${CHART_SIZE}`;
  const { page, error } = useAuditPage(context, query, null);
  const columns = [
    { key: 'at', label: t('audit.time'), render: (event) => time(event.at) },
    { key: 'who', label: t('audit.who'), render: (event) => html`<${Who} event=${event} link=${false} />` },
    { key: 'action', label: t('audit.action'), render: (event) => actionLabel(event.action) },
    { key: 'outcome', label: t('audit.outcome'), render: (event) => outcomeLabel(event.outcome) },
    {
      key: 'what',
      label: t('audit.record'),
      render: (event) => html`<span style=${WRAP}>${what(event)}</span>`,
    },
  ];
  return html`<section aria-labelledby="chart-audit-title">
    <h2 id="chart-audit-title">${t('audit.chart.title')}</h2>
    ${error && html`<${AuditError} title=${t('audit.chart.unreadable')} error=${error} />`}
    ${!error && page === null && html`<${Loading} label=${t('audit.chart.loading')} />`}
    ${page !== null && page.items.length === 0 && html`<p>${t('audit.chart.empty')}</p>`}
    ${
      page !== null &&
      page.items.length > 0 &&
      html`<${Table}
        caption=${t('audit.chart.caption', { count: CHART_SIZE })}
        columns=${columns}
        rows=${page.items}
        rowKey=${(event) => event.id}
      />`
    }
    <p><a href=${auditPath({ patient: String(patient.id) })}>${t('audit.chart.all')}</a></p>
  </section>`;
}
