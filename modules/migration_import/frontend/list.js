/** `/migration_import`: the import jobs, newest first, by state, a page at a time through `nextCursor`. */
import { useEffect, useState } from 'preact/hooks';
import {
  ButtonLink,
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
import {
  dateTime,
  formatLabel,
  HOME,
  isRunning,
  JOBS,
  STATE_OPTIONS,
  stateLabel,
  t,
  WRITE,
} from './shared.js';

const PAGE_SIZE = 20;
const POLL_MS = 2000;

const progressText = (job) =>
  job.state === 'executing' || job.progress.total > 0 ? `${job.progress.percent}%` : '—';

export function JobList({ context }) {
  const [state, setState] = useState('');
  /** Cursors of the pages before this one: "Previous page" goes back through them. */
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (state !== '') params.set('state', state);
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    context.api.get(`${JOBS}?${params}`, { signal: controller.signal }).then(
      (answer) => {
        setError(null);
        setPage(answer);
      },
      (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      },
    );
    return () => controller.abort();
  }, [state, pager.cursor, tick]);

  // Jobs running in the background change state on their own: look again until none is.
  const running = page !== null && page.items.some(isRunning);
  useEffect(() => {
    if (!running) return undefined;
    const timer = setTimeout(() => setTick((value) => value + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [running, page]);

  const filter = (value) => {
    pager.reset();
    setPage(null);
    setState(value);
  };

  const columns = [
    {
      key: 'id',
      label: t('list.job'),
      render: (job) =>
        html`<a href=${`${HOME}/jobs/${job.id}`} style="white-space: nowrap"
          >${t('list.jobNumber', { id: job.id })}</a
        >`,
    },
    { key: 'sourceSystem', label: t('list.sourceSystem') },
    { key: 'format', label: t('list.format'), render: (job) => formatLabel(job.format) },
    { key: 'state', label: t('list.state'), render: (job) => stateLabel(job.state) },
    { key: 'progress', label: t('list.progress'), render: progressText },
    {
      key: 'createdAt',
      label: t('list.created'),
      render: (job) => `${dateTime(job.createdAt)} by ${job.createdBy}`,
    },
  ];

  const empty = page !== null && page.items.length === 0 && pager.page === 1;
  return html`<${PageHeader}
      title=${t('list.title')}
      description=${t('list.description')}
      actions=${context.can(WRITE) && html`<${ButtonLink} href=${`${HOME}/new`}>${t('list.new')}<//>`}
    />
    <div class="search">
      <${Field}
        label=${t('list.filter')}
        name="state"
        value=${state}
        onInput=${filter}
        options=${STATE_OPTIONS}
      />
    </div>
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && page === null && html`<${Loading} label=${t('list.loading')} />`}
    ${
      !error && empty
        ? html`<${EmptyState}
            title=${state === '' ? t('list.empty') : t('list.emptyInState', { state: stateLabel(state) })}
          >
            ${
              state === '' &&
              context.can(WRITE) &&
              html`<p><a href=${`${HOME}/new`}>${t('list.first')}</a>.</p>`
            }
          <//>`
        : !error &&
          page !== null &&
          html`<${Table} caption=${t('list.caption')} columns=${columns} rows=${page.items} />
            <${Pager} label=${t('list.pages')} pager=${pager} nextCursor=${page.nextCursor} />`
    }`;
}
