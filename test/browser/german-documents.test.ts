/**
 * The documents layer in a de-DE browser: a file filed by its name and a category, listed with
 * German words and a German date, previewed, deleted (the question and the answer in German) and
 * restored; the filter (category, search, deleted shown) kept in the address through reload and
 * Back.
 */
import test from 'ava';
import { insertPatients } from '../modules/helpers.ts';
import {
  axeCheck,
  eventually,
  germanPage,
  launchBrowser,
  ONE_PIXEL_PNG,
  press,
  screenshot,
  startBackend,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

let browser: LaunchedBrowser;
let backend: Backend;
let mullerId: number;

test.before(async () => {
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients', 'documents'],
    users: [{ username: 'ada', roles: ['admin'] }],
  });
  [mullerId] = (await insertPatients(backend.knex, [
    { mrn: 'MRN-0043', family_name: 'Müller', given_name: 'Jürgen' },
  ])) as [number];
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Today as a de-DE list writes it (27.11.2026). */
const today = () => new Date().toLocaleDateString('de-DE', { dateStyle: 'medium' });

test('a de-DE admin files, previews, deletes and restores a document in German, the filter in the address', async (t) => {
  const page = await germanPage(browser, t, backend, 'ada', `/documents?patient=${mullerId}`);
  await page.getByRole('heading', { name: 'Dokumente von Müller, Jürgen' }).waitFor();
  await page.getByText('Noch keine Dokumente').waitFor();
  for (const [name, category, buffer] of [
    ['Befund Müller.pdf', 'Laborbefund', Buffer.from('%PDF-1.4\n')],
    ['Knie.png', 'Bildgebung', ONE_PIXEL_PNG],
    ['Brief.png', 'Brief', ONE_PIXEL_PNG],
  ] as const) {
    await page.locator('#field-file').setInputFiles({
      name,
      mimeType: name.endsWith('.pdf') ? 'application/pdf' : 'image/png',
      buffer,
    });
    await page.getByRole('combobox', { name: 'Kategorie', exact: true }).selectOption({ label: category });
    await press(page, 'Hochladen');
    await page.getByText(`„${name}“ wurde hochgeladen (${buffer.length} Bytes).`).waitFor();
  }
  const table = page.getByRole('table', {
    name: 'Dokumente von Müller, Jürgen, neueste zuerst',
    exact: true,
  });
  const pdfRow = table.getByRole('row').filter({ hasText: 'Befund Müller.pdf' });
  await pdfRow.getByRole('cell', { name: 'Laborbefund', exact: true }).waitFor();
  await pdfRow.getByRole('cell', { name: 'Hochgeladen', exact: true }).waitFor();
  await pdfRow.getByRole('cell', { name: today(), exact: true }).waitFor();
  t.deepEqual(
    (await table.getByRole('columnheader').allInnerTexts()).map((header) => header.trim()),
    ['Titel', 'Kategorie', 'Herkunft', 'Datum', 'Datei', 'Größe', 'Aktionen'],
  );
  await axeCheck(page, t);
  await screenshot(page, 'german-documents-filed');

  await press(page, 'Vorschau Knie.png');
  await page.getByRole('heading', { name: 'Vorschau von Knie.png' }).waitFor();
  // Loaded and decoded: the preview shows the picture, not a broken image.
  const picture = page.locator('.document-preview img');
  await eventually(
    t,
    () => picture.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
    1,
    'the picture is decoded',
  );
  await axeCheck(page, t);
  await screenshot(page, 'german-documents-preview');
  await press(page, 'Vorschau schließen');

  await press(page, 'Löschen Befund Müller.pdf');
  await page.getByText('„Befund Müller.pdf“ löschen?').waitFor();
  await axeCheck(page, t);
  await press(page, 'Löschen');
  await page.getByText('„Befund Müller.pdf“ wurde gelöscht.').waitFor();
  await page.getByRole('checkbox', { name: 'Gelöschte Dokumente anzeigen' }).check();
  const bin = page.getByRole('table', { name: 'Gelöschte Dokumente von Müller, Jürgen, neueste zuerst' });
  await bin.getByRole('cell', { name: 'Befund Müller.pdf' }).first().waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'german-documents-deleted');
  await press(page, 'Wiederherstellen Befund Müller.pdf');
  await page.getByText('„Befund Müller.pdf“ wurde wiederhergestellt.').waitFor();
  await page.getByText('Keine gelöschten Dokumente').waitFor();
  t.like(await backend.knex('documents_document').where({ file_name: 'Befund Müller.pdf' }).first(), {
    deleted_at: null,
    category: 'lab_result',
  });

  // The filter, in the address.
  const titles = async () =>
    (await table.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t')[0]!.trim());
  await page.getByRole('combobox', { name: 'Kategorie anzeigen' }).selectOption({ label: 'Bildgebung' });
  await page.getByRole('searchbox', { name: 'Dokumente durchsuchen' }).fill('KNIE');
  const filtered = async (when: string) => {
    await eventually(t, titles, ['Knie.png'], when);
    t.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), {
      patient: String(mullerId),
      category: 'imaging',
      q: 'KNIE',
      deleted: '1',
    });
  };
  await filtered('as filtered');
  await page.reload();
  await page.getByRole('heading', { name: 'Dokumente von Müller, Jürgen' }).waitFor();
  t.is(await page.getByRole('searchbox', { name: 'Dokumente durchsuchen' }).inputValue(), 'KNIE');
  await filtered('after a reload');
  await page.getByRole('navigation', { name: 'Module' }).getByRole('link', { name: 'Patienten' }).click();
  await page.getByRole('heading', { name: 'Patienten', level: 1 }).waitFor();
  await page.goBack();
  await filtered('after Back');
  await axeCheck(page, t);
});
