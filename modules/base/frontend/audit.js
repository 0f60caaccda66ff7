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
  PageHeader,
  Pager,
  Table,
  usePager,
} from '@ward/ui';

export const AUDIT_READ = 'base.audit.read';
const PAGE_SIZE = 50;
const CHART_SIZE = 10;
const FILTERS = ['patient', 'user', 'action', 'since', 'until'];
const WRAP = { overflowWrap: 'anywhere' };

const ACTIONS = [
  { value: '', label: 'Any action' },
  { value: 'record', label: 'Any access to a record' },
  { value: 'record.read', label: 'Opened a record' },
  { value: 'record.list', label: 'Listed records' },
  { value: 'record.create', label: 'Created a record' },
  { value: 'record.update', label: 'Changed a record' },
  { value: 'record.delete', label: 'Deleted a record' },
  { value: 'record.download', label: 'Downloaded a file' },
  { value: 'auth', label: 'Sign-in and sign-out' },
  { value: 'user', label: 'Staff accounts' },
  { value: 'token', label: 'API tokens' },
  { value: 'import', label: 'Data imports' },
  { value: 'module', label: 'Modules' },
  { value: 'audit', label: 'The audit trail itself' },
];

const OUTCOMES = { ok: 'Done', refused: 'Refused', failed: 'Failed' };

const time = (iso) => new Date(iso).toLocaleString();

/**
 * A refused filter in the server's own words (which filter, and how to write it): the shell's
 * generic "the search could not be read" would leave an administrator guessing. Anything else is
 * the shell's ErrorBanner.
 */
function AuditError({ error, title }) {
  if (error.code !== 'invalid_query') return html`<${ErrorBanner} title=${title} error=${error} />`;
  return html`<${Banner} kind="error" title=${title}>
    <p>${error.message.replace(/^the query parameter /, 'The filter ')}</p>
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
  const via = event.actor.includes(':token:') ? ' (API token)' : '';
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
    return `${record}: ${detail.ids.length} shown`;
  if (detail && typeof detail === 'object' && typeof detail.code === 'string')
    return `${record}: ${detail.code}`;
  return record;
}

const COLUMNS = [
  { key: 'at', label: 'Time', render: (event) => time(event.at) },
  { key: 'who', label: 'Who', render: (event) => html`<${Who} event=${event} link=${true} />` },
  { key: 'action', label: 'Action', render: (event) => actionLabel(event.action) },
  { key: 'outcome', label: 'Outcome', render: (event) => OUTCOMES[event.outcome] ?? event.outcome },
  { key: 'what', label: 'Record', render: (event) => html`<span style=${WRAP}>${what(event)}</span>` },
  {
    key: 'patient',
    label: 'Patient',
    render: (event) =>
      event.patientId === null
        ? '—'
        : html`<a href=${auditPath({ patient: event.patientId })}>${event.patientId}</a>`,
  },
  { key: 'client', label: 'From', render: (event) => event.client ?? '—' },
];

/** The page's title and table caption for the filters in force. */
function describe(filters) {
  const parts = [];
  if (filters.user) parts.push(`by ${filters.user}`);
  if (filters.patient) parts.push(`about patient ${filters.patient}`);
  if (filters.action) parts.push(`of kind “${actionLabel(filters.action)}”`);
  if (filters.since) parts.push(`from ${filters.since}`);
  if (filters.until) parts.push(`before ${filters.until}`);
  if (filters.patient && parts.length === 1) return 'Every access to this patient, newest first';
  if (filters.user && parts.length === 1) return `Everything ${filters.user} did, newest first`;
  return parts.length === 0 ? 'Every event, newest first' : `Events ${parts.join(', ')}, newest first`;
}

function Filters({ context, filters }) {
  const [form, setForm] = useState(filters);
  const set = (name) => (value) => setForm({ ...form, [name]: value });
  const submit = (event) => {
    event.preventDefault();
    context.navigate(auditPath(Object.fromEntries(FILTERS.map((name) => [name, (form[name] ?? '').trim()]))));
  };
  return html`<form role="search" aria-label="Filter the audit trail" onSubmit=${submit}>
    <div class="form-grid">
      <${Field}
        label="Patient ID"
        name="patient"
        value=${form.patient}
        onInput=${set('patient')}
        hint="Every access to this patient."
      />
      <${Field}
        label="Username"
        name="user"
        value=${form.user}
        onInput=${set('user')}
        hint="Everything this person did."
      />
      <${Field}
        label="Action"
        name="action"
        value=${form.action}
        onInput=${set('action')}
        options=${ACTIONS}
      />
      <${Field}
        label="From"
        name="since"
        type="date"
        value=${form.since}
        onInput=${set('since')}
        hint="From the start of this day (UTC)."
      />
      <${Field}
        label="Before"
        name="until"
        type="date"
        value=${form.until}
        onInput=${set('until')}
        hint="Up to the start of this day (UTC)."
      />
    </div>
    <div class="form-actions" style=${{ marginTop: '1rem' }}>
      <${Button} type="submit">Show<//>
      ${FILTERS.some((name) => filters[name]) && html`<a class="button button-secondary" href="/audit">Clear filters</a>`}
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
  return html`<${PageHeader}
      title="Audit"
      description="Who opened or changed which record, who signed in, and what administrators did. Nobody can change this trail."
    />
    <${Filters} context=${context} filters=${filters} />
    <section aria-labelledby="audit-results" style=${{ marginTop: '2rem' }}>
      <h2 id="audit-results">${title}</h2>
      ${error && html`<${AuditError} title="The audit trail could not be read" error=${error} />`}
      ${!error && page === null && html`<${Loading} label="Loading the audit trail…" />`}
      ${
        page !== null &&
        (page.items.length === 0 && pager.page === 1
          ? html`<${EmptyState} title="No event matches these filters" />`
          : html`<${Table}
                caption=${`${title} (page ${pager.page})`}
                columns=${COLUMNS}
                rows=${page.items}
                rowKey=${(event) => event.id}
              />
              <${Pager} label="Audit trail pages" pager=${pager} nextCursor=${page.nextCursor} />`)
      }
    </section>`;
}

/** The patient page's `patient.chart` part: who opened and changed this record lately. */
export function ChartAudit({ context, patient }) {
  const query = `patient=${encodeURIComponent(String(patient.id))}&action=record&limit=${CHART_SIZE}`;
  const { page, error } = useAuditPage(context, query, null);
  const columns = [
    { key: 'at', label: 'Time', render: (event) => time(event.at) },
    { key: 'who', label: 'Who', render: (event) => html`<${Who} event=${event} link=${false} />` },
    { key: 'action', label: 'Action', render: (event) => actionLabel(event.action) },
    { key: 'outcome', label: 'Outcome', render: (event) => OUTCOMES[event.outcome] ?? event.outcome },
    { key: 'what', label: 'Record', render: (event) => html`<span style=${WRAP}>${what(event)}</span>` },
  ];
  return html`<section aria-labelledby="chart-audit-title">
    <h2 id="chart-audit-title">Record access</h2>
    ${error && html`<${AuditError} title="The record's accesses could not be read" error=${error} />`}
    ${!error && page === null && html`<${Loading} label="Loading who opened this record…" />`}
    ${page !== null && page.items.length === 0 && html`<p>Nobody has opened or changed this record since the audit trail began.</p>`}
    ${
      page !== null &&
      page.items.length > 0 &&
      html`<${Table}
        caption=${`Who opened and changed this record, the newest ${CHART_SIZE} at most`}
        columns=${columns}
        rows=${page.items}
        rowKey=${(event) => event.id}
      />`
    }
    <p><a href=${auditPath({ patient: String(patient.id) })}>Every access to this patient</a></p>
  </section>`;
}
