/** Where this browser keeps the push alerts it holds, with their delete tokens (localStorage). */
export const HELD_ALERTS = 'border-waits:push-alerts';
