// health.test.ts with the API's counters, buffers and caches in its own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./health.test.js');
