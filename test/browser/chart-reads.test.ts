/**
 * Opening a patient's chart is one read of the patient in the audit trail, whatever parts other
 * modules draw on it: the chart reads the patient once and hands it to every part.
 */
import test from 'ava';
import {
  launchBrowser,
  screenshot,
  signIn,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['appointments', 'documents'],
    users: [{ username: 'chief', roles: ['admin'] }],
  });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

test('opening a chart with every part on it records one read of the patient', async (t) => {
  const [patient] = (await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' })
    .returning('id')) as Array<{ id: number }>;
  const id = String(patient!.id);
  const page = await browser.page(t);
  await page.goto(`${backend.base}/patients/${id}`);
  await signIn(page, 'chief');
  await page.getByRole('heading', { level: 1, name: 'Lovelace, Ada' }).waitFor();
  // Every part has answered: the appointments and documents lists, and the record access list,
  // whose newest row is this opening.
  await page.getByText('No appointments from today on').waitFor();
  await page.getByText('No documents yet').waitFor();
  const access = page.getByRole('region', { name: 'Record access' });
  await access.getByRole('row').nth(1).waitFor();
  await screenshot(page, 'chart-reads');
  const rows = (await backend
    .knex('core_audit_event')
    .where({ patient_id: id })
    .orWhereRaw('patient_ids @> array[?]::text[]', [id])
    .orderBy('id')
    .select('action', 'kind')) as Array<{ action: string; kind: string }>;
  // One read of the patient; each part that lists this patient's records is a list of them.
  t.deepEqual(
    rows.filter((row) => row.action === 'record.read'),
    [{ action: 'record.read', kind: 'patient' }],
    JSON.stringify(rows),
  );
  t.deepEqual(
    rows
      .filter((row) => row.action === 'record.list')
      .map((row) => row.kind)
      .sort(),
    ['appointment', 'document'],
  );
});
