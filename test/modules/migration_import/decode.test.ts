import test from 'ava';
import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { decodeUtf8 } from '../../../modules/migration_import/lib/decode.ts';
import { InputFault } from '../../../modules/migration_import/lib/fault.ts';
import { bytes, chunks } from './helpers.ts';

/** The decoded text and, when decoding stopped, the warning message of the fault. */
async function decode(source: AsyncIterable<Uint8Array>): Promise<{ text: string; fault?: string }> {
  let text = '';
  try {
    for await (const chunk of decodeUtf8(source)) text += chunk;
  } catch (error) {
    if (!(error instanceof InputFault)) throw error;
    return { text, fault: error.warning({ row: error.line }).message };
  }
  return { text };
}

const REUPLOAD = 'save the file as UTF-8 and upload it again';

test('a UTF-8 byte order mark is dropped, even when it arrives a byte at a time', async (t) => {
  t.deepEqual(await decode(chunks('\uFEFFId,né\n', [1])), { text: 'Id,né\n' });
});

test('property: any text decodes to itself however the bytes are chunked', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: 'grapheme' }).filter((text) => !text.includes('\0') && !text.startsWith('\uFEFF')),
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 10 }),
      async (text, sizes) => t.deepEqual(await decode(chunks(text, sizes)), { text }),
    ),
    { numRuns: 300 },
  );
});

test('a Latin-1 byte names its offset and line; the text before it is still delivered', async (t) => {
  const latin1 = Buffer.from('Id\nJos\u00e9\n', 'latin1');
  t.deepEqual(await decode(chunks(latin1, [4])), {
    text: 'Id\nJos',
    fault: `byte 0xE9 at byte offset 6 (line 2) is not valid UTF-8; ${REUPLOAD}`,
  });
});

test('offsets count the UTF-8 byte order mark and earlier chunks', async (t) => {
  const source = bytes(Buffer.from([0xef, 0xbb, 0xbf, 0x61]), Buffer.from([0x0a, 0x62, 0xc3, 0x28]));
  t.is((await decode(source)).fault, `byte 0xC3 at byte offset 6 (line 2) is not valid UTF-8; ${REUPLOAD}`);
});

test('UTF-16 byte order marks are refused at offset 0', async (t) => {
  const little = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Id', 'utf16le')]);
  t.deepEqual(await decode(bytes(little)), {
    text: '',
    fault: `the file starts with a UTF-16 byte order mark (FF FE) at byte offset 0; ${REUPLOAD}`,
  });
  t.is(
    (await decode(bytes(Buffer.from([0xfe, 0xff, 0, 0x49])))).fault,
    `the file starts with a UTF-16 byte order mark (FE FF) at byte offset 0; ${REUPLOAD}`,
  );
});

test('UTF-16 without a mark is caught by its NUL bytes', async (t) => {
  t.deepEqual(await decode(bytes(Buffer.from('Id\n', 'utf16le'))), {
    text: 'I',
    fault: `NUL byte at byte offset 1 (line 1): the file is UTF-16 or binary, not UTF-8 text; ${REUPLOAD}`,
  });
});

test('a file cut inside a multi-byte character is refused at the character', async (t) => {
  t.deepEqual(await decode(bytes('ok\n', Buffer.from([0xe2, 0x82]))), {
    text: 'ok\n',
    fault: `the file ends inside a UTF-8 character that starts at byte offset 3 (line 2); ${REUPLOAD}`,
  });
});

test('surrogates and overlong forms are not UTF-8', async (t) => {
  t.is(
    (await decode(bytes(Buffer.from([0x61, 0xed, 0xa0, 0x80])))).fault,
    `byte 0xED at byte offset 1 (line 1) is not valid UTF-8; ${REUPLOAD}`,
  );
  t.is(
    (await decode(bytes(Buffer.from([0xc0, 0xaf])))).fault,
    `byte 0xC0 at byte offset 0 (line 1) is not valid UTF-8; ${REUPLOAD}`,
  );
});

test('an empty source is empty text', async (t) => {
  t.deepEqual(await decode(bytes()), { text: '' });
});
