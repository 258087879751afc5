/** What POST /authorize answers (SPEC.md). */
export type Decision = 'APPROVE' | 'DECLINE' | 'STEP_UP';
