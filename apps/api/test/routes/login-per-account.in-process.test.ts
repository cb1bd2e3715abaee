// login-per-account.test.ts with the failed sign-in counters in the API's own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./login-per-account.test.js');
