/**
 * `/migration_import/jobs/:id`: one job through the rest of the wizard. Validate (the page polls
 * the job while it runs in the background, with a progress bar), read the warnings, preview,
 * execute with a progress bar over progress.done / progress.total, and the results. Each action shows only to a user
 * holding its permission; the server checks every request anyway.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Banner, Button, ErrorBanner, html, Loading, PageHeader, ProgressBar, Table } from '@ward/ui';
import { Preview } from './preview.js';
import {
  byteSize,
  canStartExecute,
  canStartValidate,
  dateTime,
  EXECUTE,
  formatLabel,
  hasExecuted,
  HOME,
  isRunning,
  JOBS,
  KINDS,
  stateLabel,
  t,
  WRITE,
} from './shared.js';
import { Warnings } from './warnings.js';

const POLL_MS = 1000;

const STEPS = ['upload', 'validate', 'preview', 'execute'];

/** The wizard step a job is at: 0 upload … 3 execute, 4 when it has executed (every step done). */
function stepOf(job) {
  if (hasExecuted(job)) return STEPS.length;
  if (job.state === 'executing') return 3;
  if (job.state === 'validated') return 2;
  return 1;
}

function Steps({ job }) {
  const current = stepOf(job);
  return html`<ol
    aria-label=${t('job.steps')}
    style="display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; list-style-position: inside; padding-left: 0"
  >
    ${STEPS.map(
      (step, index) =>
        html`<li key=${step} aria-current=${index === current ? 'step' : undefined}>
          ${index === current ? html`<strong>${t(`job.step.${step}`)}</strong>` : index < current ? t('job.stepDone', { step: t(`job.step.${step}`) }) : t(`job.step.${step}`)}
        </li>`,
    )}
  </ol>`;
}

/** What the state means and what comes next, as a banner. */
function StateBanner({ job, context }) {
  const errors = job.counts.warnings?.error ?? 0;
  switch (job.state) {
    case 'created':
      return html`<${Banner} kind="info" title=${t('job.banner.created')}>
        <p>${context.can(WRITE) ? t('job.banner.createdNext') : t('job.banner.createdWait')}</p>
      <//>`;
    case 'validating':
      return html`<${Banner} kind="info" title=${t('job.banner.validating')}
        ><p>${t('job.banner.validatingText')}</p><//
      >`;
    case 'invalid':
      return html`<${Banner} kind="error" title=${t('job.banner.invalid')}>
        <p>${t('job.banner.invalidText', { count: errors })}</p>
      <//>`;
    case 'validated':
      return html`<${Banner} kind="success" title=${t('job.banner.validated')}
        ><p>${t('job.banner.validatedText')}</p><//
      >`;
    case 'executing':
      return html`<${Banner} kind="info" title=${t('job.banner.executing')}
        ><p>${t('job.banner.executingText')}</p><//
      >`;
    case 'succeeded':
      return html`<${Banner} kind="success" title=${t('job.banner.succeeded')}
        ><p>${t('job.banner.succeededText')}</p><//
      >`;
    case 'partially_succeeded':
      return html`<${Banner} kind="warning" title=${t('job.banner.partly')}>
        <p>${t('job.banner.partlyText')}</p>
      <//>`;
    case 'failed':
      return html`<${Banner} kind="error" title=${t('job.banner.failed')}
        ><p>${job.error ?? t('job.banner.failedText')}</p><//
      >`;
    default:
      return null;
  }
}

function Progress({ job }) {
  if (job.state === 'validating') {
    const { done, total, percent } = job.progress;
    // Indeterminate until the run's first progress write; the total is an estimate until the end.
    if (total === 0)
      return html`<${ProgressBar} id="validate-progress" label=${t('job.validateProgress')} />`;
    return html`<${ProgressBar}
      id="validate-progress"
      label=${t('job.validateProgress')}
      max=${total}
      value=${done}
      text=${t('job.validateProgressText', { done, total, percent })}
    />`;
  }
  if (job.state !== 'executing' && !hasExecuted(job)) return null;
  const { done, total, percent } = job.progress;
  return html`<${ProgressBar}
    id="execute-progress"
    label=${t('job.executeProgress')}
    max=${Math.max(total, 1)}
    value=${total === 0 ? (job.state === 'succeeded' ? 1 : 0) : done}
    text=${t('job.executeProgressText', { done, total, percent })}
  />`;
}

function Counts({ job }) {
  const records = job.counts.records;
  const warnings = job.counts.warnings;
  if (records === undefined && warnings === undefined) return null;
  const rows = [
    ...(records
      ? KINDS.map((kind) => [t('job.toImport', { kind: kind.label }), records[kind.key] ?? 0])
      : []),
    ...(warnings
      ? [
          [t('job.errors'), warnings.error],
          [t('job.warnings'), warnings.warning],
          [t('job.info'), warnings.info],
        ]
      : []),
  ];
  return html`<section aria-labelledby="counts-title">
    <h2 id="counts-title">${t('job.validation')}</h2>
    <dl class="details">
      ${rows.map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
    </dl>
  </section>`;
}

function Results({ job }) {
  const columns = [
    { key: 'label', label: t('preview.kind') },
    { key: 'created', label: t('job.created') },
    { key: 'updated', label: t('job.updated') },
    { key: 'skipped', label: t('job.skipped') },
    { key: 'failed', label: t('job.failed') },
  ];
  const rows = KINDS.filter((kind) => job.results[kind.key]).map((kind) => ({
    id: kind.key,
    label: kind.label,
    ...job.results[kind.key],
  }));
  return html`<section aria-labelledby="results-title">
    <h2 id="results-title">${t('job.results')}</h2>
    <${Table} caption=${t('job.resultsCaption')} columns=${columns} rows=${rows} />
  </section>`;
}

export function JobPage({ context }) {
  const { id } = context.params;
  const [job, setJob] = useState(null);
  const [error, setError] = useState(null);
  const [actionError, setActionError] = useState(null);
  const [busy, setBusy] = useState(null);
  const [notice, setNotice] = useState(context.query.created === '1' ? t('job.uploaded') : null);
  const status = useRef(null);

  const load = (signal) =>
    context.api.get(`${JOBS}/${encodeURIComponent(id)}`, { signal }).then(
      (answer) => {
        setError(null);
        setJob(answer);
      },
      (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      },
    );

  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [id]);

  // A background run: read the job again until it leaves validating/executing.
  useEffect(() => {
    if (job === null || !isRunning(job)) return undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => load(controller.signal), POLL_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [job]);

  if (error && job === null)
    return html`<${PageHeader} title=${t('job.title', { id })} /><${ErrorBanner} error=${error} />`;
  if (job === null) return html`<${Loading} label=${t('job.loading')} />`;

  /** Starts validate or execute; the button goes away with the new state, so focus moves to the state. */
  const start = async (action) => {
    setBusy(action);
    setActionError(null);
    // "The source was uploaded" is news only until the next step is taken.
    setNotice(null);
    try {
      setJob(await context.api.post(`${JOBS}/${job.id}/${action}`));
    } catch (caught) {
      setActionError(caught);
    }
    setBusy(null);
    status.current?.focus();
  };

  const mayValidate = context.can(WRITE) && canStartValidate(job);
  const mayExecute = context.can(EXECUTE) && canStartExecute(job);
  const warningCount = Object.values(job.counts.warnings ?? {}).reduce((sum, count) => sum + count, 0);
  const version = `${job.state}-${job.updatedAt}`;

  return html`<${PageHeader}
      title=${t('job.title', { id: job.id })}
      description=${t('job.description', {
        format: formatLabel(job.format),
        system: job.sourceSystem,
        size: byteSize(job.source.bytes),
        at: dateTime(job.createdAt),
        by: job.createdBy,
      })}
    />
    <${Steps} job=${job} />
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    <section aria-labelledby="state-title">
      <h2 id="state-title" tabindex="-1" ref=${status}>
        ${t('job.state', { state: stateLabel(job.state) })}
      </h2>
      <${StateBanner} job=${job} context=${context} />
      <${Progress} job=${job} />
      ${error && html`<${ErrorBanner} title=${t('job.unreadable')} error=${error} />`}
      ${actionError && html`<${ErrorBanner} error=${actionError} />`}
      ${
        (mayValidate || mayExecute) &&
        html`<div class="form-actions">
          ${
            mayValidate &&
            html`<${Button}
              variant=${job.state === 'created' ? 'primary' : 'secondary'}
              busy=${busy === 'validate'}
              onClick=${() => start('validate')}
            >
              ${job.state === 'created' ? t('job.validate') : t('job.validateAgain')}
            <//>`
          }
          ${
            mayExecute &&
            html`<${Button} busy=${busy === 'execute'} onClick=${() => start('execute')}>
              ${job.state === 'validated' ? t('job.execute') : t('job.executeAgain')}
            <//>`
          }
        </div>`
      }
    </section>
    ${hasExecuted(job) && html`<${Results} job=${job} />`}
    ${!isRunning(job) && html`<${Counts} job=${job} />`}
    ${canStartExecute(job) && html`<${Preview} context=${context} job=${job} />`}
    ${
      !isRunning(job) &&
      (warningCount > 0 || job.state === 'partially_succeeded') &&
      html`<${Warnings} context=${context} job=${job} version=${version} />`
    }
    <p><a href=${HOME}>${t('new.back')}</a></p>`;
}
