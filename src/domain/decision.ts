// Values of the business that every layer names: the verdict, an agent's trust level, a
// budget's calendar window (SPEC.md). The rows of the tables that store them use these too.

/** What POST /authorize answers. */
export type Decision = 'APPROVE' | 'DECLINE' | 'STEP_UP';

/** An agent's trust level. */
export type TrustLevel = 'REGISTERED' | 'VERIFIED' | 'TRUSTED';

/** The calendar window a cap or a Principal budget counts in (in the Principal's timezone). */
export type BudgetWindow = 'day' | 'week' | 'month' | 'year';
