import test from 'ava';
import { isClientGone } from '../../src/api/errors.ts';

const error = (code: string) => Object.assign(new Error(code), { code });

test('a reset, a broken pipe, a stream cut short or a body that ends early is the client leaving, once its connection is closed', (t) => {
  for (const code of [
    'ECONNRESET',
    'EPIPE',
    'ECONNABORTED',
    'ERR_STREAM_PREMATURE_CLOSE',
    'HPE_INVALID_EOF_STATE',
  ])
    t.true(isClientGone(error(code), true), code);
});

test('the same errors while the client is still connected are not its leaving (a database connection reset)', (t) => {
  t.false(isClientGone(error('ECONNRESET'), false));
  t.false(isClientGone(error('ERR_STREAM_PREMATURE_CLOSE'), false));
});

test('other errors are never the client leaving, connected or not', (t) => {
  for (const value of [error('body_too_large'), new Error('boom'), null, 'ECONNRESET'])
    t.false(isClientGone(value, true));
});
