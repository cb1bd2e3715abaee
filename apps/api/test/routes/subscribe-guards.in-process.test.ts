// subscribe-guards.test.ts with the per-app cap counted in the API's own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./subscribe-guards.test.js');
