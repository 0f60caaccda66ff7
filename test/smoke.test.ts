import test from 'ava';
import { WardError } from '../src/errors/ward-error.ts';

test('errors carry code, message and hint', (t) => {
  const error = new WardError('x', 'm', 'h');
  t.deepEqual(error.toJSON(), { code: 'x', message: 'm', hint: 'h' });
});
