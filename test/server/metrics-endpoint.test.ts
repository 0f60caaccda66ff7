import test from 'ava';
import { presentsToken } from '../../src/server/metrics-endpoint.ts';

const TOKEN = 'metrics-token-0123456789';

test('the token is accepted as a bearer token, the scheme in any case', (t) => {
  t.true(presentsToken(`Bearer ${TOKEN}`, TOKEN));
  t.true(presentsToken(`bearer ${TOKEN}`, TOKEN));
  t.true(presentsToken(`BEARER  ${TOKEN} `, TOKEN));
});

test('anything else is refused: no header, another scheme, the bare token, a longer or shorter one', (t) => {
  for (const header of [
    undefined,
    '',
    TOKEN,
    `Basic ${TOKEN}`,
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN.slice(1)}`,
    `Bearer ${TOKEN} extra`,
    'Bearer ',
  ])
    t.false(presentsToken(header, TOKEN), JSON.stringify(header));
});
