/** A job's warnings in source order, filtered by severity, a page at a time through `nextCursor`. */
import { useEffect, useState } from 'preact/hooks';
import { EmptyState, ErrorBanner, Field, html, Loading, Pager, Table, usePager } from '@ward/ui';
import { JOBS, t } from './shared.js';

const PAGE_SIZE = 25;

/** The severity filter's choices, in the language in use when drawn. */
const severities = () => [
  { value: '', label: t('warnings.all') },
  { value: 'error', label: t('job.errors') },
  { value: 'warning', label: t('job.warnings') },
  { value: 'info', label: t('job.info') },
];

/** The table's columns, in the language in use when drawn; a warning's own words are the server's. */
const columns = () => [
  { key: 'row', label: t('preview.row') },
  { key: 'field', label: t('warnings.field'), render: (warning) => warning.field ?? '—' },
  { key: 'severity', label: t('warnings.severity') },
  { key: 'code', label: t('warnings.code'), render: (warning) => html`<code>${warning.code}</code>` },
  { key: 'message', label: t('warnings.message') },
  {
    key: 'phase',
    label: t('warnings.foundAt'),
    render: (warning) => (warning.phase === 'execute' ? t('job.step.execute') : t('job.validation')),
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
  const chosen = severities().find((entry) => entry.value === severity).label;

  return html`<section aria-labelledby="warnings-title">
    <h2 id="warnings-title">${t('job.warnings')}</h2>
    <div class="search">
      <${Field}
        label=${t('warnings.show')}
        name="severity"
        value=${severity}
        onInput=${filter}
        options=${severities()}
      />
    </div>
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && page === null && html`<${Loading} label=${t('warnings.loading')} />`}
    ${
      !error && page !== null && page.items.length === 0 && pager.page === 1
        ? html`<${EmptyState}
            title=${severity === '' ? t('warnings.none') : t('warnings.noneOf', { severity })}
          />`
        : !error &&
          page !== null &&
          html`<${Table}
              caption=${t('warnings.caption', { severity: severity === '' ? t('job.warnings') : chosen })}
              columns=${columns()}
              rows=${page.items}
            />
            <${Pager} label=${t('warnings.pages')} pager=${pager} nextCursor=${page.nextCursor} />`
    }
  </section>`;
}
