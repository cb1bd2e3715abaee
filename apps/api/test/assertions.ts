// The contract's error answer and cookie readers are shared with the other apps' tests: they live in
// @webpush/testing. Re-exported so the API's tests keep one short import.
export {
  assertError,
  type ErrorExpectation,
  sessionCookie,
  setCookies,
  TEST_PUBLIC_URL,
  UUID,
} from '@webpush/testing';
