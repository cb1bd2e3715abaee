/**
 * The rich fields of a notification (docs/sending.md, "Pictures, buttons and behaviour") that the API's and the
 * worker's tests both send: two buttons, one with its own URL and icon, and every behaviour flag.
 * Each test adds its own title, body, image and data around them.
 */
export const richNotificationFields = () => ({
  actions: [
    { action: 'buy', title: 'Buy now', url: 'https://shop.example/buy', icon: 'https://shop.example/cart.png' },
    { action: 'later', title: 'Later' },
  ],
  requireInteraction: true,
  silent: false,
  renotify: true,
  tag: 'sale-1',
});
