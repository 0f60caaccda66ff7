/**
 * The audit trail in the shell: an administrator's Audit page answers "every access to this
 * patient" and "everything this user did" with the filters in the address, pages by Previous and
 * Next, and the patient page shows who opened and changed the record. A clinician (without
 * base.audit.read) sees neither the Audit entry nor the chart's part, and the page says why.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { insertAuditRows, type TestAuditRow } from '../helpers/audit.ts';
import {
  axeCheck,
  eventually,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
  signIn,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;
let patientId: number;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients'],
    users: [
      { username: 'chief', roles: ['admin'] },
      { username: 'cleo', roles: ['clinician'] },
    ],
  });
  const [patient] = (await backend
    .knex('patients_patient')
    .insert({ mrn: 'MRN-0042', family_name: 'Lovelace', given_name: 'Ada' })
    .returning('id')) as Array<{ id: number }>;
  patientId = patient!.id;
  const cleo = ((await backend.knex('base_user').where({ username: 'cleo' }).first('id')) as { id: number })
    .id;
  const rows: TestAuditRow[] = [];
  // 60 events about Ada (more than a page), the newest a change; and some about others.
  for (let i = 0; i < 60; i++)
    rows.push({
      at: new Date(Date.UTC(2026, 10, 1, 8, i)),
      actor: `user:${cleo}:session:ab12cd34ef56ab78`,
      user_id: cleo,
      action: i === 59 ? 'record.update' : 'record.read',
      module: 'patients',
      kind: 'patient',
      record_id: String(patientId),
      patient_id: String(patientId),
      client: '10.0.0.7',
      ...(i === 59 ? { detail: { changes: { phone: ['555 0100', '555 0199'] } } } : {}),
    });
  rows.push(
    { actor: 'cli:root', action: 'module.install', module: 'base', kind: 'module', record_id: 'patients' },
    {
      actor: 'anonymous',
      action: 'auth.sign_in_failed',
      outcome: 'refused',
      client: '10.0.0.9',
      detail: { code: 'bad_credentials' },
    },
  );
  await insertAuditRows(backend.knex, rows);
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

function results(page: Page) {
  return page.getByRole('table').filter({ has: page.locator('caption', { hasText: 'newest first' }) });
}

test.serial(
  'an administrator finds every access to a patient, pages through it, and everything a user did',
  async (t) => {
    const page = await browser.page(t);
    await page.goto(backend.base);
    await signIn(page, 'chief');
    await tabTo(page, sidebar(page).filter({ hasText: 'Audit' }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Every event, newest first' }).waitFor();
    // Signing in was recorded: the newest event is chief's own sign-in.
    t.regex(await results(page).getByRole('row').nth(1).innerText(), /chief.*sign/is);
    t.is(
      await results(page)
        .getByRole('row')
        .filter({ hasText: /Failed sign-in|auth\.sign_in_failed/ })
        .count(),
      1,
    );
    await axeCheck(page, t);
    await screenshot(page, 'audit-all');

    await tabTo(page, page.getByLabel('Patient ID'));
    await page.keyboard.type(String(patientId));
    await page.keyboard.press('Enter');
    await page
      .getByRole('heading', { level: 2, name: 'Every access to this patient, newest first' })
      .waitFor();
    t.is(new URL(page.url()).search, `?patient=${patientId}`, 'the filter is in the address');
    const table = results(page);
    await table.getByRole('row').nth(1).waitFor();
    t.is(await table.getByRole('row').count(), 51, 'a page of 50 and the header row');
    const newest = await table.getByRole('row').nth(1).innerText();
    t.regex(newest, /cleo/);
    t.regex(newest, /Changed a record/);
    t.regex(newest, /patient \d+: phone/);
    t.false(newest.includes('555 0199'), 'a change shows which fields, not their values');
    await page.getByText('Page 1', { exact: true }).waitFor();
    await axeCheck(page, t);
    await screenshot(page, 'audit-patient');

    await tabTo(page, page.getByRole('button', { name: 'Next page' }), 150);
    await page.keyboard.press('Enter');
    await page.getByText('Page 2', { exact: true }).waitFor();
    await eventually(t, () => table.getByRole('row').count(), 11, 'the last 10 and the header row');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 1', { exact: true }).waitFor();
    await eventually(t, () => table.getByRole('row').count(), 51, 'back to the first page');

    await table.getByRole('row').nth(1).getByRole('link', { name: 'cleo' }).click();
    await page.getByRole('heading', { level: 2, name: 'Everything cleo did, newest first' }).waitFor();
    t.is(new URL(page.url()).search, '?user=cleo');
    await page.goBack();
    await page
      .getByRole('heading', { level: 2, name: 'Every access to this patient, newest first' })
      .waitFor();

    await page.goto(`${backend.base}/audit?since=yesterday`);
    const alert = page.getByRole('alert').filter({ hasText: 'could not be read' });
    await alert.waitFor();
    t.regex(await alert.innerText(), /since is not an ISO 8601 date/);
    await axeCheck(page, t);
    await screenshot(page, 'audit-bad-filter');
  },
);

test.serial(
  'the patient page shows who opened and changed the record, for base.audit.read holders only',
  async (t) => {
    const admin = await browser.page(t);
    await admin.goto(`${backend.base}/patients/${patientId}`);
    await signIn(admin, 'chief');
    await admin.getByRole('heading', { level: 1, name: 'Lovelace, Ada' }).waitFor();
    const part = admin.getByRole('region', { name: 'Record access' });
    const table = part.getByRole('table', { name: /Who opened and changed this record/ });
    await table.getByRole('row').nth(1).waitFor();
    t.is(await table.getByRole('row').count(), 11, 'the newest 10 and the header row');
    // Opening the page was recorded (newest first), before cleo's change.
    t.regex(await table.getByRole('row').nth(1).innerText(), /chief.*Opened a record/s);
    t.regex(await table.getByRole('row').nth(2).innerText(), /cleo.*Changed a record/s);
    await axeCheck(admin, t);
    await screenshot(admin, 'audit-chart-panel');
    await tabTo(admin, part.getByRole('link', { name: 'Every access to this patient' }));
    await admin.keyboard.press('Enter');
    await admin
      .getByRole('heading', { level: 2, name: 'Every access to this patient, newest first' })
      .waitFor();
    t.is(new URL(admin.url()).pathname, '/audit');

    const clinician = await browser.page(t);
    await clinician.goto(`${backend.base}/patients/${patientId}`);
    await signIn(clinician, 'cleo');
    await clinician.getByRole('heading', { level: 1, name: 'Lovelace, Ada' }).waitFor();
    t.false((await sidebarLabels(clinician)).includes('Audit'));
    t.is(await clinician.getByRole('heading', { name: 'Record access' }).count(), 0);
    await clinician.goto(`${backend.base}/audit?patient=${patientId}`);
    const refused = clinician.getByRole('alert').filter({ hasText: 'could not be read' });
    await refused.waitFor();
    t.regex(await refused.innerText(), /base\.audit\.read|permission/i);
    await axeCheck(clinician, t);
    await screenshot(clinician, 'audit-refused');
  },
);
