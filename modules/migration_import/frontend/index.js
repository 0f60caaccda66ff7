/**
 * The migration_import module's pages, the operator's import wizard: plain ES modules, no build
 * step. `/migration_import` lists the jobs, `/migration_import/new` uploads a source, and
 * `/migration_import/jobs/:id` validates it, shows its warnings and preview, and executes it.
 */
import { JobPage } from './job.js';
import { JobList } from './list.js';
import { NewJob } from './new-job.js';
import messages from './messages.js';
import { mount } from '@ward/ui';

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.4.0',
  messages,
  routes: [
    { path: '/migration_import', render: mount(JobList) },
    { path: '/migration_import/new', render: mount(NewJob) },
    { path: '/migration_import/jobs/:id', render: mount(JobPage) },
  ],
});
