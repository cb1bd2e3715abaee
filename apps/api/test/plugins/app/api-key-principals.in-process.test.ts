// api-key-principals.test.ts with principal changes over PostgreSQL LISTEN/NOTIFY (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./api-key-principals.test.js');
