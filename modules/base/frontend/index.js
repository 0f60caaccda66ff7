/**
 * The base module's page for administrators, `/modules`: every module with its state and versions,
 * what `ward modules doctor` finds, what the next restart would apply (as `ward modules plan`
 * prints it), the operation log by pages, and a Restart button that follows the restart to the
 * end (restart.js). It only reads and restarts: scheduling changes stays with `ward modules`.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  EmptyState,
  ErrorBanner,
  html,
  Loading,
  locale,
  mount,
  PageHeader,
  Table,
  translator,
} from '@ward/ui';
import { failedSteps, stepLine } from '@ward/restart';
import messages from './messages.js';
import { followRestart, GIVE_UP_AFTER_MS, requestRestart, stepsSince } from './restart.js';
import { userRoutes } from './users.js';
import { AUDIT_READ, AuditPage, ChartAudit } from './audit.js';

/** This layer's words in the language in use. */
const t = translator(messages);

const READ = 'base.module.read';
const RESTART = 'base.module.restart';
const LOG_PAGE_SIZE = 20;

const SECTION = { marginTop: '2rem' };
const MONO = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' };
/**
 * For text that may hold a long path (an error message): it wraps anywhere rather than widen its
 * table or list past the page, which would need a scroll that a keyboard cannot reach.
 */
const WRAP = { overflowWrap: 'anywhere' };
const wrapped = (text) => html`<span style=${WRAP}>${text}</span>`;

/**
 * Reads `path` again whenever `deps` change; `{data, error}`, data null while loading. What was
 * read for another path is not returned, so a page never shows the rows of the one before.
 */
function useRead(context, path, deps) {
  const [state, setState] = useState({ path: null, data: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ path: null, data: null, error: null });
    context.api.get(path, { signal: controller.signal }).then(
      (data) => setState({ path, data, error: null }),
      (error) => {
        if (error.name !== 'AbortError') setState({ path, data: null, error });
      },
    );
    return () => controller.abort();
  }, deps);
  return state.path === path ? state : { data: null, error: null };
}

const dash = (value) => (value === null || value === undefined || value === '' ? '—' : value);
const time = (iso) => (iso ? new Date(iso).toLocaleString(locale()) : '—');

function Section({ id, title, children }) {
  return html`<section aria-labelledby=${id} style=${SECTION}>
    <h2 id=${id}>${title}</h2>
    ${children}
  </section>`;
}

function ModuleList({ read }) {
  if (read.error) return html`<${ErrorBanner} error=${read.error} />`;
  if (read.data === null) return html`<${Loading} label=${t('modules.loading')} />`;
  const columns = [
    { key: 'name', label: t('modules.module') },
    { key: 'state', label: t('modules.state') },
    { key: 'version', label: t('modules.version'), render: (module) => dash(module.version) },
    {
      key: 'diskVersion',
      label: t('modules.onDisk'),
      render: (module) => (module.diskVersion === null ? t('modules.codeNotFound') : module.diskVersion),
    },
    {
      key: 'category',
      label: t('modules.category'),
      render: (module) => module.category ?? t('modules.categoryMissing'),
    },
    {
      key: 'depends',
      label: t('modules.depends'),
      render: (module) => (module.depends.length === 0 ? '—' : module.depends.join(', ')),
    },
    {
      key: 'errorMessage',
      label: t('modules.error'),
      render: (module) => wrapped(dash(module.errorMessage)),
    },
  ];
  return html`<${Table}
    caption=${t('modules.caption')}
    columns=${columns}
    rows=${read.data.modules}
    rowKey=${(module) => module.name}
  />`;
}

/**
 * The doctor's categories, in the order `ward modules doctor` prints them: a title's message key,
 * and the report's lists under it, each finding in words of the language in use. Missing
 * dependencies are of two kinds, as in the CLI: code not found, and not installed (the dependent is
 * inactive).
 * @type {Array<[string, Array<[string, (finding: any) => string]>]>}
 */
const DOCTOR = [
  [
    'doctor.orphans',
    [['orphans', (f) => t('doctor.orphan', { module: f.module, state: f.state, hint: f.hint })]],
  ],
  [
    'doctor.missingDependencies',
    [
      [
        'missingDependencies',
        (f) => t('doctor.missingDependency', { module: f.module, dependency: f.dependency }),
      ],
      [
        'unsatisfiedDependencies',
        (f) =>
          t('doctor.unsatisfiedDependency', {
            module: f.module,
            state: f.state,
            dependency: f.dependency,
            dependencyState: f.dependencyState,
            hint: f.hint,
          }),
      ],
    ],
  ],
  [
    'doctor.brokenRanges',
    [['brokenRanges', (f) => t('doctor.withHint', { message: f.message, hint: f.hint })]],
  ],
  [
    'doctor.manifestErrors',
    [
      [
        'manifestErrors',
        (f) =>
          f.path
            ? t('doctor.manifestErrorAt', { where: f.module ?? f.file, path: f.path, message: f.message })
            : t('doctor.manifestError', { where: f.module ?? f.file, message: f.message }),
      ],
    ],
  ],
  [
    'doctor.errored',
    [
      [
        'errored',
        (f) => t('doctor.erroredModule', { module: f.module, state: f.state, message: f.errorMessage }),
      ],
    ],
  ],
  [
    'doctor.missingTables',
    [['missingTables', (f) => t('doctor.missingTable', { module: f.module, table: f.table })]],
  ],
  [
    'doctor.configuration',
    [['configuration', (f) => t('doctor.configurationFinding', { message: f.message, hint: f.hint })]],
  ],
];

function Doctor({ read }) {
  if (read.error) return html`<${ErrorBanner} error=${read.error} />`;
  if (read.data === null) return html`<${Loading} label=${t('doctor.running')} />`;
  if (read.data.ok) return html`<${Banner} kind="success" title=${t('doctor.ok')} />`;
  return DOCTOR.map(([title, lists]) => ({
    title: t(title),
    items: lists.flatMap(([key, words]) =>
      read.data[key].map((/** @type {any} */ finding) => words(finding)),
    ),
  }))
    .filter(({ items }) => items.length > 0)
    .map(
      ({ title, items }) =>
        html`<div key=${title}>
          <h3>${title}</h3>
          <ul>
            ${items.map((item, index) => html`<li key=${index} style=${WRAP}>${item}</li>`)}
          </ul>
        </div>`,
    );
}

const SYMBOL = { install: '+', upgrade: '~', uninstall: '-' };

function describeReason(reason) {
  switch (reason.kind) {
    case 'requested':
      return 'requested';
    case 'pending':
      return 'pending';
    case 'dependency':
      return `dependency of ${reason.of}`;
    case 'new_dependency':
      return `new dependency of upgraded ${reason.of}`;
    case 'dependent':
      return `dependent of ${reason.of}`;
    case 'referencer':
      return `references ${reason.of}'s tables`;
    default:
      return reason.kind;
  }
}

function describeVersion(action) {
  if (action.kind === 'upgrade') return `${action.fromVersion ?? '?'} → ${action.toVersion ?? '?'}`;
  return (action.kind === 'install' ? action.toVersion : action.fromVersion) ?? '—';
}

/** A blocked module's refusal, from its code and the fields it names. */
function describeRefusal(refusal) {
  const named = Object.entries(refusal)
    .filter(([key, value]) => key !== 'code' && key !== 'module' && typeof value === 'string')
    .map(([key, value]) => `${key} ${value}`);
  return `${refusal.code.replaceAll('_', ' ')}${named.length > 0 ? ` (${named.join(', ')})` : ''}`;
}

/** The plan as `ward modules plan` prints it: one line per module, a symbol, version and reason. */
function Plan({ read }) {
  if (read.error) return html`<${ErrorBanner} error=${read.error} />`;
  if (read.data === null) return html`<${Loading} label=${t('plan.loading')} />`;
  const { plan, summary } = read.data;
  return html`${
      plan.actions.length === 0 && plan.blocked.length === 0
        ? html`<p>${t('plan.nothing')}</p>`
        : html`<ul style=${{ ...MONO, listStyle: 'none', paddingLeft: 0 }} data-plan>
            ${plan.actions.map(
              (action) =>
                html`<li key=${action.module}>
                  <span aria-hidden="true">${SYMBOL[action.kind]} </span>
                  <span>${action.kind}</span> <strong>${action.module}</strong> ${describeVersion(action)}
                  <span> (${describeReason(action.reason)})</span>
                </li>`,
            )}
            ${plan.blocked.map(
              (blocked) =>
                html`<li key=${`blocked-${blocked.module}`}>
                  <span aria-hidden="true">! </span><strong>${blocked.module}</strong> blocked:
                  ${describeRefusal(blocked.refusal)}
                </li>`,
            )}
            ${(plan.inactive ?? []).map(
              (left) =>
                html`<li key=${`inactive-${left.module}-${left.dependency}`}>
                  <span aria-hidden="true">! </span><strong>${left.module}</strong>${' '}
                  ${`left without ${left.dependency}: stays installed but inactive until ${left.dependency} is installed again`}
                </li>`,
            )}
          </ul>`
    }
    <p>
      Plan: ${summary.install} to install, ${summary.upgrade} to upgrade, ${summary.uninstall} to uninstall.
    </p>`;
}

const LOG_COLUMNS = [
  { key: 'created_at', label: t('log.time'), render: (entry) => time(entry.created_at) },
  { key: 'module_name', label: t('modules.module') },
  { key: 'operation', label: t('log.operation') },
  { key: 'step', label: t('log.step') },
  { key: 'status', label: t('log.status') },
  { key: 'message', label: t('log.message'), render: (entry) => wrapped(dash(entry.message)) },
];

/** The operation log, newest first; "Next page" goes back in time with `before`. */
function OperationLog({ context, reload }) {
  /** The `before` of each page shown before this one: "Previous page" goes back through them. */
  const [befores, setBefores] = useState([]);
  const [before, setBefore] = useState(null);
  useEffect(() => {
    setBefores([]);
    setBefore(null);
  }, [reload]);
  const query = `limit=${LOG_PAGE_SIZE}${before === null ? '' : `&before=${before}`}`;
  const read = useRead(context, `/modules/-/log?${query}`, [before, reload]);
  if (read.error) return html`<${ErrorBanner} error=${read.error} />`;
  if (read.data === null) return html`<${Loading} label=${t('log.loading')} />`;
  if (read.data.entries.length === 0 && befores.length === 0)
    return html`<${EmptyState} title=${t('log.empty')} />`;
  return html`<${Table}
    caption=${t('log.caption')}
    columns=${LOG_COLUMNS}
    rows=${read.data.entries}
    pagination=${{
      label: t('log.pages'),
      status: t('log.page', { page: befores.length + 1 }),
      hasPrevious: befores.length > 0,
      hasNext: read.data.more,
      onPrevious: () => {
        setBefore(befores.at(-1) ?? null);
        setBefores(befores.slice(0, -1));
      },
      onNext: () => {
        setBefores([...befores, before]);
        setBefore(read.data.entries.at(-1).id);
      },
    }}
  />`;
}

function Findings({ findings }) {
  return html`<ul>
    ${findings.map(
      (finding, index) =>
        html`<li key=${index}>
          <span style=${{ whiteSpace: 'pre-wrap' }}>${finding.message}</span>
          <br />Fix: ${finding.hint}
        </li>`,
    )}
  </ul>`;
}

/**
 * The restart's progress and outcome. `restart.phase`: refused (findings, and "Restart anyway"),
 * restarting (`away` while nothing answers), gave-up, done (the steps applied), or failed.
 */
function RestartPanel({ restart, onForce, onCancel, onKeepWaiting }) {
  const heading = useRef(null);
  useEffect(() => {
    heading.current?.focus();
  }, [restart.phase]);
  const title = {
    refused: t('restart.refused'),
    restarting: t('restart.restarting'),
    'gave-up': t('restart.gaveUp'),
    done: t('restart.done'),
    failed: t('restart.failed'),
  }[restart.phase];
  return html`<section aria-labelledby="restart-title" style=${SECTION}>
    <h2 id="restart-title" tabindex="-1" ref=${heading}>${title}</h2>
    ${
      restart.phase === 'refused' &&
      html`<${Banner} kind="warning" title=${t('restart.wouldRefuse')}>
          <${Findings} findings=${restart.findings} />
          <p>${t('restart.fixFirst')}</p>
        <//>
        <div class="form-actions">
          <${Button} variant="danger" onClick=${onForce}>${t('restart.force')}<//>
          <${Button} variant="secondary" onClick=${onCancel}>${t('restart.cancel')}<//>
        </div>`
    }
    ${
      restart.phase === 'restarting' &&
      html`<${Banner} kind="info" title=${t('restart.restarting')}>
        <p>${restart.away ? t('restart.away') : t('restart.finishing')}</p>
      <//>`
    }
    ${
      restart.phase === 'gave-up' &&
      html`<${Banner}
        kind="error"
        title=${t('restart.noAnswer', { seconds: GIVE_UP_AFTER_MS / 1000 })}
        action=${html`<${Button} variant="secondary" onClick=${onKeepWaiting}>${t('restart.keepWaiting')}<//>`}
      >
        <p>${t('restart.mayHaveRefused')}</p>
        <p class="banner-hint">${t('restart.why', { command: 'ward modules doctor' })}</p>
      <//>`
    }
    ${restart.phase === 'failed' && html`<${ErrorBanner} error=${restart.error} />`}
    ${restart.phase === 'done' && html`<${RestartOutcome} outcome=${restart.outcome} />`}
  </section>`;
}

/** Whether a module's error is the text a start records for an inactive module (a dependency is not installed). */
const isInactive = (module) => module.errorMessage?.startsWith(`${module.name} is inactive: `) ?? false;

function ModuleMessages({ title, modules }) {
  return html`<${Banner} kind="warning" title=${title}>
    <ul>
      ${modules.map(
        (module) =>
          html`<li key=${module.name} style=${WRAP}>
            ${module.name} (${module.state}): ${module.errorMessage}
          </li>`,
      )}
    </ul>
  <//>`;
}

function RestartOutcome({ outcome }) {
  const errored = outcome.modules.filter((module) => module.errorMessage !== null && !isInactive(module));
  const inactive = outcome.modules.filter(isInactive);
  const failed = outcome.steps === null ? [] : failedSteps(outcome.steps);
  return html`<${Banner}
      kind=${outcome.healthy ? 'success' : 'warning'}
      title=${outcome.healthy ? t('restart.healthy') : t('restart.unhealthy')}
    >
      <p>
        ${
          outcome.steps === null
            ? t('restart.logUnread')
            : outcome.steps.length === 0
              ? t('restart.noChange')
              : t('restart.applied', { count: outcome.steps.length })
        }
      </p>
    <//>
    ${errored.length > 0 && html`<${ModuleMessages} title=${t('restart.errored')} modules=${errored} />`}
    ${inactive.length > 0 && html`<${ModuleMessages} title=${t('restart.inactive')} modules=${inactive} />`}
    ${
      failed.length > 0 &&
      html`<${Banner} kind="warning" title=${t('restart.failedSteps')}>
        <ul>
          ${failed.map((step, index) => html`<li key=${index} style=${WRAP}>${stepLine(step)}</li>`)}
        </ul>
      <//>`
    }
    ${
      outcome.steps !== null &&
      outcome.steps.length > 0 &&
      html`<${Table}
        caption=${t('restart.stepsCaption')}
        columns=${LOG_COLUMNS.slice(1)}
        rows=${outcome.steps}
      />`
    }`;
}

function ModulesPage({ context }) {
  /** Bumped once a restart is over: every section reads again. */
  const [reload, setReload] = useState(0);
  const [restart, setRestart] = useState(null);
  const following = useRef(null);
  const modules = useRead(context, '/modules', [reload]);
  const doctor = useRead(context, '/modules/-/doctor', [reload]);
  const plan = useRead(context, '/modules/-/plan', [reload]);

  useEffect(() => () => following.current?.abort(), []);

  async function follow(started) {
    following.current?.abort();
    const controller = new AbortController();
    following.current = controller;
    const { signal } = controller;
    setRestart({ phase: 'restarting', away: false, started });
    const result = await followRestart(context, started.startId, signal, (away) =>
      setRestart({ phase: 'restarting', away, started }),
    );
    if (result === 'aborted') return;
    if (result === 'gave-up') {
      setRestart({ phase: 'gave-up', started });
      return;
    }
    try {
      const [steps, list, health] = await Promise.all([
        started.lastLogId === null ? null : stepsSince(context, started.lastLogId, signal),
        context.api.get('/modules', { signal }),
        context.api.get('/health', { signal }).catch(() => null),
      ]);
      setRestart({
        phase: 'done',
        outcome: { steps, modules: list.modules, healthy: health?.status === 'healthy' },
      });
      setReload((count) => count + 1);
    } catch (error) {
      if (error.name !== 'AbortError') setRestart({ phase: 'failed', error });
    }
  }

  async function start(force) {
    setRestart({ phase: 'requesting' });
    try {
      const answer = await requestRestart(context, force);
      if (answer.refused) setRestart({ phase: 'refused', findings: answer.refused });
      else await follow(answer.started);
    } catch (error) {
      setRestart({ phase: 'failed', error });
    }
  }

  const busy = restart !== null && ['requesting', 'restarting'].includes(restart.phase);
  return html`<${PageHeader}
      title=${t('modules.title')}
      description=${t('modules.description', { command: 'ward modules' })}
      actions=${
        context.can(RESTART) &&
        html`<${Button} busy=${busy} onClick=${() => start(false)}
          >${busy ? t('restart.restarting') : t('restart.button')}<//
        >`
      }
    />
    <p role="status" class="visually-hidden">${restart?.phase === 'requesting' ? t('restart.asking') : ''}</p>
    ${
      restart !== null &&
      restart.phase !== 'requesting' &&
      html`<${RestartPanel}
        restart=${restart}
        onForce=${() => start(true)}
        onCancel=${() => setRestart(null)}
        onKeepWaiting=${() => follow(restart.started)}
      />`
    }
    <${Section} id="plan-title" title=${t('section.plan')}><${Plan} read=${plan} /><//>
    <${Section} id="modules-title" title=${t('modules.title')}><${ModuleList} read=${modules} /><//>
    <${Section} id="doctor-title" title=${t('section.doctor')}><${Doctor} read=${doctor} /><//>
    <${Section} id="log-title" title=${t('section.log')}
      ><${OperationLog} context=${context} reload=${reload}
    /><//>`;
}

/**
 * Without base.module.read every read would be refused: one read, not four, and the page shows the
 * server's refusal (its `permission denied: …` and hint) in its own words. Should the server allow
 * it after all (a role granted since the permissions were read), the page is shown.
 */
function Gate({ context }) {
  if (context.can(READ)) return html`<${ModulesPage} context=${context} />`;
  return html`<${Refused} context=${context} />`;
}

function Refused({ context }) {
  const read = useRead(context, '/modules', []);
  if (read.data !== null) return html`<${ModulesPage} context=${context} />`;
  return html`<${PageHeader} title=${t('modules.title')} />
    ${read.error ? html`<${ErrorBanner} error=${read.error} />` : html`<${Loading} label=${t('modules.loading')} />`}`;
}

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.4.0',
  messages,
  routes: [
    { path: '/modules', render: mount(Gate) },
    ...userRoutes,
    { path: '/audit', render: mount(AuditPage) },
  ],
  // Last on the patient page: who opened the record is read after what it holds.
  extensions: [{ slot: 'patient.chart', component: ChartAudit, permission: AUDIT_READ, order: 900 }],
});
