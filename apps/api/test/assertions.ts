// The contract's error answer and the cookie readers are shared with other apps' tests (@webpush/testing).
export { assertError, sessionCookie, setCookies, TEST_PUBLIC_URL, UUID } from '@webpush/testing';
