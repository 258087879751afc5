-- A budget credit (a hold released, expired or partly captured, a refund) is applied to the
-- agent's actor in memory instead of making it reload (src/shard/actors.ts creditAgent). Each
-- credit bumps its agent's credit_seq in the transaction that writes it, so the number orders
-- the agent's credits by commit (the row lock serialises them), and a state load reads the
-- sequence in the same statement as the credit sums (src/decision/windows.ts): a credit
-- numbered above the loaded one is not in the state yet, one at or below it is.
alter table agents add column if not exists credit_seq bigint not null default 0;
