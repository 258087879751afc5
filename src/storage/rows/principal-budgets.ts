// The `principal_budgets` table (migrations/0220_principal_budgets.sql): one budget per
// Principal across its agents. A row as postgres.js returns it: NUMERIC and BIGINT as exact
// decimal text, timestamptz as Date.

import type { BudgetWindow } from '../../domain/decision.js';

export interface PrincipalBudgetRow {
  principal_id: string;
  amount: string;
  currency: string;
  budget_window: BudgetWindow;
  /** Share of the budget at which principal_budget.threshold_reached is emitted (default 0.8). */
  alert_share: string;
  /** Spend counts from here (a budget set mid-window counts from the moment it was set). */
  effective_from: Date;
  /** New at every change (a sequence): an actor that loaded an older one reloads before its next grant. */
  version: string;
  created_at: Date;
  updated_at: Date;
}
