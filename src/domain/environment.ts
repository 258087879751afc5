/** The two worlds of every credential and record: real money (live) and testing (sandbox). */
export type Environment = 'live' | 'sandbox';
