import test from 'ava';
import { FRONTEND_ROUTE, routeLabel, UNMATCHED_ROUTE } from '../../src/api/http-metrics.ts';

test('a request is labelled with the template of the route that matched, never its path', (t) => {
  t.is(
    routeLabel('/api/v1/patients/patients/:id', '/api/v1/patients/patients/12'),
    '/api/v1/patients/patients/:id',
  );
  t.is(routeLabel('/health', '/health'), '/health');
});

test('without a matched route: the web shell outside the API, unmatched under it', (t) => {
  t.is(routeLabel(undefined, '/patients/12'), FRONTEND_ROUTE);
  t.is(routeLabel(undefined, '/assets/index-abc.js'), FRONTEND_ROUTE);
  t.is(routeLabel(undefined, '/api/v1'), UNMATCHED_ROUTE);
  t.is(routeLabel(undefined, '/api/v1/nothing/here/42'), UNMATCHED_ROUTE);
  t.is(routeLabel(undefined, '/api/v10'), FRONTEND_ROUTE);
});
