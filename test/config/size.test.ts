/** Size settings: bytes, or a number with kb or mb. */
import test from 'ava';
import { parseSize } from '../../src/config/size.ts';

test('WARD_JSON_LIMIT sizes', (t) => {
  t.is(parseSize('1mb'), 1024 * 1024);
  t.is(parseSize('512KB'), 512 * 1024);
  t.is(parseSize('2048'), 2048);
  t.is(parseSize('10b'), 10);
  for (const bad of ['', '0', '1gb', '-1', '1.5mb', 'lots'])
    t.throws(() => parseSize(bad), { message: /WARD_JSON_LIMIT=.* is not a size/ }, bad);
});
