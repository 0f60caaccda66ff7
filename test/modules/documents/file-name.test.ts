/** The file-name rule of documents, over any text a client may send. */
import test from 'ava';
import fc from 'fast-check';
import { asciiFileName, previewable, sanitiseFileName } from '../../../modules/documents/lib/file-name.ts';

test('a cleaned file name is trimmed NFC, at most 255 characters, with no folder, control or invisible character', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (raw) => {
      const name = sanitiseFileName(raw);
      if (name === null) return;
      t.false(/[/\\\p{Cc}\p{Cf}]/u.test(name));
      t.true([...name].length <= 255);
      t.is(name, name.trim());
      t.is(name, name.normalize('NFC'));
      t.false(/^\.+$/.test(name));
    }),
  );
});

test('an ordinary name is kept as it is; a long one keeps its extension', (t) => {
  t.is(sanitiseFileName('Befund Müller.pdf'), 'Befund Müller.pdf');
  t.is(sanitiseFileName('/home/x/Scan 1.JPG'), 'Scan 1.JPG');
  const long = sanitiseFileName(`${'a'.repeat(300)}.pdf`);
  t.is(long?.length, 255);
  t.true(long?.endsWith('.pdf'));
  for (const empty of ['', '   ', '..', 'dir/']) t.is(sanitiseFileName(empty), null, empty);
});

test('the ASCII stand-in drops accents and replaces what else is not printable ASCII', (t) => {
  t.is(asciiFileName('Befund Müller.pdf'), 'Befund Muller.pdf');
  t.is(asciiFileName('Überweisung – "Ärztin".pdf'), 'Uberweisung _ _Arztin_.pdf');
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (raw) => t.true(/^[\x20-\x7e]*$/.test(asciiFileName(raw)))),
  );
});

test('only PDF, raster images and plain text are previewable; HTML, SVG and XML never are', (t) => {
  for (const type of ['application/pdf', 'image/png', 'IMAGE/JPEG', 'text/plain; charset=utf-8', 'text/csv'])
    t.true(previewable(type), type);
  for (const type of [
    'text/html',
    'image/svg+xml',
    'application/xhtml+xml',
    'text/xml',
    'application/octet-stream',
  ])
    t.false(previewable(type), type);
});
