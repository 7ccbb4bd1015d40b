/**
 * Bounds shared by every layer.
 *
 * @module
 */

/**
 * The longest delay a timer honours, in milliseconds (2,147,483,647, about 24.8 days): past it Node and browsers
 * fire `setTimeout` after 1 ms instead. Every duration option is at most this.
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;
