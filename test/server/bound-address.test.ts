import test from 'ava';
import { boundAddress } from '../../src/server/backend.ts';

test('the bound address as a URL: IPv6 in brackets, and whether it is every interface', (t) => {
  t.deepEqual(boundAddress({ address: '127.0.0.1', family: 'IPv4', port: 8080 }), {
    url: 'http://127.0.0.1:8080',
    everyInterface: false,
  });
  t.deepEqual(boundAddress({ address: '::1', family: 'IPv6', port: 8080 }), {
    url: 'http://[::1]:8080',
    everyInterface: false,
  });
  t.deepEqual(boundAddress({ address: '0.0.0.0', family: 'IPv4', port: 80 }), {
    url: 'http://0.0.0.0:80',
    everyInterface: true,
  });
  t.deepEqual(boundAddress({ address: '::', family: 'IPv6', port: 80 }), {
    url: 'http://[::]:80',
    everyInterface: true,
  });
});
