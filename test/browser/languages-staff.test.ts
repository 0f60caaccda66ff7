/**
 * The base layer and the shell's account pages in German: a de-DE administrator sees the Staff
 * page, adds a person and reads the server's refusal in German, reads the Modules and Audit
 * pages in German, and sets up two-factor sign-in from the account page in German.
 */
import test from 'ava';
import {
  anmelden,
  axeCheck,
  launchBrowser,
  screenshot,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients'],
    users: [
      { username: 'alice', roles: ['admin'] },
      { username: 'erin', roles: ['receptionist'] },
    ],
  });
});

test.after.always(async () => {
  await Promise.all([browser?.close(), backend?.stop()]);
});

test('a de-DE administrator manages staff, reads the Modules and Audit pages and opens two-factor setup in German', async (t) => {
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.goto(backend.base);
  await anmelden(page, 'alice');
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();

  await tabTo(
    page,
    page.getByRole('navigation', { name: 'Module' }).getByRole('link').filter({ hasText: 'Personal' }),
  );
  await page.keyboard.press('Enter');
  const table = page.getByRole('table', { name: 'Personal' });
  await table.getByRole('link', { name: 'erin' }).waitFor();
  t.true(await table.getByRole('columnheader', { name: 'Benutzername' }).isVisible());
  t.true(await page.getByRole('heading', { name: 'Eine Person hinzufügen' }).isVisible());

  await page.getByLabel('Benutzername').fill('bob');
  await page.getByLabel('Rolle').selectOption('receptionist');
  await page.getByLabel('Vorläufiges Passwort').fill('passwordpassword');
  await page.getByRole('button', { name: 'Person hinzufügen' }).click();
  const refusal = page.getByRole('alert').filter({ hasText: 'Die Person wurde nicht angelegt' });
  await refusal.waitFor();
  t.regex(await refusal.innerText(), /zu leicht zu erraten/);
  await axeCheck(page, t);
  await screenshot(page, 'languages-staff-de');

  await page.goto(`${backend.base}/modules`);
  await page.getByRole('heading', { name: 'Ausstehende Änderungen' }).waitFor();
  await page.getByRole('table', { name: 'Alle Module auf der Festplatte oder in der Datenbank' }).waitFor();
  t.true(await page.getByRole('button', { name: 'Neu starten' }).isVisible());
  await axeCheck(page, t);
  await screenshot(page, 'languages-modules-de');

  await page.goto(`${backend.base}/audit?user=alice`);
  await page.getByRole('heading', { name: 'Prüfprotokoll', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Alles, was alice getan hat, neueste zuerst' }).waitFor();
  t.true(await page.getByRole('button', { name: 'Anzeigen' }).isVisible());
  await axeCheck(page, t);

  await page.getByRole('link', { name: 'Ihr Konto' }).click();
  await page.getByRole('heading', { name: 'Ihr Konto', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Zwei-Faktor-Anmeldung einrichten' }).click();
  await page.getByRole('heading', { name: 'Scannen Sie diesen Code mit Ihrer Authenticator-App' }).waitFor();
  t.true(await page.getByLabel('Code aus der App').isVisible());
  await axeCheck(page, t);
  await screenshot(page, 'languages-two-factor-de');
});
