/** A job's warnings in source order, filtered by severity, a page at a time through `nextCursor`. */
import { useEffect, useState } from 'preact/hooks';
import { EmptyState, ErrorBanner, Field, html, Loading, Pager, Table, usePager } from '@ward/ui';
import { JOBS } from './shared.js';

const PAGE_SIZE = 25;

const SEVERITIES = [
  { value: '', label: 'All severities' },
  { value: 'error', label: 'Errors' },
  { value: 'warning', label: 'Warnings' },
  { value: 'info', label: 'Info' },
];

const COLUMNS = [
  { key: 'row', label: 'Row' },
  { key: 'field', label: 'Field', render: (warning) => warning.field ?? '—' },
  { key: 'severity', label: 'Severity' },
  { key: 'code', label: 'Code', render: (warning) => html`<code>${warning.code}</code>` },
  { key: 'message', label: 'Message' },
  {
    key: 'phase',
    label: 'Found at',
    render: (warning) => (warning.phase === 'execute' ? 'Execute' : 'Validation'),
  },
];

/** `version` changes when the job does (a new validation or run): the list is read again. */
export function Warnings({ context, job, version }) {
  const [severity, setSeverity] = useState(job.counts.warnings?.error > 0 ? 'error' : '');
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (severity !== '') params.set('severity', severity);
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    context.api.get(`${JOBS}/${job.id}/warnings?${params}`, { signal: controller.signal }).then(
      (answer) => {
        setError(null);
        setPage(answer);
      },
      (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      },
    );
    return () => controller.abort();
  }, [job.id, severity, pager.cursor, version]);

  const filter = (value) => {
    pager.reset();
    setPage(null);
    setSeverity(value);
  };
  const chosen = SEVERITIES.find((entry) => entry.value === severity).label.toLowerCase();

  return html`<section aria-labelledby="warnings-title">
    <h2 id="warnings-title">Warnings</h2>
    <div class="search">
      <${Field} label="Show" name="severity" value=${severity} onInput=${filter} options=${SEVERITIES} />
    </div>
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && page === null && html`<${Loading} label="Loading warnings…" />`}
    ${
      !error && page !== null && page.items.length === 0 && pager.page === 1
        ? html`<${EmptyState} title=${severity === '' ? 'No warnings' : `No ${chosen}`} />`
        : !error &&
          page !== null &&
          html`<${Table}
              caption=${severity === '' ? 'Warnings, in source order' : `${SEVERITIES.find((entry) => entry.value === severity).label}, in source order`}
              columns=${COLUMNS}
              rows=${page.items}
            />
            <${Pager} label="Warning pages" pager=${pager} nextCursor=${page.nextCursor} />`
    }
  </section>`;
}
